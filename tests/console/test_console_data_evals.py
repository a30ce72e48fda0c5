"""Data and Evals pages under AppTest, and the pure figure / row builders behind them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from core.errors import EvalCaseError
from core.packs import Pack
from core.sources.base import World
from core.store import Store, repository
from core.tools.spec import run_tool
from core.views.data import search_logs, series_figure
from core.views.evals import cases_from_upload, headline, wrong_pass_badge
from core.views.outcomes import MEANINGS
from tests.console.console_helpers import XSS_LOG, as_read

DATA = "pages/4_Data.py"
EVALS = "pages/3_Evals.py"

TINY_CASES = """\
- id: cpu-positive
  question: 只确认 payment-service 当前是否存在 CPU 使用率过高告警
  tags: [cpu]
  expect:
    verdict: PASS
    outcome: found
- id: cpu-wrong-answer
  question: 只确认 payment-service 当前是否存在 CPU 使用率过高告警
  expect:
    verdict: PASS
    answer_includes: [OutOfMemoryError]   # not in the answer: a PASS on a failed case
- id: tamper-caught
  question: Only confirm whether payment-service has a HighCPUUsage alert.
  executor_fault: tamper_number
  tags: [fault]
  expect:
    verdict: PASS   # wrong on purpose: the fault makes it REJECT, so this case fails
