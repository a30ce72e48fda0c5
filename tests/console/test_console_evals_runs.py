"""The Evals page after a run shows that run (never the previous one); trends per suite; a note
instead of empty axes (core/views/evals.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from streamlit.testing.v1 import AppTest

from core.store.models import EvalRunRow
from core.views.evals import chart_notes, pass_rate_figure, suite_runs, trend_note
from tests.console.console_helpers import as_read

EVALS = "pages/3_Evals.py"
PASSING = """\
- id: cpu-positive
  question: 只确认 payment-service 当前是否存在 CPU 使用率过高告警
  expect:
    verdict: PASS
"""
FAILING = """\
- id: cpu-wrong
  question: 只确认 payment-service 当前是否存在 CPU 使用率过高告警
  expect:
    verdict: REJECT
"""


def _run(app: AppTest, name: str, text: str) -> None:
    app.get("file_uploader")[0].set_value((name, text.encode(), "application/yaml"))
    app.run()
    app.button(key="eval_run_button").click().run()
    assert not app.exception


def test_the_run_just_finished_is_shown(open_app: Callable[..., AppTest]) -> None:
    app = open_app(EVALS)
    app.get("button_group")[0].set_value("Upload a case file").run()
    _run(app, "passing.yaml", PASSING)
    app.toggle(key="eval_only_failures").set_value(True).run()
    assert any("Every case of this run passed" in caption.value for caption in app.caption)
    _run(app, "failing.yaml", FAILING)
    # The failing run, not the passing one picked before it.
    assert "failing.yaml" in app.selectbox(key="eval_run_pick").format_func(
        app.selectbox(key="eval_run_pick").value)
    matrix = next(f.value for f in app.dataframe if "failed expectations" in f.value.columns)
    assert list(matrix["case"]) == ["cpu-wrong"] and list(matrix["result"]) == ["failed"]
    assert not any("Every case of this run passed" in caption.value for caption in app.caption)
    # Two runs, of two suites: no trend mixing them, a note instead.
    assert any("No trend yet for failing.yaml" in as_read(caption.value)
               for caption in app.caption)


def _row(run_id: str, suite: str, rate: float) -> EvalRunRow:
    return EvalRunRow(id=run_id, created_at=datetime(2026, 7, 8, tzinfo=UTC), suite=suite,
                      total=1, passed=int(rate), status="completed",
                      metrics={"case_pass_rate": rate})


def test_trends_per_suite_and_notes_instead_of_empty_charts() -> None:
    runs = [_row("a", "default", 1.0), _row("b", "upload.yaml", 0.0), _row("c", "default", 0.5)]
    assert [run.id for run in suite_runs(runs, "default")] == ["a", "c"]
    figure = pass_rate_figure(runs, "default")
    assert list(figure.data[0].y) == [1.0, 0.5]  # the upload's 0.0 is not on this line
    assert trend_note(runs, "default") is None
    note = trend_note(runs, "upload.yaml")
    assert note is not None and "1 run" in note
    assert set(chart_notes({})) == {"confusion", "rules", "faults"}
    drawn = {"verdict_confusion": {"PASS": {"PASS": 1}}, "gatekeeper_failed_rules": {"r": 1},
             "fault_catch_rate": {"tamper_number": {"value": 1.0, "hits": 1, "total": 1}}}
    assert chart_notes(drawn) == {}
