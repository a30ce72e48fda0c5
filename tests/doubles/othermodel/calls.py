"""Which tools the model calls, in which turns, with which arguments.

The plan depends on the question and on what came back: a log search that found nothing is
followed by a broader one and an ERROR-only one, as a careful model double-checks an absence.
Calls are grouped into turns by habit (all at once, or one per turn).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tests.doubles.othermodel.habits import Habits
from tests.doubles.othermodel.intent import Intent, search_topic, search_words
from tests.doubles.othermodel.reading import ToolResult


@dataclass(frozen=True)
class Call:
    """One tool call as the model writes it."""

    name: str
    arguments: dict[str, Any]

    def arguments_json(self, habits: Habits) -> str:
        arguments = ({key: f" {value} " if isinstance(value, str) and key == "service" else value
                      for key, value in self.arguments.items()}
                     if habits.padded_values else self.arguments)
        if habits.pretty_arguments:
            return json.dumps(arguments, ensure_ascii=False, indent=2).replace(": ", " :  ")
        return json.dumps(arguments, ensure_ascii=False)

    def same(self, result: ToolResult) -> bool:
        return result.tool_name == self.name and _plain(result.arguments) == _plain(self.arguments)


def _plain(arguments: dict[str, Any]) -> dict[str, str]:
    return {key: str(value).strip().casefold() for key, value in arguments.items()}


def _cased(name: str, habits: Habits) -> str:
    return {"lower": name.lower(), "upper": name.upper()}.get(habits.alert_case, name)


def knowledge_call(intent: Intent, habits: Habits) -> Call:
    subject = intent.alert_name or (intent.log_ask and search_words(intent.log_ask,
                                                                    intent.language)[0])
    return Call("lookup_knowledge", {"query": subject or intent.question,
                                     "top_k": "3" if habits.ids_as_strings else 3})


def metrics_call(intent: Intent, habits: Habits) -> Call | None:
    if not intent.wants_alert:
        return None
    arguments: dict[str, Any] = {}
    if intent.service:
        arguments["service"] = intent.service
    if intent.alert_name and (not intent.service or habits.free_text_query):
        arguments["alert_name"] = _cased(intent.alert_name, habits)
    return Call("query_metrics", arguments) if arguments else None


def logs_call(intent: Intent, habits: Habits, variant: int = 0) -> Call | None:
    if intent.log_ask is None:
        return None
    arguments: dict[str, Any] = {"service": intent.service} if intent.service else {}
    words = search_words(intent.log_ask, intent.language)
    if habits.free_text_query:
        arguments["query"] = words[variant % len(words)]
    else:
        arguments["topic"] = search_topic(intent.log_ask)
    return Call("query_logs", arguments)


def turns(intent: Intent, habits: Habits, results: list[ToolResult], *,
          with_knowledge: bool) -> list[list[Call]]:
    """Every turn of tool calls the model makes before answering, given ``results`` so far."""
    calls = [call for call in (metrics_call(intent, habits), logs_call(intent, habits)) if call]
    planned: list[list[Call]] = []
    if with_knowledge or habits.knowledge_first:
        planned.append([knowledge_call(intent, habits)])
    if habits.batch_calls:
        planned.append(calls)
    else:
        planned += [[call] for call in calls]
    if habits.repeat_call and calls:
        planned.append([calls[0]])
    first_logs = logs_call(intent, habits)
    if first_logs is not None and any(first_logs.same(r) and r.empty for r in results):
        # Nothing found: look again more broadly, and at ERROR lines, before saying so.
        other = Habits(**{**habits.__dict__, "free_text_query": not habits.free_text_query})
        broader = logs_call(intent, other)
        error_only = Call("query_logs", {**first_logs.arguments, "level": "ERROR"})
        planned.append([call for call in (broader, error_only) if call is not None])
    return [batch for batch in planned if batch]
