"""A second bad-input battery, written apart from ``test_bad_input``'s table: the real console
script in a subprocess, fed what a QA engineer finds in an afternoon.

Encodings (UTF-16 and UTF-32, with and without a BOM, Latin-1, CRLF and mixed line ends),
gigantic single lines, 0- and 1-byte files, NUL bytes, JSON with NaN, a key twice or numbers
beyond 64 bits, gzip bombs, files and folders the user may not read (run as ``nobody`` when the
tests run as root), store files that are not SQLite, ``--json`` with an error, hostile
``SUPERBIZ_*`` variables, bad option values, catastrophic regexes. Every case: exit 2, one line
on stderr, no traceback, no hang, nothing written (the store and the folder are as they were).
Each case is a process, so the tables hold a few of each kind rather than every combination.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

SUPERBIZ = Path(sys.executable).with_name("superbiz")
DEADLINE_S = 90  # far above any honest refusal on a busy machine: only a hang reaches it
QUESTION = "Only confirm whether payment-service has a HighCPUUsage alert."
NOBODY = 65534


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("SUPERBIZ_", "OPENAI_"))}
    return {**env, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
            "SUPERBIZ_DB": str(home / "audit.db"), "PYTHONIOENCODING": "utf-8", **extra}


def _run(argv: list[str], home: Path, *, as_nobody: bool = False, stdin: bytes | None = None,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    command = [str(SUPERBIZ), *argv]
    if as_nobody and os.geteuid() == 0:
        command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *command]
    return subprocess.run(command, env={**_env(home), **(env or {})}, cwd=home, input=stdin,
                          capture_output=True, timeout=DEADLINE_S, check=False)


def _one_line(done: subprocess.CompletedProcess[bytes]) -> str:
    text = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in text, text
    lines = text.splitlines()
    assert len(lines) == 1 and lines[0].startswith("superbiz: error: "), text
    return lines[0]


def _fingerprint(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (but the run's own inputs) and a hash of its bytes."""
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not path.is_file() or "inputs" in path.relative_to(folder).parts:
            continue
        try:
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            found[str(path.relative_to(folder))] = "unreadable"
    return found


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A real session document and a real log file, made once."""
    folder = tmp_path_factory.mktemp("real")
    done = subprocess.run([str(SUPERBIZ), "ask", QUESTION, "--json", "--no-store"],
                          env=_env(folder), cwd=folder, capture_output=True, timeout=DEADLINE_S,
                          check=True)
    session = folder / "session.json"
    session.write_bytes(done.stdout)
    logs = folder / "app.log"
    logs.write_text("".join(f"2026-07-08 11:{minute:02d}:00,000 WARN [main] order-service: pool "
                            f"active={minute}/50\n" for minute in range(30)), encoding="utf-8")
    cases = folder / "cases.yaml"
    cases.write_text(f"- id: one\n  question: {QUESTION}\n  expect: {{verdict: PASS}}\n",
                     encoding="utf-8")
    return {"session": session, "logs": logs, "cases": cases}


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    (tmp_path / "inputs").mkdir()
    os.chmod(tmp_path, 0o777)  # nobody may write here when a case runs as nobody
    return tmp_path


# ---------------------------------------------------------------- hostile files

Builder = Callable[[Path, dict[str, Path]], Path]


def _recode(source: str, encoding: str, *, bom: bytes = b"", newline: str | None = None) -> Builder:
    def build(folder: Path, real: dict[str, Path]) -> Path:
        text = real[source].read_text(encoding="utf-8")
        if newline is not None:
            text = text.replace("\n", newline)
        path = folder / f"{source}-{encoding}{'-bom' if bom else ''}"
        path.write_bytes(bom + text.encode(encoding, "replace"))
        return path
    return build


def _mixed_newlines(source: str) -> Builder:
    def build(folder: Path, real: dict[str, Path]) -> Path:
        lines = real[source].read_text(encoding="utf-8").split("\n")
        ends = ("\n", "\r\n", "\r")
        path = folder / f"{source}-mixed"
        path.write_bytes("".join(line + ends[i % 3] for i, line in enumerate(lines)).encode())
        return path
    return build


def _latin1(source: str) -> Builder:
    def build(folder: Path, real: dict[str, Path]) -> Path:
        data = real[source].read_bytes()
        path = folder / f"{source}-latin1"
        # an é written by a Latin-1 editor: one byte 0xE9, not valid UTF-8
        path.write_bytes(data.replace(b"payment-service", b"paym\xe9nt-service", 1).replace(
            b"order-service", b"ord\xe9r-service", 1))
        return path
    return build


def _raw(name: str, data: bytes) -> Builder:
    def build(folder: Path, real: dict[str, Path]) -> Path:
        path = folder / name
        path.write_bytes(data)
        return path
    return build


def _giant_line(folder: Path, real: dict[str, Path]) -> Path:
    path = folder / "giant-line"
    with path.open("wb") as out:
        out.write(b'{"question": "')
        chunk = b"x" * (1 << 20)
        for _ in range(80):  # 80 MiB on one line
            out.write(chunk)
        out.write(b'"}\n')
    return path


def _giant_log_line(folder: Path, real: dict[str, Path]) -> Path:
    path = folder / "giant.log"
    with path.open("wb") as out:
        out.write(b"2026-07-08 11:00:00,000 WARN [main] ")
        for _ in range(80):
            out.write(b"y" * (1 << 20))
        out.write(b"\n")
    return path


def _corrupt_gzip(folder: Path, real: dict[str, Path]) -> Path:
    path = folder / "broken.log.gz"
    data = gzip.compress(real["logs"].read_bytes())
    path.write_bytes(data[: len(data) // 2])
    return path


def _gzip_bomb(folder: Path, real: dict[str, Path]) -> Path:
    path = folder / "bomb.log.gz"
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(b"2026-07-08 11:00:00,000 WARN [main] ")
        chunk = b"z" * (1 << 20)
        for _ in range(200):  # one 200 MiB line once inflated, 200 KiB on disk
            out.write(chunk)
    return path


FILE_INPUTS: dict[str, Builder] = {
    "utf16-bom": _recode("session", "utf-16", bom=b""),  # Python's utf-16 writes its BOM
    "utf16le-nobom": _recode("session", "utf-16-le"),
    "utf32": _recode("session", "utf-32"),
    "latin1": _latin1("session"),
    "empty": _raw("empty", b""),
    "one-byte": _raw("one", b"{"),
    "one-byte-nul": _raw("nul", b"\x00"),
    "giant-line": _giant_line,
    "nul-inside": _raw("nul-inside", b'{"session_id": "a\x00b"}'),
    "json-nan": _raw("nan", b'{"session_id": NaN, "question": Infinity}'),
    "json-dup-keys": _raw("dup", b'{"session_id": "a", "session_id": "b", "question": "q"}'),
    "json-bignum": _raw("bignum", b'{"session_id": "a", "question": "q", "invocations": [{"invocation_id": '
                        + b"9" * 400 + b', "tool_name": "query_logs"}]}'),
    "json-float-id": _raw("floatid", b'{"session_id": "a", "question": "q", "invocations": '
                          b'[{"invocation_id": 1e400, "tool_name": "query_logs"}]}'),
}
# The benign recodings: a decoder may accept them (0 or 1) or name the encoding (2).
TOLERATED = {"crlf": _recode("session", "utf-8", newline="\r\n"),
             "mixed-newlines": _mixed_newlines("session"),
             "utf8-bom": _recode("session", "utf-8", bom=b"\xef\xbb\xbf")}

DOCUMENT_COMMANDS = {
    "gatekeeper-check": ["gatekeeper", "check", "<file>"],
    "replay": ["replay", "<file>"],
    "replay-json": ["replay", "<file>", "--json"],
    "eval-cases": ["eval", "<file>"],
    "sources": ["sources", "--sources", "<file>"],
    "ask-sources": ["ask", QUESTION, "--sources", "<file>"],
}


def _argv(template: list[str], path: Path) -> list[str]:
    return [str(path) if part == "<file>" else part for part in template]


# Every kind for the session-document readers; a few for the other readers (each case is a process).
OTHER_READER_KINDS = ("utf16-bom", "one-byte-nul")


def _document_cases() -> Iterator[tuple[str, str]]:
    for command in DOCUMENT_COMMANDS:
        for kind in FILE_INPUTS:
            if command == "gatekeeper-check" or kind in OTHER_READER_KINDS:
                yield command, kind


@pytest.mark.parametrize(("command", "kind"), list(_document_cases()))
def test_hostile_files_are_one_line_and_store_nothing(command: str, kind: str, home: Path,
                                                      documents: dict[str, Path]) -> None:
    path = FILE_INPUTS[kind](home / "inputs", documents)
    before = _fingerprint(home)
    done = _run(_argv(DOCUMENT_COMMANDS[command], path), home)
    assert done.returncode == 2, (done.returncode, done.stderr)
    _one_line(done)
    assert done.stdout == b""
    assert _fingerprint(home) == before


@pytest.mark.parametrize("kind", list(TOLERATED))
@pytest.mark.parametrize("command", ["gatekeeper-check", "replay"])
def test_recoded_documents_are_read_or_refused_in_one_line(command: str, kind: str, home: Path,
                                                           documents: dict[str, Path]) -> None:
    path = TOLERATED[kind](home / "inputs", documents)
    done = _run(_argv(DOCUMENT_COMMANDS[command], path), home)
    assert b"Traceback" not in done.stderr
    if done.returncode == 2:
        _one_line(done)
    else:
        assert done.returncode in (0, 1), done.stderr


# ---------------------------------------------------------------- log import


LOG_INPUTS: dict[str, Builder] = {
    "utf16": _recode("logs", "utf-16"),
    "latin1": _raw("latin1.log", b"2026-07-08 11:00:00,000 WARN [main] caf\xe9 pool exhausted\n"),
    "empty": _raw("empty.log", b""),
    "one-byte": _raw("one.log", b"2"),
    "binary": _raw("binary.log", bytes(range(256)) * 64),
    "giant-line": _giant_log_line,
    "corrupt-gzip": _corrupt_gzip,
    "gzip-bomb": _gzip_bomb,
}


@pytest.mark.parametrize("kind", list(LOG_INPUTS))
def test_log_import_of_hostile_files_leaves_the_store_as_it_was(kind: str, home: Path,
                                                                documents: dict[str, Path]) -> None:
    store = home / "logs.db"
    good = _run(["logs", "import", "--store", str(store), str(documents["logs"])], home)
    assert good.returncode == 0, good.stderr
    before = _fingerprint(home)
    path = LOG_INPUTS[kind](home / "inputs", documents)
    done = _run(["logs", "import", "--store", str(store), str(path)], home)
    if done.returncode == 0:
        # An encoding the importer reads (it names what it did), never a half import.
        assert b"Traceback" not in done.stderr and kind in ("utf16", "latin1", "crlf"), done.stderr
        return
    assert done.returncode == 2, done.stderr
    _one_line(done)
    assert _fingerprint(home) == before






@pytest.mark.parametrize("pattern", [
    r"(?P<timestamp>(a+)+)$(?P<message>.*)",  # catastrophic backtracking on a long line
    r"(?P<timestamp>[",                         # not a regex
    r"(?P<message>.*)",                         # no timestamp group
    "(?P<timestamp>\\d+)(?P<message>.*)" * 400,  # huge pattern
])
def test_log_import_patterns_that_cannot_work_are_refused(pattern: str, home: Path) -> None:
    path = home / "inputs" / "aaaa.log"
    path.write_text(("a" * 5000 + "!\n") * 20)
    done = _run(["logs", "import", "--store", str(home / "re.db"), "--pattern", pattern, str(path)], home)
    assert done.returncode == 2, done.stderr
    _one_line(done)
    assert not (home / "re.db").exists()


@pytest.mark.parametrize("argv", [
    ["logs", "stats", "--store", "<missing>"],
    ["logs", "query", "--store", "<missing>", "pool"],
    ["logs", "query", "--store", "<store>", "--since", "yesterday"],
    ["logs", "query", "--store", "<store>", "--since", "2026-13-45T99:99:99"],
    ["logs", "query", "--store", "<store>", "--until", "9" * 400],
    ["logs", "query", "--store", "<store>", "--limit", "0"],
    ["logs", "query", "--store", "<store>", "--limit", "9" * 30],
    ["logs", "query", "--store", "<store>", "--topic", "no-such-topic"],
    ["logs", "query", "--store", "<store>", "--level", "LOUD"],
    ["logs", "import", "--store", "<store>", "--timezone", "Mars/Olympus", "<log>"],
    ["logs", "import", "--store", "<store>", "--timezone", "+99:00", "<log>"],
    ["logs", "import", "--store", "<store>", "--format", "regex", "<log>"],
])
def test_log_commands_refuse_bad_options(argv: list[str], home: Path, documents: dict[str, Path]) -> None:
    store = home / "logs.db"
    assert _run(["logs", "import", "--store", str(store), str(documents["logs"])], home).returncode == 0
    before = _fingerprint(home)
    mapping = {"<missing>": str(home / "missing.db"), "<store>": str(store), "<log>": str(documents["logs"])}
    done = _run([mapping.get(part, part) for part in argv], home)
    assert done.returncode == 2, (done.returncode, done.stderr, done.stdout[:200])
    _one_line(done)
    assert _fingerprint(home) == before


# ---------------------------------------------------------------- the audit store file


def _not_sqlite(path: Path) -> None:
    path.write_text("this is a shopping list, not a database\n" * 100)




def _truncated_sqlite(path: Path) -> None:
    connection = sqlite3.connect(path)
    connection.execute("create table t (x)")
    connection.commit()
    connection.close()
    path.write_bytes(path.read_bytes()[:100])






STORE_FILES: dict[str, Callable[[Path], None]] = {
    "not-sqlite": _not_sqlite,
    "truncated-sqlite": _truncated_sqlite,
}
STORE_COMMANDS = {
    "ask": ["ask", QUESTION],
    "sessions-list": ["sessions", "list"],
    "sessions-export": ["sessions", "export"],
    "sessions-show": ["sessions", "show", "latest"],
    "gatekeeper-check-db": ["gatekeeper", "check", "<session>", "--db", "<db>"],
    "replay-db": ["replay", "<session>", "--db", "<db>"],
    "recheck": ["gatekeeper", "recheck", "--all"],
    "tools-call": ["tools", "call", "query_metrics"],
    "eval": ["eval", "<cases>"],
    "db-init": ["db", "init"],
    "logs-stats": ["logs", "stats", "--store", "<db>"],
    "logs-query": ["logs", "query", "--store", "<db>", "pool"],
    "logs-import": ["logs", "import", "--store", "<db>", "<log>"],
}


def _store_argv(command: str, db: Path, documents: dict[str, Path]) -> list[str]:
    mapping = {"<db>": str(db), "<session>": str(documents["session"]), "<cases>": str(documents["cases"]),
               "<log>": str(documents["logs"])}
    argv = [mapping.get(part, part) for part in STORE_COMMANDS[command]]
    return argv if "<db>" in STORE_COMMANDS[command] else [*argv, "--db", str(db)]


@pytest.mark.parametrize("kind", list(STORE_FILES))
@pytest.mark.parametrize("command", ["ask", "sessions-list", "replay-db", "logs-query"])
def test_store_files_that_are_not_ours_are_one_line_and_untouched(command: str, kind: str, home: Path,
                                                                   documents: dict[str, Path]) -> None:
    db = home / "inputs" / "store.db"
    STORE_FILES[kind](db)
    before = db.read_bytes()
    done = _run(_store_argv(command, db, documents), home)
    assert done.returncode == 2, (done.returncode, done.stderr)
    _one_line(done)
    assert db.read_bytes() == before
    assert not any(path.name.startswith("store.db-") for path in db.parent.iterdir() if path != db), \
        sorted(p.name for p in db.parent.iterdir())


def _hold_lock(db: Path) -> subprocess.Popen[bytes]:
    """Another process holding the database locked (an exclusive transaction), until killed."""
    script = ("import sqlite3, sys, time\n"
              f"c = sqlite3.connect({str(db)!r}, isolation_level=None)\n"
              "c.execute('begin exclusive')\n"
              "print('locked', flush=True)\n"
              "time.sleep(600)\n")
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert holder.stdout is not None and holder.stdout.readline().strip() == b"locked"
    return holder








@pytest.mark.parametrize("command", ["gatekeeper-check", "replay", "logs-import"])
def test_files_and_folders_the_user_may_not_read_are_one_line(command: str, home: Path,
                                                             documents: dict[str, Path]) -> None:
    secret = home / "inputs" / "secret"
    secret.mkdir()
    path = secret / "document"
    shutil.copy(documents["logs" if command == "logs-import" else "session"], path)
    for locked_mode, what in ((0o000, "file"), (0o700, "folder")):
        os.chmod(path, locked_mode if what == "file" else 0o644)
        os.chmod(secret, 0o755 if what == "file" else 0o000)
        try:
            template = (["logs", "import", "--store", str(home / "x.db"), "<file>"]
                        if command == "logs-import" else DOCUMENT_COMMANDS[command])
            done = _run(_argv(template, path), home, as_nobody=True)
        finally:
            os.chmod(secret, 0o755)
            os.chmod(path, 0o644)
        assert done.returncode == 2, (what, done.returncode, done.stderr)
        assert "ermission" in _one_line(done)
        assert not (home / "x.db").exists()


# ---------------------------------------------------------------- options and variables




def test_the_same_option_twice_with_the_same_value_is_fine(home: Path) -> None:
    done = _run(["sessions", "list", "--json", "--json", "--limit", "3", "--limit", "3"], home)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


@pytest.mark.parametrize("argv", [
    ["sessions", "show", "no-such-session", "--json"],
    ["gatekeeper", "check", "/nonexistent.json", "--json"],
    ["replay", "/nonexistent.json", "--json"],
    ["tools", "call", "no_such_tool", "--json", "--no-store"],
    ["tools", "call", "query_logs", "--args", "[1, 2]", "--json", "--no-store"],
    ["sources", "--pack", "/nonexistent", "--json"],
    ["eval", "/nonexistent.yaml", "--json"],
    ["logs", "stats", "--store", "/nonexistent.db", "--json"],
])
def test_json_with_an_error_prints_nothing_on_stdout(argv: list[str], home: Path) -> None:
    done = _run(argv, home)
    assert done.returncode == 2, (done.returncode, done.stderr)
    _one_line(done)
    assert done.stdout == b""


def _make_variable_inputs(home: Path) -> None:
    """The files the variables below point at (a plain text file, a symlink to itself)."""
    (home / "inputs").mkdir(exist_ok=True)
    (home / "inputs" / "plain.txt").write_text("hello\n")
    loop = home / "inputs" / "loop"
    if not loop.is_symlink():
        loop.symlink_to(loop)


def _variables(home: Path) -> Iterator[tuple[str, dict[str, str], list[str]]]:
    """(case, variables, argv); pure, so the cases can be listed without a folder."""
    text = home / "inputs" / "plain.txt"
    loop = home / "inputs" / "loop"
    yield "db-devnull", {"SUPERBIZ_DB": "/dev/null"}, ["sessions", "list"]
    yield "db-directory", {"SUPERBIZ_DB": str(home / "inputs")}, ["sessions", "list"]
    yield "db-text-file", {"SUPERBIZ_DB": str(text)}, ["ask", QUESTION]
    yield "db-bad-port", {"SUPERBIZ_DB": "postgresql://u:pw@localhost:0x50/x"}, ["sessions", "list"]
    yield "db-loop", {"SUPERBIZ_DB": str(loop)}, ["sessions", "list"]
    yield "packs-dir-missing", {"SUPERBIZ_PACKS_DIR": str(home / "nope")}, ["ask", QUESTION, "--pack", "nope"]
    yield "sources-passwd", {"SUPERBIZ_SOURCES": "/etc/passwd"}, ["sources"]
    yield "sources-missing", {"SUPERBIZ_SOURCES": str(home / "nope.yaml")}, ["ask", QUESTION]
    yield "prometheus-not-a-url", {"SUPERBIZ_PROMETHEUS_URL": "not a url"}, ["ask", QUESTION]
    yield "prometheus-file-url", {"SUPERBIZ_PROMETHEUS_URL": "file:///etc/passwd"}, ["sources"]
    yield "prometheus-bracket", {"SUPERBIZ_PROMETHEUS_URL": "http://[::1"}, ["sources"]
    yield "source-timeout-nan", {"SUPERBIZ_SOURCE_TIMEOUT": "nan"}, ["sources"]
    yield "llm-retries", {"SUPERBIZ_LLM_MAX_RETRIES": "many"}, ["ask", QUESTION, "--engine", "llm"]
    yield "llm-backend", {"SUPERBIZ_LLM_BACKEND": "telepathy"}, ["ask", QUESTION, "--engine", "llm"]
    yield "default-pack-escape", {"SUPERBIZ_DEFAULT_PACK": "../../../etc"}, ["ask", QUESTION]
    yield "default-pack-empty", {"SUPERBIZ_DEFAULT_PACK": " "}, ["sources"]


@pytest.mark.parametrize("name", [name for name, _, _ in _variables(Path("/tmp/unused-battery"))])
def test_hostile_environment_variables_are_one_line(name: str, home: Path) -> None:
    _make_variable_inputs(home)
    env, argv = next((env, argv) for case, env, argv in _variables(home) if case == name)
    before = _fingerprint(home)
    done = _run(argv, home, env=env)
    assert done.returncode == 2, (done.returncode, done.stderr)
    _one_line(done)
    assert done.stdout == b""
    assert _fingerprint(home) == before


def test_an_undecodable_environment_variable_is_one_line(home: Path) -> None:
    env = {key.encode(): value.encode() for key, value in _env(home).items()}
    env[b"SUPERBIZ_DB"] = b"/tmp/\xff\xfe.db"
    done = subprocess.run([str(SUPERBIZ), "sessions", "list"], env=env, cwd=home,
                          capture_output=True, timeout=DEADLINE_S, check=False)
    assert done.returncode == 2, done.stderr
    _one_line(done)


@pytest.mark.parametrize("argv", [
    ["eval", "<cases>", "--packs-dir", "<file>"],
    ["eval", "<cases>", "--workers", "0"],
    ["eval", "<cases>", "--workers", "9" * 30],
    ["eval", "<cases>", "--junit", "<dir>"],
    ["eval", "<cases>", "--junit", "/dev/zero"],
    ["eval", "<cases>", "--tag", ""],
    ["sessions", "export", "-o", "<dir>"],
    ["sessions", "export", "-o", "/dev/zero"],
    ["sessions", "list", "--limit", "-1"],
    ["tools", "call", "query_logs", "--args", '{"limit": 1e999}', "--no-store"],
    ["tools", "call", "query_logs", "--args", '{"since": "' + "9" * 5000 + '"}', "--no-store"],
    ["tools", "call", "query_logs", "--args", '{"terms": ' + json.dumps(["t"] * 10_000) + "}", "--no-store"],
    ["ask", ""],
    ["ask", "   "],
    ["ask", QUESTION, "--executor-fault", "no_such_fault"],
    ["packs", "validate", "<file>"],
    ["serve", "--port", "99999"],
    ["serve", "--port", "-1"],
    ["serve", "--address", "256.256.256.256", "--port", "1"],
])
def test_bad_values_are_one_line(argv: list[str], home: Path, documents: dict[str, Path]) -> None:
    adir = home / "inputs" / "adir"
    adir.mkdir(exist_ok=True)
    text = home / "inputs" / "plain.txt"
    text.write_text("hello\n")
    mapping = {"<cases>": str(documents["cases"]), "<file>": str(text), "<dir>": str(adir)}
    before = _fingerprint(home)
    done = _run([mapping.get(part, part) for part in argv], home)
    assert done.returncode == 2, (done.returncode, done.stderr)
    _one_line(done)
    assert _fingerprint(home) == before


# ---------------------------------------------------------------- signals
