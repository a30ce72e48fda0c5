"""The product carries no test double and never reaches into the tests.

The model doubles live in ``tests/doubles`` (they drive ``core.cli`` and read ``core.evals``:
inside ``core/agents`` they ran back up the layers, and the wheel shipped them). So: no
simulated-model module under ``core/``, no import of ``tests`` or ``bench`` from it, and no
test setting read by it (the kill tests pause a run through the pipeline's ``on_stage`` hook).
``tests/test_packaging.py`` checks the built wheel with the same pattern.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "core"
# A module or package of a model double, by the names they have had.
DOUBLE_MODULE = re.compile(r"(?:^|/)(?:sim_\w+|simulated|othermodel|doubles|chat_clients)(?:/|\.py$)")


def _core_modules() -> list[Path]:
    return sorted(path for path in CORE.rglob("*.py") if "__pycache__" not in path.parts)


def _imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_the_pattern_names_the_doubles_and_nothing_of_the_product() -> None:
    assert DOUBLE_MODULE.search("core/agents/llm/othermodel/model.py")
    assert DOUBLE_MODULE.search("core/agents/llm/sim_claims.py")
    assert DOUBLE_MODULE.search("core/agents/llm/simulated.py")
    assert not DOUBLE_MODULE.search("core/agents/llm/stub_server.py")
    assert not DOUBLE_MODULE.search("core/language/similar.py")


def test_no_model_double_module_under_core() -> None:
    modules = [path.relative_to(CORE.parent).as_posix() for path in _core_modules()]
    assert len(modules) > 50  # the walk found the package
    assert [name for name in modules if DOUBLE_MODULE.search(name)] == []


def test_core_imports_neither_tests_nor_bench() -> None:
    reaching = {path.relative_to(CORE.parent).as_posix(): sorted(roots & {"tests", "bench"})
                for path in _core_modules() if (roots := _imported_roots(path)) & {"tests", "bench"}}
    assert reaching == {}


def test_core_reads_no_test_setting() -> None:
    assert [path.name for path in _core_modules()
            if "SUPERBIZ_TEST_" in path.read_text(encoding="utf-8")] == []
