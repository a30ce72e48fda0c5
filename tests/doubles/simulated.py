"""A simulated model in the executor's seat: it reads what the product sends and answers as a
mid-size model does. A test double (``tests/doubles``: outside the wheel).

Unlike a transcript, nothing is scripted: the model reads the question and the plan from the
executor's task, calls tools (``query_metrics`` and ``query_logs`` per planned service and
topic, ``lookup_knowledge``; when the logs have nothing, the question's keyword and an
ERROR-only query too), then writes claims with citations from the REAL tool results in the
conversation (``sim_claims``: three honest quoting styles), with at most one mistake injected on
purpose (``sim_faults``). On the repair turn it reads the findings (the ``retry_context`` JSON
of the message) and, if it ``fixes``, corrects what they name; otherwise it says the same again.

    python -m tests.doubles.simulated [--style strict|prefixless|natural]
        [--error MODE] [--stubborn] [--seed N] [--port 0]
    # listening on http://127.0.0.1:PORT/v1
    SUPERBIZ_LLM_BASE_URL=http://127.0.0.1:PORT/v1 superbiz ask "..." --executor llm

In process, ``SimulatedModel(...).client()`` is a ``ChatClient``; over HTTP it is served by
``stub_server.StubServer(double=...)``. It plays the executor only.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.agents.llm.transcript import TranscriptError, conversation_role
from tests.doubles.sim_claims import STYLES, Seen, Style, honest_output, read_task
from tests.doubles.sim_faults import ERROR_MODES, ErrorMode, fix, inject

# The repair turn's message ends with its findings as JSON after this marker (repair.v1.md).
RETRY_MARKER = "(retry_context):"


class SimulationError(TranscriptError):
    """A request the simulated model cannot answer (another role, no task message)."""


@dataclass
class SimulatedModel:
    """The model: its quoting ``style``, the ``error`` it makes, whether it ``fixes`` what a
    repair turn names, and a ``seed`` choosing which binding or claim the error hits.

    ``injected`` keeps, per question, the wrong texts its last answer put in (what a
    benchmark looks for in the final answer), and ``made`` whether it made its error at all
    (an answer with nothing to round has no rounded value).
    """

    style: Style = "strict"
    error: ErrorMode | None = None
    fixes: bool = True
    seed: int = 0
    injected: dict[str, list[str]] = field(default_factory=dict)
    made: dict[str, bool] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def name(self) -> str:
        """``strict``, ``natural+off_by_one+fixer`` ..."""
        parts = [self.style, *([self.error] if self.error else [])]
        return "+".join(parts + (["fixer" if self.fixes else "stubborn"] if self.error else []))

    def reply(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
              response_format: dict[str, Any] | None = None) -> dict[str, Any]:
        """The assistant message answering this request."""
        if conversation_role(messages) != "executor":
            raise SimulationError("the simulated model plays the executor only")
        seen = _seen(messages)
        last = messages[-1]
        text = str(last.get("content") or "")
        if last.get("role") == "user" and RETRY_MARKER in text:
            return _content(self._repaired(messages, seen, text))
        calls = self._calls(messages, seen) if tools else []
        if calls:
            return {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{len(messages)}_{n}", "type": "function",
                 "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}}
                for n, (name, args) in enumerate(calls)]}
        output = honest_output(seen, self.style)
        injected: list[str] = []
        made = False
        if self.error is not None:
            output, injected, made = inject(output, self.error, seen, self.seed)
        with self._lock:
            self.injected[seen.question] = injected
            self.made[seen.question] = made
        return _content(output)

    def _calls(self, messages: list[dict[str, Any]], seen: Seen) -> list[tuple[str, dict[str, Any]]]:
        turns = sum(1 for m in messages if m.get("role") == "assistant" and m.get("tool_calls"))
        if turns == 0:
            calls: list[tuple[str, dict[str, Any]]] = []
            for service in seen.services:
                calls.append(("query_metrics", {"service": service}))
                calls += [("query_logs", {"service": service, "topic": topic})
                          for topic in seen.topics or [""] if topic]
                if not seen.topics and seen.keyword():
                    calls.append(("query_logs", {"service": service, "query": seen.keyword()}))
            knowledge = next(iter(seen.plan.get("alert_names") or []), None) or seen.keyword()
            if knowledge:
                calls.append(("lookup_knowledge", {"query": knowledge}))
            return calls
        if turns == 1:  # nothing in the logs: look once more, by keyword and at ERROR lines
            calls = []
            for service in seen.services:
                if seen.no_hit_log_queries(service) and seen.topics:
                    keyword = seen.keyword()
                    if keyword and keyword != seen.topics[0]:
                        calls.append(("query_logs", {"service": service, "query": keyword}))
                    calls.append(("query_logs", {"service": service, "topic": seen.topics[0],
                                                 "level": "ERROR"}))
            return calls
        return []

    def _repaired(self, messages: list[dict[str, Any]], seen: Seen, text: str) -> dict[str, Any]:
        previous = _last_answer(messages)
        if not self.fixes:
            return previous
        try:
            feedback, _ = json.JSONDecoder().raw_decode(text[text.index(RETRY_MARKER)
                                                             + len(RETRY_MARKER):].lstrip())
        except (ValueError, json.JSONDecodeError):
            return previous
        return fix(previous, feedback, seen, self.style)

    def client(self) -> Any:
        """This model as an in-process ``ChatClient`` (a ``FunctionChatClient``)."""
        from core.agents.llm.completion import turn_from_message
        from tests.doubles.chat_clients import FunctionChatClient

        def answer(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                   response_format: dict[str, Any] | None) -> Any:
            message = self.reply(messages, tools, response_format)
            return turn_from_message(message, finish_reason="tool_calls"
                                     if message.get("tool_calls") else "stop")

        return FunctionChatClient(answer)


def _seen(messages: list[dict[str, Any]]) -> Seen:
    task = next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")
    if not task:
        raise SimulationError("no task message in the conversation")
    question, plan = read_task(task)
    invocations = []
    for message in messages:
        if message.get("role") == "tool":
            try:
                invocations.append(json.loads(message.get("content") or ""))
            except json.JSONDecodeError:
                continue
    return Seen(question, plan, [inv for inv in invocations if isinstance(inv, dict)])


def _last_answer(messages: list[dict[str, Any]]) -> dict[str, Any]:
    for message in reversed(messages):
        if message.get("role") == "assistant" and message.get("content"):
            try:
                value = json.loads(message["content"])
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    return {"claims": [], "hypotheses": [], "missing_info": [], "recommended_actions": []}


def _content(output: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": json.dumps(output, ensure_ascii=False),
            "refusal": None}


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the simulated model over HTTP until interrupted."""
    from core.agents.llm.stub_server import StubServer

    parser = argparse.ArgumentParser(prog="python -m tests.doubles.simulated",
                                     description="OpenAI-compatible simulated executor model.")
    parser.add_argument("--style", choices=STYLES, default="strict")
    parser.add_argument("--error", choices=ERROR_MODES, default=None)
    parser.add_argument("--stubborn", action="store_true",
                        help="say the same again on the repair turn instead of fixing")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    model = SimulatedModel(style=args.style, error=args.error, fixes=not args.stubborn,
                           seed=args.seed)
    StubServer(double=model, port=args.port).serve_until_interrupted()
    return 0


if __name__ == "__main__":
    sys.exit(main())
