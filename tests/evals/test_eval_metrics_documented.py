"""Every run metric is named in README's eval metrics paragraph (a new metric gets a definition)."""

from __future__ import annotations

from pathlib import Path

from core.evals.metrics import RunMetrics

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_run_metric_is_defined_in_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    start = text.index("Metrics per run (in `--json`")
    paragraph = text[start:text.index("\n\n", start)]
    missing = [name for name in RunMetrics.model_fields if f"`{name}`" not in paragraph]
    assert missing == []
