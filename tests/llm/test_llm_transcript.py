"""Transcripts: which turn answers a request, and ``{{inv:N}}`` placeholders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.agents.llm.transcript import (
    Transcript,
    TranscriptError,
    conversation_role,
    load_transcript,
    pick_turn,
    rendered_turn,
    resolve_placeholders,
)


def system(role: str) -> dict[str, Any]:
    return {"role": "system", "content": f"<!-- superbiz {role} prompt ({role}.v1) -->\n..."}


def tool(invocation_id: int) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"c{invocation_id}",
            "content": json.dumps({"invocation_id": invocation_id, "tool_name": "query_logs"})}


TRANSCRIPT = Transcript.model_validate({
    "name": "t",
    "roles": {"executor": [{"tool_calls": [{"name": "query_logs", "arguments": {"q": "x"}}]},
                           {"content": {"id": "{{inv:0}}", "last": "{{inv:-1}}",
                                        "text": "ids {{inv:0}} and {{inv:1}}"}}]},
    "turns": [{"content": "generic"}],
})


def test_turn_is_chosen_by_role_and_number_of_model_answers() -> None:
    first = [system("executor"), {"role": "user", "content": "q"}]
    second = [*first, {"role": "assistant", "content": None}, tool(7)]
    assert pick_turn(TRANSCRIPT, first).tool_calls[0].name == "query_logs"
    assert isinstance(pick_turn(TRANSCRIPT, second).content, dict)
    assert pick_turn(TRANSCRIPT, [system("verifier")]).content == "generic"  # no role script


def test_placeholders_resolve_from_the_tool_messages_of_the_conversation() -> None:
    messages = [system("executor"), {"role": "user", "content": "q"},
                {"role": "assistant", "content": None}, tool(101), tool(102)]
    content, calls = rendered_turn(pick_turn(TRANSCRIPT, messages), messages)
    assert calls == []
    assert json.loads(content or "") == {"id": 101, "last": 102, "text": "ids 101 and 102"}


def test_tool_call_ids_default_to_turn_and_position() -> None:
    messages = [system("executor"), {"role": "user", "content": "q"}]
    _, calls = rendered_turn(pick_turn(TRANSCRIPT, messages), messages)
    assert calls == [("call_0_0", "query_logs", '{"q": "x"}')]


def test_missing_invocation_or_turn_is_a_clear_error() -> None:
    with pytest.raises(TranscriptError, match=r"\{\{inv:2\}\} but only 1 invocation"):
        resolve_placeholders("{{inv:2}}", [5])
    exhausted = [system("executor"), *[{"role": "assistant", "content": "x"}] * 2]
    with pytest.raises(TranscriptError, match="no turn 2 for the executor conversation"):
        pick_turn(TRANSCRIPT, exhausted)


def test_role_marker_is_read_from_the_system_prompt() -> None:
    assert conversation_role([system("composer"), {"role": "user", "content": "q"}]) == "composer"
    assert conversation_role([{"role": "user", "content": "q"}]) is None


def test_yaml_and_json_files_load_and_bad_ones_name_the_field(tmp_path: Path) -> None:
    yaml_file = tmp_path / "t.yaml"
    yaml_file.write_text("name: y\nturns:\n  - fault: rate_limit\n", encoding="utf-8")
    assert load_transcript(yaml_file).turns[0].fault == "rate_limit"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"turns": [{"fault": "meltdown"}]}), encoding="utf-8")
    with pytest.raises(TranscriptError, match=r"bad.json: turns.0.fault"):
        load_transcript(bad)


def test_a_transcript_whose_aliases_amplify_is_refused_at_once(tmp_path: Path) -> None:
    from core.agents.llm.transcript import TranscriptError, load_transcript
    from tests.hardening.hostile import BILLION_LAUGHS

    path = tmp_path / "laughs.yaml"
    path.write_text(BILLION_LAUGHS, encoding="utf-8")
    with pytest.raises(TranscriptError, match="aliases may add at most"):
        load_transcript(path)
