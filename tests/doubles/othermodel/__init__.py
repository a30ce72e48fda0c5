"""A second model double, written apart from ``tests.doubles.simulated`` by another hand.

It is an OpenAI-compatible server (``server.OtherServer``) around ``model.OtherModel``, which
reads the real tool outputs in the conversation and answers as a mid-size model does, with
other habits, other honest wordings and quoting styles, and other mistakes than the first
double. ``docs/llm.md`` ("A second simulated model") lists them; ``bench/llm_sim.py --model
other`` prints its figures; ``tests/llm/test_llm_othermodel.py`` asserts the issue's goals.
"""

from __future__ import annotations

from tests.doubles.othermodel.claims import WORDINGS
from tests.doubles.othermodel.mistakes import CITATION_ERRORS, CONTENT_ERRORS, ERRORS
from tests.doubles.othermodel.model import OtherModel
from tests.doubles.othermodel.server import OtherServer

__all__ = ["CITATION_ERRORS", "CONTENT_ERRORS", "ERRORS", "WORDINGS", "OtherModel", "OtherServer"]
