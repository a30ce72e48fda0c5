"""The rules composer: the user-facing answer, only from what the verifier allowed.

It writes in the plan's language, states only the text of claims the verifier entailed, says
plainly when nothing was found (未检索到真实证据 / "No real evidence was found") and what was
searched, and when the verdict is REJECT or LOW_CONFID says the answer could not be verified.
A yes/no question ("是否存在 …", "whether …", "is there …") is answered 是 / 否 (yes / no)
first -- ``answer_kind`` says which, so a verified negative is told apart from a positive --
with the verified evidence under it; a question about an alert state ("is X firing?") is
answered 否 when X is verified absent in that state, with X's other state shown under it. A
source that failed is named with why (``failed_sources_lines``): a failed call is never
reported as "nothing found". Missing information and evidence-gathering actions the verifier
passed may follow as next steps, marked as such. When the verdict is not PASS, claims that
are fully verified on their own (entailed, every binding passed) stay in the answer under a
banner saying so; an answer of a repaired attempt ends with a line saying it was repaired. It
never shows raw JSON, a blocked claim, a step that did not pass (a repair, a gap that
concludes), verifier reasons (they quote blocked content) or an excluded subject.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from core.agents.rules.searches import leaves_words_unsearched
from core.contracts import (
    AnswerKind,
    Claim,
    ComposerOutput,
    Language,
    Plan,
    TraceSummaryEntry,
    VerifierInput,
    VerifierResult,
)
from core.language.alternation import one_of
from core.language.levels import asks_about_health
from core.language.marks import visible
from core.language.reading import FATE_WORDS, UNACCOUNTED_FATES
from core.language.subjects import excluded_mentions
from core.language.vocabulary import VocabularyFile, load
from core.lazypattern import LazyPattern
from core.outcome import answers_state
from core.tools.spec import find_spec, is_reference_tool, no_source_reason

_MAX_NEXT_STEPS = 4
_TEXT = {
    "zh": {
        "verified": "结论（已通过证据核验）：",
        "absent": "未检索到的内容：",
        "other_state": "处于其他状态（已通过证据核验）：",
        "reference": "参考（规则文件 / runbook 的原文，说明含义与检查项，不代表当前状态）：",
        "no_evidence": "未检索到真实证据",
        "searched": "已查询：",
        "nothing_called": "本次没有调用任何取证工具",
        "no_hits": "均未返回与问题相关的记录",
        "some_failed": "其中 {n} 次调用失败",
        "rest_no_hits": "其余调用均未返回与问题相关的记录",
        "source_failed": "有数据源调用失败",
        "failed_sources": "以下调用未得到回答，相关数据未知（调用失败不代表没有）：",
        "blocked": "无法核验本次回答（判定 {verdict}，证据支撑度 {score:.0%}）：{why}。",
        "gate_reject": "证据引用未通过真实性校验（{rules}）",
        "gate_low": "证据引用不完整（{rules}）",
        "claims_failed": "部分结论无法由已核验的证据推出",
        "steps_failed": "下一步建议未通过核验（只允许证据收集动作）",
        "no_claims": "没有可核验的结论",
        "partial": "已单独通过核验的结论（其余结论或引用未通过核验，未予显示）：",
        "terms": "回答没有覆盖问题中的每个词：{terms}",
        "closest": "最接近的记录（已核验为真实记录，但不是对问题的回答）：",
        **{f"fate_{fate}": words for fate, words in FATE_WORDS["zh"].items()},
        "repaired": "修正说明：执行者第一次回答有 {n} 处引用或事实未通过核验（{rules}）；"
                    "它被告知哪里未通过后修正了一次，以上内容是修正后从头重新核验的结果。",
        "repair_failed": "修正说明：执行者第一次回答有 {n} 处引用或事实未通过核验（{rules}）；"
                         "它被告知哪里未通过后修正了一次，修正后的回答仍未全部通过核验。",
        "citations": "依据：{n} 条证据引用均已通过核验，来自 {k} 次工具调用。",
        "next_steps": "下一步（仅为证据收集建议，不是结论）：",
        "yes": "是（以下结论已通过证据核验）。",
        "no": "否（已核验：覆盖该问题的查询均未返回相关记录）。",
        "partly": "部分是（以下部分内容已通过证据核验，其余已核验为未检索到）。",
        "unknown": "无法确定（没有通过核验的证据能回答是或否）。",
        "unknown_subject": "问题中的 {names} 不在本次数据中，未做任何检索",
        "unknown_searched": "问题中的 {names} 不在本次数据中（已查询：{calls}，均未返回记录）",
        "not_understood": "问题中没有可检索的服务、告警、症状或关键词，未做任何检索",
        "no_source": "未检索：当前数据中没有{noun}数据源（{tool} 无法调用，不代表没有）",
        "no_source_metrics": "告警与指标",
        "no_source_logs": "日志",
        "no_source_knowledge": "知识库（runbook）",
        "sep": "；",
        "end": "。",
    },
    "en": {
        "verified": "Findings (verified against the evidence):",
        "absent": "Not found:",
        "other_state": "In another state (verified against the evidence):",
        "reference": "Reference (the rule file / runbook as written: what it means and checks, "
                     "not the current state):",
        "no_evidence": "No real evidence was found",
        "searched": "searched: ",
        "nothing_called": "no evidence tool was called",
        "no_hits": "none returned a record relevant to the question",
        "some_failed": "{n} call(s) failed",
        "rest_no_hits": "the other calls returned no record relevant to the question",
        "source_failed": "a source failed",
        "failed_sources": "These calls got no answer, so what they would have found is unknown "
                          "(a failed call is not an absence):",
        "blocked": "This answer could not be verified (verdict {verdict}, groundedness "
                   "{score:.0%}): {why}.",
        "gate_reject": "citations failed the authenticity check ({rules})",
        "gate_low": "citations are incomplete ({rules})",
        "claims_failed": "some findings are not entailed by the verified evidence",
        "steps_failed": "a recommended next step did not pass verification (only evidence "
                        "gathering is allowed)",
        "no_claims": "there were no findings to verify",
        "partial": "Verified on their own (the rest did not pass verification and is not "
                   "shown):",
        "terms": "the answer does not account for every term of the question: {terms}",
        "closest": "Closest matches (verified lines, not an answer to the question):",
        **{f"fate_{fate}": words for fate, words in FATE_WORDS["en"].items()},
        "repaired": "Repaired after 1 attempt: the executor's first answer had {n} citation(s) "
                    "or fact(s) that failed verification ({rules}); told what failed, it "
                    "corrected them once, and the answer above was checked again from scratch.",
        "repair_failed": "Repaired after 1 attempt, still not verified: the executor's first "
                         "answer had {n} citation(s) or fact(s) that failed verification "
                         "({rules}); told what failed, it corrected them once, and the "
                         "corrected answer still did not pass verification.",
        "citations": "Basis: {n} verified citation(s) from {k} tool call(s).",
        "next_steps": "Next steps (evidence gathering only, not findings):",
        "yes": "Yes (the findings below are verified against the evidence).",
        "no": "No (verified: the queries that covered the question returned nothing).",
        "partly": "Partly (some of it is verified below; the rest is verified absent).",
        "unknown": "Cannot tell (no verified evidence answers yes or no).",
        "unknown_subject": "{names} named in the question is not in this data; nothing was searched",
        "unknown_searched": "{names} named in the question is not in this data (searched: {calls}; "
                            "nothing returned)",
        "not_understood": "The question names no service, alert, symptom or search term to look "
                          "for; nothing was searched",
        "no_source": "Not searched: this world has no {noun} source ({tool} could not be "
                     "called; that is not an absence)",
        "no_source_metrics": "metrics",
        "no_source_logs": "log",
        "no_source_knowledge": "knowledge",
        "sep": "; ",
        "end": ".",
    },
}


class RulesComposer:
    """Offline, deterministic composer (``compose(plan, verifier_input, result)``)."""

    engine = "rules"

    def compose(self, plan: Plan, verifier_input: VerifierInput,
                verifier_result: VerifierResult) -> ComposerOutput:
        """The answer in the plan's language, built only from entailed claims."""
        text = _TEXT[plan.language]
        output = verifier_input.executor_structured_output
        shown = verified_claims(plan, verifier_input, verifier_result)
        findings = [c for c in shown if c.claim_type != "negative_observation"]
        absences = [c for c in shown if c.claim_type == "negative_observation"]
        # "Is X firing?" of a pending X: the pending alert is shown, but it answers "no".
        answering = [c for c in findings if answers_state(c, plan)]
        gatekeeper = verifier_input.gatekeeper_result
        status: Literal["valid", "no_evidence", "blocked"]
        # Blocked: a citation failed, or a claim was made and not every claim held. With no
        # claims at all there is nothing to block: the honest answer is "nothing was found".
        blocked = gatekeeper.status == "fail" or (verifier_result.verdict != "PASS" and bool(output.claims))
        kind = claims_answer_kind(plan, shown, blocked=blocked)
        lines: list[str] = [text[kind], ""] if kind is not None else []
        if asks_for_reference(plan.question):
            lines += reference_lines(plan.language, verifier_input, verifier_result)

        if blocked:
            status = "blocked"
            lines.append(text["blocked"].format(verdict=verifier_result.verdict,
                                                score=verifier_result.groundedness_score,
                                                why=_why_blocked(text, verifier_input,
                                                                 verifier_result)))
            if shown:
                closest = bool(verifier_result.answer_rules) and bool(findings) and all(
                    result.entailed for result in verifier_result.claim_results)
                lines += ["", text["closest" if closest else "partial"], *_bullets(shown)]
        elif findings and absences and not answering:
            # Absent in the state asked; what there is instead, verified, follows.
            status = "valid"
            lines += [text["absent"], *_bullets(absences), "", text["other_state"],
                      *_bullets(findings), "", _citations_line(text, findings, verifier_input)]
        elif findings:
            status = "valid"
            lines += [text["verified"], *_bullets(findings)]
            if absences:
                lines += ["", text["absent"], *_bullets(absences)]
            lines += ["", _citations_line(text, findings, verifier_input)]
        elif not output.claims and (plan.reading.unknown_subjects or not plan.reading.searchable):
            # Nothing was searched: say why, and (for a name the data lacks) what it has.
            status = "no_evidence"
            lines.append(_nothing_searched_line(text, plan, verifier_input.tool_trace_summary))
            shown_steps = [step for step in passed_steps(plan, verifier_input, verifier_result)
                           if any(info.description == step and info.info_id.startswith("unknown-")
                                  for info in output.missing_info)]
            lines += [f"- {step}" for step in shown_steps]
        else:
            status = "no_evidence"
            if not _only_unsourced(verifier_input.tool_trace_summary):
                lines.append(_no_evidence_line(text, verifier_input.tool_trace_summary))
            lines += _bullets(absences)

        trace = verifier_input.tool_trace_summary
        unsourced = _no_source_lines(text, trace)
        if unsourced:
            lines += ["", *unsourced] if lines and lines[-1] else unsourced
            # Those failures are said above; the list of failed calls keeps the others.
            trace = [entry.model_copy(update={"failures": [
                line for line in entry.failures if not _is_unsourced(entry.tool_name, line)]})
                for entry in trace]
        lines += failed_sources_lines(plan.language, trace)
        if verifier_result.verdict != "REJECT":
            steps = [step for step in passed_steps(plan, verifier_input, verifier_result)
                     if f"- {step}" not in lines]
            if steps:
                lines += ["", text["next_steps"], *(f"- {step}" for step in steps)]
        if (repaired := repair_line(verifier_input, verifier_result, plan.language)):
            lines += ["", repaired]
        # Hidden characters and combining marks never reach the reader, whatever a claim held.
        return ComposerOutput(status=status, user_facing_answer=visible("\n".join(lines).strip()),
                              language=plan.language,
                              passed_claim_ids=[claim.claim_id for claim in shown],
                              answer_kind=kind)


