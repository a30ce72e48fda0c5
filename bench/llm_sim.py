"""Benchmark: a simulated model in the executor's seat, over the seed's questions.

Every session is a real ``superbiz ask QUESTION --executor llm --json --no-store`` (``--roles
all``: ``--engine llm``) against a model double served as an OpenAI-compatible endpoint, which
reads the tool outputs the product sends it. Two doubles, written apart:

- ``--model first`` (``tests.doubles.simulated``), over the seed's five questions: the three
  honest quoting styles; each citation error (off by one, paraphrase, wrong invocation,
  missing raw_path) and each content error (a repair action, a runbook sentence appended, a
  rounded value) in every style;
- ``--model other`` (``tests.doubles.othermodel``), over the demo pack's example questions and
  the seed eval suite's (Chinese and English): honest strict and natural wording with mixed
  quoting styles and other tool-calling habits; eight citation errors (off by one, paraphrase,
  wrong invocation, missing raw_path, a runbook cited as evidence, tool_name or claim_type
  missing, a number copied wrong) and five content errors (a root cause, a repair, a runbook
  sentence appended, a rounded value, the threshold as the current value).

Each error by a model that fixes what the repair turn names ("fixer") and by one that says
the same again ("stubborn"), with ``--seeds`` placements. Prints, per mode: final verdicts,
sessions repaired (and PASS after the repair), answers that still show claims verified on their
own, wrong content that reached an answer (any, and a PASS one), and the claims the verifier
entailed of all the model made (for honest modes: the honest claims downgraded); ``err``
counts the sessions in which the model could make its error. No assertions.

    .venv/bin/python bench/llm_sim.py [--model first|other|both] [--roles executor|all]
                                      [--seeds 2] [--modes honest,off_by_one,...] [--figures PATH]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The checkout's root: ``core``, and the model doubles in ``tests/doubles`` (not in the wheel).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.doubles import othermodel
from tests.doubles.othermodel.sessions import seed_questions
from tests.doubles.othermodel.sessions import serving as serving_other
from tests.doubles.sim_claims import STYLES
from tests.doubles.sim_faults import CITATION_ERRORS, CONTENT_ERRORS, ERROR_MODES
from tests.doubles.sim_sessions import SEED_QUESTIONS, SimOutcome, ask_simulated, serving
from tests.doubles.simulated import SimulatedModel


@dataclass
class Row:
    """Figures of one mode."""

    sessions: int = 0
    errors_made: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    repaired: int = 0
    pass_after_repair: int = 0
    made_pass: int = 0
    partial: int = 0
    wrong_in_answer: int = 0
    wrong_in_pass: int = 0
    claims: int = 0                 # claims the model made (final attempt)
    verified_claims: int = 0        # of which the verifier entailed

    def add(self, outcome: SimOutcome) -> None:
        self.sessions += 1
        self.errors_made += outcome.error_made
        self.verdicts[outcome.verdict or outcome.status] += 1
        self.repaired += outcome.repairs > 0
        self.pass_after_repair += outcome.repairs > 0 and outcome.verdict == "PASS"
        self.made_pass += outcome.error_made and outcome.verdict == "PASS"
        self.partial += outcome.partial
        self.wrong_in_answer += bool(outcome.wrong_in_answer)
        self.wrong_in_pass += bool(outcome.wrong_in_answer) and outcome.verdict == "PASS"
        results = (outcome.document.get("verifier_result") or {}).get("claim_results") or []
        self.claims += len(results)
        self.verified_claims += sum(bool(result.get("entailed")) for result in results)

    def merge(self, other: Row) -> None:
        for name in ("sessions", "errors_made", "repaired", "pass_after_repair", "made_pass",
                     "partial", "wrong_in_answer", "wrong_in_pass", "claims", "verified_claims"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.verdicts.update(other.verdicts)

    def line(self, name: str) -> str:
        verdicts = " ".join(f"{key}={self.verdicts[key]}" for key in
                            ("PASS", "LOW_CONFID", "REJECT", "error") if self.verdicts[key])
        return (f"{name:30} {self.sessions:4} {self.errors_made:4}  {verdicts:34} repaired "
                f"{self.repaired:3} (PASS {self.pass_after_repair:3})  partial {self.partial:3}  "
                f"wrong->answer {self.wrong_in_answer:3}  wrong->PASS {self.wrong_in_pass:3}  "
                f"claims verified {self.verified_claims:4}/{self.claims:<4}")


Group = tuple[str, Any, Callable[[Any], AbstractContextManager[str]], Sequence[str]]


def first_groups(modes: list[str], seeds: int) -> Iterator[Group]:
    """(row name, model, serving, questions) for the first double."""
    if "honest" in modes:
        for style in STYLES:
            yield f"honest {style}", SimulatedModel(style=style), serving, SEED_QUESTIONS
    for error in ERROR_MODES:
        if error not in modes:
            continue
        for fixes in (True, False):
            for style in STYLES:
                for seed in range(seeds):
                    yield (f"{error} {'fixer' if fixes else 'stubborn'}",
                           SimulatedModel(style=style, error=error, fixes=fixes, seed=seed),
                           serving, SEED_QUESTIONS)


def other_groups(modes: list[str], seeds: int, backend: str | None) -> Iterator[Group]:
    """(row name, model, serving, questions) for the second double."""
    questions = seed_questions()

    def served(model: othermodel.OtherModel) -> AbstractContextManager[str]:
        return serving_other(model, backend=backend)

    for seed in range(seeds):
        if "honest" in modes:
            for wording in othermodel.WORDINGS:
                yield (f"honest {wording}", othermodel.OtherModel(wording=wording, seed=seed),
                       served, questions)
        for error in othermodel.ERRORS:
            if error not in modes:
                continue
            for fixes in (True, False):
                for wording in othermodel.WORDINGS:
                    yield (f"{error} {'fixer' if fixes else 'stubborn'}",
                           othermodel.OtherModel(wording=wording, error=error, fixes=fixes,
                                                 seed=seed), served, questions)


def run(groups: Iterator[Group], roles: Sequence[str]) -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for name, model, served, questions in groups:
        with served(model):
            for question in questions:
                rows.setdefault(name, Row()).add(ask_simulated(model, question, roles=roles))
    return rows


def report(title: str, rows: dict[str, Row], citation: Sequence[str],
           content: Sequence[str]) -> dict[str, float]:
    """Print the rows and their groups; the headline figures returned for ``--figures``."""
    print(f"\n{title}")
    print(f"{'mode':30} {'n':>4} {'err':>4}  {'final verdicts':34} repairs, answers")
    total = Row()
    for name, row in rows.items():
        print(row.line(name))
        total.merge(row)
    print(total.line("all"))
    honest = {name: row for name, row in rows.items() if name.startswith("honest")}
    kept = {"sessions": float(total.sessions),
            "honest_pass": float(sum(row.verdicts["PASS"] for row in honest.values())),
            "honest_sessions": float(sum(row.sessions for row in honest.values()))}
    for name, row in honest.items():
        print(f"{name}: PASS {row.verdicts['PASS']}/{row.sessions} "
              f"(after a repair {row.pass_after_repair}); honest claims downgraded "
              f"{row.claims - row.verified_claims}/{row.claims}")
    groups = {"citation errors, fixer": [f"{e} fixer" for e in citation],
              "citation errors, stubborn": [f"{e} stubborn" for e in citation],
              "content errors (any)": [f"{e} {b}" for e in content for b in ("fixer", "stubborn")]}
    for label, names in groups.items():
        picked = [rows[name] for name in names if name in rows]
        if picked:
            key = label.split(" (")[0].replace(", ", "_").replace(" ", "_")
            kept.update({f"{key}_pass": float(sum(row.verdicts["PASS"] for row in picked)),
                         f"{key}_sessions": float(sum(row.sessions for row in picked)),
                         f"{key}_wrong_in_answer": float(sum(row.wrong_in_answer for row in picked)),
                         f"{key}_wrong_in_pass": float(sum(row.wrong_in_pass for row in picked))})
            made = sum(row.errors_made for row in picked)
            print(f"{label}: PASS {sum(row.verdicts['PASS'] for row in picked)}/"
                  f"{sum(row.sessions for row in picked)}; error made {made}, of which PASS "
                  f"{sum(row.made_pass for row in picked)} (after one repair "
                  f"{sum(row.pass_after_repair for row in picked)}); wrong content in an answer "
                  f"{sum(row.wrong_in_answer for row in picked)}, in a PASS answer "
                  f"{sum(row.wrong_in_pass for row in picked)}")
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", choices=("first", "other", "both"), default="first",
                        help="which double: the first (simulated), the second (othermodel), both")
    parser.add_argument("--roles", choices=("executor", "all"), default="executor",
                        help="the double in the executor's seat only, or in every role")
    parser.add_argument("--backend", default=None,
                        help="SUPERBIZ_LLM_BACKEND for the second double (default: guessed, vllm)")
    parser.add_argument("--seeds", type=int, default=2, help="error placements per style")
    parser.add_argument("--modes", default=None,
                        help="comma-separated: honest and error modes (default: all)")
    parser.add_argument("--figures", type=Path, default=None, metavar="PATH",
                        help="keep the figures (JSON) for bench/report.py (the README's row)")
    args = parser.parse_args()
    kept: dict[str, float] = {}
    roles = ("--executor", "llm") if args.roles == "executor" else ("--engine", "llm")
    started = time.perf_counter()
    if args.model in ("first", "both"):
        modes = args.modes.split(",") if args.modes else ["honest", *ERROR_MODES]
        first = report("first double (tests.doubles.simulated), the seed's five questions",
                               run(first_groups(modes, args.seeds), roles), CITATION_ERRORS, CONTENT_ERRORS)
        kept.update({f"llm_sim.first.{name}": value for name, value in first.items()})
    if args.model in ("other", "both"):
        modes = args.modes.split(",") if args.modes else ["honest", *othermodel.ERRORS]
        other = report(f"second double (tests.doubles.othermodel), {len(seed_questions())} questions",
                       run(other_groups(modes, args.seeds, args.backend), roles),
                       othermodel.CITATION_ERRORS, othermodel.CONTENT_ERRORS)
        kept.update({f"llm_sim.other.{name}": value for name, value in other.items()})
        kept["llm_sim.other.questions"] = float(len(seed_questions()))
    print(f"\n{time.perf_counter() - started:.1f} s")
    if args.figures is not None:
        from _common import write_figures

        write_figures(args.figures, {**kept, "llm_sim.wall_seconds": time.perf_counter() - started})


if __name__ == "__main__":
    main()
