"""``superbiz logs import|stats|query`` as a user runs them: one JSON document, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main

LOG = "".join(f"2024-03-01 10:00:{i:02d},000 {'ERROR' if i % 10 == 0 else 'INFO'} [m] shop.Db: "
              f"{'connection refused by db-1' if i % 10 == 0 else f'query {i} ok'}\n" for i in range(60))


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_import_stats_query(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "shop.log"
    log.write_text(LOG + "not a log line\n", encoding="utf-8")
    store = str(tmp_path / "s.db")
    report = run_json(capsys, "logs", "import", str(log), "--store", store, "--service", "shop", "--json")
    assert (report["created"], report["entries"], report["timezone"]) == (True, 60, "UTC")
    (file,) = report["files"]
    assert file["layout"] == "log4j" and file["unparsed_lines"] == [{"line": 61, "text": "not a log line"}]
    stats = run_json(capsys, "logs", "stats", "--store", store, "--json")
    assert stats["lines"] == 60 and stats["levels"] == {"ERROR": 6, "INFO": 54}
    answer = run_json(capsys, "logs", "query", "refused", "--store", store, "--level", "error",
                      "--limit", "2", "--json")
    result, request = answer["result"], answer["request"]
    assert result["total"] == 6 and len(result["logs"]) == 2 and result["groups"][0]["count"] == 6
    assert request["level"] == "error" and request["search"]["query"]["min_level_rank"] == 4
    assert main(["logs", "query", "--store", store, "--term", "connection refused"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("找到 6 条日志") and "group 0: 6 x [ERROR] shop" in text


def test_import_reports_in_plain_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "shop.log"
    log.write_text(LOG, encoding="utf-8")
    assert main(["logs", "import", str(log), "--store", str(tmp_path / "s.db")]) == 0
    assert main(["logs", "import", str(log), "--store", str(tmp_path / "s.db")]) == 0  # the same file again
    out = capsys.readouterr().out
    assert "created, 60 entries" in out and "unchanged, 0 entries" in out
    assert f"{log}: skipped, already imported on" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["logs", "import", "{tmp}/missing.log", "--store", "{tmp}/s.db"], "missing.log: cannot read: no such file"),
    (["logs", "import", "{tmp}/shop.log", "--store", "{tmp}/s.db", "--timezone", "Nowhere/Land"],
     "--timezone: unknown time zone"),
    (["logs", "import", "{tmp}/shop.log", "--store", "{tmp}/s.db", "--format", "regex"],
     "--format regex needs --pattern"),
    (["logs", "import", "{tmp}/shop.log", "--store", "{tmp}/s.db", "--format", "spark"],
     "read as spark: no entry; nothing was imported"),
    (["logs", "import", "{tmp}/shop.log", "--store", "{tmp}/s.db", "--max-unparsed", "101"],
     "--max-unparsed 101.0: a percentage"),
    (["logs", "import", "{tmp}/shop.log", "--store", "{tmp}/s.db", "--no-timestamps", "--format", "jsonl"],
     "--no-timestamps reads every line as an entry"),
    (["logs", "stats", "--store", "{tmp}/none.db"], "none.db: log store not found"),
    (["logs", "query", "x", "--store", "{tmp}/none.db"], "none.db: log store not found"),
    (["logs", "query", "--store", "{tmp}/none.db", "--limit", "500"], "limit: must be <= 200"),
])
def test_errors_are_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                    message: str) -> None:
    (tmp_path / "shop.log").write_text(LOG, encoding="utf-8")
    assert main([part.replace("{tmp}", str(tmp_path)) for part in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err and captured.err.count("\n") == 1
    assert not (tmp_path / "s.db").exists()


def test_strict_refuses_one_unparsed_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "shop.log").write_text(LOG + "not a log line\n", encoding="utf-8")
    argv = ["logs", "import", str(tmp_path / "shop.log"), "--store", str(tmp_path / "s.db")]
    assert main([*argv, "--strict"]) == 2
    assert "1 of 61 lines unparsed (more than 0%; --strict)" in capsys.readouterr().err
    assert not (tmp_path / "s.db").exists()
    assert main(argv) == 0


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["logs", "--help"], ["logs", "import", "--help"], ["logs", "query", "--help"]):
        assert main(argv) == 0
    assert "--pattern" in capsys.readouterr().out


def test_progress_rate_counts_every_file_read(capsys: pytest.CaptureFixture[str]) -> None:
    """The rate on a progress line is the whole import's: the lines of every file read so far
    over the time since it began (not the current file's lines alone, which read ever lower
    from the second file on)."""
    from core.cli.logs_cmd import _Progress

    progress = _Progress()
    progress._started -= 1000.0  # 1,000 s into the import (a slow call changes no digit shown)
    progress("a.log", 100_000, 99_000)
    progress("b.log", 50_000, 148_000)
    lines = capsys.readouterr().err.splitlines()
    assert "a.log: 100,000 lines read, 99,000 entries (100 lines/s)" in lines[0]
    assert "b.log: 50,000 lines read, 148,000 entries (150 lines/s)" in lines[1]
