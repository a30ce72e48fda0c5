"""``superbiz sessions annotate|annotations``, ``show``/``export``/``list --annotation`` with
annotations, and ``superbiz eval cases from-annotations``: as a reviewer runs them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.cli import main
from core.pipeline import ask
from core.store import Store, open_store
from core.store.audit import verify_chain

PASS_QUESTION = "只确认 payment-service 当前是否存在 CPU 使用率过高告警"


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def session(tmp_store: Store) -> str:
    return ask(PASS_QUESTION, store=tmp_store).session_id


def test_annotate_show_list_export(session: str, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SUPERBIZ_REVIEWER", "qa-bot")
    first = _json(capsys, "sessions", "annotate", session, "--verdict", "wrong", "--note",
                  "resolved an hour ago", "--json")
    assert (first["reviewer"], first["target"], first["verdict"]) == ("qa-bot", "answer", "wrong")
    claim = _json(capsys, "sessions", "annotate", "latest", "--verdict", "unsure", "--claim",
                  "0", "--by", "alice", "--json")
    assert claim["reviewer"] == "alice" and claim["target_label"].startswith("claim ")
    assert main(["sessions", "annotate", session, "--verdict", "right", "--by", "bob"]) == 0
    out = capsys.readouterr().out
    assert f"superseding {first['annotation_id']}" in out

    listed = _json(capsys, "sessions", "annotations", session, "--json")
    assert [a["verdict"] for a in listed] == ["wrong", "unsure", "right"]
    assert main(["sessions", "show", session]) == 0
    shown = capsys.readouterr().out
    assert "annotations" in shown and "(superseded)" in shown and "resolved an hour ago" in shown
    document = _json(capsys, "sessions", "show", session, "--json")
    assert [a["annotation_id"] for a in document["annotations"]] == [a["annotation_id"]
                                                                   for a in listed]
    assert main(["sessions", "export", "-o", str(tmp_path / "out.jsonl")]) == 0
    exported = json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8"))
    assert len(exported["annotations"]) == 3
    assert [r["session_id"] for r in _json(capsys, "sessions", "list", "--annotation",
                                           "unsure", "--json")] == [session]
    assert _json(capsys, "sessions", "list", "--annotation", "wrong", "--json") == []
    assert verify_chain(open_store()).intact


@pytest.mark.parametrize(("argv", "message"), [
    (["s-missing", "--verdict", "wrong"], "no session 's-missing' in the audit store"),
    (["SESSION", "--verdict", "wrong", "--claim", "5"], "has no claim 5"),
    (["SESSION", "--verdict", "wrong", "--binding", "40"], "has no binding 40"),
    (["SESSION", "--verdict", "nope"], "invalid choice: 'nope'"),
    (["SESSION", "--verdict", "wrong", "--claim", "0", "--binding", "0"], "not allowed with"),
])
def test_refused_annotations_exit_2_and_write_nothing(
        session: str, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    arguments = [session if part == "SESSION" else part for part in argv]
    assert main(["sessions", "annotate", *arguments]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""
    assert _json(capsys, "sessions", "annotations", session, "--json") == []
    assert verify_chain(open_store()).records == 1  # the session alone


def test_from_annotations_writes_a_failing_case_once(
        session: str, tmp_store: Store, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    suite = tmp_path / "qa" / "wrong-passes.yaml"
    assert main(["sessions", "annotate", session, "--verdict", "wrong", "--by", "a"]) == 0
    assert main(["sessions", "annotate", session, "--verdict", "unsure", "--claim", "0"]) == 0
    capsys.readouterr()
    written = _json(capsys, "eval", "cases", "from-annotations", "--out", str(suite), "--json")
    assert len(written["added"]) == 1 and written["present"] == []
    (case,) = yaml.safe_load(suite.read_text(encoding="utf-8"))
    assert case["expect"] == {"verdict": ["LOW_CONFID", "REJECT"]}
    assert (case["question"], case["pack"], case["tags"]) == (PASS_QUESTION, "demo",
                                                              ["annotation", "wrong"])
    again = _json(capsys, "eval", "cases", "from-annotations", "--out", str(suite), "--json")
    assert again["added"] == [] and again["present"] == written["added"]
    unsure = _json(capsys, "eval", "cases", "from-annotations", "--verdict", "unsure",
                   "--out", str(suite), "--json")
    assert unsure["added"] == [] and "expects nothing" in unsure["skipped"][0]["reason"]
    # The wrong PASS is a regression test: it fails until the engine stops saying PASS.
    assert main(["eval", str(suite), "--json"]) == 1
    run = json.loads(capsys.readouterr().out)
    assert (run["total"], run["passed"]) == (1, 0)
    assert run["cases"][0]["actual"]["verdict"] == "PASS"


def test_from_annotations_default_suite_and_usage(session: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sessions", "annotate", session, "--verdict", "wrong"]) == 0
    assert main(["eval", "cases", "from-annotations"]) == 0
    out = capsys.readouterr().out
    assert "1 case(s) added to" in out and "annotations.yaml" in out
    assert main(["eval", "cases", "from-annotations", "--verdict", "bogus"]) == 2
    assert "eval cases from-annotations: argument --verdict" in capsys.readouterr().err
