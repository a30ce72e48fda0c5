"""The model's mistakes, and what it does when the repair turn names them.

Citation errors (a model that is told exactly what failed can fix them): a raw_path off by
one, a paraphrased quote, a wrong invocation id, a missing raw_path, a runbook block cited as
evidence, a binding without ``tool_name``, a claim without ``claim_type``, a number copied
wrong in the claim (19% for 91%).

Content errors (wrong content, which a "stubborn" model says again when asked): a root cause
stated as fact, a repair as a recommended action or inside a claim (several phrasings, both
languages), a runbook sentence appended to a real claim, a rounded value (约 4GB for 3.8GB),
the threshold given as the current value.

Each injection returns the texts that must never reach a PASS answer.
"""

from __future__ import annotations

import copy
import random
import re
from dataclasses import dataclass, field
from typing import Any

from tests.doubles.othermodel.intent import Intent
from tests.doubles.othermodel.reading import ToolResult

Answer = dict[str, Any]

CITATION_ERRORS = ("off_by_one", "paraphrase", "wrong_invocation", "missing_raw_path",
                   "runbook_citation", "no_tool_name", "no_claim_type", "wrong_number")
CONTENT_ERRORS = ("root_cause", "repair_action", "runbook_appended", "rounded_value",
                  "threshold_as_current")
ERRORS = (*CITATION_ERRORS, *CONTENT_ERRORS)
# Modes in which the model looks the runbook up (it needs a block to cite or copy from).
NEEDS_RUNBOOK = frozenset({"runbook_citation", "runbook_appended"})

_CAUSES = {"memory": ("内存泄漏", "a memory leak"), "cpu": ("Redis 超时导致线程堆积",
                                                           "threads piling up behind Redis timeouts"),
           "latency": ("数据库慢查询", "slow database queries"), "pool": ("连接泄漏", "a connection leak")}
_QUANTITY = re.compile(r"(?<![\d.:/\-T])(\d+(?:\.\d+)?)\s?(%|GB|MB|ms|s)(?![A-Za-z])")
_USED = re.compile(r"(\d+(?:\.\d+)?)(GB|MB)(?=/|（| of )")


@dataclass
class Injection:
    """What the mistake did to the answer."""

    made: bool = False
    wrong_texts: list[str] = field(default_factory=list)


