"""Every answer the offline engine gives, as one JSON file: diff two to see what a change did.

A refactoring must not change an answer; a change to the reading of questions must change only
the answers it means to. This asks every example question of the demo pack and every question
of the eval suites (``mockdata/evals``, ``evals/loghub``; each with its executor fault) in
memory, and writes each session document without what differs from run to run (ids, times).
Run it before and after a change, then compare the two files:

    python -m evals.loghub.packs /tmp/loghub-packs        # the real-data suite's packs
    python -m evals.answers before.json --packs-dir /tmp/loghub-packs
    ... change ...
    python -m evals.answers after.json --packs-dir /tmp/loghub-packs --compare before.json

``--compare`` prints the questions whose documents differ (the first lines of each diff) and
exits 1 if any does. Without ``--packs-dir`` the real-data questions are skipped.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from core.packs import load_pack
from core.pipeline import ask

REPO_ROOT = Path(__file__).resolve().parents[1]
SUITES = (REPO_ROOT / "mockdata" / "evals", REPO_ROOT / "evals" / "loghub")
_SESSION_ID = re.compile(r"s-\d{8}-\d{6}-[0-9a-f]{6}")
# Invocation ids are numbered from here, one counter per store (or process, in memory).
_FIRST_INVOCATION_ID = 1_000_000_000
_INVOCATION_ID = re.compile(r"(?<!\d)1\d{9}(?!\d)")
_VARYING = {"timings_ms", "stage_starts_ms", "created_at", "session_id", "started_at", "finished_at"}


def _questions() -> list[tuple[str, str, str | None]]:
    """(pack, question, executor fault) of every example and eval case, first occurrence kept."""
    found = [("demo", question, None) for question in load_pack("demo").example_questions]
    for suite in SUITES:
        for case_file in sorted(suite.glob("*.yaml")):
            for case in yaml.safe_load(case_file.read_text(encoding="utf-8")) or []:
                found.append((case.get("pack", "demo"), case["question"], case.get("executor_fault")))
    return list(dict.fromkeys(found))


def _steady(value: Any) -> Any:
    """``value`` without what changes from run to run: ids, wall-clock times, durations."""
    if isinstance(value, dict):
        return {key: _steady(item) for key, item in value.items()
                if key not in _VARYING and not key.endswith("_ms")}
    if isinstance(value, list):
        return [_steady(item) for item in value]
    if isinstance(value, str):
        return _SESSION_ID.sub("S", value)
    return value


def _numbered(document: dict[str, Any]) -> dict[str, Any]:
    """Invocation ids as their order in the session (#1, #2 ...), wherever they appear: ids are
    unique per process, so the same session asked later in a run gets other ones."""
    order = {item["invocation_id"]: f"#{index}"
             for index, item in enumerate(document.get("invocations") or [], 1)}

    def name(number: int) -> str:  # another session's call (a cross_session fault cites one)
        return order.get(number, "#elsewhere")

    def renumber(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: renumber(item) for key, item in value.items()}
        if isinstance(value, list):
            return [renumber(item) for item in value]
        if isinstance(value, int) and not isinstance(value, bool) and value >= _FIRST_INVOCATION_ID:
            return name(value)
        if isinstance(value, str):
            return _INVOCATION_ID.sub(lambda match: name(int(match.group())), value)
        return value
    return dict(renumber(document))


def snapshot(packs_dir: Path | None) -> list[dict[str, Any]]:
    rows = []
    for pack, question, fault in _questions():
        if pack != "demo" and (packs_dir is None or not (packs_dir / pack).is_dir()):
            continue
        where = pack if pack == "demo" else str(packs_dir / pack) if packs_dir else pack
        document = ask(question, pack=where, executor_fault=fault)
        rows.append({"pack": pack, "question": question, "fault": fault,
                     "document": _numbered(_steady(json.loads(document.model_dump_json())))})
    return rows


def compare(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> int:
    """Print what differs; the number of questions whose documents differ."""
    def keyed(rows: list[dict[str, Any]]) -> dict[tuple[Any, ...], Any]:
        return {(row["pack"], row["question"], row["fault"]): row["document"] for row in rows}
    old, new = keyed(before), keyed(after)
    differing = 0
    for key in old.keys() | new.keys():
        if old.get(key) == new.get(key):
            continue
        differing += 1
        print(f"== {key[0]}: {key[1]}" + (f" (fault {key[2]})" if key[2] else ""))
        was, now = (json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False).splitlines()
                    for doc in (old.get(key), new.get(key)))
        print("\n".join(list(difflib.unified_diff(was, now, lineterm="", n=1))[2:40]))
    print(f"{len(old.keys() | new.keys())} questions, {differing} differ")
    return differing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write every answer of the offline engine to one JSON file.")
    parser.add_argument("out", type=Path, help="the JSON file to write")
    parser.add_argument("--packs-dir", type=Path, help="the real-data suite's packs (python -m evals.loghub.packs DIR)")
    parser.add_argument("--compare", type=Path, metavar="BEFORE", help="an earlier file: print what differs")
    args = parser.parse_args(argv)
    rows = snapshot(args.packs_dir)
    args.out.write_text(json.dumps(rows, ensure_ascii=False, indent=1, sort_keys=True), encoding="utf-8")
    print(f"{len(rows)} answers written to {args.out}", file=sys.stderr)
    if args.compare:
        return 1 if compare(json.loads(args.compare.read_text(encoding="utf-8")), rows) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
