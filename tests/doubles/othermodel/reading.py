"""Reading one chat-completions request the way a model reads it.

Nothing here knows the product's code: only what is on the wire. The role comes from the
system prompt's title, the question from the executor's first user message, the tool results
from the ``tool`` messages (JSON, as sent), and where the conversation stands from its last
user message: the first answer, a schema re-ask, a spent tool budget, or the repair turn with
its JSON findings.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

Message = dict[str, Any]
Role = Literal["planner", "executor", "verifier", "composer", "unknown"]
Phase = Literal["first", "reask", "budget", "repair"]

_ROLES: tuple[Role, ...] = ("planner", "executor", "verifier", "composer")
_ROLE_TITLE = re.compile(r"#\s*Role:\s*(planner|executor|verifier|composer)\b", re.IGNORECASE)
_QUESTION = re.compile(r"Question:\s*(.+?)\s*(?:\n\s*\n|$)", re.DOTALL)


def text_of(content: Any) -> str:
    """A message's content as text, whether a string or a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


@dataclass(frozen=True)
class ToolResult:
    """One tool message: the recorded invocation the product sent back."""

    call_id: str
    invocation_id: int
    tool_name: str
    arguments: dict[str, Any]
    output: dict[str, Any]
    refs: list[dict[str, str]]
    status: str

    @property
    def empty(self) -> bool:
        return self.status == "no_evidence" and not self.refs


@dataclass
class Conversation:
    """The request's messages, read."""

    messages: list[Message]
    tools_offered: bool = False
    schema_name: str | None = None
    role: Role = field(init=False)

    def __post_init__(self) -> None:
        self.role = self._role()

    def _role(self) -> Role:
        system = next((text_of(m.get("content")) for m in self.messages
                       if m.get("role") == "system"), "")
        found = _ROLE_TITLE.search(system)
        titled = found.group(1).lower() if found else ""
        for role in _ROLES:
            if role == titled:
                return role
        if self.tools_offered:
            return "executor"
        name = (self.schema_name or "").lower()
        return next((role for role in _ROLES if role in name or (role, name) == ("planner", "plan")),
                    "unknown")

    def user_texts(self) -> list[str]:
        return [text_of(m.get("content")) for m in self.messages if m.get("role") == "user"]

    def first_user_text(self) -> str:
        texts = self.user_texts()
        return texts[0] if texts else ""

    def question(self) -> str:
        """The executor's question (its first user message starts ``Question: ...``)."""
        first = self.first_user_text()
        found = _QUESTION.search(first)
        return found.group(1).strip() if found else first.strip()

    def user_json(self) -> dict[str, Any]:
        """The first JSON object in the first user message (planner, verifier, composer)."""
        return first_json_object(self.first_user_text()) or {}

    def tool_results(self) -> list[ToolResult]:
        results: list[ToolResult] = []
        for message in self.messages:
            if message.get("role") != "tool":
                continue
            try:
                data = json.loads(text_of(message.get("content")))
            except json.JSONDecodeError:
                continue
            if not isinstance(data, dict) or "invocation_id" not in data:
                continue
            details = data.get("retrieval_details") or {}
            results.append(ToolResult(
                call_id=str(message.get("tool_call_id", "")),
                invocation_id=int(data["invocation_id"]),
                tool_name=str(data.get("tool_name", "")),
                arguments=dict(data.get("arguments") or {}),
                output=dict(data.get("output") or {}),
                refs=[{"raw_path": str(r.get("raw_path")), "text": str(r.get("text", ""))}
                      for r in details.get("evidence_refs") or []],
                status=str(details.get("evidence_status", ""))))
        return results

    def _last_user_index(self) -> int:
        for index in range(len(self.messages) - 1, -1, -1):
            if self.messages[index].get("role") == "user":
                return index
        return 0

    def phase(self) -> Phase:
        """Where the conversation stands, from the last user message."""
        last = text_of(self.messages[self._last_user_index()].get("content"))
        if "retry_context" in last:
            return "repair"
        if last.startswith("Your previous answer could not be used"):
            return "reask"
        if last.startswith("The tool budget is spent"):
            return "budget"
        return "first"

    def phase_tool_turns(self) -> int:
        """Assistant turns with tool calls since the last user message."""
        start = self._last_user_index()
        return sum(1 for m in self.messages[start:]
                   if m.get("role") == "assistant" and m.get("tool_calls"))

    def phase_results(self) -> list[ToolResult]:
        """Tool results received since the last user message."""
        start = self._last_user_index()
        later = {str(m.get("tool_call_id")) for m in self.messages[start:] if m.get("role") == "tool"}
        return [result for result in self.tool_results() if result.call_id in later]

    def retry_context(self) -> dict[str, Any] | None:
        """The repair turn's findings, read from the JSON after ``retry_context``."""
        last = text_of(self.messages[self._last_user_index()].get("content"))
        at = last.rfind("retry_context")
        return first_json_object(last[at:]) if at >= 0 else None

    def previous_answer(self) -> str | None:
        """The last assistant answer given without tool calls (what a repair turn follows)."""
        for message in reversed(self.messages[:self._last_user_index()]):
            if message.get("role") == "assistant" and not message.get("tool_calls"):
                text = text_of(message.get("content"))
                if text.strip():
                    return text
        return None


def first_json_object(text: str) -> dict[str, Any] | None:
    """The first decodable JSON object in ``text``."""
    decoder = json.JSONDecoder()
    for start in (i for i, char in enumerate(text) if char == "{"):
        try:
            value, _ = decoder.raw_decode(text[start:])
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None
