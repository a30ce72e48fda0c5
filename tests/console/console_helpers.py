"""Helpers shared by the console tests (constants, bounded waits)."""

from __future__ import annotations

import re
import time
from pathlib import Path

from core.contracts import SessionDocument
from core.store import Store, repository

REPO_ROOT = Path(__file__).resolve().parents[2]
APP = REPO_ROOT / "app.py"
SEED_QUESTION = "只确认 payment-service 当前是否存在 CPU 使用率过高告警"
XSS_LOG = "<script>alert(1)</script> **bold** payment-service CPU 使用率过高: 92.0%"


def as_read(markdown: str) -> str:
    """What a reader sees of escaped Markdown source: every backslash escape undone."""
    return re.sub(r"\\(.)", r"\1", markdown)


def wait_until_finished(store: Store, session_id: str, timeout: float = 20.0) -> SessionDocument:
    """Poll the store until the session leaves ``running`` (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        document = repository.load_session_document(store, session_id=session_id)
        if document is not None and document.status != "running":
            return document
        time.sleep(0.05)
    raise AssertionError(f"session {session_id} still running after {timeout}s")


# Model- or data-controlled strings that would make a browser fetch a URL if rendered as
# Markdown or HTML. The host never resolves; the browser test fails on any request to it.
BEACON_HOST = "beacon.invalid"
BEACON = f"![b](http://{BEACON_HOST}/b.png)"
HTML_BEACON = f'<img src="http://{BEACON_HOST}/i.png">'


def store_hostile_session(store: Store, question: str = SEED_QUESTION) -> SessionDocument:
    """A session run by the real pipeline whose executor (standing in for a hostile model)
    names its claims, cites its raw paths and writes its claim text with beacons."""
    from core.agents.registry import Engines, build_engines
    from core.pipeline import ask

    rules = build_engines("rules")

    class BeaconExecutor:
        engine = "hostile-model"

        def run(self, plan, recorder):  # type: ignore[no-untyped-def]
            output, status = yield from rules.executor.run(plan, recorder)
            claims = []
            for number, claim in enumerate(output.claims if output else []):
                bindings = [binding.model_copy(update={"raw_path": f"{binding.raw_path}{BEACON}"})
                            if index == 0 else binding
                            for index, binding in enumerate(claim.evidence_bindings)]
                claims.append(claim.model_copy(update={
                    "claim_id": f"{BEACON} c{number}", "claim_text": claim.claim_text + HTML_BEACON,
                    "evidence_bindings": bindings}))
            if output is not None:
                output = output.model_copy(update={"claims": claims})
            return output, status

    engines = Engines(planner=rules.planner, executor=BeaconExecutor(), verifier=rules.verifier,
                      composer=rules.composer)
    return ask(question, store=store, engines=engines)
