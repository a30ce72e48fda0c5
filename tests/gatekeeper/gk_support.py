"""Builds gatekeeper inputs from the YAML case table (gk_session.yaml + gk_cases.yaml)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from core.contracts import (
    Claim,
    EvidenceBinding,
    ExecutorOutput,
    Invocation,
    ParseStatus,
    RecommendedAction,
)

HERE = Path(__file__).resolve().parent


class TableStore:
    """An audit store over a list of invocations (``core.gatekeeper.StoredInvocations``)."""

    def __init__(self, invocations: list[Invocation]) -> None:
        self.by_id = {invocation.invocation_id: invocation for invocation in invocations}
        self.sessions = {invocation.session_id for invocation in invocations if invocation.session_id}

    def invocation(self, invocation_id: int) -> Invocation | None:
        return self.by_id.get(invocation_id)

    def holds_session(self, session_id: str) -> bool:
        return session_id in self.sessions


@dataclass(frozen=True)
class Session:
    """The fixture session: its id, its invocations, the ones edited, and the store."""

    session_id: str
    invocations: tuple[Invocation, ...]
    tampered: frozenset[int]
    store: TableStore


@lru_cache(maxsize=1)
def load_session() -> Session:
    raw = yaml.safe_load((HERE / "gk_session.yaml").read_text(encoding="utf-8"))
    invocations: list[Invocation] = []
    tampered: set[int] = set()
    recorded: list[Invocation] = []
    stored = [Invocation.model_validate(item) for item in raw["stored"]]
    overridden = {invocation.invocation_id for invocation in stored}
    for item in raw["invocations"]:
        edited, unrecorded = item.pop("tampered", False), item.pop("unrecorded", False)
        invocation = Invocation.model_validate(item)
        invocations.append(invocation)
        if edited:
            tampered.add(invocation.invocation_id)
        elif not unrecorded and invocation.session_id and invocation.invocation_id not in overridden:
            recorded.append(invocation)
    return Session(raw["session_id"], tuple(invocations), frozenset(tampered), TableStore(recorded + stored))


def load_cases() -> list[dict[str, Any]]:
    return list(yaml.safe_load((HERE / "gk_cases.yaml").read_text(encoding="utf-8")))


def _binding(raw: dict[str, Any]) -> EvidenceBinding:
    return EvidenceBinding(tool_name=raw.get("tool"), source_invocation_id=raw.get("id"),
                           raw_path=raw.get("path"), evidence_excerpt=raw.get("excerpt", ""))


def build_output(case: dict[str, Any]) -> ExecutorOutput | None:
    """The executor output a case describes (None for ``output: null``)."""
    if "output" in case and case["output"] is None:
        return None
    claims = [
        Claim(claim_id=raw.get("claim_id", f"claim-{number}"),
              claim_type=raw.get("type", "observation"),
              claim_text=raw.get("text", "order-service 当前存在 HighMemoryUsage 告警，内存使用率达到 91%。"),
              subject_services=raw.get("services", []), subject_topics=raw.get("topics", []),
              evidence_bindings=[_binding(b) for b in raw.get("bindings", [])])
        for number, raw in enumerate(case.get("claims", []), start=1)
    ]
    actions = [
        RecommendedAction(action_id=f"action-{number}", action_text="继续查看 order-service 的 GC 日志",
                          evidence_bindings=[_binding(b) for b in raw.get("bindings", [])])
        for number, raw in enumerate(case.get("actions", []), start=1)
    ]
    return ExecutorOutput(claims=claims, recommended_actions=actions)


def check_kwargs(case: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments of ``check_citations`` for a case."""
    session = load_session()
    status = case.get("parse_status")
    cited = {binding.get("id") for owner in case.get("claims", []) + case.get("actions", [])
             for binding in owner.get("bindings", [])} | set(case.get("with_edited", []))
    # An edited invocation is in the document only for the cases that are about it.
    invocations = [inv for inv in session.invocations
                   if inv.invocation_id not in session.tampered or inv.invocation_id in cited]
    return {
        "session_id": case.get("session_id", session.session_id),
        "invocations": invocations,
        "executor_output": build_output(case),
        "parse_status": ParseStatus(status=status) if status else None,
        "stored_invocations": session.store if case.get("store") else None,
    }
