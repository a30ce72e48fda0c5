"""Eval case files: the YAML format, its loader and its validator.

A case file is a YAML list of cases. Each case asks one question of the pipeline and states
what a correct system does with it::

    - id: hikari-negative
      question: 确认 inventory-service 是否存在 HikariCP 连接池耗尽
      pack: demo              # optional; a pack name, or a path (relative to this file's folder)
      executor_fault: null    # optional; one of core.agents.faults.FAULT_MODES
      tags: [hikaricp, negative]
      expect:                 # every key optional; a key set to null is not checked
        verdict: PASS         # or a list of allowed verdicts
        ...

Every error names the file, the case (its id, or its position when it has none) and the key,
e.g. ``cases.yaml: case 'hikari-negative': expect: unknown key 'verdcit'``. What each ``expect``
key means is documented on :class:`Expectation` and checked in ``core.evals.matching``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import ErrorDetails

from core.contracts import (
    ClaimType,
    EvidenceStatus,
    GateSeverity,
    GateStatus,
    Outcome,
    ToolName,
    Verdict,
)
from core.errors import EvalCaseError, InputError
from core.inputs.files import MiB, read_text
from core.inputs.text import check_question
from core.inputs.yamldoc import parse_yaml
from core.resources import default_suite_dir

DEFAULT_PACK = "demo"
DEFAULT_SUITE_DIR = default_suite_dir()  # mockdata/evals/, shipped in the package
CASE_FILE_SUFFIXES: tuple[str, ...] = (".yaml", ".yml")
MAX_CASE_FILE_BYTES = 16 * MiB

def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else value


def _lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


class Expectation(BaseModel):
    """What a correct run of the case looks like. Every key is optional; ``None`` = not checked.

    - ``verdict``: the verifier's verdict is this one, or one of this list.
    - ``gatekeeper_status`` / ``gatekeeper_severity``: equal ``gatekeeper_result.status`` /
      ``.severity``.
    - ``failed_rules_include``: every listed rule is in ``gatekeeper_result.failed_rules``
      (a subset check; other rules may fail too; ``[]`` checks nothing).
    - ``claim_types``: every claim of the executor output has one of these types (true when
      there are no claims).
    - ``max_claims``: the executor output has at most this many claims.
    - ``answer_includes``: each string is in ``composer_output.user_facing_answer``
      (case-insensitive, after NFKC normalisation).
    - ``forbidden``: no string is in any claim's ``claim_text`` (every claim, passed or not)
      nor in the final answer (same normalisation). Hypotheses are not facts by contract; one
      presented as fact can only reach the user through the answer, which is checked.
    - ``evidence_tools``: each tool is cited by at least one binding the gatekeeper checked
      with status ``pass`` (claim or action bindings; passing negative observations count).
    - ``evidence_status``: for each tool, at least one invocation of it has that
      ``retrieval_details.evidence_status``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    verdict: list[Verdict] | None = None
    outcome: Outcome | None = None
    gatekeeper_status: GateStatus | None = None
    gatekeeper_severity: GateSeverity | None = None
    failed_rules_include: list[str] | None = None
    claim_types: list[ClaimType] | None = None
    max_claims: int | None = Field(default=None, ge=0, strict=True)
    answer_includes: list[str] | None = None
    forbidden: list[str] | None = None
    evidence_tools: list[ToolName] | None = None
    evidence_status: dict[ToolName, EvidenceStatus] | None = None

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict_list(cls, value: Any) -> Any:
        # A single verdict is the one-element list; spelling is case-insensitive.
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list):
            if not value:
                raise ValueError("an empty list allows no verdict; leave the key out instead")
            return [_upper(item) for item in value]
        return value

    @field_validator("gatekeeper_status", "gatekeeper_severity", "outcome", mode="before")
    @classmethod
    def _lower_enum(cls, value: Any) -> Any:
        return _lower(value)

    @field_validator("claim_types", mode="before")
    @classmethod
    def _lower_claim_types(cls, value: Any) -> Any:
        return [_lower(item) for item in value] if isinstance(value, list) else value

    @field_validator("answer_includes", "forbidden", mode="after")
    @classmethod
    def _no_empty_strings(cls, value: list[str] | None) -> list[str] | None:
        # "" is in every text: as an include it checks nothing, as forbidden it always leaks.
        if value is not None and any(not item.strip() for item in value):
            raise ValueError("empty string")
        return value

    @field_validator("failed_rules_include", mode="after")
    @classmethod
    def _known_rules(cls, value: list[str] | None) -> list[str] | None:
        if value:
            known = known_gatekeeper_rules()
            unknown = [rule for rule in value if known and rule not in known]
            if unknown:
                raise ValueError(f"unknown rule {unknown[0]!r} (known: {', '.join(sorted(known))})")
        return value

    def as_dict(self) -> dict[str, Any]:
        """Only the keys that are checked, as plain JSON values."""
        return self.model_dump(mode="json", exclude_none=True)