class _AnswerKindWords(VocabularyFile):
    """``vocab/answer_kinds.yaml``: the words that tell what kind of answer a question wants."""

    yes_no_zh: tuple[str, ...]
    yes_no_en: tuple[str, ...]
    yes_no_openers_en: tuple[str, ...]
    reference_zh: tuple[str, ...]
    reference_en: tuple[str, ...]
    alert_checks_en: tuple[str, ...]
    runbook_says_en: tuple[str, ...]
    runbook_says_zh: tuple[str, ...]
    handle_verbs_en: tuple[str, ...]
    any_of_en: tuple[str, ...]
    any_of_zh: tuple[str, ...]
    any_of_not_zh: tuple[str, ...]


_KIND_WORDS = load("answer_kinds", _AnswerKindWords)


def _any(words: Sequence[str]) -> str:
    return f"(?:{one_of(words)})"


def _en(words: Sequence[str]) -> str:
    return rf"\b{_any(words)}\b"


_W = _KIND_WORDS
# A yes/no question: 是否 / 有没有 / … 吗？ / whether / is there / does … have.
_YES_NO_RE = LazyPattern(
    rf"{_any(_W.yes_no_zh)}|吗\s*[？?。.!！]|吗\s*$|(?<![什怎为多这那])么\s*[？?]|"
    rf"{_en(_W.yes_no_en)}|^\s*{_en(_W.yes_no_openers_en)}", re.IGNORECASE)


