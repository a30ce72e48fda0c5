"""The offline ``rules`` engine: deterministic planner, executor, verifier and composer."""

from core.agents.rules.composer import RulesComposer
from core.agents.rules.executor import RulesExecutor
from core.agents.rules.planner import RulesPlanner
from core.agents.rules.verifier import RulesVerifier

__all__ = ["RulesComposer", "RulesExecutor", "RulesPlanner", "RulesVerifier"]
