"""``superbiz ask "QUESTION"``: run an investigation, printing each stage as it happens.

Without ``--json`` every event is printed as one readable line (plan, each tool call with its
arguments, evidence status and ref count, claims, each checked binding, each judged claim, the
verdict, the answer). With ``--json`` only the final session document is printed. A stage that
failed is its one ``error`` line on stderr, with or without ``--json``. Exit code 0 when the
pipeline completed, whatever the verdict; 1 when the session ended in error.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, TextIO, assert_never

from core.agents.names import ENGINE_NAMES, FAULT_NAMES, ROLES
from core.cli.common import (
    add_db_option,
    add_sources_option,
    frozen_imports,
    open_cli_store,
    open_cli_world,
    print_json,
)

if TYPE_CHECKING:
    from core.contracts import (
        CheckedBinding,
        ExecutorOutput,
        Invocation,
        Plan,
        RetryContext,
        SessionDocument,
    )
    from core.events import PipelineEvent
    from core.sources.base import World

_LABEL_WIDTH = 9


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``ask`` command."""
    parser = subparsers.add_parser(
        "ask", help="investigate a question and print every stage and the answer",
        description="Plan, call tools, cite evidence, check every citation, verify every claim "
                    "and answer -- printing each stage as it happens.")
    parser.add_argument("question", help="the question, in Chinese or English")
    parser.add_argument("--pack", metavar="NAME|PATH", default=None,
                        help="scenario pack (default: demo)")
    add_sources_option(parser)
    parser.add_argument("--engine", choices=ENGINE_NAMES, default=None,
                        help="engine for every role (default: rules, offline)")
    for role in ROLES:
        parser.add_argument(f"--{role}", choices=ENGINE_NAMES, default=None, metavar="ENGINE",
                            help=f"engine of the {role} only (overrides --engine)")
    parser.add_argument("--executor-fault", choices=sorted(FAULT_NAMES), default=None,
                        metavar="FAULT", help="wrap the executor with a fault: "
                        + ", ".join(FAULT_NAMES))
    parser.add_argument("--json", action="store_true",
                        help="print only the session document as JSON")
    add_db_option(parser)
    parser.add_argument("--no-store", action="store_true",
                        help="run in memory: nothing is written to the audit store")
    parser.set_defaults(handler=run_ask)


def roles_from_args(args: argparse.Namespace) -> dict[str, str]:
    """Each role's engine: its own option, else ``--engine``, else the settings' default."""
    from core.settings import get_settings

    default = getattr(args, "engine", None) or get_settings().engine
    return {role: getattr(args, role, None) or default for role in ROLES}


def run_ask(args: argparse.Namespace) -> int:
    """Handler of ``superbiz ask``."""
    # The pipeline (and the store, unless --no-store) only now: parsing needs neither.
    with frozen_imports():
        from core.agents.registry import build_engines
        from core.events import PipelineFailed, PlanMade, SessionFinished
        from core.inputs.text import check_question
        from core.pipeline import run_investigation

    # Everything the user gave is checked before the store is opened: bad input stores nothing.
    question = check_question(args.question)
    world = open_cli_world(args)
    engines = build_engines(roles_from_args(args))
    store = None if args.no_store else open_cli_store(args, writes=True)
    events = run_investigation(question, pack=world, engines=engines,
                               executor_fault=args.executor_fault, store=store)
    document: SessionDocument | None = None
    for event in events:
        if isinstance(event, PipelineFailed):
            # Every error on stderr (issue 30), with or without --json: stdout keeps the
            # transcript or the one JSON document, which records the failure too.
            print_event(event, sys.stderr)
        elif not args.json:
            print_event(event, sys.stdout)
            window = window_line(event.plan, world) if isinstance(event, PlanMade) else None
            if window is not None:
                sys.stdout.write(f"{'':<{_LABEL_WIDTH}}{window}\n")
            sys.stdout.flush()  # stages appear as they happen, even through a pipe
        if isinstance(event, SessionFinished):
            document = event.document
    if document is None:
        return 1
    if args.json:
        print_json(document)
    return 0 if document.status == "completed" else 1


# ---------------------------------------------------------------- readable output


