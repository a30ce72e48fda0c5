"""A tool whose source the world lacks is a failed call at every entry point, never an empty
success: an empty answer would read as an absence no search produced (``query_logs`` on a world
of alerts alone). The entry points: ``superbiz tools call``, the recorder (the rules executor),
and a model's tool call (the llm executor), which is told the failure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.agents.llm.client import ChatTurn, ToolCallRequest
from core.agents.registry import build_engines
from core.cli import main
from core.pipeline import ask
from core.recorder import Recorder
from core.sources.pack import load_world
from tests.doubles.chat_clients import FunctionChatClient
from tests.llm.llm_helpers import VLLM

REPO = Path(__file__).resolve().parents[2]
NO_LOGS = "this world has no log source"


@pytest.fixture
def alerts_only(tmp_path: Path) -> Path:
    pack = tmp_path / "alertsonly"
    pack.mkdir()
    (pack / "alerts.yaml").write_bytes((REPO / "mockdata/demo/alerts.yaml").read_bytes())
    (pack / "pack.yaml").write_text("name: alertsonly\n", encoding="utf-8")
    return pack


def test_tools_call_fails_with_exit_1_and_says_why(alerts_only: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools", "call", "query_logs", "--pack", str(alerts_only), "--no-store",
                 "--args", '{"query": "timeout"}']) == 1
    printed = capsys.readouterr()
    assert NO_LOGS in printed.err and "success: true" not in printed.out


def test_the_recorder_records_a_failed_call(alerts_only: Path) -> None:
    invocation = Recorder(world=load_world(alerts_only), session_id="s-nologs").call(
        "query_logs", {"query": "timeout"})
    assert invocation.output["success"] is False and NO_LOGS in invocation.output["error"]
    assert "logs" not in invocation.output  # no empty list of lines to read as "none found"


def test_a_models_tool_call_fails_and_the_model_is_told(alerts_only: Path) -> None:
    told: list[dict[str, Any]] = []

    def model(messages: list[dict[str, Any]], tools: Any, response_format: Any) -> ChatTurn:
        if messages[-1]["role"] != "tool":
            return ChatTurn(content=None, tool_calls=(ToolCallRequest(
                id="call_1", name="query_logs", arguments_json='{"query": "timeout"}'),),
                finish_reason="tool_calls")
        told.append(json.loads(messages[-1]["content"]))
        return ChatTurn(content=json.dumps({"claims": []}), finish_reason="stop")

    engines = build_engines({"executor": "llm"}, client=FunctionChatClient(model), profile=VLLM)
    document = ask("any timeout logs in order-service?", pack=str(alerts_only), engines=engines)
    calls = [inv for inv in document.invocations if inv.tool_name == "query_logs"]
    assert calls and all(inv.output["success"] is False and inv.output.get("failure") == "no_source"
                         for inv in calls)
    assert told and NO_LOGS in json.dumps(told[0])
    assert document.verifier_result is None or document.verifier_result.verdict != "PASS"
