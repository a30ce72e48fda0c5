"""Building the four role engines: ``rules`` (offline, deterministic) or ``llm``, mixed per role.

``build_engines("rules")`` gives every role the rules engine; ``build_engines({"executor":
"llm"})`` keeps ``rules`` for the roles not named. The ``llm`` engine lives in
``core.agents.llm`` and is imported only when asked for, so the offline path never needs the
``openai`` package or an endpoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.agents import names
from core.agents.base import ROLES, Composer, Executor, Planner, Verifier
from core.errors import EngineError

ENGINE_NAMES = names.ENGINE_NAMES
DEFAULT_ENGINE = "rules"

@dataclass(frozen=True)
class Engines:
    """One engine per role, as the pipeline wires them."""

    planner: Planner
    executor: Executor
    verifier: Verifier
    composer: Composer

    def names(self) -> dict[str, str]:
        """``{role: engine name}``, as stored with the session."""
        return {role: getattr(self, role).engine for role in ROLES}


def resolve_roles(roles: dict[str, str] | str = DEFAULT_ENGINE) -> dict[str, str]:
    """Every role's engine name; unknown roles or engine names raise ``EngineError``."""
    if isinstance(roles, str):
        chosen = {role: roles for role in ROLES}
    else:
        unknown_roles = sorted(set(roles) - set(ROLES))
        if unknown_roles:
            raise EngineError(f"unknown role(s) {', '.join(unknown_roles)}; "
                              f"roles are {', '.join(ROLES)}")
        chosen = {role: roles.get(role) or DEFAULT_ENGINE for role in ROLES}
    for role, engine in chosen.items():
        if engine not in ENGINE_NAMES:
            raise EngineError(f"unknown engine {engine!r} for the {role}; "
                              f"engines are {', '.join(ENGINE_NAMES)}")
    return chosen


def build_engines(roles: dict[str, str] | str = DEFAULT_ENGINE, **llm_options: Any) -> Engines:
    """The engines for each role; ``llm_options`` go to every ``llm`` engine's constructor."""
    chosen = resolve_roles(roles)
    built = {role: _build_rules(role) if engine == "rules" else _build_llm(role, llm_options)
             for role, engine in chosen.items()}
    return Engines(**built)


def _build_rules(role: str) -> Any:
    from core.agents.rules import RulesComposer, RulesExecutor, RulesPlanner, RulesVerifier

    classes = {"planner": RulesPlanner, "executor": RulesExecutor,
               "verifier": RulesVerifier, "composer": RulesComposer}
    return classes[role]()


def _build_llm(role: str, llm_options: dict[str, Any]) -> Any:
    try:  # imported here: the offline path never loads the llm engine
        from core.agents.llm import LLMComposer, LLMExecutor, LLMPlanner, LLMVerifier
    except ImportError as exc:  # a package it needs is missing: one line, not a traceback
        raise EngineError(f"llm engine not available: {exc}") from exc
    classes = {"planner": LLMPlanner, "executor": LLMExecutor,
               "verifier": LLMVerifier, "composer": LLMComposer}
    return classes[role](**llm_options)
