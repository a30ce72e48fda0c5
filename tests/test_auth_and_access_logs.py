"""Two kinds of real log asked about end to end, through packs made as a user makes them
(``superbiz logs import`` of files written here):

- sshd's auth log: a question about *successful* sign-ins ("Who logged in successfully?",
  "sshd 有哪些登录成功的记录？", "When did root last log in?") quotes the ``Accepted ...`` lines,
  one about failures or login problems the ``Failed password`` lines (``core.language.success``, the
  ``signin`` concept);
- a web server's access log (Common/Combined Log Format): a line whose status is 5xx is an HTTP
  error (the ``http_error`` topic's shape), in an imported store and in a pack's logs.jsonl
  alike; a code asked about as a status ("502s") finds the lines with that status, not a
  response of 502 bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.cli import main
from core.contracts import SessionDocument
from core.language.concepts import concepts_held, concepts_in
from core.language.levels import http_statuses
from core.language.lexicon import tag_lines, topics_in
from core.pipeline import ask
from core.sources.logstore import LogStore
from core.sources.pack import load_world
from tests.hand_sources import NGINX_LOG, SSHD_LOG


def _imported_pack(folder: Path, name: str, text: str) -> Path:
    """``name.log`` through ``superbiz logs import --format auto`` into a pack's store."""
    log = folder / f"{name}.log"
    log.write_text(text, encoding="utf-8")
    pack = folder / f"{name}-pack"
    pack.mkdir()
    assert main(["logs", "import", str(log), "--store", str(pack / "logs.db")]) == 0
    (pack / "pack.yaml").write_text("logs:\n  store: logs.db\n", encoding="utf-8")
    return pack


def _jsonl_pack(folder: Path, store: Path) -> Path:
    """A pack of the same entries as a logs.jsonl (searched by an in-memory store)."""
    opened = LogStore.open(store)
    with opened.connection() as connection:
        rows = connection.execute("SELECT ts, level, service, message FROM entries ORDER BY id").fetchall()
    opened.close()
    pack = folder / "jsonl-pack"
    pack.mkdir()
    lines = [json.dumps({"timestamp": ts, "level": level, "service": service, "message": message})
             for ts, level, service, message in rows]
    (pack / "logs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (pack / "pack.yaml").write_text("name: web\n", encoding="utf-8")
    return pack


def _answer(document: SessionDocument) -> str:
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS", (
        document.question, document.verifier_result)
    assert document.composer_output is not None
    return document.composer_output.user_facing_answer


# ---------------------------------------------------------------- successful logins


@pytest.mark.parametrize("question, concepts", [
    ("sshd 有哪些登录成功的记录？", ["signin"]),
    ("sshd 有没有成功登录的记录？", ["signin"]),
    ("sshd 成功的登录记录有哪些？", ["signin"]),
    ("root 最后一次登录是什么时候？", ["signin"]),
    ("Who logged in successfully to sshd?", ["signin"]),
    ("Which sshd logins succeeded?", ["signin"]),
    ("Were any logins accepted?", ["signin"]),
    ("When did root last log in?", ["signin"]),
    ("successful login attempts on sshd?", ["signin"]),  # an explicit success outweighs "attempts"
    # failures, and logins asked about as trouble, stay failed logins
    ("sshd 有没有登录失败？", ["login", "failure"]),
    ("sshd 登录不成功的原因", ["login", "failure"]),
    ("sshd 有哪些登录记录？", ["login"]),
    ("Any login problems on sshd?", ["login", "problem"]),
    ("Why could root not log in successfully?", ["login"]),
    ("any log in attempts on sshd?", ["login"]),
    # one clause each
    ("failed logins, and who logged in successfully?", ["failure", "login", "signin"]),
])
def test_a_login_said_to_succeed_is_a_successful_login(question: str, concepts: list[str]) -> None:
    assert concepts_in(question) == concepts


def test_lines_of_successful_and_failed_logins_hold_their_own_concept() -> None:
    """The verifier reads evidence with the same words: a "failed logins" claim is not grounded
    by an Accepted line (it held ``login`` through "password")."""
    assert "signin" in concepts_held("Accepted password for alice from 10.0.0.5 port 50022 ssh2")
    assert "login" not in concepts_held("Accepted password for alice from 10.0.0.5 port 50022 ssh2")
    assert "signin" in concepts_held("pam_unix(sshd:session): session opened for user alice by (uid=0)")
    assert "login" in concepts_held("Failed password for root from 203.0.113.9 port 52213 ssh2")
    assert "signin" not in concepts_held("Failed password for root from 203.0.113.9 port 52213 ssh2")
    # ZooKeeper accepts sockets: not a login
    assert "signin" not in concepts_held("Accepted socket connection from /10.10.34.11:45307")


@pytest.mark.parametrize("question", ["sshd 有哪些登录成功的记录？", "Who logged in successfully to sshd?"])
def test_successful_logins_quote_the_accepted_lines(tmp_path: Path, question: str) -> None:
    world = load_world(str(_imported_pack(tmp_path, "sshd", SSHD_LOG)))
    document = ask(question, pack=world)
    answer = _answer(document)
    assert document.outcome == "found"
    assert "Accepted publickey for root" in answer and "Accepted password for alice" in answer
    assert "Failed password" not in answer
    assert ("登录成功" if "登录" in question else "successful logins") in answer


@pytest.mark.parametrize("question", ["When did root last log in?", "root 最后一次登录是什么时候？",
                                      "Did root log in successfully?"])
