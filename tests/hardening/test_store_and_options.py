"""Stores that are not ours, stores this process cannot use, and bad settings and options.

Every case runs the real CLI (``python -m core``) in a subprocess against real SQLite files and
must end as one line on stderr, exit 2, no traceback, with the store file byte for byte as it
was and no file created beside it. A store this code made before it stamped a schema version is
still opened (and stamped).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from core.store.identity import SCHEMA_VERSION

QUESTION = "Only confirm whether payment-service has a HighCPUUsage alert."
DEADLINE_S = 120  # far above the 10 s busy timeout and any honest refusal: only a hang reaches it
NOBODY = 65534


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("SUPERBIZ_", "OPENAI_"))}
    return {**env, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
            "XDG_CACHE_HOME": str(home / "cache"), "SUPERBIZ_DB": str(home / "audit.db"),
            "PYTHONIOENCODING": "utf-8", **extra}


def _run(argv: list[str], home: Path, *, env: dict[str, str] | None = None,
         as_nobody: bool = False) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "core", *argv]
    if as_nobody:
        command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *command]
    return subprocess.run(command, env={**_env(home), **(env or {})}, cwd=Path(__file__).parents[2],
                          capture_output=True, text=True, timeout=DEADLINE_S, check=False)


def _refused(done: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a refused command (exit 2, no traceback)."""
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("superbiz: error: "), done.stderr
    return lines[0]


