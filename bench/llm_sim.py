"""Benchmark: a simulated model in the executor's seat, over the seed's five questions.

Every session is a real ``superbiz ask QUESTION --executor llm --json --no-store`` against the
simulated OpenAI-compatible model (``core.agents.llm.simulated``), which reads the tool outputs
the product sends it. Modes: the three honest quoting styles; each citation error (off by one,
paraphrase, wrong invocation, missing raw_path) and each content error (a repair action, a
runbook sentence appended, a rounded value) in every style, by a model that fixes what the
repair turn names ("fixer") and by one that says the same again ("stubborn"), with ``--seeds``
placements of the error. Prints, per mode: final verdicts, sessions repaired (and PASS after
the repair), answers that still show claims verified on their own, and wrong content that
reached an answer (any, and a PASS one); ``err`` counts the sessions in which the model could
make its error (there is no value to round in "nothing found"). No assertions.

    .venv/bin/python bench/llm_sim.py [--seeds 2] [--modes honest,off_by_one,...]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.agents.llm.sim_claims import STYLES
from core.agents.llm.sim_faults import CITATION_ERRORS, CONTENT_ERRORS, ERROR_MODES
from core.agents.llm.sim_sessions import SEED_QUESTIONS, SimOutcome, ask_simulated, serving
from core.agents.llm.simulated import SimulatedModel


@dataclass
class Row:
    """Figures of one mode."""

    sessions: int = 0
    errors_made: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    repaired: int = 0
    pass_after_repair: int = 0
    partial: int = 0
    wrong_in_answer: int = 0
    wrong_in_pass: int = 0

    def add(self, outcome: SimOutcome) -> None:
        self.sessions += 1
        self.errors_made += outcome.error_made
        self.verdicts[outcome.verdict or outcome.status] += 1
        self.repaired += outcome.repairs > 0
        self.pass_after_repair += outcome.repairs > 0 and outcome.verdict == "PASS"
        self.partial += outcome.partial
        self.wrong_in_answer += bool(outcome.wrong_in_answer)
        self.wrong_in_pass += bool(outcome.wrong_in_answer) and outcome.verdict == "PASS"

    def line(self, name: str) -> str:
        verdicts = " ".join(f"{key}={self.verdicts[key]}" for key in
                            ("PASS", "LOW_CONFID", "REJECT", "error") if self.verdicts[key])
        return (f"{name:27} {self.sessions:4} {self.errors_made:4}  {verdicts:34} repaired {self.repaired:3} "
                f"(PASS {self.pass_after_repair:3})  partial {self.partial:3}  "
                f"wrong->answer {self.wrong_in_answer:3}  wrong->PASS {self.wrong_in_pass:3}")


def models(modes: list[str], seeds: int) -> list[tuple[str, SimulatedModel]]:
    """(row name, model) for every session group to run."""
    chosen: list[tuple[str, SimulatedModel]] = []
    if "honest" in modes:
        chosen += [(f"honest {style}", SimulatedModel(style=style)) for style in STYLES]
    for error in ERROR_MODES:
        if error not in modes:
            continue
        for fixes in (True, False):
            for style in STYLES:
                for seed in range(seeds):
                    chosen.append((f"{error} {'fixer' if fixes else 'stubborn'}",
                                   SimulatedModel(style=style, error=error, fixes=fixes,
                                                  seed=seed)))
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="error placements per style")
    parser.add_argument("--modes", default=",".join(("honest", *ERROR_MODES)),
                        help="comma-separated: honest and error modes")
    args = parser.parse_args()
    rows: dict[str, Row] = {}
    started = time.perf_counter()
    for name, model in models(args.modes.split(","), args.seeds):
        with serving(model):
            for question in SEED_QUESTIONS:
                rows.setdefault(name, Row()).add(ask_simulated(model, question))
    print(f"{'mode':27} {'n':>4} {'err':>4}  {'final verdicts':34} repairs, answers")
    for name, row in rows.items():
        print(row.line(name))
    total = Row()
    for row in rows.values():
        total.sessions += row.sessions
        total.errors_made += row.errors_made
        total.verdicts.update(row.verdicts)
        for attr in ("repaired", "pass_after_repair", "partial", "wrong_in_answer",
                     "wrong_in_pass"):
            setattr(total, attr, getattr(total, attr) + getattr(row, attr))
    print(total.line("all"))
    groups = {"citation errors, fixer": [f"{e} fixer" for e in CITATION_ERRORS],
              "content errors (any)": [f"{e} {b}" for e in CONTENT_ERRORS
                                       for b in ("fixer", "stubborn")]}
    for label, names in groups.items():
        picked = [rows[name] for name in names if name in rows]
        if picked:
            passed = sum(row.verdicts["PASS"] for row in picked)
            print(f"{label}: PASS {passed}/{sum(row.sessions for row in picked)}; wrong content "
                  f"in a PASS answer {sum(row.wrong_in_pass for row in picked)}")
    print(f"{total.sessions} sessions in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