# "What does X mean?", "What does the runbook say?", "How do I fix X?": the rule or runbook
# text is the answer's reference (never a finding).
_REFERENCE_RE = LazyPattern(
    rf"{_en(_W.reference_en)}|\bwhat\s+is\s+(?:the\s+|an?\s+)?\S+\s+alert\b|"
    rf"\bwhat\s+does\s+.*{_en(_W.alert_checks_en)}|\bwhen\s+does\s+.*\bfire\b|"
    rf"\brunbooks?\b.*{_en(_W.runbook_says_en)}|"
    rf"\bhow\s+(?:do|can|should)\s+(?:i|we)\s+{_en(_W.handle_verbs_en)}|"
    rf"\bhow\s+to\s+{_en(_W.handle_verbs_en)}|\bwhat\s+should\s+(?:i|we)\s+do\b|"
    rf"{_any(_W.reference_zh)}|runbook\s*(?:里|中|上)?\s*{_any(_W.runbook_says_zh)}",
    re.IGNORECASE)


def asks_for_reference(question: str) -> bool:
    """Whether the question asks what an alert (or a symptom) means, what its runbook says or
    how to handle it: the runbook or rule text answers, as reference."""
    return _REFERENCE_RE.search(question) is not None


def reference_lines(language: Language, verifier_input: VerifierInput,
                    verifier_result: VerifierResult) -> list[str]:
    """The heading and the text of each rule or runbook section a passed next step cites
    (its gatekeeper-matched ref: ``title (source): content``), as reference; [] when none."""
    passed = {r.step_id for r in verifier_result.step_results if r.kind == "action" and r.passed}
    texts = [checked.matched_text for checked in verifier_input.gatekeeper_result.checked_bindings
             if checked.action_id in passed and checked.status == "pass" and checked.matched_text
             and is_reference_tool(checked.tool_name or "")]
    lines: list[str] = []
    for matched in dict.fromkeys(texts):
        head, _, content = matched.partition("): ")
        lines.append(f"- {head})" if content else f"- {matched}")
        lines += [f"  {line.strip()}" for line in content.splitlines() if line.strip()]
    return [_TEXT[language]["reference"], *lines, ""] if lines else []


