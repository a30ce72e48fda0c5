"""Claims about what the question's own searches found (``searches.LogSearch``).

Per service and search, the invocations it made are read back:

- lines (and log groups, ``$.groups[i]``) came back: an ``observation`` quoting the most common
  kinds of line -- a group as "291 WARN lines like "…" from A to B" (its count, template and
  time range copied from the group, cited with the group and its sample lines), a line by its
  own message (the newest of its shape, cited with the others of that shape);
- every call came back empty: a ``negative_observation`` saying what was searched (service,
  terms or words, level) and bound to those calls, so the gatekeeper can check the absence;
- lines came back but none is about what was asked (a compound's focus), or all of them are
  excluded: nothing is claimed (no finding, and no absence either).

Every number, timestamp and word a claim states is copied from the refs it cites.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from core.agents.rules.evidence import EvidenceItem, collect_items
from core.agents.rules.logsearch import LogSearch
from core.agents.rules.searches import compound_labels
from core.contracts import Claim, EvidenceBinding, Exclusions, Invocation, Language, LogGroup
from core.language.concepts import concepts_held, holds_term
from core.language.subjects import excluded_mentions
from core.language.text import normalize
from core.logfields import level_rank
from core.tools.spec import evidence_at

MAX_KINDS = 3  # kinds of line (groups, shapes) a claim quotes
MAX_BINDINGS_PER_KIND = 3


@dataclass
class SearchOutcome:
    """One search of one service: the calls it made and the evidence they returned."""

    service: str | None
    search: LogSearch
    invocations: list[Invocation] = field(default_factory=list)
    # Which rung of the recall ladder found the lines (``ladder``): "exact" for the search's
    # own attempts.
    rung: str = "exact"
    # The ladder's calls after the attempts found nothing, all empty too: an absence binds them.
    rungs: list[Invocation] = field(default_factory=list)

    @property
    def no_hit(self) -> bool:
        """Every call succeeded and returned nothing."""
        return bool(self.invocations) and all(
            inv.retrieval_details is not None and inv.retrieval_details.evidence_status == "no_evidence"
            for inv in self.invocations)


@dataclass(frozen=True)
class _Kind:
    """One kind of matching line: a group, or lines of one shape."""

    phrase_zh: str
    phrase_en: str
    bindings: tuple[EvidenceBinding, ...]
    weight: int
    level: str
    service: str  # whose lines they are


def _focused(items: list[EvidenceItem], search: LogSearch) -> list[EvidenceItem]:
    """Lines holding one phrase of every focus set (a compound searched as a union)."""
    if not search.focus:
        return items
    return [item for item in items
            if all(any(holds_term(normalize(item.text), phrase) for phrase in phrases)
                   for phrases in search.focus)]


def _binding(invocation: Invocation, raw_path: str, text: str) -> EvidenceBinding:
    return EvidenceBinding(tool_name=invocation.tool_name, source_invocation_id=invocation.invocation_id,
                           raw_path=raw_path, evidence_excerpt=text)


def _group_kinds(invocation: Invocation, exclusions: Exclusions,
                 lines: dict[int, EvidenceItem]) -> list[_Kind]:
    kinds: list[_Kind] = []
    details = invocation.retrieval_details
    for ref in details.evidence_refs if details else []:
        located = evidence_at(invocation.tool_name, ref.raw_path)
        if located is None or located[0].entry is not LogGroup:
            continue
        groups = invocation.output.get(located[0].key) or []
        if located[1] >= len(groups):
            continue
        group = LogGroup.model_validate(groups[located[1]])
        if excluded_mentions(ref.text, exclusions):
            continue
        samples = [lines[i] for i in group.sample_indexes if i in lines][:MAX_BINDINGS_PER_KIND]
        if group.count == 1 and samples:
            kinds += _line_kinds(samples)  # one line: the line itself says more than its template
            continue
        kinds.append(_Kind(_group_phrase(group, "zh"), _group_phrase(group, "en"),
                           (_binding(invocation, ref.raw_path, ref.text),
                            *(sample.binding() for sample in samples)),
                           group.count, group.level, group.service))
    return kinds


def _group_phrase(group: LogGroup, language: Language) -> str:
    """A group told with the facts of its ref text (``core.tools.refs.group_ref``): count,
    level, first and last timestamp, template, copied as the group holds them.

    "Between A and B", not "from A to B": in a claim quoting several groups, B is this group's
    last time, not the newest of all the claim cites (which "to" would say). One time is in
    parentheses, as in Chinese: "1 ERROR line at A" reads A as the time of the count, which
    the ref text (``1 line like "..." [ERROR][svc] at A``) does not say of it. The template
    comes last: one ending in ``<*>`` must not run into a timestamp once quote marks are read
    as nothing.
    """
    same = group.first_timestamp == group.last_timestamp
    if language == "zh":
        when = (f"时间 {group.first_timestamp}" if same
                else f"{group.first_timestamp} 与 {group.last_timestamp} 之间")
        return f"{group.count} 条 {group.level} 日志（{when}）形如「{group.template}」"
    when = (f"(at {group.first_timestamp})" if same
            else f"between {group.first_timestamp} and {group.last_timestamp}")
    lines = "line" if group.count == 1 else "lines"
    return f'{group.count} {group.level} {lines} {when} like "{group.template}"'


_DIGITS = re.compile(r"\d+")


def _shape(message: str) -> str:
    """Lines of one kind: the same message once numbers are masked."""
    return _DIGITS.sub("#", message)


def _line_kinds(items: list[EvidenceItem]) -> list[_Kind]:
    by_shape: dict[tuple[str, str], list[EvidenceItem]] = {}
    for item in items:
        if item.log is not None:
            by_shape.setdefault((item.log.service, _shape(item.log.message)), []).append(item)
    kinds = []
    for shaped in by_shape.values():
        newest = max(shaped, key=lambda item: item.log.timestamp if item.log else "")
        assert newest.log is not None
        message = newest.log.message
        kinds.append(_Kind(f"「{message}」", f'"{message}"',
                           tuple(item.binding() for item in shaped[:MAX_BINDINGS_PER_KIND]),
                           len(shaped), newest.log.level, newest.log.service))
    return kinds


def _kinds(outcome: SearchOutcome, exclusions: Exclusions) -> list[_Kind]:
    """The kinds of matching line the outcome's calls returned, most common first."""
    kinds: list[_Kind] = []
    for invocation in outcome.invocations:
        items = [item for item in collect_items([invocation])
                 if item.log is not None and not excluded_mentions(item.ref.text, exclusions)]
        items = _focused(items, outcome.search)
        by_index = {int(item.ref.raw_path.split("[")[1].rstrip("]")): item for item in items}
        groups = _group_kinds(invocation, exclusions, by_index)
        kinds += groups if groups and not outcome.search.focus else _line_kinds(items)
    # The most severe kinds first for questions about trouble, the most common first for
    # questions about what was logged.
    by_level = outcome.search.kind in ("concept", "qualifier", "compound")
    ordered = sorted(kinds, key=lambda kind: ((-_level_rank(kind.level) if by_level else 0),
                                              -kind.weight))
    unique: dict[str, _Kind] = {}
    for kind in ordered:
        unique.setdefault(kind.phrase_en, kind)
    return list(unique.values())[:MAX_KINDS]


