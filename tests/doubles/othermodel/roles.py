"""The other roles, answered as a lenient mid-size model does.

- planner: services, alert names and topics named in the question (from the vocabulary it is
  given), narrow when the question says so, exclusions after "不要" / "do not";
- verifier: trusting: a claim with a binding the gatekeeper passed is entailed, PASS when the
  gatekeeper passed. The product's code has to hold the line after such a verifier;
- composer: the passed claims, joined, in the question's language.
"""

from __future__ import annotations

from typing import Any

from tests.doubles.othermodel.intent import read_question


def plan_answer(request: dict[str, Any]) -> dict[str, Any]:
    question = str(request.get("question", ""))
    intent = read_question(question)
    lowered = question.casefold()
    head = lowered.split("不要")[0].split("do not")[0]
    services = [s for s in request.get("services") or [] if s.casefold() in head]
    alert_names = [a for a in request.get("alert_names") or [] if a.casefold() in head]
    if not alert_names and intent.alert_kind:
        alert_names = [a for a in request.get("alert_names") or []
                       if intent.alert_kind.casefold() in a.casefold()
                       or (intent.alert_kind == "latency" and "slow" in a.casefold())]
    topics_known = request.get("topics") or {}
    wanted = {"pool": "connection_pool", "slow": "latency"}.get(intent.log_ask or "")
    topics = [t for t in (wanted, intent.alert_kind if intent.alert_kind != "latency" else None)
              if t and t in topics_known]
    excluded_services = [s for s in request.get("services") or []
                         if any(s.casefold() in part.casefold() for part in intent.excluded)]
    return {
        "question": question, "language": intent.language, "services": services,
        "alert_names": alert_names, "topics": topics, "narrow": intent.narrow,
        "scope_markers": [m for m in ("只确认", "只排查", "是否存在", "only confirm")
                          if m in lowered],
        "exclusions": {"services": excluded_services,
                       "terms": [p for p in intent.excluded if p not in excluded_services]},
        "tools": (["query_metrics"] if intent.wants_alert else []) +
                 (["query_logs"] if intent.log_ask else []),
        "notes": ["narrow confirmation"] if intent.narrow else [],
    }


def verifier_answer(request: dict[str, Any]) -> dict[str, Any]:
    output = request.get("executor_structured_output") or {}
    gate = request.get("gatekeeper_result") or {}
    passed = {(c.get("claim_id")) for c in gate.get("checked_bindings") or []
              if c.get("status") == "pass"}
    results = []
    for claim in output.get("claims") or []:
        entailed = claim.get("claim_id") in passed
        results.append({"claim_id": claim.get("claim_id"), "claim_type": claim.get("claim_type"),
                        "claim_text": claim.get("claim_text", ""), "entailed": entailed,
                        "reasons": ["supported by its verified excerpts"] if entailed
                        else ["no verified evidence"],
                        "rule": None if entailed else "verifier.no_verified_evidence"})
    entailed_count = sum(r["entailed"] for r in results)
    ok = gate.get("status") == "pass" and entailed_count == len(results)
    return {"verdict": "PASS" if ok else "LOW_CONFID",
            "groundedness_score": entailed_count / len(results) if results else 0.0,
            "claim_results": results, "reasons": ["all claims verified" if ok else "not all verified"]}


def composer_answer(request: dict[str, Any]) -> dict[str, Any]:
    zh = request.get("language") == "zh"
    claims = request.get("passed_claims") or []
    texts = [str(c.get("claim_text", "")).rstrip("。.") for c in claims]
    steps = [str(s) for s in request.get("next_steps") or []]
    if texts:
        answer = ("根据已核验的证据：" + "；".join(texts) + "。") if zh else \
            ("Verified evidence shows: " + "; ".join(texts) + ".")
    else:
        answer = "未检索到真实证据。" if zh else "No real evidence was found."
    if steps:
        answer += ("\n下一步：" if zh else "\nNext: ") + ("；" if zh else "; ").join(steps)
    if request.get("verdict") != "PASS":
        answer += "\n（该回答未能完全核验。）" if zh else "\n(This answer could not be fully verified.)"
    return {"status": "valid" if texts else "no_evidence", "user_facing_answer": answer,
            "language": "zh" if zh else "en",
            "passed_claim_ids": [c.get("claim_id") for c in claims]}
