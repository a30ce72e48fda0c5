"""The one declaration per tool: every table derives from it and every question goes to it."""

from __future__ import annotations

import pytest

from core.contracts import TOOL_NAMES, LogGroup
from core.errors import UnknownToolError
from core.gatekeeper import raw_path_problem
from core.gatekeeper.negative import RESULT_KEYS, result_keys
from core.tools.refs import group_ref
from core.tools.spec import (
    EVIDENCE_KEYS,
    RAW_PATH_PREFIXES,
    TOOL_ARGS,
    TOOL_DESCRIPTIONS,
    TOOL_SPECS,
    evidence_at,
    get_spec,
    is_evidence_tool,
    is_reference_tool,
    parse_raw_path,
    summary_label,
)


def test_the_tables_are_the_specs() -> None:
    assert tuple(TOOL_SPECS) == TOOL_NAMES
    for name, spec in TOOL_SPECS.items():
        assert TOOL_ARGS[name] is spec.args
        assert TOOL_DESCRIPTIONS[name] == spec.description
        assert RAW_PATH_PREFIXES[name] == tuple(f"$.{e.key}" for e in spec.evidence)
        # The description tells a model how to cite every list the tool's output holds.
        assert all(f"{prefix}[i]" in spec.description for prefix in spec.prefixes), name
        # Each evidence list is a list field of the result contract.
        assert all(evidence.key in spec.result.model_fields for evidence in spec.evidence), name
    assert RAW_PATH_PREFIXES["query_logs"] == ("$.logs", "$.groups")
    assert set(EVIDENCE_KEYS) == {"alerts", "logs", "groups", "evidence_blocks"}
    assert set(RESULT_KEYS) == set(EVIDENCE_KEYS)


def test_only_the_runbook_tool_is_reference_only() -> None:
    assert [name for name in TOOL_SPECS if is_reference_tool(name)] == ["lookup_knowledge"]
    assert [name for name in TOOL_SPECS if is_evidence_tool(name)] == ["query_metrics", "query_logs"]
    assert not is_reference_tool(None) and not is_evidence_tool("query_traces")
    assert [summary_label(name) for name in TOOL_SPECS] == [
        "metric_evidence", "log_evidence", "knowledge_reference"]
    assert summary_label("query_traces") == "evidence"
    with pytest.raises(UnknownToolError, match="query_traces"):
        get_spec("query_traces")


@pytest.mark.parametrize(("raw_path", "located"), [
    ("$.groups[0]", ("groups", 0)), ("$.logs[12]", ("logs", 12)), ("$.evidence_blocks[3]", ("evidence_blocks", 3)),
    ("$.groups[01]", None), ("$.groups[ 0 ]", None), ("$.groups[0].template", None), ("$.Groups[0]", None),
    ("$['groups'][0]", None), ("$.series[0]", None), ("groups[0]", None), ("$.groups", None),
])
def test_raw_path_grammar(raw_path: str, located: tuple[str, int] | None) -> None:
    assert parse_raw_path(raw_path) == located


def test_each_tool_accepts_only_its_own_lists() -> None:
    assert raw_path_problem("$.groups[4]", "query_logs") == ""
    assert raw_path_problem("$.logs[0]", "query_logs") == ""
    assert "wrong prefix" in raw_path_problem("$.groups[0]", "query_metrics")
    assert "$.logs[i] or $.groups[i]" in raw_path_problem("$.logs[0].message", "query_logs")
    assert "wrong prefix" in raw_path_problem("$.groups[0]", "lookup_knowledge")
    located = evidence_at("query_logs", "$.groups[2]")
    assert located is not None and located[0].entry is LogGroup and located[1] == 2
    assert evidence_at("query_metrics", "$.groups[2]") is None
    assert result_keys("query_logs") == ("logs", "groups") and result_keys("x") == RESULT_KEYS


def _group(**changes: object) -> LogGroup:
    fields: dict[str, object] = dict(
        template="ERROR IN CONTACTING RM <*>", count=147, service="hadoop-mapreduce", level="ERROR",
        first_timestamp="2015-10-18 18:06:01", last_timestamp="2015-10-18 18:10:13")
    return LogGroup.model_validate({**fields, **changes})


def test_group_recipe_states_count_template_level_service_and_time_range() -> None:
    assert group_ref(_group()).text == ('147 lines like "ERROR IN CONTACTING RM <*>" '
                                        "[ERROR][hadoop-mapreduce] from 2015-10-18 18:06:01 to 2015-10-18 18:10:13")
    single = _group(count=1, last_timestamp="2015-10-18 18:06:01")
    assert group_ref(single).text == ('1 line like "ERROR IN CONTACTING RM <*>" '
                                      "[ERROR][hadoop-mapreduce] at 2015-10-18 18:06:01")