def is_yes_no_question(question: str) -> bool:
    """Whether the question asks for a yes or a no whose "yes" is what was found. Not "is X
    healthy?" (``asks_about_health``): the searches look for trouble, so leading with "No" when
    none is found would say the opposite of what was verified; its findings or absences answer it."""
    return _YES_NO_RE.search(question) is not None and not asks_about_health(question)


def answer_kind(question: str, *, blocked: bool, found: bool, absent: bool) -> AnswerKind | None:
    """What a yes/no question's answer leads with: ``yes`` with verified findings, ``no`` with
    only verified negatives, ``partly`` with both, ``unknown`` when nothing could be verified;
    None when the question is not a yes/no question."""
    if not is_yes_no_question(question):
        return None
    if blocked:
        return "unknown"
    if found:
        return "partly" if absent else "yes"
    return "no" if absent else "unknown"


# A question about any one of several services ("A or B", "A 或 B", "any of A, B").
_ANY_OF = LazyPattern(rf"{_en(_W.any_of_en)}|(?!{_any(_W.any_of_not_zh)}){_any(_W.any_of_zh)}", re.IGNORECASE)


def claims_answer_kind(plan: Plan, claims: Sequence[Claim], *, blocked: bool) -> AnswerKind | None:
    """``answer_kind`` of verified ``claims``: an observation of an alert in another state than
    the question asks about (``answers_state``) is not a "yes" when the state asked is
    verified absent; None when words of the question were searched by no call."""
    if leaves_words_unsearched(plan):
        return None  # what was found is about the question's terms, not what it asks of them
    findings = [c for c in claims if c.claim_type != "negative_observation"]
    absent = any(c.claim_type == "negative_observation" for c in claims)
    found = any(answers_state(c, plan) for c in findings) or (bool(findings) and not absent)
    if found and len(plan.services) > 1 and _ANY_OF.search(plan.question):
        absent = False  # "Is anything wrong with A or B?": one of them is a yes, not a partly
    return answer_kind(plan.question, blocked=blocked, found=found, absent=absent)