def _level_rank(level: str) -> int:
    """The level's rank as every log reader ranks it (an unknown level ranks as INFO)."""
    rank = level_rank(level)
    return 2 if rank is None else rank


def found_claims(outcome: SearchOutcome, exclusions: Exclusions, language: Language) -> list[Claim]:
    """Observations quoting what the search found (none when nothing relevant came back): one
    of the service searched, or, for a search of every service, one per service whose lines
    came back -- a sentence naming one service must not quote another's lines."""
    kinds = _kinds(outcome, exclusions)
    if not kinds and outcome.search.focus and (held := _as_held(outcome)) is not None:
        outcome, kinds = held, _kinds(held, exclusions)
    by_service: dict[str, list[_Kind]] = {}
    for kind in kinds:
        by_service.setdefault(outcome.service or kind.service, []).append(kind)
    return [_found_claim(service, _labelled_as_cited(outcome, service_kinds), service_kinds, language)
            for service, service_kinds in by_service.items()]


def _labelled_as_cited(outcome: SearchOutcome, kinds: list[_Kind]) -> SearchOutcome:
    """The outcome, its label naming only the concepts its cited lines hold: a compound searched
    as "any of its words" under a topic filter ("Redis 连接超时": Redis lines with a timeout or
    connection word) may cite only timeout lines, and the verifier reads every concept a label
    names in the lines it cites. Its topics stay: the topic filter put them in every line."""
    search = outcome.search
    if search.kind != "compound" or not search.concepts:
        return outcome
    cited = set().union(*(concepts_held(binding.evidence_excerpt)
                          for kind in kinds for binding in kind.bindings))
    held = tuple(name for name in search.concepts if name in cited)
    if held == search.concepts:
        return outcome
    members = [*search.topics, *held]
    if members:
        label_zh, label_en = compound_labels(members)
    else:
        label_zh, label_en = "", ""
    relabelled = replace(search, concepts=held, label_zh=label_zh, label_en=label_en,
                         kind="compound" if members else "keywords")
    return SearchOutcome(outcome.service, relabelled, outcome.invocations)


