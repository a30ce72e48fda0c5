"""The names the command line offers before anything is built: the roles, the engines and the
executor fault modes. ``core.agents.base``, ``registry`` and ``faults`` define what they are;
importing those builds the contracts and the tool declarations, which a command that only
parses its arguments (``--help``, ``packs list``) should not pay for. ``faults`` checks at
import that its modes are these, in this order.
"""

from __future__ import annotations

ROLES: tuple[str, ...] = ("planner", "executor", "verifier", "composer")
ENGINE_NAMES: tuple[str, ...] = ("rules", "llm")
FAULT_NAMES: tuple[str, ...] = (
    "fabricate_invocation", "fabricate_path", "tamper_number", "swap_invocation", "cross_session",
    "drop_bindings", "runbook_as_fact", "scope_leak", "overreach_root_cause", "swap_roles",
    "threshold_as_current", "old_sample_as_current", "swap_used_total", "duration_unit",
    "rounded_value", "runbook_appended", "repair_action", "gap_asserts_state",
)
