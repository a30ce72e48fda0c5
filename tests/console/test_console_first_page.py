"""The first page of a fresh console loads nothing heavy: pandas, numpy, pyarrow, SQLAlchemy and
the pipeline (the verifier's vocabularies) load when a page shows a table, reads the store or
starts a run (bench/console.py measures what they cost: RSS and first render).

Checked in a new interpreter, so that no other test has imported them first: it renders the
Investigate page with Streamlit's AppTest, then lists which of the modules it holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.console.console_helpers import APP, REPO_ROOT

HEAVY = ("pandas", "numpy", "pyarrow", "sqlalchemy", "sqlmodel", "openai", "core.pipeline",
         "core.verifier", "core.agents.llm.composer", "ui.investigation")

_RENDER = """
import json, sys
from streamlit.testing.v1 import AppTest

before = set(sys.modules)
app = AppTest.from_file(sys.argv[1], default_timeout=60)
app.run()
print(json.dumps({
    "exceptions": [item.value for item in app.exception],
    "titles": [item.value for item in app.title],
    "captions": [item.value for item in app.caption],
    "loaded": [name for name in sys.argv[2:] if name in sys.modules],
    "before": [name for name in sys.argv[2:] if name in before],
}))
"""


def _render_first_page(tmp_path: Path, *modules: str) -> dict[str, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT),
           "SUPERBIZ_DB": f"sqlite:///{tmp_path / 'audit.db'}"}
    done = subprocess.run([sys.executable, "-c", _RENDER, str(APP), *modules], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120, check=True)
    result: dict[str, list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_first_page_renders_without_pandas_the_store_or_the_pipeline(tmp_path: Path) -> None:
    result = _render_first_page(tmp_path, *HEAVY)
    assert result["exceptions"] == []
    assert result["titles"] == ["Investigate"]
    # The loading note drawn before the imports is gone once the page is drawn.
    assert not [text for text in result["captions"] if text.startswith("Loading")]
    assert any(text.startswith("Ask a narrow question") for text in result["captions"])
    assert result["before"] == []  # AppTest itself loads none of them
    assert result["loaded"] == []


def test_the_probe_sees_a_module_the_page_does_load(tmp_path: Path) -> None:
    # The same probe reports what the page imports: the check above can fail.
    result = _render_first_page(tmp_path, "core.packs", "streamlit")
    assert result["loaded"] == ["core.packs", "streamlit"]