def _snapshot(folder: Path) -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.iterdir()) if path.is_file()}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A real store with one session (closed cleanly: no -wal file), a real session document,
    a case file and a log file, made once by the CLI."""
    folder = tmp_path_factory.mktemp("made")
    store = folder / "store.db"
    done = _run(["ask", QUESTION, "--db", str(store), "--json"], folder)
    assert done.returncode == 0, done.stderr
    session = folder / "session.json"
    session.write_text(done.stdout, encoding="utf-8")
    cases = folder / "cases.yaml"
    cases.write_text(f"- id: one\n  question: {QUESTION}\n  expect: {{verdict: PASS}}\n",
                     encoding="utf-8")
    logs = folder / "app.log"
    logs.write_text("".join(f"2026-07-08 11:{minute:02d}:00,000 WARN [main] order-service: pool "
                            f"active={minute}/50\n" for minute in range(30)), encoding="utf-8")
    assert not [path for path in folder.iterdir() if path.name.startswith("store.db-")]
    return {"store": store, "session": session, "cases": cases, "logs": logs}


# ---------------------------------------------------------------- stores that are not ours


def _garbage(path: Path, made: dict[str, Path]) -> None:
    path.write_bytes(hashlib.sha512(b"garbage").digest() * 128)


def _damaged_page(path: Path, made: dict[str, Path]) -> None:
    """A real store with one page past the schema overwritten (its header is intact)."""
    data = bytearray(made["store"].read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    assert len(data) >= 4 * page
    data[3 * page:4 * page] = hashlib.sha512(b"page").digest() * (page // 64)
    path.write_bytes(bytes(data))


def _other_application(path: Path, made: dict[str, Path]) -> None:
    connection = sqlite3.connect(path)
    connection.execute("create table customers (id integer primary key, name text)")
    connection.execute("insert into customers (name) values ('ada')")
    connection.commit()
    connection.close()


def _future_version(path: Path, made: dict[str, Path]) -> None:
    shutil.copy(made["store"], path)
    connection = sqlite3.connect(path)
    connection.execute("update store_meta set value = '99' where key = 'schema_version'")
    connection.commit()
    connection.close()


STORES: dict[str, Callable[[Path, dict[str, Path]], None]] = {
    "garbage": _garbage, "damaged-page": _damaged_page,
    "other-application": _other_application, "future-version": _future_version,
}
COMMANDS = {
    "ask": ["ask", QUESTION],
    "sessions-list": ["sessions", "list"],
    "replay": ["replay", "<session>"],
    "recheck": ["gatekeeper", "recheck", "--all"],
    "tools-call": ["tools", "call", "query_metrics"],
    "eval": ["eval", "<cases>"],
    "db-init": ["db", "init"],
}


def _argv(command: str, db: Path, made: dict[str, Path]) -> list[str]:
    mapping = {"<session>": str(made["session"]), "<cases>": str(made["cases"])}
    return [*(mapping.get(part, part) for part in COMMANDS[command]), "--db", str(db)]


@pytest.mark.parametrize("kind", list(STORES))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_database_that_is_not_a_usable_store_is_refused_untouched(
        command: str, kind: str, tmp_path: Path, made: dict[str, Path]) -> None:
    db = tmp_path / "inputs" / "store.db"
    db.parent.mkdir()
    STORES[kind](db, made)
    before = _snapshot(db.parent)
    line = _refused(_run(_argv(command, db, made), tmp_path))
    assert "cannot open audit store" in line
    expected = {"garbage": "not a SQLite database", "damaged-page": "damaged",
                "other-application": "another application's tables (customers)",
                "future-version": "newer superbiz (store schema version 99"}[kind]
    assert expected in line
    assert _snapshot(db.parent) == before  # the file as it was, nothing beside it
    assert not (tmp_path / "audit.db").exists()


def test_a_store_made_before_the_version_stamp_is_opened_and_stamped(
        tmp_path: Path, made: dict[str, Path]) -> None:
    db = tmp_path / "old.db"
    shutil.copy(made["store"], db)
    connection = sqlite3.connect(db)
    connection.execute("drop table store_meta")
    connection.commit()
    connection.close()
    done = _run(["sessions", "list", "--json", "--db", str(db)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert QUESTION in done.stdout
    connection = sqlite3.connect(db)
    assert connection.execute("select value from store_meta where key = 'schema_version'"
                              ).fetchall() == [(str(SCHEMA_VERSION),)]
    connection.close()


@contextmanager
def _locked(db: Path, *, wal: bool) -> Iterator[None]:
    """Another process holding ``db`` locked (``BEGIN EXCLUSIVE``) until the block ends."""
    script = ("import sqlite3, time\n"
              f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
              + ("c.execute('pragma journal_mode=wal')\n" if wal else "")
              + "c.execute('begin exclusive')\n"
              "print('locked', flush=True)\n"
              "time.sleep(600)\n")
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"locked"
        yield
    finally:
        holder.kill()
        holder.wait()


@pytest.fixture()
def locked_copy(tmp_path: Path, made: dict[str, Path]) -> Iterator[Path]:
    """A copy of the store, locked by another process until the test ends."""
    db = tmp_path / "locked.db"
    shutil.copy(made["store"], db)
    with _locked(db, wal=True):
        yield db


@pytest.mark.parametrize("command", ["ask", "db-init"])
def test_a_locked_store_is_one_line_after_the_busy_timeout(command: str, tmp_path: Path,
                                                           made: dict[str, Path],
                                                           locked_copy: Path) -> None:
    line = _refused(_run(_argv(command, locked_copy, made), tmp_path))
    assert "locked by another process" in line
    connection = sqlite3.connect(f"file:{locked_copy}?mode=ro", uri=True)
    assert connection.execute("select count(*) from sessions").fetchone() == (1,)  # none added
    connection.close()


# ---------------------------------------------------------------- where the store is


@pytest.mark.parametrize("how", ["--db", "SUPERBIZ_DB"])
@pytest.mark.parametrize("command", ["ask", "sessions-list", "eval"])
def test_a_store_in_a_folder_that_does_not_exist_is_refused(how: str, command: str, tmp_path: Path,
                                                            made: dict[str, Path]) -> None:
    db = tmp_path / "no" / "such" / "store.db"
    argv = _argv(command, db, made)
    env = None
    if how == "SUPERBIZ_DB":
        argv, env = argv[:-2], {"SUPERBIZ_DB": str(db)}
    line = _refused(_run(argv, tmp_path, env=env))
    assert "does not exist" in line
    assert not (tmp_path / "no").exists()


def test_db_init_creates_the_folder_it_is_asked_for(tmp_path: Path) -> None:
    db = tmp_path / "new" / "store.db"
    done = _run(["db", "init", "--db", str(db)], tmp_path)
    assert done.returncode == 0, done.stderr
    assert db.is_file()


@pytest.fixture()
def open_folder() -> Iterator[Path]:
    """A folder ``nobody`` can reach (pytest's own temp folders are private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="superbiz-ro-"))
    os.chmod(folder, 0o777)
    try:
        yield folder
    finally:
        for path in [folder, *folder.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                os.chmod(path, 0o755)
        shutil.rmtree(folder)


@pytest.mark.skipif(os.geteuid() != 0, reason="runs the CLI as nobody, which needs root")
@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_store_is_refused_by_eval_and_still_read_by_logs_query(
        what: str, open_folder: Path, made: dict[str, Path]) -> None:
    inputs = {name: Path(shutil.copy(made[name], open_folder)) for name in ("cases", "logs")}
    for path in inputs.values():
        os.chmod(path, 0o644)
    folder = open_folder / "ro"
    folder.mkdir()
    db, logs = folder / "store.db", folder / "logs.db"
    shutil.copy(made["store"], db)
    assert _run(["logs", "import", "--store", str(logs), str(inputs["logs"])],
                open_folder).returncode == 0
    for path in (db, logs):
        os.chmod(path, 0o444 if what == "file" else 0o644)
    os.chmod(folder, 0o755 if what == "file" else 0o555)
    before = _snapshot(folder)
    line = _refused(_run(["eval", str(inputs["cases"]), "--db", str(db)], open_folder,
                         as_nobody=True))
    assert "read-only" in line
    read = _run(["logs", "query", "--store", str(logs), "pool"], open_folder, as_nobody=True)
    assert read.returncode == 0, read.stderr
    assert "active=29/50" in read.stdout
    assert _snapshot(folder) == before


@pytest.mark.skipif(os.geteuid() != 0, reason="runs the CLI as nobody, which needs root")
def test_a_case_file_the_user_may_not_reach_is_one_line(open_folder: Path,
                                                        made: dict[str, Path]) -> None:
    secret = open_folder / "secret"
    secret.mkdir(mode=0o700)
    cases = Path(shutil.copy(made["cases"], secret))
    line = _refused(_run(["eval", str(cases), "--db", str(open_folder / "s.db")], open_folder,
                         as_nobody=True))
    assert "Permission denied" in line
    assert not (open_folder / "s.db").exists()


def test_a_junit_report_into_a_missing_folder_is_refused_before_the_run(
        tmp_path: Path, made: dict[str, Path]) -> None:
    report = tmp_path / "no" / "such" / "junit.xml"
    db = tmp_path / "store.db"
    line = _refused(_run(["eval", str(made["cases"]), "--junit", str(report), "--db", str(db)],
                         tmp_path))
    assert "does not exist" in line
    assert not (tmp_path / "no").exists() and not db.exists()  # no folder, no eval run


# ---------------------------------------------------------------- settings from the environment


def _setting_cases(folder: Path) -> Iterator[tuple[str, str, str, str]]:
    """(case, variable, value, what the error says)."""
    yield "lease-text", "SUPERBIZ_LEASE_TIMEOUT", "five minutes", "valid number"
    yield "lease-negative", "SUPERBIZ_LEASE_TIMEOUT", "-5", "greater than 0"
    yield "lease-zero", "SUPERBIZ_LEASE_TIMEOUT", "0", "greater than 0"
    yield "lease-infinite", "SUPERBIZ_LEASE_TIMEOUT", "inf", "finite"
    yield "lease-nan", "SUPERBIZ_LEASE_TIMEOUT", "nan", "finite"
    yield "packs-file", "SUPERBIZ_PACKS_DIR", str(folder / "plain.txt"), "not a folder"
    yield "packs-devzero", "SUPERBIZ_PACKS_DIR", "/dev/zero", "not a folder"
    yield "packs-loop", "SUPERBIZ_PACKS_DIR", str(folder / "loop"), "symbolic links"
    yield "packs-second-is-file", "SUPERBIZ_PACKS_DIR", f"{folder}{os.pathsep}/dev/zero", \
        "not a folder"
    yield "user-packs-file", "SUPERBIZ_USER_PACKS_DIR", str(folder / "plain.txt"), "not a folder"
    yield "user-packs-loop", "SUPERBIZ_USER_PACKS_DIR", str(folder / "loop"), "symbolic links"


@pytest.mark.parametrize("command", ["ask", "sessions-list"])
@pytest.mark.parametrize("case", [case for case, *_ in _setting_cases(Path("/unused"))])
def test_a_bad_setting_is_refused_in_one_line_naming_it(case: str, command: str,
                                                        tmp_path: Path) -> None:
    (tmp_path / "plain.txt").write_text("hello\n")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    name, value, says = next((name, value, says) for which, name, value, says
                             in _setting_cases(tmp_path) if which == case)
    line = _refused(_run(COMMANDS[command], tmp_path, env={name: value}))
    assert name in line and says in line
    assert not (tmp_path / "audit.db").exists()  # nothing opened, nothing written


def test_good_settings_still_work(tmp_path: Path) -> None:
    (tmp_path / "packs").mkdir()
    for lease in ("42.5", ""):  # set but empty: the default
        done = _run(["ask", QUESTION], tmp_path, env={"SUPERBIZ_LEASE_TIMEOUT": lease,
                                                      "SUPERBIZ_PACKS_DIR": str(tmp_path / "packs")})
        assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------- logs import


def _log_lines(count: int, *, pad_first_to: int = 0) -> list[str]:
    lines = [f"2026-07-08 11:{minute:02d}:00,000 WARN [main] order-service: pool active={minute}/50"
             for minute in range(count)]
    if pad_first_to:
        lines[0] += " " + "p" * (pad_first_to - len(lines[0]) - 1)
    return lines


@pytest.mark.parametrize("service", ["", "   ", "x" * 201, "order\nservice"])
def test_a_service_name_that_is_not_one_is_refused(service: str, tmp_path: Path,
                                                    made: dict[str, Path]) -> None:
    store = tmp_path / "logs.db"
    line = _refused(_run(["logs", "import", "--store", str(store), "--service", service,
                          str(made["logs"])], tmp_path))
    assert "--service" in line
    assert not store.exists() and not list(tmp_path.glob(".logs.db*"))


def test_a_service_name_of_200_characters_is_taken(tmp_path: Path, made: dict[str, Path]) -> None:
    done = _run(["logs", "import", "--store", str(tmp_path / "logs.db"), "--service", "s" * 200,
                 str(made["logs"])], tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("ends", ["cr", "mixed", "crlf-across-chunks"])
def test_every_line_end_separates_lines(ends: str, tmp_path: Path) -> None:
    # 65,535 bytes of first line put its CR last in the reader's first 64 KiB, its LF first
    # in the next: still one line end, not two.
    lines = _log_lines(30, pad_first_to=65_535 if ends == "crlf-across-chunks" else 0)
    separators = {"cr": ["\r"], "mixed": ["\n", "\r\n", "\r"], "crlf-across-chunks": ["\r\n"]}[ends]
    log = tmp_path / "app.log"
    log.write_bytes("".join(line + separators[index % len(separators)]
                            for index, line in enumerate(lines)).encode())
    store = tmp_path / "logs.db"
    done = _run(["logs", "import", "--store", str(store), str(log), "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    (report,) = json.loads(done.stdout)["files"]
    assert (report["physical_lines"], report["entries"], report["unparsed"]) == (30, 30, 0)
    found = _run(["logs", "query", "--store", str(store), "active=29/50", "--json"], tmp_path)
    assert found.returncode == 0 and "active=29/50" in found.stdout


# ---------------------------------------------------------------- --json with an error


def test_packs_validate_json_of_a_broken_pack_is_one_document_and_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "not-a-pack"
    folder.mkdir()
    (folder / "pack.yaml").write_text("now: soon\n", encoding="utf-8")
    (folder / "alerts.yaml").write_text("- alert_name: X\n", encoding="utf-8")
    done = _run(["packs", "validate", str(folder), "--json"], tmp_path)
    line = _refused(done)
    document = json.loads(done.stdout)  # exactly one JSON document
    assert document["valid"] is False and len(document["problems"]) >= 2
    assert "not a valid pack" in line and f"{len(document['problems']) - 1} more" in line


def test_packs_validate_json_of_a_missing_pack_prints_nothing_on_stdout(tmp_path: Path) -> None:
    done = _run(["packs", "validate", str(tmp_path / "missing"), "--json"], tmp_path)
    assert "pack not found" in _refused(done)
    assert done.stdout == ""


@pytest.mark.skipif(os.geteuid() != 0, reason="runs the CLI as nobody, which needs root")
@pytest.mark.parametrize("argv", [
    ["logs", "query", "--store", "<private>/logs.db", "pool"],
    ["logs", "stats", "--store", "<private>/logs.db"],
    ["logs", "import", "--store", "<private>/logs.db", "<log>"],
    ["logs", "import", "--store", "<private>/new.db", "<log>"],
    ["sessions", "list", "--db", "<private>/store.db"],
])
def test_a_store_behind_a_folder_the_user_may_not_search_is_one_line(
        argv: list[str], open_folder: Path, made: dict[str, Path]) -> None:
    log = Path(shutil.copy(made["logs"], open_folder))
    os.chmod(log, 0o644)
    private = open_folder / "private"
    private.mkdir()
    assert _run(["logs", "import", "--store", str(private / "logs.db"), str(log)],
                open_folder).returncode == 0
    shutil.copy(made["store"], private / "store.db")
    os.chmod(private, 0o700)
    before = _snapshot(private)
    filled = [part.replace("<private>", str(private)).replace("<log>", str(log)) for part in argv]
    assert "Permission denied" in _refused(_run(filled, open_folder, as_nobody=True))
    assert _snapshot(private) == before


def test_a_log_file_given_twice_is_refused(tmp_path: Path, made: dict[str, Path]) -> None:
    store = tmp_path / "logs.db"
    link = tmp_path / "same.log"
    link.symlink_to(made["logs"])
    line = _refused(_run(["logs", "import", "--store", str(store), str(made["logs"]), str(link)],
                         tmp_path))
    assert "given twice" in line
    assert not store.exists()


@pytest.mark.parametrize("command", ["query", "import"])
def test_a_locked_log_store_is_one_line(command: str, tmp_path: Path, made: dict[str, Path]) -> None:
    store = tmp_path / "logs.db"
    assert _run(["logs", "import", "--store", str(store), str(made["logs"])], tmp_path).returncode == 0
    argv = (["logs", "query", "--store", str(store), "pool"] if command == "query"
            else ["logs", "import", "--store", str(store), str(made["logs"])])
    with _locked(store, wal=False):
        assert "locked by another process" in _refused(_run(argv, tmp_path))
    stats = _run(["logs", "stats", "--store", str(store), "--json"], tmp_path)
    assert json.loads(stats.stdout)["lines"] == 30  # nothing imported twice


def test_a_store_opened_read_only_is_refused_before_work_on_stderr(tmp_path: Path) -> None:
    """``?mode=ro``: SQLite takes the write lock and refuses only the write, which used to come
    out mid-run as an "error" line on stdout (and file permissions say nothing to root)."""
    db = tmp_path / "store.db"
    assert _run(["db", "init", "--db", str(db)], tmp_path).returncode == 0
    before = _snapshot(tmp_path)["store.db"]
    read_only = f"sqlite:///file:{db}?mode=ro&uri=true"
    for argv in (["ask", QUESTION], ["tools", "call", "query_metrics", "--args", "{}"],
                 ["db", "init"], ["gatekeeper", "recheck", "--all"]):
        done = _run([*argv, "--db", read_only], tmp_path)
        assert "read-only" in _refused(done), argv
        assert done.stdout == "", argv
    assert _snapshot(tmp_path)["store.db"] == before  # (SQLite may add an empty -wal beside it)
    listed = _run(["sessions", "list", "--db", read_only], tmp_path)  # reading is fine
    assert listed.returncode == 0 and listed.stderr == ""
