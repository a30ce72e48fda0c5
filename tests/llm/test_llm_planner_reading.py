"""The llm planner keeps the question's reading: the model may add words, never drop any."""

from __future__ import annotations

from typing import Any

from core.agents.llm.planner import LLMPlanner
from core.agents.rules.planner import RulesPlanner
from tests.doubles.chat_clients import ScriptedChatClient
from tests.llm.llm_helpers import VLLM

QUESTION = "只确认 order-service 最近一小时是否有 ERROR 级别的 HikariCP 日志，不要看 GC"


def _answer(**fields: Any) -> dict[str, Any]:
    return {"content": {"question": "something else", "language": "en", "services": ["order-service"],
                        "topics": [], "alert_names": [], "narrow": False, "scope_markers": [],
                        "exclusions": {}, "tools": [], "notes": [], **fields}}


def test_the_models_words_are_added_to_the_reading_and_the_rules_reading_stays(demo_world: Any) -> None:
    floor = RulesPlanner().plan(QUESTION, demo_world).reading
    answer = _answer(terms=["pool exhausted"], level="WARN", keywords=[["drop"]], since="2000-01-01",
                     searchable=False, unknown_subjects=["ghost-service"])
    plan = LLMPlanner(ScriptedChatClient.from_turns([answer]), VLLM).plan(QUESTION, demo_world)
    assert plan.reading.terms == [*floor.terms, "pool exhausted"]
    assert plan.reading.level == "ERROR" and plan.reading.keywords == (floor.keywords or [["drop"]])
    assert plan.reading.unknown_subjects == [*floor.unknown_subjects, "ghost-service"]
    # the window, what is searchable and what it excludes are the question's own words
    assert (plan.reading.since, plan.reading.searchable) == (floor.since, floor.searchable)
    assert plan.reading.exclusions == floor.exclusions and "gc" in plan.exclusions.topics
