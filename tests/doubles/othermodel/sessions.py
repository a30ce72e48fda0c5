"""The second double's sessions: its server, the llm engine pointed at it, the questions.

``serving(model)`` starts an ``OtherServer`` and points the ``llm`` engine at it
(``sim_sessions.pointed_at``); sessions then run through ``sim_sessions.ask_simulated`` like the
first double's. ``seed_questions()`` are the demo pack's example questions and the seed eval
suite's, Chinese and English (each once).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

from tests.doubles.othermodel.model import OtherModel
from tests.doubles.othermodel.server import OtherServer
from tests.doubles.sim_sessions import pointed_at


def seed_questions() -> list[str]:
    """The demo pack's example questions, then the seed eval suite's not among them."""
    from core.evals.cases import load_case_file
    from core.packs import load_pack
    from core.resources import default_suite_dir

    questions = list(load_pack("demo").example_questions)
    seen = {_squash(q) for q in questions}
    for case in load_case_file(default_suite_dir() / "seed.yaml"):
        if _squash(case.question) not in seen:
            seen.add(_squash(case.question))
            questions.append(case.question)
    return questions


@contextlib.contextmanager
def serving(model: OtherModel, *, backend: str | None = None) -> Iterator[str]:
    """Serve ``model`` on a free loopback port; the llm engine points at it in the block."""
    with OtherServer(model) as server, pointed_at(server.base_url, backend) as url:
        yield url


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())
