"""``OtherModel``: the second model double, answering chat-completions requests.

It reads each request as a model does (``reading``): the executor calls tools by the question
and by what came back (``calls``), writes its answer from the real tool results (``claims``)
with its ``habits``, makes its one ``error`` when told to (``mistakes``), and on the repair
turn either fixes exactly what the findings name (``fixes=True``) or says the same again.
Planner, verifier and composer answers come from ``roles``.

Stateless per request (every decision is drawn from the seed and the question), so one server
serves any number of sessions; ``injected`` and ``made`` record, per question, the wrong texts
it wrote and whether it could make its error, for the figures.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from tests.doubles.othermodel import roles
from tests.doubles.othermodel.calls import Call, turns
from tests.doubles.othermodel.claims import Writer, honest_claims
from tests.doubles.othermodel.habits import Habits, draw_habits, rng_for
from tests.doubles.othermodel.intent import read_question
from tests.doubles.othermodel.mistakes import ERRORS, NEEDS_RUNBOOK, fixed, inject
from tests.doubles.othermodel.reading import Conversation, ToolResult, first_json_object

Answer = dict[str, Any]


class OtherModel:
    """A mid-size model in any role, with one optional ``error`` per session."""

    def __init__(self, *, wording: str = "natural", error: str | None = None,
                 fixes: bool = True, seed: int = 0, quote: str | None = None) -> None:
        if error is not None and error not in ERRORS:
            raise ValueError(f"unknown error mode {error!r}; one of {', '.join(ERRORS)}")
        self.wording, self.error, self.fixes, self.seed, self.quote = (
            wording, error, fixes, seed, quote)
        self.injected: dict[str, list[str]] = {}
        self.made: dict[str, bool] = {}
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        mode = self.error or "honest"
        return f"other-{self.wording}-{mode}-{'fixer' if self.fixes else 'stubborn'}-{self.seed}"

    # ------------------------------------------------------------------ requests
    def respond(self, body: dict[str, Any]) -> dict[str, Any]:
        """The assistant message answering one ``/chat/completions`` request body."""
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        conversation = Conversation(list(body.get("messages") or []),
                                    tools_offered=bool(body.get("tools")), schema_name=schema)
        if conversation.role == "executor":
            return self._executor(conversation)
        request = conversation.user_json()
        question = str(request.get("question") or request.get("original_query") or "")
        habits = draw_habits(self.seed, question)
        if conversation.role == "planner":
            return self._message(roles.plan_answer(request), habits)
        if conversation.role == "verifier":
            return self._message(roles.verifier_answer(request), habits)
        if conversation.role == "composer":
            return self._message(roles.composer_answer(request), habits)
        return {"role": "assistant", "content": "I am not sure what you are asking for."}

    def _executor(self, conversation: Conversation) -> dict[str, Any]:
        question = conversation.question()
        intent = read_question(question)
        habits = draw_habits(self.seed, question)
        results = conversation.tool_results()
        phase = conversation.phase()
        if phase == "reask":
            previous = first_json_object(conversation.previous_answer() or "")
            return self._message(previous or self._first_answer(question, results, habits),
                                 habits, form="bare")
        if phase == "repair":
            return self._repair(conversation, question, results, habits)
        if phase == "first" and conversation.tools_offered:
            planned = turns(intent, habits, results,
                            with_knowledge=self.error in NEEDS_RUNBOOK)
            done = conversation.phase_tool_turns()
            if done < len(planned):
                return self._calls(planned[done], habits, prefix=f"c{done}")
        return self._message(self._first_answer(question, results, habits), habits)

    def _first_answer(self, question: str, results: list[ToolResult], habits: Habits) -> Answer:
        answer = self._honest(question, results)
        if self.error is not None:
            injection = inject(self.error, answer, results, read_question(question),
                               rng_for("error", self.seed, question, self.error))
            with self._lock:
                self.made[question] = injection.made
                self.injected[question] = injection.wrong_texts
        return answer

    def _honest(self, question: str, results: list[ToolResult]) -> Answer:
        writer = Writer(read_question(question), self.wording,
                        rng_for("quotes", self.seed, question), self.quote)
        return {"claims": honest_claims(writer, results), "hypotheses": [], "missing_info": [],
                "recommended_actions": []}

    def _repair(self, conversation: Conversation, question: str, results: list[ToolResult],
                habits: Habits) -> dict[str, Any]:
        previous_text = conversation.previous_answer() or ""
        previous = first_json_object(previous_text)
        feedback = conversation.retry_context() or {}
        if (self.fixes and habits.requery_on_repair and conversation.tools_offered
                and conversation.phase_tool_turns() == 0):
            again = _requery(feedback, results)
            if again is not None:
                return self._calls([again], habits, prefix="r")
        if previous is None:
            return self._message(self._first_answer(question, results, habits), habits)
        if not self.fixes:
            return {"role": "assistant", "content": previous_text}
        answer = fixed(previous, feedback, self._honest(question, results), results)
        _cite_fresh(answer, conversation.phase_results(), results)
        return self._message(answer, habits)

    # ------------------------------------------------------------------ wire forms
    def _calls(self, calls: list[Call], habits: Habits, *, prefix: str) -> dict[str, Any]:
        return {"role": "assistant", "content": None,
                "tool_calls": [{"id": f"call_{prefix}_{number}", "type": "function",
                                "function": {"name": call.name,
                                             "arguments": call.arguments_json(habits)}}
                               for number, call in enumerate(calls)]}

    def _message(self, answer: Answer, habits: Habits, form: str | None = None) -> dict[str, Any]:
        data: Any = answer
        if habits.ids_as_strings:
            data = _ids_as_strings(data)
        if habits.shuffled_keys:
            data = _reversed_keys(data)
        text = json.dumps(data, ensure_ascii=False, indent=2 if habits.pretty_arguments else None)
        form = form or habits.answer_form
        if form == "fenced":
            return {"role": "assistant", "content": f"```json\n{text}\n```"}
        if form == "prose":
            return {"role": "assistant",
                    "content": f"Here is my answer based on the tool results.\n\n{text}\n\n"
                               f"Every excerpt is copied from the tool outputs above."}
        if form == "parts":
            return {"role": "assistant", "content": [{"type": "text", "text": text}]}
        return {"role": "assistant", "content": text}


def _requery(feedback: dict[str, Any], results: list[ToolResult]) -> Call | None:
    """The call behind the first failed binding, made again (a model checking its source)."""
    for finding in feedback.get("findings") or []:
        cited = finding.get("cited") or {}
        wanted = str(cited.get("source_invocation_id"))
        result = next((r for r in results if str(r.invocation_id) == wanted
                       and r.tool_name != "lookup_knowledge"), None)
        if result is not None:
            return Call(result.tool_name, dict(result.arguments))
    return None


def _cite_fresh(answer: Answer, fresh: list[ToolResult], results: list[ToolResult]) -> None:
    """Point bindings at a call made again in this turn (same tool and arguments)."""
    by_id = {str(r.invocation_id): r for r in results}
    for claim in answer.get("claims") or []:
        for binding in claim.get("evidence_bindings") or []:
            old = by_id.get(str(binding.get("source_invocation_id")))
            again = next((r for r in fresh if old is not None and r.tool_name == old.tool_name
                          and r.arguments == old.arguments
                          and r.invocation_id != old.invocation_id), None)
            if again is not None and (binding.get("raw_path") is None or any(
                    ref["raw_path"] == binding.get("raw_path") for ref in again.refs)):
                binding["source_invocation_id"] = again.invocation_id


def _ids_as_strings(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: (str(v) if k == "source_invocation_id" and isinstance(v, int) else
                    _ids_as_strings(v)) for k, v in data.items()}
    if isinstance(data, list):
        return [_ids_as_strings(item) for item in data]
    return data


def _reversed_keys(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _reversed_keys(data[k]) for k in reversed(list(data))}
    if isinstance(data, list):
        return [_reversed_keys(item) for item in data]
    return data
