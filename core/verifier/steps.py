"""Judging the next steps: recommended actions and ``missing_info`` (the always-on step policy).

The seed allows only evidence-gathering actions (只允许证据收集动作，不允许修复动作): look, query,
collect, compare, dump, check, measure -- never a repair: restart, roll back, scale, raise a
limit, delete, kill, fix (重启、回滚、扩容、调大、删除、杀掉、修复 ...). A repair verb counts when it is
an instruction -- at the start of a clause, after 立即 / then / and, or with its object -- not
when it names what to look at ("查看重启前的容器日志", "count restarts", "是否被重启").

- a repair action fails ``verifier.repair_action`` (REJECT: it is forbidden content), and so
  does a repair written as a ``missing_info`` entry ("Restart order-service now");
- an action must follow from the claims or the missing information: every service it names
  is one of theirs (or the question's), every topic it names is one of theirs, and it gathers
  something (``verifier.action_unfounded``, LOW_CONFID);
- a step that mentions an excluded subject is withheld from the answer
  (``verifier.step_withheld``; the verdict is not lowered: a gap is not a finding);
- a ``missing_info`` entry (or an action) that asserts current state or a diagnosis
  ("内存泄漏已确认", "the leak is confirmed", "根因是 …") fails ``verifier.gap_asserts_state``
  (LOW_CONFID): a gap names what is missing, it does not conclude.

Only passed steps reach the answer; a failed one lowers the verdict by its rule's grade.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Literal

from core.contracts import ExecutorOutput, Plan, StepResult
from core.language.alternation import one_of
from core.language.clauses import content_units
from core.language.lexicon import (
    declared_topics,
    expand_topics,
    services_in,
    topic_mentions,
    topics_in,
)
from core.language.subjects import excluded_mentions, topics_in_scope
from core.language.text import fold, normalize
from core.lazypattern import LazyPattern
from core.verifier.rules import (
    ACTION_UNFOUNDED,
    GAP_ASSERTS_STATE,
    REPAIR_ACTION,
    STEP_WITHHELD,
    most_serious,
)
from core.verifier.words import STEP_WORDS, whole

_W = STEP_WORDS


def _en(words: Iterable[str]) -> str:
    return whole(words, before=r"a-z\-")


def _words(chinese: Iterable[str], english: Iterable[str]) -> str:
    return one_of(chinese) + "|" + _en(english)


# Repair verbs, as instructions, with an object after them. Verbs that are also nouns
# ("restart count", "the increase in memory", "kill events") need an object that is not such a
# noun phrase; Chinese verbs must not be followed by what makes them a noun ("重启前",
# "重启次数", "扩容记录") nor preceded by a passive or a negation ("被重启", "未重启").
_EN_NOUNABLE = re.compile(
    _en(_W.repair_verbs_en_nounable)
    + rf"(?=\s+(?!(?:{one_of(_W.noun_followers)})\b)[\w/.$-])")
_EN_PURE = re.compile(
    r"(?<![a-z\-])(?:" + one_of(_W.repair_verbs_en)
    + r"|set(?:ting)? (?:the |its |their )?[\w\s'.\-]{1,40}? to(?=\s+\d))(?![a-z])"
    + r"(?=\s*[\w/.$-])")
_ZH_REPAIR = re.compile(
    rf"(?<![{re.escape(_W.repair_not_after_zh)}])(?:{one_of(_W.repair_verbs_zh)})"
    rf"(?!{one_of(_W.repair_not_before_zh)})")
# Gathering verbs (what an action may do) in both languages.
_GATHER = re.compile(
    one_of(_W.gather_verbs_zh) + r"|执行 ?explain|开启.{0,12}dump|按 ?runbook|" + _en(_W.gather_verbs_en))
# A clause boundary: the next instruction starts after it.
_CLAUSE = re.compile(r"[，,；;。.!?！？\n]|" + _words(_W.clause_joiners_zh, _W.clause_joiners_en))
# A conclusion: a cause or a state stated as found. Words that only state a cause ("root cause
# is", "caused by", 由于, 问题出在 …) conclude on their own; a state word (leak, exhausted, 宕机 …)
# concludes with an assertion (已确认, 说明, "is confirmed") or when stated outright (已耗尽,
# "is leaking", 存在内存泄漏, 已知的泄漏点).
_CAUSE = re.compile(
    rf"(?:{one_of(_W.cause_nouns_zh)})\s*(?:是|为|在于|[:：])|{one_of(_W.cause_phrases_zh)}|"
    rf"(?:是|为).{{0,20}}(?:{one_of(_W.cause_verbs_zh)})的|"
    + r"(?<![a-z\-])(?:" + one_of(_W.cause_phrases_en) + r"|root cause\s*:|"
    r"(?:is|are|was|were)?\s*(?:clearly |definitely |obviously )?caused by)(?![a-z])")
_ASSERTION = re.compile(_words(_W.assertions_zh, _W.assertions_en))
_STATE_WORD = re.compile(_words(_W.state_words_zh, _W.state_words_en))
# A state stated outright, with no assertion word needed.
_DEFINITE_STATE = re.compile(
    rf"已(?:经)?(?:被.{{0,12}}?)?(?:{one_of(_W.broken_states_zh)})|挂了|宕了|"
    r"(?:存在|有|发生了?|出现了?)(?:内存)?泄[漏露]|(?:已知|确定|确认)的?.{0,6}泄[漏露]|"
    + _en(_W.definite_states_en))
# A state taken as given by naming its details: the leak's source, point, object.
_PRESUMED = re.compile(_words(_W.presumed_zh, _W.presumed_en))
# ... unless the clause asks whether there is one at all.
_ASKED_STATE = LazyPattern(_words(_W.asked_state_zh, _W.asked_state_en))
# Words that keep a clause open: a question, a doubt, or what is missing is not a conclusion.
_HEDGE = re.compile(_words(_W.hedges_zh, _W.hedges_en))


# Following the session's runbook checks is evidence gathering about what the question asked.
_RUNBOOK = LazyPattern(one_of(_W.runbook_words))


def is_repair(text: str) -> str:
    """The repair instruction in ``text`` ('' when there is none)."""
    folded = fold(text)
    for clause in _CLAUSE.split(folded):
        match = _ZH_REPAIR.search(clause) or _EN_NOUNABLE.search(clause) or _EN_PURE.search(clause)
        if match is None:
            continue
        before = clause[:match.start()]
        # "无法判断是否需要调整", "decide whether to restart": a question, not an instruction.
        if _ASKING.search(before):
            continue
        gather = _GATHER.search(clause)
        # "查看重启前的日志", "check whether it was restarted": a gathering verb governs it --
        # unless the repair is a next instruction ("确认后把连接池调大", "看一下然后将其重启").
        if gather is not None and gather.start() < match.start() and not _purpose(clause, match.start()) \
                and not _NEXT_INSTRUCTION.search(clause[gather.end():match.start()]):
            continue
        return match.group().strip()
    return ""


_ASKING = LazyPattern(_words(_W.asking_zh, _W.asking_en))
_NEXT_INSTRUCTION = re.compile(r"^\s*后|[把将]")


def _purpose(clause: str, position: int) -> bool:
    """"以修复 …", "to fix …": a repair stated as the purpose is still a repair."""
    before = clause[:position].rstrip()
    return before.endswith(_W.purpose_before_repair)


def asserted_state(text: str) -> str:
    """A conclusion stated in a step (``内存泄漏已确认``, "root cause is …"), '' when there is
    none. A clause that asks or doubts (是否, 尚不能确认, "whether", "not known") concludes nothing
    -- unless it takes the state as given and doubts only its details (``内存泄漏点尚未定位``,
    "the source of the memory leak is not identified")."""
    folded = fold(text)
    for clause in re.split(r"[，,；;。!?！？\n]|\.(?!\d)", folded):
        if _PRESUMED.search(clause) and not _ASKED_STATE.search(clause):
            return clause.strip()
        if _HEDGE.search(clause):
            continue
        if _CAUSE.search(clause) or _DEFINITE_STATE.search(clause) \
                or (_ASSERTION.search(clause) and _STATE_WORD.search(clause)):
            return clause.strip()
    return ""


def judge_steps(output: ExecutorOutput, plan: Plan, *, claim_texts: list[str]) -> list[StepResult]:
    """One result per ``missing_info`` entry and recommended action, in output order.

    An action follows from the claims (``claim_texts``: those that were entailed) or the gaps
    when it names only their services and is about their topics (or, naming none of their
    topics, shares what it looks at with them: "Run EXPLAIN on the slow statements" after
    "Execution plans of these statements are missing")."""
    basis = [*claim_texts, *(info.description for info in output.missing_info)]
    basis_units = set().union(*(_objects(text) for text in basis)) | _objects(plan.question)
    services = {s.lower() for text in basis for s in services_in(text)} | {s.lower() for s in plan.services}
    services |= {s.lower() for claim in output.claims for s in claim.subject_services}
    topics = set(expand_topics([*(t for text in basis for t in topics_in(text)),
                                *declared_topics(t for claim in output.claims
                                                 for t in claim.subject_topics)]))
    topics |= topics_in_scope(plan.topics)
    results = [_judge_gap(info.info_id, info.description, plan) for info in output.missing_info]
    results += [_judge_action(action.action_id, action.action_text, action.reason, plan, services,
                              topics, basis_units)
                for action in output.recommended_actions]
    return results


def _without_topics(text: str, known: set[str]) -> str:
    """``text`` with the names of topics outside ``known`` blanked: "查看节点的磁盘使用率" after a
    memory finding shares "使用率" with it only through a topic it is not about."""
    normalized = normalize(text)
    for mention in reversed(topic_mentions(normalized)):
        if mention.topic not in known:
            normalized = normalized[:mention.start] + " " + normalized[mention.end:]
    return normalized


def _objects(text: str) -> set[str]:
    """What a text looks at: its content units without the gathering verbs."""
    return set(_objects_of(text))


@lru_cache(maxsize=4096)  # claims, gaps and questions asked again session after session
def _objects_of(text: str) -> frozenset[str]:
    return frozenset(content_units(_GATHER.sub(" ", fold(text))))


def _result(step_id: str, kind: Literal["action", "missing_info"], text: str,
            failures: dict[str, list[str]]) -> StepResult:
    rule = most_serious(set(failures))
    reasons = [reason for values in failures.values() for reason in values]
    return StepResult(step_id=step_id, kind=kind, text=text, passed=rule is None,
                      rule=rule, reasons=reasons or ["evidence gathering that follows from the findings"])


def _withheld(text: str, plan: Plan) -> dict[str, list[str]]:
    """The failures a step starts with: withheld when it mentions an excluded subject."""
    excluded = excluded_mentions(text, plan.exclusions)
    return {STEP_WITHHELD: ["mentions excluded subject(s): " + ", ".join(excluded)]} if excluded else {}


def _judge_gap(info_id: str, text: str, plan: Plan) -> StepResult:
    failures = _withheld(text, plan)
    repair = is_repair(text)
    if repair:
        failures.setdefault(REPAIR_ACTION, []).append(
            f"'{repair}' is a repair; a gap names missing evidence, it does not prescribe a fix")
    stated = asserted_state(text)
    if stated:
        failures.setdefault(GAP_ASSERTS_STATE, []).append(
            f"a gap names what is missing; this one concludes: '{stated}'")
    return _result(info_id, "missing_info", text, failures)


def _judge_action(action_id: str, text: str, reason: str, plan: Plan, services: set[str],
                  topics: set[str], basis_units: set[str]) -> StepResult:
    failures = _withheld(text, plan)
    repair = is_repair(text)
    if repair:
        failures.setdefault(REPAIR_ACTION, []).append(
            f"'{repair}' is a repair; only evidence-gathering actions are allowed")
    repair_in_reason = is_repair(reason)
    if repair_in_reason:
        failures.setdefault(REPAIR_ACTION, []).append(
            f"its reason prescribes a repair ('{repair_in_reason}'); only evidence gathering is allowed")
    stated = asserted_state(text) or asserted_state(reason)
    if stated:
        failures.setdefault(GAP_ASSERTS_STATE, []).append(f"the action concludes: '{stated}'")
    foreign = [s for s in services_in(text) if s.lower() not in services]
    if foreign:
        failures.setdefault(ACTION_UNFOUNDED, []).append(
            "about service(s) no claim or gap is about: " + ", ".join(foreign))
    named = list(dict.fromkeys(topics_in(text)))
    own_services = [s for s in services_in(text) if s.lower() in services]
    shares = bool(_objects(_without_topics(text, topics)) & basis_units)
    if named and not set(named) & topics and not shares:
        failures.setdefault(ACTION_UNFOUNDED, []).append(
            "about topic(s) no claim or gap is about: " + ", ".join(named))
    elif not own_services and not set(named) & topics and not shares and not foreign \
            and not _RUNBOOK.search(fold(text)):
        failures.setdefault(ACTION_UNFOUNDED, []).append(
            "it looks at nothing the claims, the gaps or the question mention")
    if not repair and not _GATHER.search(fold(text)):
        failures.setdefault(ACTION_UNFOUNDED, []).append("it gathers no evidence (no look / query / "
                                                         "collect / compare / dump step)")
    return _result(action_id, "action", text, failures)