def _as_held(outcome: SearchOutcome) -> SearchOutcome | None:
    """A compound's lines that hold only some of its concepts ("When did sshd last reject a
    password?": ``Failed password`` lines, none saying "rejected"), told as what they hold --
    the concepts every one of their texts says -- instead of not at all; None when they hold none."""
    said = [concepts_held(item.text) for item in collect_items(outcome.invocations) if item.log is not None]
    held = [name for name in outcome.search.concepts if said and all(name in each for each in said)]
    if not held:
        return None
    label_zh, label_en = compound_labels(held)
    search = replace(outcome.search, focus=(), concepts=tuple(held), label_zh=label_zh, label_en=label_en)
    return SearchOutcome(outcome.service, search, outcome.invocations)


def _found_claim(service: str, outcome: SearchOutcome, kinds: list[_Kind], language: Language) -> Claim:
    levels = list(dict.fromkeys(kind.level for kind in kinds))
    text = _found_sentence(service, outcome.search, kinds, levels, language)
    bindings = [binding for kind in kinds for binding in kind.bindings]
    return Claim(claim_id="", claim_type="observation", claim_text=text, evidence_bindings=bindings,
                 subject_services=[service], subject_topics=list(outcome.search.topics))


def _label_holds(search: LogSearch, kinds: list[_Kind]) -> bool:
    """Whether an exact term's label can be said: the term is in what the claim cites. A term
    found in a field the ref text does not show (the line's source, its request context) is not
    a fact of the excerpt, so the claim quotes the line without naming the term."""
    if search.kind != "term":
        return True
    terms = [term for attempt in search.attempts for term in attempt.get("terms", [])]
    cited = " ".join(normalize(b.evidence_excerpt) for kind in kinds for b in kind.bindings)
    return all(holds_term(cited, term) for term in terms)


def _found_sentence(service: str | None, search: LogSearch, kinds: list[_Kind], levels: list[str],
                    language: Language) -> str:
    """What was found, framed only with words its evidence says (the verifier reads every
    sentence of a claim): the term quoted as the lines hold it, the levels as the lines have
    them, a concept's label (grounded by its phrases in the lines); keywords are not named --
    the quoted lines show them."""
    quoted = ("；" if language == "zh" else "; ").join(
        kind.phrase_zh if language == "zh" else kind.phrase_en for kind in kinds)
    terms = [term for attempt in search.attempts[:1] for term in attempt.get("terms", [])]
    labelled = search.kind in ("term", "level", "concept", "compound", "qualifier")
    if search.kind == "term" and not _label_holds(search, kinds):
        labelled = False
    if language == "zh":
        subject = f"{service} 的日志中" if service else "日志中"
        if not labelled:
            return f"{subject}有相关记录：{quoted}。"
        if search.kind == "term":
            what = f"与「{terms[0]}」相关的"
        elif search.kind == "level":
            what = f"{' 和 '.join(levels)} 级别的"
        else:
            what = search.label_zh
        return f"{subject}有{_spaced(what)}记录：{quoted}。"
    subject = service or "The logs"
    if not labelled:
        return f"{subject} logged these lines: {quoted}."
    if search.kind == "term":
        return f'{subject} logged lines with "{terms[0]}": {quoted}.'
    if search.kind == "level":
        return f"{subject} logged {' and '.join(levels)} lines: {quoted}."
    return f"{subject} logged lines {search.label_en}: {quoted}."


