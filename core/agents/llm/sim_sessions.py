"""Sessions of the simulated model through the real CLI: ``superbiz ask --executor llm``.

``serving(model)`` puts a ``SimulatedModel`` behind an OpenAI-compatible HTTP server on
127.0.0.1 and points the ``llm`` engine at it (``SUPERBIZ_LLM_*`` in this process's
environment, restored afterwards); ``ask_simulated`` runs one ``ask`` through ``core.cli.main``
and reads back what matters about it (``SimOutcome``). The tests and ``bench/llm_sim.py`` use
both.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from core.agents.llm.simulated import SimulatedModel
from core.agents.llm.stub_server import StubServer

# The seed's five questions (ISS-007 复现样例 and its acceptance matrix).
SEED_QUESTIONS: tuple[str, ...] = (
    "只确认 payment-service 当前是否存在 CPU 使用率过高告警。",
    "请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。",
    "只确认 user-service 是否存在 SlowResponse 告警和慢请求日志。",
    "确认 order-service 是否存在 HikariCP 连接池耗尽。",
    "确认 inventory-service 是否存在 HikariCP 连接池耗尽",
)
_ENV_CLEARED = ("SUPERBIZ_LLM_MODEL", "SUPERBIZ_LLM_BACKEND", "SUPERBIZ_LLM_API_KEY",
                "OPENAI_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY")


@dataclass(frozen=True)
class SimOutcome:
    """One session: how it ended, whether it was repaired, and what its answer shows."""

    status: str
    verdict: str | None
    first_verdict: str | None       # the first attempt's verdict (the final one without repair)
    repairs: int
    answer: str
    shown_claims: int               # claims the answer states as verified
    wrong_in_answer: list[str]      # injected wrong texts found in the answer
    error_made: bool                # the model made its error in this session
    document: dict[str, Any]

    @property
    def partial(self) -> bool:
        """A failing verdict whose answer still shows claims verified on their own."""
        return self.verdict != "PASS" and self.shown_claims > 0


@contextlib.contextmanager
def serving(model: SimulatedModel) -> Iterator[str]:
    """Serve ``model`` and point the llm engine at it; yields the base URL."""
    saved = {name: os.environ.get(name) for name in (*_ENV_CLEARED, "SUPERBIZ_LLM_BASE_URL",
                                                      "SUPERBIZ_LLM_TIMEOUT_S",
                                                      "SUPERBIZ_LLM_MAX_RETRIES")}
    with StubServer(double=model) as server:
        for name in _ENV_CLEARED:
            os.environ.pop(name, None)
        os.environ.update({"SUPERBIZ_LLM_BASE_URL": server.base_url,
                           "SUPERBIZ_LLM_TIMEOUT_S": "30", "SUPERBIZ_LLM_MAX_RETRIES": "0"})
        try:
            yield server.base_url
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def ask_simulated(model: SimulatedModel, question: str,
                  extra_args: Sequence[str] = ("--no-store",)) -> SimOutcome:
    """``superbiz ask QUESTION --executor llm --json`` against ``model`` (already ``serving``)."""
    from core.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(["ask", question, "--executor", "llm", "--json", *extra_args])
    try:
        document: dict[str, Any] = json.loads(out.getvalue())
    except json.JSONDecodeError:
        raise RuntimeError(f"ask printed no session document: {err.getvalue().strip()}") from None
    verifier = document.get("verifier_result") or {}
    attempts = document.get("attempts") or []
    composer = document.get("composer_output") or {}
    answer = str(composer.get("user_facing_answer") or "")
    squashed = _squash(answer)
    return SimOutcome(
        status=str(document.get("status")), verdict=verifier.get("verdict"),
        first_verdict=((attempts[0].get("verifier_result") or {}).get("verdict")
                       if attempts else verifier.get("verdict")),
        repairs=int(verifier.get("repairs") or 0), answer=answer,
        shown_claims=len(composer.get("passed_claim_ids") or []),
        wrong_in_answer=[text for text in model.injected.get(question, [])
                         if _squash(text) and _squash(text) in squashed],
        error_made=model.made.get(question, False), document=document)


def _squash(text: str) -> str:
    return "".join(text.split())