class EvalCase(BaseModel):
    """One case: the question, where to ask it, an optional fault, tags and expectations.

    ``pack`` is a pack name, or an absolute path once loaded (a relative path in the file is
    resolved against the file's folder). ``source`` is the file the case came from.
    ``known_gap``: see the field's comment.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    pack: str | None = None
    executor_fault: str | None = None
    tags: list[str] = Field(default_factory=list)
    expect: Expectation = Field(default_factory=Expectation)
    # Why the engine does not give the true answer yet. ``expect`` still states the true answer;
    # a known-gap case that fails is counted apart (``known_gaps``), not as a failed case -- unless
    # its session said PASS: a wrong PASS always fails the run.
    known_gap: str | None = Field(default=None, min_length=1)
    source: str = Field(default="", exclude=True)

    @field_validator("tags", "expect", mode="before")
    @classmethod
    def _null_is_empty(cls, value: Any, info: ValidationInfo) -> Any:
        # ``expect:`` or ``tags:`` with nothing after it is YAML null: the same as leaving it out.
        if value is None:
            return [] if info.field_name == "tags" else {}
        return value

    @field_validator("id", "question", mode="after")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()

    @field_validator("question", mode="after")
    @classmethod
    def _a_question(cls, value: str) -> str:
        # The limits every question meets (CLI, console, cases): one rule, in core.inputs.
        try:
            return check_question(value)
        except InputError as exc:
            raise ValueError(exc.problem) from None

    @field_validator("executor_fault", mode="after")
    @classmethod
    def _known_fault(cls, value: str | None) -> str | None:
        if value is not None:
            modes = fault_modes()
            if value not in modes:
                raise ValueError(f"unknown fault mode {value!r} (known: {', '.join(modes)})")
        return value


def fault_modes() -> tuple[str, ...]:
    """The executor fault modes a case may name (``core.agents.faults.FAULT_MODES``)."""
    from core.agents.faults import FAULT_MODES  # late: the agents package imports much more

    return tuple(FAULT_MODES)


def known_gatekeeper_rules() -> frozenset[str]:
    """Every rule name the gatekeeper can report (``core.gatekeeper.RULES``)."""
    from core.gatekeeper import RULES

    return frozenset(RULES)


# ---------------------------------------------------------------- loading


def _case_label(raw: Any, index: int) -> str:
    if isinstance(raw, dict) and isinstance(raw.get("id"), str) and raw["id"].strip():
        return f"case {raw['id'].strip()!r}"
    return f"case #{index + 1}"


def _error_location(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as the case file spells it: ``expect: evidence_status: x``."""
    parts = [str(part) for part in loc if not isinstance(part, int)]
    return ": ".join(parts)


def _describe(error: ErrorDetails) -> str:
    loc = tuple(error.get("loc", ()))
    if error.get("type") == "extra_forbidden":
        parent = _error_location(loc[:-1])
        return f"{parent + ': ' if parent else ''}unknown key {str(loc[-1])!r}"
    if error.get("type") == "missing":
        return f"missing required key {str(loc[-1])!r}"
    message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    where = _error_location(loc)
    return f"{where}: {message}" if where else message


def _resolve_pack(pack: str | None, folder: Path) -> str | None:
    """A path-like pack (has a slash, or starts with ``.`` or ``~``) becomes absolute."""
    if pack is None:
        return None
    if "/" in pack or "\\" in pack or pack.startswith((".", "~")):
        path = Path(pack).expanduser()
        return str((path if path.is_absolute() else folder / path).resolve())
    return pack


def parse_cases(data: Any, *, source: str, folder: Path) -> list[EvalCase]:
    """Validate already-parsed YAML (a list of mappings) into cases; errors name file/case/key."""
    if not isinstance(data, list):
        kind = "nothing" if data is None else type(data).__name__
        raise EvalCaseError(f"{source}: expected a list of cases, found {kind}")
    if not data:
        raise EvalCaseError(f"{source}: the file holds no cases")
    cases: list[EvalCase] = []
    seen: set[str] = set()
    for index, raw in enumerate(data):
        label = _case_label(raw, index)
        if not isinstance(raw, dict):
            raise EvalCaseError(f"{source}: {label}: expected a mapping, found {type(raw).__name__}")
        try:
            case = EvalCase.model_validate({**raw, "source": source})
        except ValidationError as exc:
            raise EvalCaseError(f"{source}: {label}: {_describe(exc.errors()[0])}") from exc
        if case.id in seen:
            raise EvalCaseError(f"{source}: {label}: duplicate case id")
        seen.add(case.id)
        cases.append(case.model_copy(update={"pack": _resolve_pack(case.pack, folder)}))
    return cases