def lead_line(kind: AnswerKind, language: str) -> str:
    """The sentence a yes/no answer of that kind starts with."""
    return _TEXT["zh" if language == "zh" else "en"][kind]


def verified_claims(plan: Plan, verifier_input: VerifierInput,
                    verifier_result: VerifierResult) -> list[Claim]:
    """Claims that are fully verified, in output order: entailed, every binding of theirs
    passed the gatekeeper (a warning-graded one does not count against it), and showable.
    Under any verdict these may be shown; under a failing one, as "verified on their own"."""
    entailed_ids = {r.claim_id for r in verifier_result.claim_results if r.entailed}
    failed = {checked.claim_id for checked in verifier_input.gatekeeper_result.checked_bindings
              if checked.status == "fail" and checked.severity != "none"}
    return [claim for claim in verifier_input.executor_structured_output.claims
            if claim.claim_id in entailed_ids and claim.claim_id not in failed
            and _showable(claim.claim_text, plan)]


def repair_line(verifier_input: VerifierInput, verifier_result: VerifierResult,
                language: str) -> str:
    """The answer's line saying it was repaired ('' for an answer of the first attempt)."""
    feedback = verifier_input.retry_context
    if feedback is None or not verifier_result.repairs:
        return ""
    text = _TEXT["zh" if language == "zh" else "en"]
    key = "repaired" if verifier_result.verdict == "PASS" else "repair_failed"
    return text[key].format(n=len(feedback.findings), rules=", ".join(feedback.failed_rules))


def _showable(text: str, plan: Plan) -> bool:
    """Never raw JSON, never an excluded subject (a last guard; the verifier already failed it)."""
    stripped = text.strip()
    return bool(stripped) and stripped[0] not in "{[" and not excluded_mentions(text,
                                                                               plan.exclusions)


