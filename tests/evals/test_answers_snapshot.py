"""``python -m evals.answers``: every answer as one file, and what differs between two."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evals import answers


@pytest.fixture(scope="module")
def demo_rows() -> list[dict[str, Any]]:
    return answers.snapshot(packs_dir=None)


def test_every_demo_example_and_demo_case_is_answered_once(demo_rows: list[dict[str, Any]]) -> None:
    keys = [(row["pack"], row["question"], row["fault"]) for row in demo_rows]
    assert len(keys) == len(set(keys))
    assert {row["pack"] for row in demo_rows} == {"demo"}  # no packs folder: real-data rows skipped
    faults = {row["fault"] for row in demo_rows}
    assert None in faults and "tamper_number" in faults


def test_two_runs_are_the_same_and_a_changed_answer_is_reported(demo_rows: list[dict[str, Any]], tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    before = tmp_path / "before.json"
    before.write_text(json.dumps(demo_rows, ensure_ascii=False))
    assert answers.main([str(tmp_path / "again.json"), "--compare", str(before)]) == 0
    assert "0 differ" in capsys.readouterr().out
    changed = json.loads(before.read_text())
    changed[0]["document"]["composer_output"]["user_facing_answer"] += " (edited)"
    before.write_text(json.dumps(changed, ensure_ascii=False))
    assert answers.main([str(tmp_path / "again.json"), "--compare", str(before)]) == 1
    out = capsys.readouterr().out
    assert "1 differ" in out and "(edited)" in out
