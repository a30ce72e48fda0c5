"""The ``llm`` planner: a model reads the question; code keeps the plan honest.

The model answers in the ``PlannerAnswer`` schema: a plan's shared fields, and words it would
add to the question's reading (terms, keywords, concepts, a level, unknown names). Code then
makes the plan at least as strict as the rules planner's reading of the same question: the
question, its language and its reading (``Plan.reading``) are the question's own (the model
may add words to the reading, never drop any), a narrow-scope marker in the question always
makes the plan narrow, an exclusion the question states is never dropped (and an excluded
subject never stays in scope), unknown topic names are removed, and a plan without tools gets
the rules planner's.

An answer that is not a plan even after the re-ask (a stub scripted for another role, a tool
call, prose) is replaced by the rules planner's plan with a note saying why; a failed model
call (timeout, HTTP error, ...) fails the step as in every role.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import Field

from core.agents.llm import wire
from core.agents.llm.errors import LLMCallError
from core.agents.llm.role import LLMRole
from core.agents.llm.structured import (
    output_instructions,
    request_structured,
    unusable_answer,
)
from core.agents.rules.planner import RulesPlanner
from core.contracts import TOOL_NAMES, Exclusions, Plan, PlanChoices, empty_list
from core.language.concepts import CONCEPTS
from core.language.lexicon import TOPICS

if TYPE_CHECKING:
    from core.sources.base import World

SCHEMA_NAME = "plan"


class PlannerAnswer(PlanChoices):
    """What the model answers: a planner's choices, and what it would add to the question's
    reading (``Plan.reading``, which code reads: see ``merge_with_rules``)."""

    terms: list[str] = Field(default_factory=empty_list)
    keywords: list[list[str]] = Field(default_factory=empty_list)
    concepts: list[str] = Field(default_factory=empty_list)
    level: str | None = None
    unknown_subjects: list[str] = Field(default_factory=empty_list)


class LLMPlanner(LLMRole):
    """``plan(question, world) -> Plan``."""

    role = "planner"

    def plan(self, question: str, world: World) -> Plan:
        """The model's plan, merged with what the question itself says (see module doc)."""
        messages = [wire.system_message(self.prompt.text),
                    wire.user_message(self._task(question, world))]

        def with_question(data: Any) -> Any:  # the plan is of this question, whatever it says
            return {**data, "question": question} if isinstance(data, dict) else data

        notes: list[str] = []
        planned, status = request_structured(self._noting(notes), messages, PlannerAnswer,
                                             name=SCHEMA_NAME, profile=self.profile,
                                             prepare=with_question)
        floor = RulesPlanner().plan(question, world)
        plan = (fallback_plan(floor, unusable_answer(status, self.role)) if planned is None
                else merge_with_rules(planned, floor, self.prompt.prompt_id))
        if not notes:
            return plan
        return plan.model_copy(update={"notes": [*plan.notes, *(f"llm endpoint: {note}"
                                                                 for note in notes)]})

    def _task(self, question: str, world: World) -> str:
        context = {
            "question": question,
            "services": list(world.vocabulary.services),
            "alert_names": list(world.vocabulary.alert_names),
            "topics": {name: topic.label_en for name, topic in TOPICS.items()},
            "tools": list(TOOL_NAMES),
        }
        return (f"{json.dumps(context, ensure_ascii=False)}\n\n"
                f"{output_instructions(PlannerAnswer, self.profile)}")


def fallback_plan(floor: Plan, failure: LLMCallError) -> Plan:
    """The rules planner's plan, saying why the model's was not used.

    Only for an answer that is there but unusable (not a plan after the re-ask). The plan is
    scoping, not evidence: the rules plan is the floor every llm plan is merged with anyway,
    and everything after it (citations, entailment, verdict) is checked as usual. A transport
    failure is not tolerated: it fails the session like any other role's.
    """
    reason = f"the llm planner's answer was not used, the rules planner's plan was: {failure}"
    return floor.model_copy(update={"notes": [reason, *floor.notes], "degraded": reason})


def merge_with_rules(planned: PlannerAnswer, floor: Plan, prompt_id: str) -> Plan:
    """``planned`` made at least as strict as ``floor`` (the rules planner's plan)."""
    exclusions = Exclusions(
        services=_union(planned.exclusions.services, floor.exclusions.services),
        topics=[t for t in _union(planned.exclusions.topics, floor.exclusions.topics)
                if t in TOPICS],
        alert_names=_union(planned.exclusions.alert_names, floor.exclusions.alert_names),
        terms=_union(planned.exclusions.terms, floor.exclusions.terms),
        levels=_union(planned.exclusions.levels, floor.exclusions.levels),
        concepts=[c for c in _union(planned.exclusions.concepts, floor.exclusions.concepts)
                  if c in CONCEPTS])
    unknown_topics = [t for t in planned.topics if t not in TOPICS]
    notes = [*planned.notes, f"planned by the llm planner ({prompt_id})"]
    if unknown_topics:
        notes.append("unknown topic(s) dropped: " + ", ".join(unknown_topics))
    # What the question's own words ask the logs for (terms, keywords, concepts, level), what
    # it names that the data lacks and its time window are read by code: the model may add
    # words, never drop them. Nothing searchable stays so: a model does not make
    # "<script>alert(1)</script>" a question.
    read = floor.reading
    reading = read.model_copy(update={
        "terms": [t for t in _union(read.terms, planned.terms) if t not in exclusions.terms],
        "keywords": read.keywords or planned.keywords,
        "concepts": [c for c in _union(read.concepts, planned.concepts)
                     if c in CONCEPTS and c not in exclusions.concepts],
        "level": read.level or planned.level,
        "unknown_subjects": _union(read.unknown_subjects, planned.unknown_subjects),
    })
    return Plan(
        question=floor.question, language=floor.language,
        services=[s for s in planned.services if s not in exclusions.services],
        topics=[t for t in planned.topics if t in TOPICS and t not in exclusions.topics],
        alert_names=[a for a in planned.alert_names if a not in exclusions.alert_names],
        narrow=planned.narrow or floor.narrow,
        scope_markers=_union(planned.scope_markers, floor.scope_markers),
        exclusions=exclusions, tools=planned.tools or floor.tools, notes=notes, reading=reading)


def _union(first: list[str], second: list[str]) -> list[str]:
    return list(dict.fromkeys([*first, *second]))
