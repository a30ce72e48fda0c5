"""The ``llm`` executor: a bounded tool-calling loop, then the structured output of
docs/design.md §3.

Each tool call the model makes is validated against the tool's pydantic argument model. A valid
call goes through the recorder; an invalid one (unknown tool, arguments that are not JSON or do
not validate) is recorded too, as a failed invocation, so the audit shows it. Either way the
model gets the recorded invocation's JSON back as the tool message, the same JSON the session
document shows, so it can cite ``invocation_id`` + ``raw_path`` + the ref's text.

A run in which any model step failed is never PASS: its parse status is ``invalid`` (which the
gatekeeper grades LOW_CONFID), with the failed steps named in the detail, while the output is
still handed on so every claim stays visible and checked.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Generator
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from core.agents.base import ExecutorRun
from core.agents.llm import wire
from core.agents.llm.budget import cut_tool_result
from core.agents.llm.client import ChatTurn, ToolCallRequest
from core.agents.llm.completion import repair_model_json
from core.agents.llm.feedback import repair_message
from core.agents.llm.role import LLMRole
from core.agents.llm.structured import output_instructions, request_structured
from core.contracts import ExecutorOutput, Invocation, ParseStatus, Plan, RetryContext
from core.events import ToolCalled, ToolEvent, ToolReturned

if TYPE_CHECKING:
    from core.recorder import Recorder

SCHEMA_NAME = "executor_output"
# The argument key under which undecodable arguments are recorded: no tool accepts it, so the
# call is recorded as failed with the raw text kept for the audit.
UNDECODABLE_ARGUMENTS_KEY = "_arguments_not_a_json_object"


class LLMExecutor(LLMRole):
    """``run(plan, recorder)``: tool calls through the recorder, then claims with citations."""

    role = "executor"

    def __init__(self, *args: Any, max_tool_steps: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The conversation of each session's last run, for its repair turn; held weakly, so a
        # finished session's conversation goes with its recorder (engines serve many sessions).
        self._conversations: WeakKeyDictionary[Recorder, list[wire.Message]] = WeakKeyDictionary()
        self.max_tool_steps = max_tool_steps or self.settings.max_tool_steps

    def run(self, plan: Plan, recorder: Recorder) -> ExecutorRun:
        """Yield ``ToolCalled`` / ``ToolReturned`` per call; return (output, parse status)."""
        if not self.profile.tool_calling:
            return (yield from self._with_results_in_prompt(plan, recorder))
        messages = [wire.system_message(self.prompt.text), wire.user_message(self._task(plan))]
        return (yield from self._converse(messages, recorder))

    def _with_results_in_prompt(self, plan: Plan, recorder: Recorder) -> ExecutorRun:
        """For a server that does not call tools (most chat templates of llama-cpp-python
        ignore ``tools``): the calls the rules executor would make are made by code, through
        the recorder, and their results — cut to what a citation needs — are in the prompt;
        the model only answers. Everything it cites is checked as always."""
        from core.agents.rules import RulesExecutor

        yield from RulesExecutor().run(plan, recorder)  # its own claims are not used
        results = [cut_tool_result(wire.invocation_json(invocation))[0]
                   for invocation in recorder.invocations]
        messages = [wire.system_message(self.prompt.text), wire.user_message(
            self._task(plan, tools_called=True) + "\n\nTool results (already called for "
            "you; cite their invocation_id, raw_path and a quote of text):\n"
            + "\n".join(results))]
        output, status = yield from self._converse(messages, recorder)
        note = ("the server does not call tools: the rules executor's calls were made by code "
                "and their evidence refs given in the prompt")
        return output, status.model_copy(update={"detail": f"{status.detail}; {note}"})

    def repair(self, plan: Plan, recorder: Recorder, feedback: RetryContext) -> ExecutorRun:
        """The repair turn: the same conversation, continued with what failed (``feedback``);
        the model may call tools again, then answers in full once more. Without the
        conversation of a run on this recorder, one is rebuilt from the recorded calls."""
        messages = self._conversations.pop(recorder, None) or self._rebuilt(plan, recorder)
        messages.append(wire.user_message(repair_message(feedback, self.profile)))
        return (yield from self._converse(messages, recorder))

    def _converse(self, messages: list[wire.Message], recorder: Recorder) -> ExecutorRun:
        """The tool loop, then the structured answer; the conversation is kept for a repair."""
        # None where the server does not call tools: the results are in the prompt already.
        tools = wire.tool_schemas() if self.profile.tool_calling else None
        notes: list[str] = []  # how the endpoint had to be asked (``capabilities``, ``budget``)
        complete = self._noting(notes)
        # Backends that take both constrain the final answer already inside the loop.
        loop_format = (wire.response_format(ExecutorOutput, SCHEMA_NAME, self.profile)
                       if self.profile.tools_with_response_format else None)
        failed_steps: list[str] = []
        answer: ChatTurn | None = None
        for _ in range(self.max_tool_steps):
            turn = complete(messages, tools=tools, response_format=loop_format)
            if not turn.tool_calls:
                answer = turn
                break
            messages.append(wire.assistant_message(turn))
            for call in turn.tool_calls:
                invocation, problem = yield from self._call_tool(call, recorder)
                if problem:
                    failed_steps.append(f"tool call {call.name!r} (invocation "
                                        f"{invocation.invocation_id}): {problem}")
                messages.append(wire.tool_message(call.id, invocation))
        if answer is None:
            failed_steps.append(f"the model was still calling tools after {self.max_tool_steps} "
                                f"step(s); it was asked for its answer without tools")
            messages.append(wire.user_message(
                "The tool budget is spent. " + output_instructions(ExecutorOutput, self.profile)))
        output, status = request_structured(complete, messages, ExecutorOutput,
                                            name=SCHEMA_NAME, profile=self.profile,
                                            first_turn=answer)
        if output is not None:  # the answer a repair turn follows, as the model gave it
            messages.append(wire.assistant_message(answer) if status.status == "valid" and answer
                            else wire.assistant_message(ChatTurn(content=output.model_dump_json())))
        self._conversations[recorder] = messages
        return output, self._parse_status(status, failed_steps, notes)

    def _rebuilt(self, plan: Plan, recorder: Recorder) -> list[wire.Message]:
        """A conversation that shows the recorded calls as if the model had made them."""
        messages = [wire.system_message(self.prompt.text), wire.user_message(self._task(plan))]
        for number, invocation in enumerate(recorder.invocations):
            call = ToolCallRequest(id=f"call_r{number}", name=invocation.tool_name,
                                   arguments_json=json.dumps(invocation.arguments,
                                                             ensure_ascii=False))
            messages.append(wire.assistant_message(ChatTurn(content=None, tool_calls=(call,))))
            messages.append(wire.tool_message(call.id, invocation))
        return messages

    def _task(self, plan: Plan, *, tools_called: bool = False) -> str:
        """The user message: the question, the plan, and how to answer."""
        act = "Answer from the tool results below." if tools_called else \
            "Call the tools you need, then answer."
        return (f"Question: {plan.question}\n\n"
                f"Plan (what to look at; exclusions are forbidden subjects):\n"
                f"{plan.model_dump_json(exclude={'question'})}\n\n"
                f"{act} {output_instructions(ExecutorOutput, self.profile)}")

    def _call_tool(self, call: ToolCallRequest,
                   recorder: Recorder) -> Generator[ToolEvent, None, tuple[Invocation, str]]:
        """Record one tool call; yields its events, returns (invocation, problem). The tools
        validate their arguments: an unknown tool or invalid arguments come back as a failed
        invocation whose error is the problem."""
        arguments, problem = decode_arguments(call.arguments_json)
        yield ToolCalled(session_id=recorder.session_id, tool_name=call.name,
                         arguments=arguments)
        # record_failure: an invalid call is part of the audit trail, not an exception.
        invocation: Invocation = recorder.call(call.name, arguments, record_failure=True)
        yield ToolReturned(session_id=recorder.session_id, invocation=invocation)
        if not problem and not invocation.output.get("success", False):
            problem = str(invocation.output.get("error") or "the tool call failed")
        return invocation, problem

    def _parse_status(self, status: ParseStatus, failed_steps: list[str],
                      notes: list[str]) -> ParseStatus:
        detail = f"{self.prompt.prompt_id}: {status.detail}"
        if notes:  # recorded with the output: the session says how its model was asked
            detail += "; llm endpoint: " + "; ".join(notes)
        if not failed_steps:
            return ParseStatus(status=status.status, detail=detail)
        steps = "; ".join(failed_steps)
        return ParseStatus(status="invalid" if status.status != "missing" else "missing",
                           detail=f"{detail}; {len(failed_steps)} failed model step(s), so the "
                                  f"output is not trusted: {steps}")


def decode_arguments(arguments_json: str) -> tuple[dict[str, Any], str]:
    """The call's arguments as a dict, and '' — or the raw text under a key no tool accepts,
    and why it could not be used."""
    text = arguments_json.strip() or "{}"  # some servers send "" for a call without arguments
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return ({UNDECODABLE_ARGUMENTS_KEY: arguments_json},
                f"arguments are not valid JSON ({exc.msg} at column {exc.colno})")
    if isinstance(value, str):  # JSON text encoded twice, as some servers send it
        with contextlib.suppress(json.JSONDecodeError):  # not JSON inside: refused just below
            value = json.loads(value.strip() or "{}")
    if not isinstance(value, dict):
        return ({UNDECODABLE_ARGUMENTS_KEY: arguments_json},
                f"arguments must be a JSON object, got {type(value).__name__}")
    try:
        value = repair_model_json(value, text)
    except ValueError as exc:
        return ({UNDECODABLE_ARGUMENTS_KEY: arguments_json}, str(exc))
    return value, ""