"""


def _table(app: AppTest, column: str) -> Any:
    return next(f.value for f in app.dataframe if column in f.value.columns)


def test_data_page_shows_alerts_series_and_searchable_logs(
        open_app: Callable[..., AppTest], demo_pack: Pack) -> None:
    app = open_app(DATA)
    assert not app.exception
    alerts = _table(app, "alert")
    assert sorted(alerts["alert"]) == sorted(a.alert_name for a in demo_pack.alerts)
    assert len(app.get("plotly_chart")) == len(demo_pack.series)
    logs = _table(app, "message")
    assert len(logs) == len(demo_pack.logs)  # no search: every line (36), newest first
    assert sum(_table(app, "template")["lines"]) == len(demo_pack.logs)  # and every group

    # The page's search is query_logs itself: its own example finds what the tool finds.
    for text in ("HikariPool timeout", "HikariCP"):
        app.text_input(key="log_text").input(text).run()
        tool = run_tool("demo", "query_logs", {"query": text, "limit": 200})
        assert tool["total"] >= 2
        assert list(_table(app, "message")["message"]) == [log["message"] for log in tool["logs"]]
        groups = _table(app, "template")
        assert list(groups["template"]) == [group["template"] for group in tool["groups"]]
        assert sum(groups["lines"]) == tool["total"]
    app.selectbox(key="log_service").select("user-service").run()
    app.selectbox(key="log_level").select("ERROR").run()
    app.text_input(key="log_text").input("").run()
    rows = _table(app, "message")
    assert len(rows) >= 1 and set(rows["service"]) == {"user-service"}
    assert set(rows["level"]) <= {"ERROR", "FATAL"}
    runbook_titles = [e.label for e in app.expander]
    assert len(runbook_titles) == len(demo_pack.runbooks)


def test_data_page_shows_log_markup_literally(open_app: Callable[..., AppTest],
                                              xss_pack: str) -> None:
    app = open_app(DATA)
    app.text_input(key="log_text").input("<script>").run()
    assert not app.exception
    logs = next(f.value for f in app.dataframe if "message" in f.value.columns)
    assert list(logs["message"]) == [XSS_LOG]
    assert not any("<script>" in element.value for element in app.html)
    assert not any("<script>" in element.value for element in app.markdown)


def test_search_and_series_builders(demo_pack: Pack, demo_world: World) -> None:
    everything = search_logs(demo_world)
    assert everything.matched == len(everything.rows) == len(demo_pack.logs)
    errors = search_logs(demo_world, level="error")
    assert errors.matched == sum(1 for e in demo_pack.logs if e.level.upper() in ("ERROR", "FATAL")) > 0
    limited = search_logs(demo_world, limit=2)
    assert len(limited.rows) == 2 and limited.matched == len(demo_pack.logs)
    assert sum(group["lines"] for group in limited.groups) == len(demo_pack.logs)
    refused = search_logs(demo_world, level="LOUD").error  # the tool's own one-line refusal
    assert refused is not None and "level" in refused
    series = next(s for s in demo_pack.series.values() if s.threshold is not None)
    figure = series_figure(series)
    assert list(figure.data[0].y) == [p.value for p in series.points]
    assert figure.layout.shapes[0].y0 == series.threshold  # the threshold line


def test_evals_page_runs_an_uploaded_case_file(open_app: Callable[..., AppTest],
                                               tmp_store: Store) -> None:
    app = open_app(EVALS)
    assert not app.exception
    assert any("No eval runs yet" in info.value for info in app.info)
    app.get("button_group")[0].set_value("Upload a case file").run()
    app.get("file_uploader")[0].set_value(("tiny.yaml", TINY_CASES.encode(), "application/yaml"))
    app.run()
    assert not app.exception
    app.button(key="eval_run_button").click().run()
    assert not app.exception
    assert any("1/3 case(s) passed" in warning.value for warning in app.warning)
    matrix = next(f.value for f in app.dataframe if "failed expectations" in f.value.columns)
    assert list(matrix["case"]) == ["cpu-wrong-answer", "tamper-caught", "cpu-positive"]
    assert list(matrix["result"]) == ["failed", "failed", "passed"]  # failures first
    assert "verdict" in matrix["failed expectations"].iloc[1]
    assert matrix["actual"].iloc[1] == "REJECT · rejected"
    assert matrix["actual"].iloc[2] == "PASS · verified finding"
    # Each case's session id opens it on Investigate.
    (run,) = repository.list_eval_runs(tmp_store)
    sessions = {row.case_id: row.session_id
                for row in repository.list_case_results(tmp_store, run_id=run.id)}
    assert list(matrix["session"]) == [f"./?session={sessions[case]}" for case in matrix["case"]]
    # One run so far: no one-point trend chart, a sentence instead.
    assert len(app.get("plotly_chart")) == 3
    assert any("No trend yet for tiny.yaml" in as_read(caption.value) for caption in app.caption)
    # The columns a person reads first: what failed right after the case and its result.
    assert list(matrix.columns[:3]) == ["case", "result", "failed expectations"]
    numbers = {m.label: m.value for m in app.metric}
    assert numbers["pass rate"] == "33%"
    # Two sessions said PASS, one of them on a case whose answer was wrong.
    assert numbers["PASS precision"] == "50%"
    assert numbers["false absences"] == "0/1"
    wrong = ":red-badge[:material/dangerous: 1 wrong PASS: cpu-wrong-answer]"
    assert wrong in [as_read(markdown.value) for markdown in app.markdown]


def test_headline_and_wrong_pass_badge_of_new_and_old_runs() -> None:
    new = {"case_pass_rate": 0.5, "pass_precision": {"value": 0.5, "hits": 1, "total": 2},
           "wrong_pass": {"count": 1, "cases": ["oom-wrong"]},
           "false_absence_rate": {"value": 0.0, "hits": 0, "total": 3}}
    numbers = headline(new)
    assert list(numbers)[:3] == ["pass rate", "PASS precision", "false absences"]
    assert (numbers["PASS precision"], numbers["false absences"]) == ("50%", "0/3")
    wrong = wrong_pass_badge(new)
    assert wrong is not None and wrong.tone == MEANINGS["reject"].tone
    assert wrong.label == "1 wrong PASS: oom-wrong"
    right = wrong_pass_badge({**new, "wrong_pass": {"count": 0, "cases": []}})
    assert right is not None and right.tone == "green" and right.label == "no wrong PASS (2 PASS)"
    many = {**new, "wrong_pass": {"count": 7, "cases": [f"c{i}" for i in range(7)]}}
    capped = wrong_pass_badge(many)  # the badge names five; the matrix lists every case
    assert capped is not None and capped.label == "7 wrong PASS: c0, c1, c2, c3, c4, …"
    # A run stored before these metrics existed: nothing invented.
    old = {"case_pass_rate": 1.0, "verdict_accuracy": {"value": 1.0, "hits": 2, "total": 2}}
    assert (headline(old)["PASS precision"], headline(old)["false absences"]) == ("—", "—")
    assert wrong_pass_badge(old) is None


def test_uploaded_case_files_are_parsed_like_case_files_on_disk() -> None:
    cases = cases_from_upload("tiny.yaml", TINY_CASES.encode())
    assert [case.id for case in cases] == ["cpu-positive", "cpu-wrong-answer", "tamper-caught"]
    assert all(case.source == "tiny.yaml" for case in cases)
    with pytest.raises(EvalCaseError, match=r"^bad\.yaml: not valid YAML at line 3, column 1"):
        cases_from_upload("bad.yaml", b"- id: x\n  question: [unclosed\n")
    with pytest.raises(EvalCaseError, match=r"^bin\.yaml: not UTF-8 text \(byte 0xff at offset 0\)$"):
        cases_from_upload("bin.yaml", b"\xff\xfe- id: x")


def test_evals_page_reports_a_broken_case_file(open_app: Callable[..., AppTest]) -> None:
    app = open_app(EVALS)
    app.get("button_group")[0].set_value("Upload a case file").run()
    app.get("file_uploader")[0].set_value(("bad.yaml", b"- id: x\n  questoin: y\n",
                                            "application/yaml"))
    app.run()
    assert not app.exception
    messages = [error.value.replace("\\", "") for error in app.error]  # Markdown-escaped
    assert "bad.yaml: case 'x': missing required key 'question'" in messages