def test_a_users_successful_logins_are_that_users(tmp_path: Path, question: str) -> None:
    """root is a user the data names (``core.sources.logentities``): its successful logins are
    searched among its lines -- not alice's, not its failed ones."""
    world = load_world(str(_imported_pack(tmp_path, "sshd", SSHD_LOG)))
    document = ask(question, pack=world)
    answer = _answer(document)
    assert document.outcome == "found"
    assert "Accepted publickey for root" in answer
    assert "alice" not in answer and "Failed password" not in answer


@pytest.mark.parametrize("question", ["Did admin log in successfully?", "admin 有没有登录成功？",
                                      "Did alice fail to log in?"])
def test_a_user_without_such_logins_is_a_verified_absence(tmp_path: Path, question: str) -> None:
    """admin only failed and alice only succeeded: searched among their own lines, each phrase
    of the concept with the user's name, nothing is found."""
    document = ask(question, pack=load_world(str(_imported_pack(tmp_path, "sshd", SSHD_LOG))))
    _answer(document)
    assert document.outcome == "absent"
    user = "admin" if "admin" in question else "alice"
    searched = [call.arguments for call in document.invocations if call.tool_name == "query_logs"]
    assert searched and all(user in arguments["terms"] for arguments in searched)


@pytest.mark.parametrize("question", ["sshd 有没有登录失败？", "Any login problems on sshd?",
                                      "Did anyone fail to log in to sshd?"])
def test_failed_logins_still_quote_the_failures(tmp_path: Path, question: str) -> None:
    world = load_world(str(_imported_pack(tmp_path, "sshd", SSHD_LOG)))
    answer = _answer(ask(question, pack=world))
    assert "Failed password for root" in answer and "Accepted" not in answer


@pytest.mark.parametrize("question", ["sshd 有哪些登录成功的记录？", "Who logged in successfully to sshd?"])
def test_no_successful_login_is_a_verified_absence(tmp_path: Path, question: str) -> None:
    failures = "".join(line + "\n" for line in SSHD_LOG.splitlines() if "Failed" in line)
    document = ask(question, pack=load_world(str(_imported_pack(tmp_path, "sshd", failures))))
    answer = _answer(document)
    assert document.outcome == "absent" and "accepted password" in answer
    assert document.gatekeeper_result is not None and document.gatekeeper_result.status == "pass"


# ---------------------------------------------------------------- access logs' 5xx lines


def test_an_access_log_status_of_5xx_is_an_http_error() -> None:
    line = '10.0.0.1 "GET /api HTTP/1.1" 503 512 "-" "curl/8"'
    assert topics_in(line, in_logs=True) == ["http_error"]
    assert topics_in('10.0.0.1 "GET / HTTP/2" 502 0 "-" "curl/8"', in_logs=True) == ["http_error"]
    for other in ('10.0.0.1 "GET /api HTTP/1.1" 200 503 "-" "curl/8"',  # 503 bytes
                  '10.0.0.1 "GET /missing HTTP/1.1" 404 0 "-" "curl/8"', "took 503 ms",
                  '"GET /v2/servers HTTP/1.1" 5030'):
        assert topics_in(other, in_logs=True) == [], other
    lines = [line.lower(), "ok", 'x http/1.0" 500 1']
    assert tag_lines(lines) == {"http_error": [0, 2]}


def _access_packs(tmp_path: Path) -> list[Path]:
    imported = _imported_pack(tmp_path, "nginx", NGINX_LOG)
    return [imported, _jsonl_pack(tmp_path, imported / "logs.db")]


@pytest.mark.parametrize("question", ["How many 5xx errors did nginx return?", "nginx 有哪些 5xx 错误？",
                                      "Any HTTP errors in nginx?"])
def test_5xx_questions_find_the_5xx_lines_imported_or_in_a_pack(tmp_path: Path, question: str) -> None:
    for pack in _access_packs(tmp_path):
        document = ask(question, pack=load_world(str(pack)))
        answer = _answer(document)
        assert document.outcome == "found", pack
        assert '"POST /api/pay HTTP/1.1" 502' in answer and " 503" in answer, (pack, answer)
        assert " 404 " not in answer and " 200 " not in answer, (pack, answer)


@pytest.mark.parametrize("question, codes", [
    ("Were there any 502s?", {"502"}), ("nginx 有没有 502 错误？", {"502"}), ("Did nginx return any 504?", {"504"}),
    ("any 503 responses?", {"503"}), ("状态码 500 有多少？", {"500"}), ("HTTP 502 errors", {"502"}),
    # other numbers
    ("requests slower than 500 ms?", set()), ("port 5000", set()), ("blk_500 on node-1", set()),
    ("Any 404s?", set()),  # a 4xx code is no HTTP error: searched as the number it is
])
def test_a_5xx_code_is_read_as_a_status_where_the_question_says_so(question: str, codes: set[str]) -> None:
    assert http_statuses(question) == codes


@pytest.mark.parametrize("question", ["Were there any 502s?", "nginx 有没有 502 错误？",
                                      "Did nginx return any 502?"])
def test_a_status_code_finds_the_lines_of_that_status(tmp_path: Path, question: str) -> None:
    """Not the 200 response of 502 bytes, in either pack."""
    for pack in _access_packs(tmp_path):
        document = ask(question, pack=load_world(str(pack)))
        answer = _answer(document)
        assert document.outcome == "found"
        assert '"POST /api/pay HTTP/1.1" 502' in answer and "app.js" not in answer, (pack, answer)


@pytest.mark.parametrize("question", ["Did nginx return any 504?", "nginx 有没有 504 错误？"])
def test_an_absent_status_is_a_verified_no(tmp_path: Path, question: str) -> None:
    """The absence names the widest call (the code anywhere), not the topic-narrowed one."""
    document = ask(question, pack=load_world(str(_imported_pack(tmp_path, "nginx", NGINX_LOG))))
    answer = _answer(document)
    assert document.outcome == "absent" and "504" in answer and "http_error" not in answer