def _bullets(claims: Sequence[Claim]) -> list[str]:
    return [f"- {claim.claim_text}" for claim in claims]


def _why_blocked(text: dict[str, str], verifier_input: VerifierInput,
                 verifier_result: VerifierResult) -> str:
    gatekeeper = verifier_input.gatekeeper_result
    rules = ", ".join(gatekeeper.failed_rules)
    if verifier_result.answer_rules and gatekeeper.severity == "none" and all(
            result.entailed for result in verifier_result.claim_results):
        return text["terms"].format(terms=_unaccounted_terms(text, verifier_result))
    if gatekeeper.severity == "reject":
        return text["gate_reject"].format(rules=rules)
    if gatekeeper.severity == "low_confid":
        return text["gate_low"].format(rules=rules)
    failed_claims = [r for r in verifier_result.claim_results if not r.entailed]
    if not failed_claims and any(e.failures for e in verifier_input.tool_trace_summary):
        return text["source_failed"]
    if not verifier_result.claim_results:
        return text["no_claims"]
    if all(r.entailed for r in verifier_result.claim_results):
        step_rules = sorted({r.rule for r in verifier_result.step_results if r.rule and not r.passed})
        return text["steps_failed"] + (f" ({', '.join(step_rules)})" if step_rules else "")
    failed_rules = sorted({r.rule for r in verifier_result.claim_results if r.rule})
    return text["claims_failed"] + (f" ({', '.join(failed_rules)})" if failed_rules else "")


def _unaccounted_terms(text: dict[str, str], verifier_result: VerifierResult) -> str:
    """The terms the answer could not apply, each with why (``core.verifier.accounting``)."""
    shown = []
    for term in verifier_result.question_terms:
        fate: str = term.fate or "not_searched"
        if fate == "unmentioned" and term.kind not in ("subject", "predicate", "entity"):
            continue
        if fate == "absent":  # a verified absence is an answer; one searched only with others is not
            if not term.detail.startswith("searched only"):
                continue
            fate = "absent_together"
        if fate in ("unmentioned", "absent_together", *UNACCOUNTED_FATES):
            shown.append(f"{term.text} ({text[f'fate_{fate}']})")
    return text["sep"].join(shown) if shown else "-"


def _citations_line(text: dict[str, str], findings: Sequence[Claim],
                    verifier_input: VerifierInput) -> str:
    passed = {(b.claim_id, b.binding_index) for b in verifier_input.gatekeeper_result.checked_bindings
              if b.status == "pass"}
    bindings = [(c.claim_id, index) for c in findings for index in range(len(c.evidence_bindings))]
    invocations = {b.source_invocation_id for c in findings for b in c.evidence_bindings}
    return text["citations"].format(n=len([b for b in bindings if b in passed]),
                                    k=len(invocations))


def _no_evidence_line(text: dict[str, str], trace: Sequence[TraceSummaryEntry]) -> str:
    """What was searched (runbooks are not searched for evidence, so they are not listed)."""
    searched = [entry for entry in trace if not is_reference_tool(entry.tool_name)]
    if not searched:
        return f"{text['no_evidence']}{text['sep']}{text['nothing_called']}{text['end']}"
    calls = ", ".join(f"{entry.tool_name} ×{entry.invocation_count}" for entry in searched)
    failed = sum(entry.failed_invocation_count for entry in searched)
    no_hits = sum(entry.no_hit_invocation_count for entry in searched)
    if not failed:
        outcome = text["no_hits"]
    else:
        outcome = text["some_failed"].format(n=failed)
        if no_hits:
            outcome += text["sep"] + text["rest_no_hits"]
    return f"{text['no_evidence']}{text['sep']}{text['searched']}{calls}{text['sep']}{outcome}{text['end']}"


