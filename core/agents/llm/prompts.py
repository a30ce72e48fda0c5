"""Versioned prompt files (``core/prompts/<role>.<version>.md``), loaded by name.

Prompts are data: a reviewer diffs ``executor.v1.md`` against ``executor.v2.md``, and the
prompt id a step used (``executor.v1``) is recorded with its parse status. Placeholders are
``{{name}}``; ``render`` fills them and refuses to leave one unfilled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from core.agents.llm.errors import LLMCallError

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"
DEFAULT_PROMPT_VERSION = "v1"
_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")


@dataclass(frozen=True)
class Prompt:
    """One prompt file: its role name, version and text."""

    name: str
    version: str
    text: str

    @property
    def prompt_id(self) -> str:
        """``executor.v1``: how sessions and parse statuses name the prompt."""
        return f"{self.name}.{self.version}"

    def render(self, **values: str) -> str:
        """The text with every ``{{name}}`` replaced; a missing value is a programming error."""
        def fill(match: re.Match[str]) -> str:
            key = match.group(1)
            if key not in values:
                raise KeyError(f"prompt {self.prompt_id} needs a value for {{{{{key}}}}}")
            return values[key]

        return _PLACEHOLDER.sub(fill, self.text)


@lru_cache(maxsize=32)
def load_prompt(name: str, version: str = DEFAULT_PROMPT_VERSION) -> Prompt:
    """The prompt ``core/prompts/<name>.<version>.md``."""
    path = PROMPTS_DIR / f"{name}.{version}.md"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        raise LLMCallError("config",
                           f"prompt file {path.name} not found in {PROMPTS_DIR}") from None
    return Prompt(name=name, version=version, text=text.strip() + "\n")
