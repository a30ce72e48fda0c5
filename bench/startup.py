"""Benchmark: cold start of the CLI, each command in a fresh interpreter.

A command that answers in milliseconds should not wait for modules it never uses (the audit
store's SQLAlchemy, the llm engine's ``openai``). Each command below runs ``--runs`` times as a
new process (the console script ``superbiz``, as a user runs it), interleaved with two
baselines measured in the same run: ``python -c pass`` (the interpreter alone) and
``python -c "import pydantic"`` (the contracts' one unavoidable dependency). Prints for each
the median wall-clock time and the median CPU time of the process (user + system: on a machine
shared with other work the wall clock mostly measures the neighbours), its ratio to the bare
interpreter, and the CPU time above the pydantic baseline. The goal: ``ask --no-store``,
``tools call --no-store``, ``packs list`` and ``gatekeeper check`` under 0.3 s on this
project's 2-core machine. The stored commands are shown for comparison: writing to the audit
store needs SQLAlchemy, whatever the command. No assertions.

"Cold" means a new interpreter (nothing imported, no pack loaded); the operating system's file
cache is warm, as it is for anyone running a second command.

    .venv/bin/python bench/startup.py [--runs 7] [--importtime COMMAND] [--compare PATH]
    .venv/bin/python bench/startup.py --instructions REF


``--importtime ask`` prints the ten slowest imports of that command (``python -X importtime``).
``--compare PATH`` also runs every command against another checkout's ``core`` (``python -m
core`` with PATH first on the path, and so for this checkout too), interleaved with this one's:
a before/after figure from one run of this machine.

``--instructions REF`` counts instructions instead (valgrind's callgrind; a count barely moves
with the machine's load, where times do): ``--help``, an English and a Chinese ``ask
--no-store``, each run by ``python -m core`` on this checkout and on REF (a commit, checked out
in a temporary worktree, or another checkout's folder), with ``PYTHONHASHSEED=0``, bytecode
compiled and each tree's own cache folder (the kept regex programs are per tree); the second
of two runs is counted, as a user's second command runs. Prints each count and its ratio to
REF's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _common import REPO_ROOT, Timing, pad

QUESTION = "只确认 payment-service 当前是否存在 CPU 使用率过高告警"
TOOL_ARGS = '{"service": "order-service", "query": "HikariCP"}'
TARGET_MS = 300.0


@dataclass(frozen=True)
class Command:
    """One measured command line."""

    label: str
    argv: tuple[str, ...]
    target: bool = False  # one of the commands the 0.3 s goal is about
    pythonpath: str = str(REPO_ROOT)  # whose ``core`` it runs


def _cli(module: bool) -> tuple[str, ...]:
    """The console script next to this interpreter (as installed), else (or with ``module``)
    ``python -m core``."""
    script = Path(sys.executable).with_name("superbiz")
    return (str(script),) if script.exists() and not module else (sys.executable, "-m", "core")


BASELINES: tuple[Command, ...] = (
    Command("python -c pass", (sys.executable, "-c", "pass")),
    Command("python -c 'import pydantic'", (sys.executable, "-c", "import pydantic")),
)


def commands(session_file: Path, *, tree: Path = REPO_ROOT, module: bool = False,
             suffix: str = "") -> list[Command]:
    """The CLI commands, run on ``tree``'s ``core``."""
    cli, path = _cli(module), str(tree)
    chosen = [
        Command("superbiz --help", (*cli, "--help")),
        Command("ask --no-store", (*cli, "ask", QUESTION, "--no-store"), target=True),
        Command("tools call --no-store", (*cli, "tools", "call", "query_logs", "--args",
                                          TOOL_ARGS, "--no-store"), target=True),
        Command("packs list", (*cli, "packs", "list"), target=True),
        Command("gatekeeper check", (*cli, "gatekeeper", "check", str(session_file)),
                target=True),
        Command("ask (stored)", (*cli, "ask", QUESTION)),
        Command("tools call (stored)", (*cli, "tools", "call", "query_logs", "--args", TOOL_ARGS)),
        Command("sessions list", (*cli, "sessions", "list")),
    ]
    return [Command(c.label + suffix, c.argv, c.target, path) for c in chosen]


