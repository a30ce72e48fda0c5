"""What an import refuses (a file it cannot read, a wrong ``--format``, too many unparsed
lines, ``--strict``), leaving no store or the store as it was; and what it does with a file
already in the store (skipped), appended to (only the new lines) or rewritten (new content)."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from core.errors import LogImportError
from core.sources.logimport import import_files

LINES = "".join(f"2024-03-01 10:00:{second:02d},000 INFO [main] com.shop.App: step {second} done\n"
                for second in range(40))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _count(store: Path, sql: str = "SELECT count(*) FROM entries") -> int:
    connection = sqlite3.connect(store)
    try:
        return int(connection.execute(sql).fetchone()[0])
    finally:
        connection.close()


def test_a_file_that_parses_nothing_is_refused_and_no_store_is_left(tmp_path: Path) -> None:
    readme = tmp_path / "notes.txt"
    readme.write_text("Shopping list\n\nmilk, eggs\nremember the keys\n")
    with pytest.raises(LogImportError, match=r"layout not recognised.*--no-timestamps"):
        import_files([readme], tmp_path / "s.db")
    assert list(tmp_path.iterdir()) == [readme]


def test_a_wrong_format_is_refused_with_the_lines_and_a_suggestion(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_text(LINES)
    store = tmp_path / "s.db"
    with pytest.raises(LogImportError, match=r"read as hdfs: no entry; nothing was imported\. "
                                             r"line 1: .*these lines read as --format log4j"):
        import_files([log], store, layout="hdfs")
    assert not store.exists()
    import_files([log], store)
    before = _digest(store)
    other = tmp_path / "other.log"
    other.write_text(LINES.replace("10:00:", "11:00:"))
    with pytest.raises(LogImportError, match="no entry"):
        import_files([other], store, layout="spark")
    assert _digest(store) == before  # the existing store is as it was


def test_too_many_unparsed_lines_are_refused_and_strict_refuses_any(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_text(LINES + "garbage one\ngarbage two\ngarbage three\n")  # 3 of 43: 7 %
    with pytest.raises(LogImportError, match=r"3 of 43 lines unparsed \(more than 5%.*line 41: 'garbage one'"):
        import_files([log], tmp_path / "s.db")
    report = import_files([log], tmp_path / "s.db", max_unparsed=0.1)
    assert (report.files[0].entries, report.files[0].unparsed) == (40, 3)
    few = tmp_path / "few.log"
    few.write_text(LINES + "one stray line\n")
    assert import_files([few], tmp_path / "t.db").files[0].unparsed == 1
    with pytest.raises(LogImportError, match=r"1 of 41 lines unparsed.*--strict"):
        import_files([few], tmp_path / "u.db", strict=True)
    assert not (tmp_path / "u.db").exists()


def test_importing_a_file_again_skips_it(tmp_path: Path) -> None:
    log, store = tmp_path / "app.log", tmp_path / "s.db"
    log.write_text(LINES)
    import_files([log], store)
    (again,) = import_files([log], store).files
    assert again.skipped and again.notes[0].startswith("already imported on")
    copy = tmp_path / "copy.log"
    shutil.copy(log, copy)
    (same,) = import_files([copy], store).files
    assert same.skipped and same.notes[0].startswith(f"the same content as {log.resolve()}")
    assert _count(store) == 40


def test_an_appended_file_imports_only_its_new_lines(tmp_path: Path) -> None:
    log, store = tmp_path / "app.log", tmp_path / "s.db"
    log.write_text(LINES)
    import_files([log], store)
    with log.open("a") as handle:
        handle.write("2024-03-01 10:01:00,000 WARN [main] com.shop.App: step 60 slow\n\n")
    (grown,) = import_files([log], store).files
    assert (grown.entries, grown.physical_lines) == (1, 42) and grown.notes[0].startswith("appended to since")
    assert _count(store) == 41
    assert _count(store, "SELECT line_no FROM entries WHERE level = 'WARN'") == 41
    with log.open("a") as handle:
        handle.write("\n")  # only a blank line more: nothing new, no refusal
    assert import_files([log], store).files[0].entries == 0
    assert _count(store) == 41


def test_a_rewritten_file_is_new_content(tmp_path: Path) -> None:
    log, store = tmp_path / "app.log", tmp_path / "s.db"
    log.write_text(LINES)
    import_files([log], store)
    log.write_text(LINES.replace("step", "phase"))
    (rewritten,) = import_files([log], store).files
    assert rewritten.entries == 40 and "imported as new content" in rewritten.notes[0]
    assert _count(store) == 80