def print_event(event: PipelineEvent, out: TextIO) -> None:
    """Print one event as readable lines (never JSON)."""
    for label, text in event_lines(event):
        out.write(f"{label:<{_LABEL_WIDTH}}{text}\n")


def event_lines(event: PipelineEvent) -> list[tuple[str, str]]:
    """``(label, text)`` lines describing an event; an empty list for silent events."""
    from core.events import (  # here, not at the top: parsing the command line needs none of them
        AnswerReady,
        BindingChecked,
        ClaimJudged,
        ClaimsProduced,
        GatekeeperFinished,
        PipelineFailed,
        PlanMade,
        RepairFinished,
        RepairRequested,
        SessionFinished,
        SessionStarted,
        ToolCalled,
        ToolReturned,
        VerdictReached,
    )
    from core.views.terms import terms_line

    match event:
        case SessionStarted():
            engines = " ".join(f"{role}={name}" for role, name in event.engines.items())
            fault = f", executor fault {event.executor_fault}" if event.executor_fault else ""
            return [("session", f"{event.session_id} (pack {event.pack}; {engines}{fault})")]
        case PlanMade():
            return plan_lines(event.plan)
        case ToolCalled():
            return []  # printed when it returns, with its evidence status
        case ToolReturned():
            return [("tool", invocation_line(event.invocation))]
        case ClaimsProduced():
            return claims_lines(event.executor_output, event.parse_status.status)
        case BindingChecked():
            return [("gate", checked_line(event.checked))]
        case GatekeeperFinished():
            rules = f" ({', '.join(event.result.failed_rules)})" if event.result.failed_rules else ""
            return [("gate", f"result {event.result.status}, severity {event.result.severity}{rules}")]
        case ClaimJudged():
            result = event.claim_result
            judged = "entailed" if result.entailed else f"NOT entailed [{result.rule}]"
            reasons = f": {'; '.join(result.reasons)}" if result.reasons else ""
            return [("verify", f"{result.claim_id} {judged}{reasons}")]
        case VerdictReached():
            lines = [("verdict", f"{event.result.verdict}  groundedness "
                                 f"{event.result.groundedness_score:.2f}")]
            if event.result.question_terms:
                lines.append(("terms", terms_line(event.result.question_terms)))
            if event.result.answer_rules:
                lines.append(("", f"  not accounted for: {', '.join(event.result.answer_rules)}"))
            return lines
        case RepairRequested():
            return repair_lines(event.feedback)
        case RepairFinished():
            outcome = "repaired" if event.repaired else "still failing"
            return [("repair", f"attempt {event.attempt} checked from scratch: {event.verdict} "
                               f"({outcome}; attempt 1 was {event.previous_verdict})")]
        case AnswerReady():
            answer = event.composer_output.user_facing_answer.splitlines() or [""]
            return [("answer", f"[{event.composer_output.status}]"),
                    *(("", f"  {line}") for line in answer)]
        case PipelineFailed():
            return [("error", f"stage {event.stage} failed: {event.message}")]
        case SessionFinished():
            total = event.document.timings_ms.get("total")
            took = f" in {total:.0f} ms" if total is not None else ""
            lines = [("done", f"session {event.document.status}{took}")]
            if event.document.outcome:
                lines.insert(0, ("outcome", event.document.outcome))
            return lines
        case _:
            assert_never(event)


def repair_lines(feedback: RetryContext) -> list[tuple[str, str]]:
    """The repair turn: the failed attempt's verdict and each finding the executor is told."""
    lines = [("repair", f"attempt {feedback.attempt} {feedback.verdict}: the executor is asked "
                        f"once more, told {len(feedback.findings)} finding(s)")]
    for finding in feedback.findings:
        where = finding.claim_id or finding.action_id or "-"
        if finding.binding_index is not None:
            where += f"[{finding.binding_index}]"
        lines.append(("", f"  {where} {finding.rule}"))
    return lines


def window_line(plan: Plan, world: World) -> str | None:
    """The window a question's time words were read as, and the clock they were read against
    ("the last hour" of a store of 2015 lines is the last hour of its newest line, not today's)."""
    reading = plan.reading
    if not (reading.since or reading.until):
        return None
    moment, basis = world.clock_and_basis(reading.services)
    return (f"window: since {reading.since or '-'} until {reading.until or '-'} "
            f"(read against {moment.isoformat(timespec='seconds')}, {basis})")