def _run(argv: tuple[str, ...], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """One run: (wall-clock ms, CPU ms of the child: user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # From a neutral folder: ``python -m`` puts the current folder first on the path.
    completed = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               cwd=cwd, check=False)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # gatekeeper check exits 1 on a failing citation; only a crash (2+) is a broken benchmark.
    if completed.returncode > 1:
        raise SystemExit(f"{' '.join(argv)} failed ({completed.returncode}): "
                         f"{completed.stderr.decode(errors='replace').strip()}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


@dataclass(frozen=True)
class Measured:
    """Wall-clock and CPU time of one command's runs."""

    command: Command
    wall: Timing
    cpu: Timing


def measure(chosen: list[Command], env: dict[str, str], runs: int, cwd: str) -> list[Measured]:
    """Every command ``runs`` times, in turn (after one untimed run each), so a change in the
    machine's load hits them all alike."""
    envs = [{**env, "PYTHONPATH": command.pythonpath} for command in chosen]
    for command, command_env in zip(chosen, envs, strict=True):
        _run(command.argv, command_env, cwd)
    samples: list[list[tuple[float, float]]] = [[] for _ in chosen]
    for _ in range(max(1, runs)):
        for index, command in enumerate(chosen):
            samples[index].append(_run(command.argv, envs[index], cwd))
    return [Measured(command, Timing(tuple(wall for wall, _ in runs_of)),
                     Timing(tuple(cpu for _, cpu in runs_of)))
            for command, runs_of in zip(chosen, samples, strict=True)]


def _session_document(env: dict[str, str], folder: Path) -> Path:
    """A session document for ``gatekeeper check`` (made once, untimed)."""
    made = subprocess.run((*_cli(module=False), "ask", QUESTION, "--no-store", "--json"), env=env,
                          cwd=folder, capture_output=True, check=True)
    path = folder / "session.json"
    path.write_bytes(made.stdout)
    json.loads(made.stdout)  # one JSON document, or the benchmark is measuring a failure
    return path


def import_times(argv: tuple[str, ...], env: dict[str, str], cwd: str,
                 top: int = 10) -> list[tuple[int, str]]:
    """The ``top`` slowest imports of a command, by cumulative microseconds."""
    completed = subprocess.run(argv, env={**env, "PYTHONPROFILEIMPORTTIME": "1"},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               cwd=cwd, check=False)
    rows: list[tuple[int, str]] = []
    for line in completed.stderr.decode(errors="replace").splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        if not name.startswith("  "):  # top level only: nested imports are indented further
            rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:top]


def report(measured: list[Measured]) -> None:
    bare, pydantic = measured[0], measured[1]
    print(f"{pad('command', 38)} {'wall':>7} {'cpu':>7} {'cpu vs python':>14} "
          f"{'cpu above pydantic':>19}")
    for row in measured:
        goal = ""
        if row.command.target:
            goal = "  ok (< 0.3 s)" if row.cpu.median < TARGET_MS else "  OVER 0.3 s"
        print(f"{pad(row.command.label, 38)} {row.wall.median:5.0f}ms {row.cpu.median:5.0f}ms "
              f"{row.cpu.median / bare.cpu.median:13.1f}x "
              f"{row.cpu.median - pydantic.cpu.median:17.0f}ms{goal}")


INSTRUCTION_COMMANDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("superbiz --help", ("--help",)),
    ("ask --no-store (English)", ("ask", "only confirm order-service memory", "--no-store")),
    ("ask --no-store (Chinese)", ("ask", QUESTION + "。", "--no-store")),
)


