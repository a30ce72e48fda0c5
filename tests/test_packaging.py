"""The wheel, installed into a fresh virtual environment, works from an unrelated folder.

Builds the wheel from a copy of the checkout (``pip wheel --no-deps --no-build-isolation``,
offline), installs it into a temporary venv that borrows the dev venv's dependencies but not
its editable superbiz, and runs the CLI and the console from a temporary folder: ``--version``,
``ask`` (a question of the acceptance matrix answers PASS), ``eval --tag``, ``packs list`` (built-in and
SUPERBIZ_PACKS_DIR packs), ``tools call`` and ``serve`` (health endpoint, every page in a real
browser, no traceback in the server log). ``-m packaging`` selects these tests.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.streamlit_server import (
    CHROMIUM,
    CHROMIUM_ARGS,
    WAIT_MS,
    free_port,
    require_chromium,
    settle,
    stop,
    wait_healthy,
)
from tests.test_no_doubles_in_core import DOUBLE_MODULE

pytestmark = pytest.mark.packaging

REPO_ROOT = Path(__file__).resolve().parents[1]
SEED_QUESTION = "只确认 payment-service 当前是否存在 CPU 使用率过高告警"
# What the build never needs: the copy stays small and the checkout is never written to.
NOT_BUILT_FROM = shutil.ignore_patterns(".venv", ".git", "build", "dist", "*.egg-info", "__pycache__",
                                        ".pytest_cache", ".mypy_cache", ".ruff_cache", "tests",
                                        "bench", "docs")
WHEEL_LABEL = "packagingtest"  # the local version label of the wheel the tests build
# The console's pages, by URL path and the title each one shows.
PAGES = {"": "Investigate", "Sessions": "Sessions", "Binding_inspector": "Binding inspector",
         "Evals": "Evals", "Data": "Data"}


@dataclass(frozen=True)
class Installed:
    """A venv with the wheel installed, a folder unrelated to the checkout, and their env."""

    wheel: Path
    venv: Path
    workdir: Path
    env: dict[str, str]

    def superbiz(self, *args: str, env: dict[str, str] | None = None,
                 timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.venv / "bin" / "superbiz"), *args], cwd=self.workdir,
                              env=env or self.env, capture_output=True, text=True, timeout=timeout)


def _run(*command: str | Path, cwd: Path | None = None) -> None:
    done = subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"


def _dependencies_view(target: Path) -> Path:
    """A folder of links to the dev venv's installed packages, leaving out superbiz itself
    (its dist-info and editable finder), so the test venv imports only the wheel's superbiz."""
    target.mkdir(parents=True)
    own_prefixes, own_names = ("superbiz", "__editable__"), {"core", "ui"}
    site_dirs = dict.fromkeys(Path(sysconfig.get_paths()[key]) for key in ("purelib", "platlib"))
    for site_dir in site_dirs:
        for entry in site_dir.iterdir():
            if (entry.name.startswith(own_prefixes) or entry.name in own_names
                    or entry.suffix == ".pth" or (target / entry.name).exists()):
                continue
            (target / entry.name).symlink_to(entry)
    return target


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("packaging")
    source = root / "source"
    shutil.copytree(REPO_ROOT, source, ignore=NOT_BUILT_FROM, symlinks=True)
    # A version of its own, so `--version` is seen to come from the installed metadata.
    pyproject = source / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    version = tomllib.loads(text)["project"]["version"]
    pyproject.write_text(text.replace(f'version = "{version}"', f'version = "{version}+{WHEEL_LABEL}"', 1),
                         encoding="utf-8")
    _run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--wheel-dir", root / "dist", source)
    wheel = next((root / "dist").glob("superbiz-*.whl"))

    venv = root / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv)
    site_packages = Path(subprocess.check_output(
        [venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        text=True).strip())
    # Streamlit runs in development mode (and refuses --server.port) unless its path holds
    # "site-packages", as every installed copy's does.
    deps = _dependencies_view(root / "dev-dependencies" / "site-packages")
    (site_packages / "_superbiz_test_dependencies.pth").write_text(f"{deps}\n", encoding="utf-8")
    _run(sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "--quiet",
         "--no-deps", "--no-index", wheel)

    workdir = root / "elsewhere"
    workdir.mkdir()
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("SUPERBIZ_", "PYTHON", "STREAMLIT_"))
           and key not in ("DISPLAY", "WAYLAND_DISPLAY", "VIRTUAL_ENV")}
    env.update(PYTHONNOUSERSITE="1", XDG_DATA_HOME=str(root / "data"), HOME=str(root / "home"),
               SUPERBIZ_DB=str(root / "audit.db"))
    return Installed(wheel=wheel, venv=venv, workdir=workdir, env=env)


def _checkout_files(folder: str, pattern: str) -> set[str]:
    return {path.relative_to(REPO_ROOT / folder).as_posix()
            for path in (REPO_ROOT / folder).glob(pattern)
            if path.is_file() and "__pycache__" not in path.parts}