def plan_lines(plan: Plan) -> list[tuple[str, str]]:
    """The plan: subjects, scope, exclusions, tools."""
    def listed(values: list[str]) -> str:
        return ", ".join(values) or "-"

    narrow = f"yes ({', '.join(plan.scope_markers)})" if plan.narrow else "no"
    lines = [("plan", f"services {listed(plan.services)} | topics {listed(plan.topics)} | "
                      f"alerts {listed(plan.alert_names)} | narrow {narrow} | "
                      f"language {plan.language}")]
    reading = plan.reading
    searched = [f"{name} {listed(values)}" for name, values in (
        ("terms", reading.terms), ("keywords", ["|".join(k) for k in reading.keywords]),
        ("concepts", reading.concepts), ("level", [reading.level] if reading.level else []),
        ("since", [reading.since] if reading.since else []), ("until", [reading.until] if reading.until else []))
        if values]
    if searched:
        lines.append(("", "searching: " + "; ".join(searched)))
    if reading.unknown_subjects:
        lines.append(("", "not in the data: " + listed(reading.unknown_subjects)))
    if reading.entities:  # the hosts, users ... it names, and whether the data names them
        lines.append(("", "entities: " + listed([f"{e.name} ({e.kind}{'' if e.known else ', not among the data'})"
                                                  for e in reading.entities])))
    if not reading.searchable:
        lines.append(("", "nothing to search in this question"))
    excluded = plan.exclusions
    parts = [f"{name} {listed(values)}" for name, values in (
        ("services", excluded.services), ("topics", excluded.topics),
        ("alerts", excluded.alert_names), ("terms", excluded.terms), ("levels", excluded.levels),
        ("concepts", excluded.concepts)) if values]
    if parts:
        lines.append(("", "excluded: " + "; ".join(parts)))
    lines.append(("", f"tools {listed(list(plan.tools))}"))
    lines += [("", f"note: {note}") for note in plan.notes]
    return lines


def invocation_line(invocation: Invocation) -> str:
    """``#12 query_logs(service=order-service, query=HikariCP) -> supported, 2 ref(s)``."""
    arguments = ", ".join(f"{key}={_plain(value)}" for key, value in invocation.arguments.items())
    details = invocation.retrieval_details
    status = details.evidence_status if details else "unknown"
    refs = len(details.evidence_refs) if details else 0
    return f"#{invocation.invocation_id} {invocation.tool_name}({arguments}) -> {status}, {refs} ref(s)"


def claims_lines(output: ExecutorOutput | None, parse_status: str) -> list[tuple[str, str]]:
    """Each claim with its type and binding count, then the counts of the rest."""
    if output is None:
        return [("claims", f"no executor output (parse status {parse_status})")]
    lines = [("claims", f"{claim.claim_id} [{claim.claim_type}] {claim.claim_text} "
                        f"({len(claim.evidence_bindings)} binding(s))") for claim in output.claims]
    if not lines:
        lines.append(("claims", "none"))
    lines.append(("", f"hypotheses {len(output.hypotheses)}, missing info "
                      f"{len(output.missing_info)}, actions {len(output.recommended_actions)}"))
    return lines


def checked_line(checked: CheckedBinding) -> str:
    """One binding's gatekeeper verdict."""
    owner = checked.claim_id or checked.action_id or "?"
    where = f"{checked.tool_name or '?'} #{checked.source_invocation_id} {checked.raw_path or '-'}"
    if checked.status == "pass":
        score = f" {checked.score:.2f}" if checked.score is not None else ""
        return f"{owner}[{checked.binding_index}] {where}  pass ({checked.match_kind}{score})"
    if checked.severity == "none":  # graded down to a warning: not counted, not a failure
        return f"{owner}[{checked.binding_index}] {where}  not counted ({checked.rule}): {checked.message}"
    return f"{owner}[{checked.binding_index}] {where}  FAIL {checked.rule}: {checked.message}"


def _plain(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