def inject(error: str, answer: Answer, results: list[ToolResult], intent: Intent,
           rng: random.Random) -> Injection:
    """Make ``error`` in ``answer`` (in place)."""
    claims: list[dict[str, Any]] = answer["claims"]
    if not claims:
        return Injection()
    positive = [(claim, binding) for claim in claims for binding in claim["evidence_bindings"]
                if binding.get("raw_path")]
    zh = intent.language == "zh"
    service = next((str(s) for c in claims for s in c.get("subject_services") or []), "")
    cause_key = intent.alert_kind or ("pool" if intent.log_ask == "pool" else "latency")
    if error in ("off_by_one", "paraphrase", "wrong_invocation", "missing_raw_path"):
        if not positive:
            return Injection()
        claim, binding = rng.choice(positive)
        return Injection(made=_citation_error(error, binding, results))
    if error == "runbook_citation":
        block = _runbook_ref(results, rng)
        if block is None:
            return Injection()
        result, ref = block
        runbook = {"tool_name": "lookup_knowledge", "source_invocation_id": result.invocation_id,
                   "raw_path": ref["raw_path"], "evidence_excerpt": _first_sentence(ref["text"])}
        claim = claims[0]
        if rng.random() < 0.5:
            claim["evidence_bindings"].append(runbook)
        else:
            claim["evidence_bindings"] = [runbook]
        return Injection(made=True)
    if error == "no_tool_name":
        for binding in rng.choice(claims)["evidence_bindings"]:
            binding.pop("tool_name", None)
        return Injection(made=True)
    if error == "no_claim_type":
        rng.choice(claims).pop("claim_type", None)
        return Injection(made=True)
    if error == "wrong_number":
        for claim in claims:
            swapped = _swap_digits(claim["claim_text"])
            if swapped != claim["claim_text"]:
                claim["claim_text"] = swapped
                return Injection(made=True)
        return Injection()
    if error == "root_cause":
        cause = _CAUSES[cause_key][0 if zh else 1]
        form = rng.choice(("claim", "appended", "stated"))
        if form == "appended":
            extra = f"，根因是{cause}" if zh else f"; the root cause is {cause}"
            claims[0]["claim_text"] += extra
            return Injection(True, [extra.strip("，; ")])
        text = ((f"{cause}已确认，是 {service} 问题的根因" if zh else
                 f"Root cause confirmed: {cause} in {service}") if form == "claim" else
                (f"{service} 的根因已确认为{cause}" if zh else
                 f"The root cause of {service}'s problem is {cause}"))
        claims.append({"claim_id": f"claim-{len(claims) + 1}",
                       "claim_type": "root_cause" if form == "claim" else "observation",
                       "claim_text": text,
                       "evidence_bindings": copy.deepcopy(claims[0]["evidence_bindings"]),
                       "subject_services": [service], "subject_topics": []})
        return Injection(True, [text])
    if error == "repair_action":
        return _repair(answer, claims, service, zh, rng)
    if error == "runbook_appended":
        block = _runbook_ref(results, rng, prefer=("原因", "Causes", "缓解", "Mitigation"))
        if block is None:
            return Injection()
        sentence = _first_sentence(block[1]["text"])
        claims[0]["claim_text"] += ("；" if zh else "; ") + sentence
        return Injection(True, [sentence])
    if error == "rounded_value":
        for claim in claims:
            rounded = _rounded(claim["claim_text"], zh)
            if rounded is not None:
                claim["claim_text"], wrong = rounded
                return Injection(True, [wrong])
        return Injection()
    if error == "threshold_as_current":
        for claim in claims:
            alert = _alert_of(claim, results)
            if alert is None or not alert.get("threshold"):
                continue
            threshold = str(alert["threshold"])
            wrong = f"当前值为 {threshold}" if zh else f"current value of {threshold}"
            claim["claim_text"] = (f"{alert['service']} 的 {alert['alert_name']} 告警正在触发，{wrong}"
                                   if zh else f"{alert['service']} has a firing "
                                   f"{alert['alert_name']} alert with a {wrong}")
            return Injection(True, [wrong])
        return Injection()
    raise ValueError(f"unknown error mode {error!r}")


def _citation_error(error: str, binding: dict[str, Any], results: list[ToolResult]) -> bool:
    by_id = {r.invocation_id: r for r in results}
    cited = by_id.get(int(binding["source_invocation_id"]))
    if error == "missing_raw_path":
        binding["raw_path"] = None
        return True
    if error == "paraphrase":
        changed = _paraphrase(binding["evidence_excerpt"])
        binding["evidence_excerpt"] = changed
        return True
    if error == "off_by_one":
        found = re.match(r"^(\$\.\w+)\[(\d+)\]$", str(binding["raw_path"]))
        if not found:
            return False
        index = int(found.group(2))
        count = len(cited.refs) if cited else 1
        index = index + 1 if index + 1 < count or index == 0 else index - 1
        binding["raw_path"] = f"{found.group(1)}[{index}]"
        return True
    # wrong_invocation: another call of the session that does not hold this quote.
    others = [r for r in results if cited is None or (r.invocation_id != cited.invocation_id
                                                      and (r.tool_name, r.arguments) !=
                                                      (cited.tool_name, cited.arguments))]
    binding["source_invocation_id"] = (others[0].invocation_id if others
                                       else max(by_id, default=0) + 1)
    return True


def _paraphrase(text: str) -> str:
    """What a model writes when it recalls a line instead of copying it."""
    swaps = (("超过阈值", "高于阈值"), ("使用率", "占用率"), ("is not available", "was unavailable"),
             ("timed out after", "timed out in"), ("响应时间", "耗时"), ("=", " is "),
             ("已持续", "持续了"), ("firing", "is firing"))
    changed = text
    for old, new in swaps:
        changed = changed.replace(old, new)
    if changed == text:
        parts = re.split(r"[，,]\s*", text)
        changed = "，".join(reversed(parts)) if len(parts) > 1 else text.upper()
    return changed