def _is_unsourced(tool_name: str, failure: str) -> bool:
    """Whether a failed call's line says the world has no source for the tool."""
    spec = find_spec(tool_name)
    return spec is not None and no_source_reason(spec.capability) in failure


def _unsourced_entries(trace: Sequence[TraceSummaryEntry]) -> list[TraceSummaryEntry]:
    return [entry for entry in trace
            if any(_is_unsourced(entry.tool_name, line) for line in entry.failures)]


def _only_unsourced(trace: Sequence[TraceSummaryEntry]) -> bool:
    """Whether every evidence call failed for want of a source: nothing was searched."""
    searched = [entry for entry in trace if not is_reference_tool(entry.tool_name)]
    return bool(searched) and all(
        entry.failed_invocation_count == entry.invocation_count
        and all(_is_unsourced(entry.tool_name, line) for line in entry.failures)
        for entry in searched)


def _no_source_lines(text: dict[str, str], trace: Sequence[TraceSummaryEntry]) -> list[str]:
    """One line per tool the world has no source for: what was not searched, and why."""
    lines = []
    for entry in _unsourced_entries(trace):
        spec = find_spec(entry.tool_name)
        if spec is not None:
            noun = text[f"no_source_{spec.capability}"]
            lines.append(text["no_source"].format(noun=noun, tool=entry.tool_name) + text["end"])
    return lines


def failed_sources_lines(language: Language, trace: Sequence[TraceSummaryEntry]) -> list[str]:
    """A blank line, the heading and one ``- <tool>: <source>: <why>`` per failed call; [] when
    no call failed."""
    failures = [f"- {entry.tool_name}: {line}" for entry in trace for line in entry.failures]
    if not failures:
        return []
    return ["", _TEXT[language]["failed_sources"], *dict.fromkeys(failures)]


def name_failed_sources(output: ComposerOutput, trace: Sequence[TraceSummaryEntry]) -> ComposerOutput:
    """``output`` with the failed sources named when its answer does not name each one (an llm
    composer may leave them out; the reader must know what could not be asked)."""
    sources = {line.split(": ", 1)[0] for entry in trace for line in entry.failures
               if ": " in line and ":" in line.split(": ", 1)[0]}
    if all(source in output.user_facing_answer for source in sources):
        return output
    lines = failed_sources_lines(output.language, trace)
    return output.model_copy(update={
        "user_facing_answer": visible("\n".join([output.user_facing_answer, *lines]).strip())})


def _nothing_searched_line(text: dict[str, str], plan: Plan,
                           trace: Sequence[TraceSummaryEntry]) -> str:
    """Why nothing was found: the subjects are not in the data (an alert name the data lacks
    is still searched for, and the line says so), or nothing is searchable."""
    if plan.reading.unknown_subjects:
        names = ", ".join(plan.reading.unknown_subjects)
        searched = [entry for entry in trace if not is_reference_tool(entry.tool_name)
                    and entry.invocation_count > entry.failed_invocation_count]
        if searched:
            calls = ", ".join(f"{entry.tool_name} ×{entry.invocation_count}" for entry in searched)
            return text["unknown_searched"].format(names=names, calls=calls) + text["end"]
        return text["unknown_subject"].format(names=names) + text["end"]
    return text["not_understood"] + text["end"]


def passed_steps(plan: Plan, verifier_input: VerifierInput,
                 verifier_result: VerifierResult) -> list[str]:
    """Gaps, then actions, that the verifier passed (a step it did not judge is not shown)."""
    output = verifier_input.executor_structured_output
    passed = {(r.kind, r.step_id) for r in verifier_result.step_results if r.passed}
    candidates = [info.description for info in output.missing_info
                  if ("missing_info", info.info_id) in passed]
    candidates += [action.action_text for action in output.recommended_actions
                   if ("action", action.action_id) in passed]
    steps = [step for step in dict.fromkeys(candidates) if _showable(step, plan)]
    return steps[:_MAX_NEXT_STEPS]