def _spaced(label: str) -> str:
    """A label inside Chinese text, spaced where it meets Latin letters."""
    if not label:
        return ""
    head = " " if label[0].isascii() and label[0].isalnum() else ""
    return head + label


def _widest(invocations: list[Invocation]) -> list[Invocation]:
    """The calls no other call of the list widens: a call with every argument of another and
    more filters (``topic=http_error`` first, then the code anywhere) found nothing because
    the wider one did, and naming its filter would claim an absence about that filter too."""
    def widens(wider: Invocation, narrower: Invocation) -> bool:
        return (wider.arguments != narrower.arguments
                and all(narrower.arguments.get(key) == value for key, value in wider.arguments.items()))
    return [inv for inv in invocations if not any(widens(other, inv) for other in invocations)]


def absent_claim(claim_id: str, outcome: SearchOutcome, language: Language) -> Claim:
    """A negative observation: what was searched, bound to the widest calls that returned
    nothing (``_widest``)."""
    invocations = _widest(outcome.invocations)
    if outcome.search.kind == "concept":
        # Its plain words' call (a concept's question words at WARN+: "login", "auth") is a
        # net for lines that say it plainly, not the concept's own phrases the label names.
        invocations = invocations[:1]
    # The recall ladder's empty rungs: what makes the absence one of every form of the words,
    # for a search of the question's own words (its label names them). A concept's or a term's
    # absence names its phrases, which a rung of other words does not search (the gatekeeper's
    # negative check): its phrases' calls, searched with ``match="any"``, are its proof.
    if outcome.search.kind == "keywords":
        invocations += [inv for inv in outcome.rungs if inv not in invocations]
    searched = "; ".join(dict.fromkeys(describe_call(inv) for inv in invocations))
    service = outcome.service
    if language == "zh":
        subject = f" {service} 的" if service else ""
        text = (f"未检索到{subject}{_spaced(outcome.search.label_zh)}日志记录："
                f"{searched} 未返回记录。")
    else:
        where = f" for {service}" if service else ""
        text = (f"No log lines {outcome.search.label_en} were found{where}: "
                f"{searched} returned nothing.")
    bindings = [EvidenceBinding(tool_name=inv.tool_name, source_invocation_id=inv.invocation_id,
                                raw_path=None, evidence_excerpt=_no_hit_excerpt(inv))
                for inv in invocations]
    return Claim(claim_id=claim_id, claim_type="negative_observation", claim_text=text,
                 evidence_bindings=bindings, subject_services=[service] if service else [],
                 subject_topics=list(outcome.search.topics))


# What an absence names of the call: the subject and what was searched, never the exclusions
# (naming an excluded subject would put it into the answer).
_DESCRIBED = ("service", "topic", "query", "terms", "level", "since", "until")
_SHOWN_TERMS = 4


def describe_call(invocation: Invocation) -> str:
    """``query_logs(service=zookeeper, terms=['Connection broken'], level=ERROR)``."""
    parts = []
    for key in _DESCRIBED:
        value = invocation.arguments.get(key)
        if value in (None, "", []):
            continue
        if isinstance(value, list):
            # A concept's phrases are many: the first few say what was looked for (the whole
            # request is on the invocation, for the audit).
            shown = ", ".join(repr(item) for item in value[:_SHOWN_TERMS])
            parts.append(f"{key}=[{shown}{', …' if len(value) > _SHOWN_TERMS else ''}]")
        else:
            parts.append(f"{key}={value}")
    return f"{invocation.tool_name}({', '.join(parts)})"


def _no_hit_excerpt(invocation: Invocation) -> str:
    return f"{describe_call(invocation)} -> total={invocation.output.get('total', 0)}"