def parse_case_text(text: str, *, source: str, folder: Path) -> list[EvalCase]:
    """Cases of a case file's text; a YAML error names the file, line and column."""
    try:
        data = parse_yaml(text, source=source)
    except InputError as exc:
        raise EvalCaseError(_input_message(exc)) from None
    return parse_cases(data, source=source, folder=folder)


def _input_message(error: InputError) -> str:
    """``cases.yaml: not valid YAML at line 3, column 1: ...`` (the form case files always used)."""
    syntax = error.problem.removeprefix("invalid YAML: ")
    if syntax != error.problem:
        where = f" at line {error.line}" if error.line is not None else ""
        where += f", column {error.column}" if where and error.column is not None else ""
        return f"{error.source}: not valid YAML{where}: {syntax}"
    return str(error)


def load_case_file(path: str | Path) -> list[EvalCase]:
    """Read and validate one YAML case file (a regular file of at most ``MAX_CASE_FILE_BYTES``)."""
    file = Path(path)
    source = str(path)
    try:
        text = read_text(file, source=source, max_bytes=MAX_CASE_FILE_BYTES)
    except InputError as exc:
        raise EvalCaseError(_input_message(exc)) from None
    return parse_case_text(text, source=source, folder=file.resolve().parent)


def case_files_in(paths: Sequence[str | Path]) -> list[Path]:
    """Files to load: each file as given, each folder's ``*.yaml``/``*.yml`` sorted by name."""
    files: list[Path] = []
    for path in map(Path, paths):
        try:  # Path.is_dir raises on a folder above it the user may not search
            found = (sorted(p for p in path.iterdir() if p.suffix in CASE_FILE_SUFFIXES)
                     if path.is_dir() else None)
        except OSError as exc:
            raise EvalCaseError(f"{path}: cannot read: {exc.strerror or exc}") from None
        if found is not None:
            if not found:
                raise EvalCaseError(f"{path}: no .yaml case files in this folder")
            files.extend(found)
        else:
            files.append(path)
    return files


def load_suite(paths: Sequence[str | Path] | None = None) -> list[EvalCase]:
    """Load case files (default: every file of the default suite); ids must be unique overall."""
    files = case_files_in(list(paths) if paths else [DEFAULT_SUITE_DIR])
    cases: list[EvalCase] = []
    first_source: dict[str, str] = {}
    for file in files:
        for case in load_case_file(file):
            if case.id in first_source:
                raise EvalCaseError(f"{case.source}: case {case.id!r}: duplicate case id "
                                    f"(also in {first_source[case.id]})")
            first_source[case.id] = case.source
            cases.append(case)
    return cases


def select_by_tags(cases: Iterable[EvalCase], tags: Sequence[str] | None) -> list[EvalCase]:
    """Cases carrying at least one of ``tags`` (all cases when no tag is given)."""
    wanted = set(tags or ())
    return [case for case in cases if not wanted or wanted.intersection(case.tags)]


def with_default_pack(cases: Iterable[EvalCase], pack: str | None) -> list[EvalCase]:
    """Give every case that names no pack ``pack`` (or ``demo``); cases that name one keep it."""
    default = pack or DEFAULT_PACK
    return [case if case.pack else case.model_copy(update={"pack": default}) for case in cases]


def with_packs_dir(cases: Iterable[EvalCase], packs_dir: str | Path | None) -> list[EvalCase]:
    """Cases whose pack is a name of a folder in ``packs_dir`` get that folder's path: packs
    built elsewhere (the real-data suite's, built at test time) are named in the case file and
    found where they were built. Names not in ``packs_dir``, and paths, are kept as they are."""
    listed = list(cases)
    if packs_dir is None:
        return listed
    folder = Path(packs_dir).expanduser()
    if not folder.is_dir():
        raise EvalCaseError(f"{packs_dir}: --packs-dir is not a folder")
    resolved = []
    for case in listed:
        candidate = folder / case.pack if case.pack and not Path(case.pack).is_absolute() else None
        if candidate is not None and (candidate / "pack.yaml").is_file():
            case = case.model_copy(update={"pack": str(candidate.resolve())})
        resolved.append(case)
    return resolved

