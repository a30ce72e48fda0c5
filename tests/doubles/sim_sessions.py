"""Sessions of a model double through the real CLI: ``superbiz ask --executor llm``.

``serving(model)`` puts a ``SimulatedModel`` behind an OpenAI-compatible HTTP server on
127.0.0.1 and points the ``llm`` engine at it (``pointed_at``: ``SUPERBIZ_LLM_*`` in this
process's environment, restored afterwards); the second double serves itself
(``tests.doubles.othermodel.serving``). ``ask_simulated`` runs one ``ask`` through
``core.cli.main`` against either and reads back what matters about it (``SimOutcome``). The
tests and ``bench/llm_sim.py`` use them.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from tests.doubles.simulated import SimulatedModel

# The seed's five questions (ISS-007 复现样例 and its acceptance matrix).
SEED_QUESTIONS: tuple[str, ...] = (
    "只确认 payment-service 当前是否存在 CPU 使用率过高告警。",
    "请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。",
    "只确认 user-service 是否存在 SlowResponse 告警和慢请求日志。",
    "确认 order-service 是否存在 HikariCP 连接池耗尽。",
    "确认 inventory-service 是否存在 HikariCP 连接池耗尽",
)
_ENV = ("SUPERBIZ_LLM_BASE_URL", "SUPERBIZ_LLM_MODEL", "SUPERBIZ_LLM_BACKEND",
        "SUPERBIZ_LLM_API_KEY", "SUPERBIZ_LLM_TIMEOUT_S", "SUPERBIZ_LLM_MAX_RETRIES",
        "OPENAI_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY")


class ModelDouble(Protocol):
    """What the figures read from a double: per question, the wrong texts it wrote on purpose
    and whether it could make its error."""

    injected: dict[str, list[str]]
    made: dict[str, bool]


@dataclass(frozen=True)
class SimOutcome:
    """One session: how it ended, whether it was repaired, and what its answer shows."""

    status: str
    verdict: str | None
    first_verdict: str | None       # the first attempt's verdict (the final one without repair)
    repairs: int
    answer: str
    shown_claims: int               # claims the answer states as verified
    wrong_in_answer: list[str]      # injected wrong texts the answer shows (text, passed claim or step)
    error_made: bool                # the model made its error in this session
    document: dict[str, Any]

    @property
    def partial(self) -> bool:
        """A failing verdict whose answer still shows claims verified on their own."""
        return self.verdict != "PASS" and self.shown_claims > 0


@contextlib.contextmanager
def pointed_at(base_url: str, backend: str | None = None) -> Iterator[str]:
    """The llm engine's environment points at ``base_url`` while the block runs."""
    saved = {name: os.environ.get(name) for name in _ENV}
    for name in _ENV:
        os.environ.pop(name, None)
    os.environ.update({"SUPERBIZ_LLM_BASE_URL": base_url,
                       "SUPERBIZ_LLM_TIMEOUT_S": "30", "SUPERBIZ_LLM_MAX_RETRIES": "0"})
    if backend:
        os.environ["SUPERBIZ_LLM_BACKEND"] = backend
    try:
        yield base_url
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextlib.contextmanager
def serving(model: SimulatedModel) -> Iterator[str]:
    """Serve ``model`` and point the llm engine at it; yields the base URL."""
    from core.agents.llm.stub_server import StubServer

    with StubServer(double=model) as server, pointed_at(server.base_url) as url:
        yield url


def ask_simulated(model: ModelDouble, question: str,
                  extra_args: Sequence[str] = ("--no-store",),
                  roles: Sequence[str] = ("--executor", "llm")) -> SimOutcome:
    """``superbiz ask QUESTION <roles> --json`` against ``model`` (already served)."""
    from core.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(["ask", question, *roles, "--json", *extra_args])
    try:
        document: dict[str, Any] = json.loads(out.getvalue())
    except json.JSONDecodeError:
        raise RuntimeError(f"ask printed no session document: {err.getvalue().strip()}") from None
    verifier = document.get("verifier_result") or {}
    attempts = document.get("attempts") or []
    composer = document.get("composer_output") or {}
    return SimOutcome(
        status=str(document.get("status")), verdict=verifier.get("verdict"),
        first_verdict=((attempts[0].get("verifier_result") or {}).get("verdict")
                       if attempts else verifier.get("verdict")),
        repairs=int(verifier.get("repairs") or 0),
        answer=str(composer.get("user_facing_answer") or ""),
        shown_claims=len(composer.get("passed_claim_ids") or []),
        wrong_in_answer=wrong_shown(document, model.injected.get(question, [])),
        error_made=model.made.get(question, False), document=document)


def wrong_shown(document: dict[str, Any], wrong: Sequence[str]) -> list[str]:
    """Which of ``wrong`` the session's answer shows: in its text, or in a claim or next step
    it passed (whatever words the composer chose)."""
    composer = document.get("composer_output") or {}
    verifier = document.get("verifier_result") or {}
    output = document.get("executor_output") or {}
    passed_ids = set(composer.get("passed_claim_ids") or [])
    shown = [str(composer.get("user_facing_answer") or "")]
    shown += [str(claim.get("claim_text")) for claim in output.get("claims") or []
              if claim.get("claim_id") in passed_ids]
    shown += [str(step.get("text")) for step in verifier.get("step_results") or []
              if step.get("passed")]
    squashed = _squash(" ".join(shown))
    return [text for text in wrong if _squash(text) and _squash(text) in squashed]


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())