def test_the_wheel_carries_the_engine_console_packs_and_suite(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    expected = {f"core/{name}" for name in _checkout_files("core", "**/*.py")}
    expected |= {f"core/{name}" for name in _checkout_files("core", "prompts/*.md")}
    expected |= {f"superbiz_console/{name}" for name in
                 {"app.py", ".streamlit/config.toml"} | _checkout_files(".", "pages/*.py")
                 | _checkout_files(".", "ui/*.py") | _checkout_files(".", "ui/assets/*")}
    expected |= {f"superbiz_mockdata/{name}" for name in
                 _checkout_files("mockdata", "demo/**/*") | _checkout_files("mockdata", "evals/*")}
    missing = sorted(expected - names)
    assert not missing, (f"missing from the wheel: {missing} (a new package under core/ goes in "
                         "[tool.setuptools] packages of pyproject.toml)")
    assert not [name for name in names if name.startswith(("tests/", "bench/", "ui/", "pages/"))]


def test_the_wheel_carries_no_test_double(installed: Installed) -> None:
    modules = [name for name in zipfile.ZipFile(installed.wheel).namelist() if name.endswith(".py")]
    assert "core/agents/llm/stub_server.py" in modules  # the documented offline server is product
    assert [name for name in modules if DOUBLE_MODULE.search(name)] == []


def test_version_comes_from_the_installed_metadata(installed: Installed) -> None:
    version = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["version"]
    version = f"{version}+{WHEEL_LABEL}"
    done = installed.superbiz("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"superbiz {version}"
    probe = subprocess.run(
        [str(installed.venv / "bin" / "python"), "-c",
         "import core, importlib.metadata as m; print(core.__file__); print(m.version('superbiz'))"],
        cwd=installed.workdir, env=installed.env, capture_output=True, text=True, check=True)
    core_file, metadata_version = probe.stdout.split()
    assert Path(core_file).is_relative_to(installed.venv), core_file  # the wheel, not the checkout
    assert metadata_version == version


def test_ask_answers_the_seed_question_from_any_folder(installed: Installed) -> None:
    done = installed.superbiz("ask", SEED_QUESTION, "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["pack"] == "demo" and document["verifier_result"]["verdict"] == "PASS"
    assert document["composer_output"]["user_facing_answer"]


def test_eval_runs_the_default_suite_by_tag(installed: Installed) -> None:
    done = installed.superbiz("eval", "--tag", "seed", "--json", timeout=120)
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)
    assert run["total"] >= 10 and run["passed"] == run["total"]
    assert all("seed" in case["tags"] for case in run["cases"])


def test_packs_list_and_tools_call_with_an_extra_packs_folder(installed: Installed,
                                                              tmp_path: Path) -> None:
    listed = installed.superbiz("packs", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    built_in = [pack["name"] for pack in json.loads(listed.stdout)]
    assert "demo" in built_in

    demo = installed.venv / "lib"  # the installed demo pack, found through the package
    demo_dir = next(demo.glob("python*/site-packages/superbiz_mockdata/demo"))
    mine = tmp_path / "packs" / "mine"
    shutil.copytree(demo_dir, mine)
    meta = (mine / "pack.yaml").read_text(encoding="utf-8")
    (mine / "pack.yaml").write_text(meta.replace("name: demo", "name: mine"), encoding="utf-8")
    env = {**installed.env, "SUPERBIZ_PACKS_DIR": str(tmp_path / "packs")}
    listed = installed.superbiz("packs", "list", "--json", env=env)
    assert [pack["name"] for pack in json.loads(listed.stdout)] == sorted([*built_in, "mine"])

    called = installed.superbiz("tools", "call", "query_logs", "--pack", "mine", "--args",
                                '{"service": "order-service", "query": "HikariCP"}', "--json",
                                env=env)
    assert called.returncode == 0, called.stderr
    assert "HikariPool-1" in called.stdout


@pytest.fixture
def served(installed: Installed, tmp_path: Path) -> Iterator[tuple[str, Path, int]]:
    """``superbiz serve`` of the wheel, headless on a free port; always stopped by its PID."""
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as log_file:
        server = subprocess.Popen(
            [str(installed.venv / "bin" / "superbiz"), "serve", "--port", str(port),
             "--db", str(tmp_path / "console.db"), "--",
             "--server.headless", "true", "--server.fileWatcherType", "none"],
            cwd=installed.workdir, env=installed.env, stdout=log_file, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_healthy(url, server, log)
            yield url, log, server.pid
        finally:
            stop(server)


def test_serve_becomes_the_console_and_every_page_loads(served: tuple[str, Path, int]) -> None:
    url, log, pid = served
    # `serve` replaced itself with Streamlit: the process we started is the server.
    command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert b"streamlit" in command and b"run" in command, command
    assert any(part.endswith(b"superbiz_console/app.py") for part in command), command
    assert b"--client.showSidebarNavigation=false" in command  # the console's config.toml
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200 and b'id="root"' in response.read()

    require_chromium()
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.set_default_timeout(WAIT_MS)
            for path, title in PAGES.items():
                page.goto(f"{url}/{path}")
                expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible(
                    timeout=WAIT_MS)
                settle(page, paint_ms=0)
                exceptions = page.locator('[data-testid="stException"]')
                assert exceptions.count() == 0, f"{title}: {exceptions.first.inner_text()}"
            expect(page.locator(".js-plotly-plot").first).to_be_visible()  # Data: the demo pack
        finally:
            browser.close()
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in text, text
    assert "audit store: sqlite:///" in text
