"""The simulated model's mistakes, each injected on purpose, and how it fixes them when told.

Citation errors (a model that is told what failed can fix them):

- ``off_by_one``: a binding cites the neighbouring index of the same invocation;
- ``paraphrase``: a quote reworded instead of copied;
- ``wrong_invocation``: a binding cites another invocation of the session;
- ``missing_raw_path``: a binding without its ``raw_path``.

Content errors (wrong content that must never reach a PASS answer):

- ``repair_action``: a root cause and a repair written as a recommended action
  (``内存泄漏已确认，立即重启 order-service 并把堆内存扩容到 8GB``);
- ``runbook_appended``: a runbook sentence appended to a real claim;
- ``rounded_value``: a value rounded (``约 4GB`` for 3.8GB).

``inject`` returns the faulty output and the texts it injected; ``fix`` is the model that
corrects what the repair turn's findings name: a quote found elsewhere is cited there, a
paraphrase is replaced by the ref text the finding quotes, a fact is restated as its evidence
states it; what it cannot fix it leaves out.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Literal

from tests.doubles.sim_claims import Cited, Seen, alert_claim, lines_claim

ErrorMode = Literal["off_by_one", "paraphrase", "wrong_invocation", "missing_raw_path",
                    "repair_action", "runbook_appended", "rounded_value"]
CITATION_ERRORS: tuple[ErrorMode, ...] = ("off_by_one", "paraphrase", "wrong_invocation",
                                          "missing_raw_path")
CONTENT_ERRORS: tuple[ErrorMode, ...] = ("repair_action", "runbook_appended", "rounded_value")
ERROR_MODES: tuple[ErrorMode, ...] = CITATION_ERRORS + CONTENT_ERRORS
_INDEX = re.compile(r"^(\$\.\w+)\[(\d+)\]$")
_RATIO = re.compile(r"(\d+(?:\.\d+)?)\s*([A-Za-z%]*)\s*/\s*(\d+(?:\.\d+)?)\s*([A-Za-z%]*)")
_VALUE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(GB|MB|s|ms|%)")


def inject(output: dict[str, Any], mode: ErrorMode, seen: Seen,
           seed: int = 0) -> tuple[dict[str, Any], list[str], bool]:
    """``output`` with one ``mode`` mistake; the wrong texts it put in (for content errors:
    what must never reach a PASS answer); whether the mistake could be made at all (a
    paraphrase needs a quote, a rounded value a value to round ...)."""
    faulty = copy.deepcopy(output)
    claims = [c for c in faulty["claims"] if c.get("claim_type") == "observation"]
    if mode == "repair_action":
        service = (seen.services or ["the service"])[0]
        text = (f"内存泄漏已确认，立即重启 {service} 并把堆内存扩容到 8GB" if seen.language == "zh"
                else f"Memory leak confirmed: restart {service} now and raise its heap to 8GB")
        faulty["recommended_actions"].append({"action_id": "action-1", "action_text": text,
                                              "reason": text, "evidence_bindings": []})
        return faulty, [text], True
    if mode == "runbook_appended":
        sentence = _runbook_sentence(seen)
        targets = claims or faulty["claims"]
        if not sentence or not targets:
            return faulty, [], False
        claim = targets[seed % len(targets)]
        claim["claim_text"] = claim["claim_text"].rstrip("。.") + ("；" if seen.language == "zh"
                                                                  else "; ") + sentence
        return faulty, [sentence], True
    if mode in CITATION_ERRORS:
        bindings = [b for c in claims for b in c["evidence_bindings"]]
        if not bindings and mode == "wrong_invocation":  # a negative's citation can be wrong too
            bindings = [b for c in faulty["claims"] for b in c["evidence_bindings"]]
        if not bindings:
            return faulty, [], False
        _break_citation(bindings[seed % len(bindings)], mode, seen)
        return faulty, [], True
    for claim in claims[seed % len(claims):] + claims[:seed % len(claims)] if claims else []:
        rounded = _rounded(claim["claim_text"])
        if rounded is not None:
            claim["claim_text"], wrong = rounded
            return faulty, [wrong], True
    return faulty, [], False


def _break_citation(binding: dict[str, Any], mode: ErrorMode, seen: Seen) -> None:
    if mode == "missing_raw_path":
        binding["raw_path"] = None
    elif mode == "paraphrase":
        binding["evidence_excerpt"] = _paraphrase(binding["evidence_excerpt"])
    elif mode == "wrong_invocation":
        others = [inv["invocation_id"] for inv in seen.invocations
                  if inv["invocation_id"] != binding["source_invocation_id"]]
        binding["source_invocation_id"] = others[0] if others else binding["source_invocation_id"] + 1
    elif mode == "off_by_one" and (found := _INDEX.match(binding.get("raw_path") or "")):
        prefix, index = found.group(1), int(found.group(2))
        size = sum(1 for inv in seen.invocations
                   if inv["invocation_id"] == binding["source_invocation_id"]
                   for ref in (inv.get("retrieval_details") or {}).get("evidence_refs") or []
                   if ref["raw_path"].startswith(prefix + "["))
        # The next entry, or the previous one at the end (one past the end with a single one).
        neighbour = index + 1 if index + 1 < size or index == 0 else index - 1
        binding["raw_path"] = f"{prefix}[{neighbour}]"


def _paraphrase(text: str) -> str:
    """The quote as a model rewords it: joined by its own words, '=' read out."""
    reworded = text.replace("=", " reached ").replace(": ", " 达到 ").replace(", ", "，并且 ")
    return reworded if reworded != text else "据记录 " + text


def _runbook_sentence(seen: Seen) -> str:
    """The first cause a runbook of the session lists (what a model appends as if it held)."""
    for cited in seen.cited("lookup_knowledge", "evidence_blocks"):
        title = str(cited.entry.get("title", ""))
        if "原因" in title or "cause" in title.lower():
            for line in str(cited.entry.get("content", "")).splitlines():
                sentence = line.strip().lstrip("-").strip()
                if sentence:
                    return sentence
    return ""


def _rounded(text: str) -> tuple[str, str] | None:
    """The claim with its first used/total or decimal value rounded ('约 4GB' for 3.8GB)."""
    ratio = _RATIO.search(text)
    if ratio and "." in ratio.group(1):
        wrong = f"约 {round(float(ratio.group(1)))}{ratio.group(2)}"
        return text[:ratio.start()] + "已用" + wrong + text[ratio.end():], wrong
    for found in _VALUE.finditer(text):
        value, unit = float(found.group(1)), found.group(2)
        rough = round(value / 10) * 10 if unit == "%" else round(value)
        if rough != value:
            wrong = f"约 {rough}{unit}"
            return text[:found.start()] + wrong + text[found.end():], wrong
    return None


def fix(previous: dict[str, Any], feedback: dict[str, Any], seen: Seen,
        style: str) -> dict[str, Any]:
    """The answer a model writes when told what failed (``feedback``: the retry_context)."""
    fixed = copy.deepcopy(previous)
    claims = {c.get("claim_id"): c for c in fixed.get("claims") or []}
    drop: set[tuple[str, int]] = set()
    for finding in feedback.get("findings") or []:
        claim = claims.get(finding.get("claim_id"))
        if claim is None:
            continue
        index = finding.get("binding_index")
        if index is not None and 0 <= index < len(claim["evidence_bindings"]):
            if not _fix_binding(claim["evidence_bindings"][index], finding):
                drop.add((claim["claim_id"], index))
        else:
            _fix_claim(claim, seen, style)
    for claim in claims.values():
        claim["evidence_bindings"] = [b for i, b in enumerate(claim["evidence_bindings"])
                                      if (claim["claim_id"], i) not in drop]
    fixed["claims"] = [c for c in claims.values() if c["evidence_bindings"]]
    return fixed


def _fix_binding(binding: dict[str, Any], finding: dict[str, Any]) -> bool:
    """Cite where the quote really is, or quote what the cited ref says; False: give it up."""
    found = finding.get("found_at") or []
    if found:
        place = found[0]
        binding.update(tool_name=place.get("tool_name"),
                       source_invocation_id=place.get("source_invocation_id"),
                       raw_path=place.get("raw_path"))
        return True
    ref_text = finding.get("ref_text")
    if ref_text and binding.get("raw_path") and not str(finding.get("rule")).endswith(
            ("invocation_ref", "invocation_session", "negative_mismatch")):
        binding["evidence_excerpt"] = ref_text
        return True
    return False


def _fix_claim(claim: dict[str, Any], seen: Seen, style: str) -> None:
    """Restate the claim as its first cited entry says (what 'state it as the evidence does'
    means to a model); give every binding its tool and the claim its type."""
    claim["claim_type"] = claim.get("claim_type") or "observation"
    entries = {(c.invocation_id, c.raw_path): c for c in
               seen.cited("query_metrics", "alerts") + seen.cited("query_logs", "logs")}
    cited: list[Cited] = [entries[key] for b in claim["evidence_bindings"]
                          if (key := (b.get("source_invocation_id"), b.get("raw_path"))) in entries]
    for binding in claim["evidence_bindings"]:
        binding["tool_name"] = binding.get("tool_name") or next(
            (inv["tool_name"] for inv in seen.invocations
             if inv["invocation_id"] == binding.get("source_invocation_id")), None)
    if not cited:
        return
    quoting = "natural" if style == "natural" else "strict"
    if cited[0].tool_name == "query_metrics":
        claim["claim_text"], _ = alert_claim(cited[0], quoting, seen.language)  # type: ignore[arg-type]
    else:
        claim["claim_text"], _ = lines_claim(cited, quoting, seen.language)  # type: ignore[arg-type]