def _swap_digits(text: str) -> str:
    """The first number with a unit whose digits reversed read differently (91% -> 19%)."""
    for found in _QUANTITY.finditer(text):
        digits = found.group(1)
        swapped = digits[::-1]
        if swapped != digits and not swapped.startswith("0") and not swapped.endswith("."):
            return text[:found.start(1)] + swapped + text[found.end(1):]
    return text


def _rounded(text: str, zh: bool) -> tuple[str, str] | None:
    """The text with one value rounded (the used part of a used/total first)."""
    found = _USED.search(text) or next(
        (m for m in _QUANTITY.finditer(text) if _round(m.group(1)) != m.group(1)), None)
    if found is None or _round(found.group(1)) == found.group(1):
        return None
    wrong = (f"约 {_round(found.group(1))}{found.group(2)}" if zh
             else f"about {_round(found.group(1))}{found.group(2)}")
    end = found.end(2)
    if text[end:end + 1] == "/":  # 3.8GB/4GB -> 约 4GB: the total goes with it
        end = re.match(r"/\d+(?:\.\d+)?[A-Za-z]+", text[end:]).end() + end  # type: ignore[union-attr]
    return text[:found.start(1)] + wrong + text[end:], wrong


def _round(number: str) -> str:
    value = float(number)
    if "." in number:
        return str(round(value))
    if value >= 10:
        magnitude = 10 ** (len(str(int(value))) - 1)
        return str(int(round(value / magnitude) * magnitude))
    return number


def _repair(answer: Answer, claims: list[dict[str, Any]], service: str, zh: bool,
            rng: random.Random) -> Injection:
    fixes_zh = (f"立即重启 {service} 并把堆内存扩容到 8GB", f"将 {service} 扩容到 6 个副本",
                "把 HikariCP 的 maximumPoolSize 调大到 100", f"回滚 {service} 最近一次发布")
    fixes_en = (f"Restart {service} now and raise its heap to 8GB",
                f"Scale {service} out to 6 replicas",
                "Increase the HikariCP maximumPoolSize to 100",
                f"Roll back the last deployment of {service}")
    fix = rng.choice(fixes_zh if zh else fixes_en)
    form = rng.choice(("action", "claim_tail", "claim", "gap"))
    if form == "action":
        answer["recommended_actions"].append({
            "action_id": "action-1", "action_text": fix,
            "reason": "恢复服务" if zh else "to restore service", "evidence_bindings": []})
    elif form == "claim_tail":
        claims[0]["claim_text"] += (f"，建议{fix}" if zh else f"; recommended: {fix}")
    elif form == "claim":
        text = (f"内存泄漏已确认，{fix}" if zh else f"Memory leak confirmed; {fix}")
        claims.append({"claim_id": f"claim-{len(claims) + 1}", "claim_type": "observation",
                       "claim_text": text,
                       "evidence_bindings": copy.deepcopy(claims[0]["evidence_bindings"]),
                       "subject_services": [service], "subject_topics": []})
        return Injection(True, [text])
    else:
        answer["missing_info"].append({"info_id": "gap-1", "description": fix})
    return Injection(True, [fix])


def _runbook_ref(results: list[ToolResult], rng: random.Random,
                 prefer: tuple[str, ...] = ()) -> tuple[ToolResult, dict[str, str]] | None:
    blocks = [(r, ref) for r in results if r.tool_name == "lookup_knowledge" for ref in r.refs]
    preferred = [(r, ref) for r, ref in blocks if any(word in ref["text"].split(":")[0]
                                                      for word in prefer)]
    pool = preferred or blocks
    return rng.choice(pool) if pool else None


def _first_sentence(ref_text: str) -> str:
    """The first line of a runbook block's content (after ``title (source): ``)."""
    content = ref_text.split("): ", 1)[-1]
    line = next((part.strip() for part in content.splitlines() if part.strip()), content)
    return line.lstrip("- ").strip()


