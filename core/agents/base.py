"""The four roles as protocols. Each engine (``rules``, ``llm``) implements them; the pipeline
wires one engine per role, so engines can be mixed (``--executor llm --verifier rules``)."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Protocol, TypeGuard

from core.agents import names
from core.contracts import (
    ComposerOutput,
    ExecutorOutput,
    ParseStatus,
    Plan,
    RetryContext,
    VerifierInput,
    VerifierResult,
)
from core.events import ToolEvent

if TYPE_CHECKING:
    from core.recorder import Recorder
    from core.sources.base import World

ROLES = names.ROLES  # the roles, in pipeline order

# The executor yields ToolCalled / ToolReturned events while it works and returns its output.
ExecutorRun = Generator[ToolEvent, None, tuple[ExecutorOutput | None, ParseStatus]]


class Planner(Protocol):
    """Question -> plan: services, topics, alert names, narrow scope, exclusions, tools. The
    world gives the vocabulary (``world.vocabulary``); a planner calls no tool."""

    engine: str

    def plan(self, question: str, world: World) -> Plan: ...


class Executor(Protocol):
    """Plan -> tool calls (through the recorder, on ``recorder.world``) -> claims bound to
    citations."""

    engine: str

    def run(self, plan: Plan, recorder: Recorder) -> ExecutorRun: ...


class RepairingExecutor(Executor, Protocol):
    """An executor that can take one repair turn: told what failed in its last answer on this
    recorder (``feedback``), it answers once more (``docs/llm.md``, "The repair turn")."""

    def repair(self, plan: Plan, recorder: Recorder, feedback: RetryContext) -> ExecutorRun: ...


def can_repair(executor: Executor) -> TypeGuard[RepairingExecutor]:
    """Whether ``executor`` takes a repair turn (the llm executor does; the rules executor,
    deterministic, would only say the same again)."""
    return callable(getattr(executor, "repair", None))


class Verifier(Protocol):
    """Verified excerpts -> per-claim entailment, verdict, groundedness."""

    engine: str

    def verify(self, verifier_input: VerifierInput, plan: Plan) -> VerifierResult: ...


class Composer(Protocol):
    """Verifier result -> the user-facing answer in the question's language."""

    engine: str

    def compose(self, plan: Plan, verifier_input: VerifierInput,
                verifier_result: VerifierResult) -> ComposerOutput: ...