def instructions(tree: Path, arguments: tuple[str, ...], cache: Path) -> int:
    """Instructions ``python -m core ARGUMENTS`` runs on ``tree``'s ``core`` (callgrind's
    count), the second of two runs."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0",
           "SUPERBIZ_CACHE_DIR": str(cache), "SUPERBIZ_DB": str(cache / "bench.db")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    count = 0
    for _ in range(2):
        completed = subprocess.run(
            ("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
             "-m", "core", *arguments), env=env, cwd=tree, capture_output=True, check=False)
        found = re.search(rb"Collected : (\d+)", completed.stderr)
        if completed.returncode > 1 or found is None:
            raise SystemExit(f"{' '.join(arguments)} on {tree} failed ({completed.returncode}): "
                             f"{completed.stderr.decode(errors='replace').strip()[-500:]}")
        count = int(found.group(1))
    return count


def compare_instructions(reference: str) -> None:
    """``--instructions``: this checkout's counts against ``reference``'s (see the module doc)."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (callgrind) on the PATH")
    with tempfile.TemporaryDirectory() as folder:
        other = Path(reference)
        added = not other.is_dir()
        if added:
            other = Path(folder) / "reference"
            subprocess.run(("git", "-C", str(REPO_ROOT), "worktree", "add", "--detach", "--quiet",
                            str(other), reference), check=True)
        try:
            trees = {"this checkout": REPO_ROOT, reference: other.resolve()}
            for tree in trees.values():
                subprocess.run((sys.executable, "-m", "compileall", "-q", "core"), cwd=tree,
                               check=True, env={k: v for k, v in os.environ.items()
                                                if k != "PYTHONDONTWRITEBYTECODE"})
            print(f"instructions (callgrind, 2nd of 2 runs; millions), this checkout vs {reference}:")
            for label, arguments in INSTRUCTION_COMMANDS:
                ours, theirs = (instructions(tree, arguments, Path(folder) / f"cache-{index}")
                                for index, tree in enumerate(trees.values()))
                print(f"  {pad(label, 28)} {ours / 1e6:9.1f}M  vs {theirs / 1e6:9.1f}M  "
                      f"{(ours / theirs - 1) * 100:+6.1f}%")
        finally:
            if added:
                subprocess.run(("git", "-C", str(REPO_ROOT), "worktree", "remove", "--force",
                                str(other)), check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each command (default: 7)")
    parser.add_argument("--importtime", metavar="LABEL",
                        help="print the slowest imports of the command whose label starts so")
    parser.add_argument("--compare", type=Path, default=None, metavar="PATH",
                        help="also measure the core package of another checkout, interleaved")
    parser.add_argument("--instructions", metavar="REF", default=None,
                        help="count instructions (valgrind) against a commit or checkout instead")
    args = parser.parse_args()
    if args.instructions:
        compare_instructions(args.instructions)
        return
    with tempfile.TemporaryDirectory() as folder:
        # Its own audit store: nothing touches the user's; the stored commands write here.
        env = {**os.environ, "SUPERBIZ_DB": str(Path(folder) / "startup.db"),
               "SUPERBIZ_CACHE_DIR": str(Path(folder) / "cache"), "PYTHONPATH": str(REPO_ROOT)}
        env.pop("PYTHONPROFILEIMPORTTIME", None)
        # As a user runs it: bytecode and compiled patterns cached (the warm-up run writes both).
        # Without them every run compiles ~120 modules from source, a third of a cold ask, and
        # ~300 patterns (core.regexcache), a sixth of it.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        session_file = _session_document(env, Path(folder))
        comparing = args.compare is not None
        ours = commands(session_file, module=comparing)
        chosen = [*BASELINES, *ours]
        if comparing:
            other = commands(session_file, tree=args.compare.resolve(), module=True,
                             suffix=f" [{args.compare.name}]")
            chosen = [*BASELINES, *(c for pair in zip(ours, other, strict=True) for c in pair)]
        if args.importtime:
            command = next((c for c in chosen if c.label.startswith(args.importtime)), None)
            if command is None:
                raise SystemExit(f"no command labelled {args.importtime!r}")
            print(f"slowest top-level imports of `{command.label}` (cumulative):")
            for micros, name in import_times(command.argv, {**env, "PYTHONPATH": command.pythonpath},
                                             folder):
                print(f"  {micros / 1000:7.1f} ms  {name}")
            return
        measured = measure(chosen, env, args.runs, folder)
    print(f"cold start, medians of {args.runs} runs each, interleaved. wall = elapsed time; "
          f"cpu = the process's user + system time,\nwhich a busy machine inflates far less. "
          f"Goal: the marked commands under {TARGET_MS / 1000:.1f} s.\n")
    report(measured)


if __name__ == "__main__":
    main()