def _alert_of(claim: dict[str, Any], results: list[ToolResult]) -> dict[str, Any] | None:
    by_id = {r.invocation_id: r for r in results}
    for binding in claim["evidence_bindings"]:
        result = by_id.get(int(binding.get("source_invocation_id") or -1))
        found = re.match(r"^\$\.alerts\[(\d+)\]$", str(binding.get("raw_path")))
        if result is not None and found:
            alerts = result.output.get("alerts") or []
            index = int(found.group(1))
            if index < len(alerts):
                return dict(alerts[index])
    return None


# ---------------------------------------------------------------- the repair turn
def fixed(previous: Answer, feedback: dict[str, Any], honest: Answer,
          results: list[ToolResult]) -> Answer:
    """What a model that corrects exactly what it was told writes on the repair turn."""
    answer = copy.deepcopy(previous)
    claims = {str(c.get("claim_id")): c for c in answer.get("claims") or []}
    truth = {str(c.get("claim_id")): c for c in honest.get("claims") or []}
    dropped: set[str] = set()
    for finding in feedback.get("findings") or []:
        claim_id = str(finding.get("claim_id"))
        if finding.get("action_id"):
            answer["recommended_actions"] = [a for a in answer.get("recommended_actions") or []
                                             if a.get("action_id") != finding["action_id"]]
            continue
        claim = claims.get(claim_id)
        if claim is None:
            continue
        index = finding.get("binding_index")
        if index is not None:
            _fix_binding(claim, int(index), finding, truth.get(claim_id), results)
            continue
        rule = str(finding.get("rule", ""))
        honest_claim = truth.get(claim_id)
        if rule.endswith("missing_field"):
            claim.setdefault("claim_type", (honest_claim or {}).get("claim_type", "observation"))
            if not claim.get("claim_type"):
                claim["claim_type"] = "observation"
            for binding in claim.get("evidence_bindings") or []:
                if binding and not binding.get("tool_name"):
                    binding["tool_name"] = _tool_of(binding, results)
        elif honest_claim is not None:  # restated as its evidence says it, cited again
            claim["claim_text"] = honest_claim["claim_text"]
            claim["evidence_bindings"] = copy.deepcopy(honest_claim["evidence_bindings"])
        else:
            dropped.add(claim_id)   # it cannot be supported: leave it out
    for claim in answer.get("claims") or []:  # bindings a finding emptied are left out
        claim["evidence_bindings"] = [b for b in claim.get("evidence_bindings") or [] if b]
    answer["claims"] = [c for c in answer.get("claims") or [] if str(c.get("claim_id")) not in dropped
                        and c.get("evidence_bindings")]
    return answer


def _fix_binding(claim: dict[str, Any], index: int, finding: dict[str, Any],
                 honest_claim: dict[str, Any] | None, results: list[ToolResult]) -> None:
    bindings: list[dict[str, Any]] = claim.get("evidence_bindings") or []
    if not 0 <= index < len(bindings):
        return
    binding = bindings[index]
    found_at = finding.get("found_at") or []
    if found_at:
        place = found_at[0]
        binding.update({"tool_name": place.get("tool_name"),
                        "source_invocation_id": place.get("source_invocation_id"),
                        "raw_path": place.get("raw_path")})
        if not binding.get("raw_path") and place.get("evidence_excerpt"):
            binding["evidence_excerpt"] = place["evidence_excerpt"]
    elif finding.get("ref_text") and binding.get("raw_path") and str(
            (finding.get("cited") or {}).get("tool_name") or binding.get("tool_name")) != "lookup_knowledge":
        binding["evidence_excerpt"] = finding["ref_text"]
    elif honest_claim is not None and index < len(honest_claim["evidence_bindings"]):
        # What it meant to cite (the same again, when the claim itself is what was wrong).
        bindings[index] = copy.deepcopy(honest_claim["evidence_bindings"][index])
    else:
        bindings[index] = {}
    if bindings[index] and not bindings[index].get("tool_name"):
        bindings[index]["tool_name"] = _tool_of(bindings[index], results)


def _tool_of(binding: dict[str, Any], results: list[ToolResult]) -> str | None:
    wanted = str(binding.get("source_invocation_id"))
    return next((r.tool_name for r in results if str(r.invocation_id) == wanted), None)
