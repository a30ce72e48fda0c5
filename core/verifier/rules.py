"""Every rule the verifier can report, with what it does to the verdict.

A rule names why a claim, a recommended action or a gap (``missing_info``) was not passed.
Forbidden content -- something the question excluded, runbook text stated as current fact, a
repair where only evidence gathering is allowed -- grades ``REJECT``: it contaminates the
answer, the grade the seed gives forged evidence. Everything else grades ``LOW_CONFID``: the
output over-reached, but nothing was forged. Both engines (rules and llm) report only these names.

Each rule is declared once, in ``_ALL`` below (name, grade, target, whether the repair turn may
fix it, when it fires). From it come the registry (``RULES``), the verifier rules that earn the
llm executor a repair turn (``core/repair.py``) and the rule table of ``docs/verifier-rules.md``
(``markdown_table``; a test keeps the doc equal to it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from core.contracts import ClaimResult, Verdict

# mypy needs the closed type of the names written out, so it is a copy of the declaration's
# names (same order), not their source: a rule is added to ``_ALL`` and here, and the module
# refuses to import while the two differ (so does tests/verifier/test_verifier_rules_doc.py).
VerifierRuleName = Literal[
    "verifier.scope",
    "verifier.runbook_as_fact",
    "verifier.hidden_marks",
    "verifier.repair_action",
    "verifier.contradicts_evidence",
    "verifier.missing_field",
    "verifier.unsupported_root_cause",
    "verifier.wrong_role",
    "verifier.unsupported_fact",
    "verifier.absence_contradicted",
    "verifier.no_verified_evidence",
    "verifier.not_judged",
    "verifier.action_unfounded",
    "verifier.gap_asserts_state",
    "verifier.step_withheld",
    "verifier.term_unaccounted",
    "verifier.off_predicate",
    "verifier.absence_not_exhaustive",
]
# What the rule applies to: a claim, a next step (recommended action or missing_info), or the
# answer as a whole (what it says of the question's terms: ``core/verifier/accounting.py``).
RuleTarget = Literal["claim", "step", "answer"]


@dataclass(frozen=True)
class VerifierRule:
    """A named judgement and the verdict it allows at best when it fires."""

    name: VerifierRuleName
    grade: Verdict
    target: RuleTarget
    # Whether a claim failed by it earns the llm executor a repair turn: only a claim that a
    # better citation or the evidence's own wording fixes, never forbidden content or a cause
    # no evidence states (a model is not coached into hiding over-reach).
    repairable: bool
    # When it fires: the "fires when" column of docs/verifier-rules.md (Markdown).
    description: str


# In order of seriousness: when an item breaks several rules, the first is its rule.
_ALL: tuple[VerifierRule, ...] = (
    VerifierRule(
        name="verifier.scope", grade="REJECT", target="claim", repairable=False,
        description=(
            "The claim mentions a subject the question excluded (a service, topic, alert name or term), "
            "declares one as its subject, is about a service outside the plan's (and outside those the "
            "evidence ties to the plan's alert names), or — for a narrow question — about a topic outside "
            "it."),
    ),
    VerifierRule(
        name="verifier.runbook_as_fact", grade="REJECT", target="claim", repairable=False,
        description=(
            "Only runbook bindings support the claim and it states no value the runbook does not hold (it "
            "says what the runbook says); or a value, identifier or sentence of it is found only in "
            "runbook text of the session (`…；数据库慢查询或锁等待。` appended to a real claim, when a "
            "runbook of the session says it)."),
    ),
    VerifierRule(
        name="verifier.hidden_marks", grade="REJECT", target="claim", repairable=False,
        description=(
            "The claim's text holds hidden characters — tag characters (U+E0000–U+E007F), bidi "
            "controls, private-use, control or other invisible format characters, not the benign "
            "zero-width space / joiners / soft hyphen — or combining marks over letters (`f̶i̶r̶i̶n̶g̶`: "
            "U+0336, U+0338, U+20E0 … any mark NFC leaves on its base) that none of its evidence "
            "holds: it would show a person, or tell a model, something other than what it reads. "
            "Such text never reaches the answer (the composers strip it as well)."),
    ),
    VerifierRule(
        name="verifier.repair_action", grade="REJECT", target="step", repairable=False,
        description=(
            "A recommended action — or a `missing_info` entry written as an instruction (\"Restart "
            "order-service now\", `将 order-service 扩容到 6 个副本`) — is a repair — restart, roll back, "
            "scale, raise / increase / adjust a limit, delete, kill, stop, fix, upgrade, "
            "重启、回滚、扩容、调大、删除、杀掉、修复 … — given as an instruction (at the start of a "
            "clause, after 立即 / then / 以 …, with its object), including one after a look "
            "(`确认后把连接池调大`, \"after confirming, restart …\") and setting a value (`把副本数调到 "
            "5`, `改为 6GB`, \"set max connections to 200\"). A repair verb that names what to look at "
            "(`查看重启前的日志`, `count restarts`, `是否被重启`) or asks whether to act (`是否需要调整`) "
            "is not one."),
    ),
    VerifierRule(
        # REJECT, not LOW_CONFID: a claim that says the opposite of its own verified excerpt is
        # not over-reach but a false statement, as a forged excerpt is (which the gatekeeper
        # rejects); rewording the claim is no repair a model should be coached into.
        name="verifier.contradicts_evidence", grade="REJECT", target="claim", repairable=False,
        description=(
            "A state or outcome word of the claim's own words is the opposite of what its verified "
            "evidence says, and the evidence says the word itself in no form or synonym: \"failed to "
            "log in\" citing `Accepted password for X`, \"closed a session\" citing `session opened`, "
            "\"the alert has cleared\" / `已恢复正常` citing `HighCPUUsage firing`, \"Evicted\" citing "
            "`OOMKilled`; or the same word under the other polarity (\"Connection is available\" "
            "citing `Connection is not available`, \"lacks a firing alert\" citing a firing one). The "
            "pairs (succeed/fail, open/close, start/stop, fire/resolve, available/unavailable, up/down, "
            "kill/evict, connect/disconnect, enable/disable, grant/deny …, 成功/失败, 触发/恢复, "
            "可用/不可用 …) are `core/language/vocab/antonyms.yaml`. Also an amount word the value "
            "it quantifies contradicts: \"plenty of idle connections\" / `空闲连接充足` for `idle=0` "
            "(`core/language/vocab/quantifier_words.yaml`)."),
    ),
    VerifierRule(
        name="verifier.missing_field", grade="LOW_CONFID", target="claim", repairable=True,
        description=(
            "A field the seed marks required (必填) is missing: the claim's `claim_type`, or a binding's "
            "`tool_name`. Nothing is defaulted; an LLM output missing them is reported, not refused "
            "whole."),
    ),
    VerifierRule(
        name="verifier.unsupported_root_cause", grade="LOW_CONFID", target="claim", repairable=False,
        description=(
            "A cause or diagnosis word (root cause, caused by, because, leak, 根因, 原因, 导致, 由于, "
            "泄漏 …) that no verified excerpt states; or a `root_cause` / `risk` claim whose excerpts "
            "only show symptoms."),
    ),
    VerifierRule(
        name="verifier.wrong_role", grade="LOW_CONFID", target="claim", repairable=True,
        description=(
            "A value (or time) of the claim is in the evidence, but not in the role the claim gives it: "
            "the threshold or an old sample stated as the current value, current and threshold swapped, "
            "used and total swapped, a value of another subject or attribute, a sample at another time, a "
            "trend out of time order, a time stated as the latest / first that is not (a range `between A "
            "and B` / `从 A 到 B` reversed); a count, time range or level stated for lines the evidence "
            "gives other ones (another template's count, WARN lines called ERROR); an identifier of one "
            "service said of another; a P99 called the median or P90; a value another key of its line "
            "names (`active=20/20, idle=0`: not \"20 idle\"); a comparison with the threshold or a "
            "direction of change (rising / 下降) the numbers contradict. The reason names what the "
            "evidence gives instead."),
    ),
    VerifierRule(
        name="verifier.unsupported_fact", grade="LOW_CONFID", target="claim", repairable=True,
        description=(
            "A value, time, identifier, state or level word, or negation of the claim is in no verified "
            "excerpt, matched ref or query argument of the claim (a duration in another unit, a rounded "
            "value: `约 4GB` for 3.8GB, \"about 90%\" for 91%; an alert state said in Chinese, "
            "`告警已恢复` of a firing alert); or a sentence of it says nothing its evidence says (neither "
            "its content words nor its topics); a state word of a pair (`antonyms.yaml`) its evidence "
            "says neither side of (\"backlog cleared\" citing a backlog line), a negation the evidence "
            "has none of (\"is free of alerts\"; a zero value bears one out: `没有空闲连接` of `idle=0`), a "
            "quantifier or scope it does not hold: a universal (\"every pod\", \"all pods\", `所有`) "
            "unless the evidence says one or the claim counts or names its members and cites exactly "
            "those (\"all 3 pods\" citing three pods' lines), an amount its value does not reach "
            "(\"plenty of idle connections\" for idle=5 of 50, \"half used\" for 10/50) or that no "
            "value judges, \"down in production\"; an action said done that no evidence says in any form "
            "(\"the pool was scaled up\", `已回滚`, `告警已被静默`: `action_words.yaml`). — for a "
            "negative observation, any sentence besides the "
            "absence itself must be what its no-hit queries say (`未检索到 …；数据库慢查询或锁等待。` "
            "fails); a name or number in it that only names a topic the queries searched is what they "
            "say (`HTTP 5xx 错误` under `topic=http_error`; `HTTP 503` is not)."),
    ),
    VerifierRule(
        name="verifier.absence_contradicted", grade="LOW_CONFID", target="claim", repairable=False,
        description=(
            "A negative observation the session itself contradicts: another invocation of the same "
            "session returned what its no-hit query searched for (\"no restart records\" while "
            "another call shows the OOMKilled restart), or its own text says records were found "
            "(`未发现重启记录，共查到 3 条`, \"no errors; found 12 ERROR lines\")."),
    ),
    VerifierRule(
        name="verifier.no_verified_evidence", grade="LOW_CONFID", target="claim", repairable=True,
        description=(
            "No binding of the claim passed the gatekeeper; for a negative observation, no verified "
            "no-hit invocation backs it. So too when its only passed bindings cite a runbook that holds "
            "none of its values (`CPU 使用率目前为 92%` cited to a runbook section): the runbook is not "
            "its source, the citation is what is wrong, and the repair turn may fix it."),
    ),
    VerifierRule(
        name="verifier.not_judged", grade="LOW_CONFID", target="claim", repairable=False,
        description=(
            "The verifier returned no judgement for the claim (an llm verifier that skipped it, or judged "
            "it under another id), or the claim lies past what the verifier reads: longer than 4,000 "
            "characters, past the first 200 claims or 100,000 characters of claims (docs/bad-input.md)."),
    ),
    VerifierRule(
        name="verifier.action_unfounded", grade="LOW_CONFID", target="step", repairable=False,
        description=(
            "A recommended action does not follow from the claims or the missing information: it names a "
            "service none of them (nor the question) is about, is about topics none of them is about and "
            "looks at nothing they mention, or gathers nothing (no look / query / collect / compare / "
            "dump / check step)."),
    ),
    VerifierRule(
        name="verifier.gap_asserts_state", grade="LOW_CONFID", target="step", repairable=False,
        description=(
            "A `missing_info` entry (or an action, or its reason) concludes instead of naming what is "
            "missing: `内存泄漏已确认`, `根因是 …`, `连接池已耗尽`, \"the leak is confirmed\", \"root "
            "cause is …\"; or takes a state as given by naming its details (`无法定位泄漏点`, \"the leak "
            "in X keeps memory growing\", `连接池已被慢查询占满`)."),
    ),
    VerifierRule(
        name="verifier.step_withheld", grade="PASS", target="step", repairable=False,
        description=(
            "A next step mentions a subject the question excluded (`不要分析原因` and a gap naming a "
            "cause): it is kept out of the answer, and the verdict is not lowered — a gap or an "
            "evidence-gathering action is not a finding."),
    ),
    VerifierRule(
        name="verifier.term_unaccounted", grade="LOW_CONFID", target="answer", repairable=False,
        description=(
            "A term of the question (`question_terms`: a subject, predicate, entity, time window, level) "
            "was not searched by any call, or was searched but the evidence the answer cites does not "
            "hold it; or, next to findings, the data never mentions it (the findings are then the "
            "closest lines, not the answer: \"the logs never mention team-3\"). The answer names the "
            "term and is not PASS."),
    ),
    VerifierRule(
        name="verifier.off_predicate", grade="LOW_CONFID", target="answer", repairable=False,
        description=(
            "The answer states findings whose verified evidence holds the question's subject but not "
            "what happened to it (a predicate: `start` answered with lines saying the backup "
            "*finished*; `oom` found only inside another word). Terms match whole tokens, in any word "
            "form (`retried` for `retries`) or as a listed synonym, never inside another word."),
    ),
    VerifierRule(
        name="verifier.absence_not_exhaustive", grade="LOW_CONFID", target="answer", repairable=False,
        description=(
            "A verified \"no\" whose empty calls searched a term only together with other words (every "
            "word in one line): a line saying it in other words, or without the others, was never looked "
            "for. A \"no\" needs the recall ladder climbed (word forms, synonyms, each word alone) or a "
            "search of the term on its own."),
    ),
)

RULES: dict[str, VerifierRule] = {rule.name: rule for rule in _ALL}

if get_args(VerifierRuleName) != tuple(rule.name for rule in _ALL):
    raise RuntimeError("VerifierRuleName must list the names of the declared rules, in their order")

# The names the judging code reports. mypy checks each is a VerifierRuleName, which the check
# above holds to the declaration; the doc test checks every declared rule has one.
SCOPE: VerifierRuleName = "verifier.scope"
RUNBOOK_AS_FACT: VerifierRuleName = "verifier.runbook_as_fact"
HIDDEN_MARKS: VerifierRuleName = "verifier.hidden_marks"
REPAIR_ACTION: VerifierRuleName = "verifier.repair_action"
CONTRADICTS_EVIDENCE: VerifierRuleName = "verifier.contradicts_evidence"
MISSING_FIELD: VerifierRuleName = "verifier.missing_field"
UNSUPPORTED_ROOT_CAUSE: VerifierRuleName = "verifier.unsupported_root_cause"
WRONG_ROLE: VerifierRuleName = "verifier.wrong_role"
UNSUPPORTED_FACT: VerifierRuleName = "verifier.unsupported_fact"
ABSENCE_CONTRADICTED: VerifierRuleName = "verifier.absence_contradicted"
NO_EVIDENCE: VerifierRuleName = "verifier.no_verified_evidence"
NOT_JUDGED: VerifierRuleName = "verifier.not_judged"
ACTION_UNFOUNDED: VerifierRuleName = "verifier.action_unfounded"
GAP_ASSERTS_STATE: VerifierRuleName = "verifier.gap_asserts_state"
STEP_WITHHELD: VerifierRuleName = "verifier.step_withheld"
TERM_UNACCOUNTED: VerifierRuleName = "verifier.term_unaccounted"
OFF_PREDICATE: VerifierRuleName = "verifier.off_predicate"
ABSENCE_NOT_EXHAUSTIVE: VerifierRuleName = "verifier.absence_not_exhaustive"

_SEVERITY: dict[str, int] = {"REJECT": 0, "LOW_CONFID": 1, "PASS": 2}


def is_rule(name: str | None) -> bool:
    """Whether ``name`` is a registered verifier rule."""
    return name in RULES


def most_serious(names: set[str]) -> VerifierRuleName | None:
    """Of the rules that fired, the one that names the item: the worst grade first, then the
    order above (None when none did)."""
    fired = [rule for rule in _ALL if rule.name in names]
    if not fired:
        return None
    return min(fired, key=lambda rule: _SEVERITY[rule.grade]).name


def grade(name: str | None) -> Verdict:
    """The best verdict an item failed by ``name`` allows (an unknown rule: LOW_CONFID)."""
    rule = RULES.get(name) if name is not None else None
    return rule.grade if rule is not None else "LOW_CONFID"


def not_judged(claim_id: str, *, by: str = "the verifier") -> ClaimResult:
    """The result of a claim a verifier returned no judgement for: not entailed."""
    return ClaimResult(claim_id=claim_id, entailed=False, rule=NOT_JUDGED, rules=[NOT_JUDGED],
                       reasons=[f"{by} returned no judgement for this claim"])


def markdown_table() -> str:
    """The rule table of ``docs/verifier-rules.md``, one row per declared rule in its order."""
    rows = ["| rule | grade | applies to | repair turn | fires when |",
            "| --- | --- | --- | --- | --- |"]
    rows += [f"| `{rule.name}` | {rule.grade} | {rule.target} | {'yes' if rule.repairable else 'no'} "
             f"| {rule.description} |" for rule in _ALL]
    return "\n".join(rows) + "\n"
