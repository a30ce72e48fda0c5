"""``superbiz logs add``: log files into a pack of their own, askable at once.

A pack made here is a folder in the user packs folder (``Settings.user_packs_path``: default
``packs`` in the user's data directory), which every pack lookup reads on every call, so
``packs list``, ``ask --pack NAME`` and the console's picker see it without a restart. It
holds ``pack.yaml`` (``logs: {store: logs.db}``) and the store: a logs-only pack, whose
metrics and knowledge are absent (the tools say so) rather than an error.

All or nothing: a new pack is built in a hidden folder (``.adding-XXXX/NAME``) beside its
final place and renamed into it once the import and ``pack.yaml`` are written; adding to an
existing pack is one import, which leaves its store as it was on any error
(``core.sources.logimport``).
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import LogImportError, PackError
from core.packfiles.formats import PACK_FILE, PackLogs
from core.packfiles.yamlfiles import read_meta
from core.settings import get_settings

if TYPE_CHECKING:
    from core.sources.logimport import ImportReport, ProgressFn

STORE_FILE = "logs.db"
MAX_NAME_CHARS = 64
# A folder name on every filesystem and a word in a URL or a shell: no path, no hidden folder.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class PackNameError(PackError):
    """A pack name ``logs add`` cannot use: malformed, or taken by a pack it does not manage."""


@dataclass(frozen=True)
class AddedLogs:
    """What ``add_logs`` did: the pack, its folder, whether it was made now, the import."""

    pack: str
    folder: Path
    created: bool
    report: ImportReport


def check_pack_name(name: str) -> str:
    """``name`` when a pack may be called so (letters, digits, ``_ . -``; at most 64 characters,
    not starting with a dot or a dash), else ``PackNameError`` saying why."""
    if not name:
        raise PackNameError("no pack name given: name the pack (letters, digits, '_', '.', '-')")
    if len(name) > MAX_NAME_CHARS:
        raise PackNameError(f"pack name {name[:20]!r}...: a pack name has at most {MAX_NAME_CHARS} characters")
    if _NAME.fullmatch(name) is None:
        raise PackNameError(f"pack {name!r}: a pack name is letters, digits, '_', '.' and '-', "
                            "starting with a letter or a digit")
    return name


def pack_folder(name: str) -> tuple[Path, bool]:
    """The folder of the pack ``logs add`` writes for ``name`` and whether it exists already;
    ``PackNameError`` when the name is malformed or is a pack ``logs add`` did not make (a
    built-in pack, one in ``SUPERBIZ_PACKS_DIR``, a hand-made one without a log store)."""
    check_pack_name(name)
    settings = get_settings()
    user_dir = settings.user_packs_path()
    for base in settings.pack_dirs():
        candidate = base / name
        if base == user_dir or not candidate.is_dir():
            continue
        raise PackNameError(f"pack {name!r}: a pack of that name is already at {candidate} "
                            "(a built-in pack or one in SUPERBIZ_PACKS_DIR); pick another name")
    folder = user_dir / name
    if not folder.exists():
        return folder, False
    store = _store_of(folder)
    if store is None:
        raise PackNameError(f"pack {name!r}: {folder} exists and is not a pack of a log store "
                            "(made by logs add); pick another name")
    return folder, True


def _store_of(folder: Path) -> Path | None:
    """The log store an existing pack folder names, if it is a pack of one."""
    if not folder.is_dir():
        return None
    meta, problems = read_meta(folder)
    if meta is None or problems or meta.logs is None:
        return None
    return folder / Path(meta.logs.store).expanduser()


def add_logs(paths: list[Path], name: str, *, layout: str = "auto", pattern: str | None = None,
             service: str | None = None, timezone_name: str | None = None,
             progress: ProgressFn | None = None, year: int | None = None, no_timestamps: bool = False,
             strict: bool = False, max_unparsed: float | None = None) -> AddedLogs:
    """Import ``paths`` into the pack ``name`` (made when missing) of the user packs folder,
    with ``import_files``'s options. Errors (``PackNameError``, ``LogImportError``,
    ``LogStoreError``) leave nothing written."""
    from core.sources.logimport import MAX_UNPARSED_SHARE, import_files

    folder, exists = pack_folder(name)

    def run(store: Path) -> ImportReport:
        return import_files(paths, store, layout=layout, pattern=pattern, service=service,
                            timezone_name=timezone_name, progress=progress, year=year,
                            no_timestamps=no_timestamps, strict=strict,
                            max_unparsed=MAX_UNPARSED_SHARE if max_unparsed is None else max_unparsed)

    if exists:
        store = _store_of(folder)
        assert store is not None  # pack_folder checked it
        return AddedLogs(name, folder, False, run(store))
    for path in paths:  # said before a folder is made
        if not path.is_file():
            raise LogImportError(f"{path}: cannot read: " + ("not a file" if path.exists() else "no such file"))
    # Built one level down in a hidden folder of its own (the console may run two uploads at
    # once), so that no lookup lists it half-made.
    made_parent = not folder.parent.exists()
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".adding-", dir=folder.parent))
    except OSError as error:
        raise PackError(f"cannot make a pack in {folder.parent}: {error.strerror or error} "
                        "(SUPERBIZ_USER_PACKS_DIR names another folder)") from None
    building = staging / name
    building.mkdir()
    try:
        report = run(building / STORE_FILE)
        (building / PACK_FILE).write_text(_meta_text(paths, building / STORE_FILE), encoding="utf-8")
        try:
            building.rename(folder)
        except OSError as error:  # made meanwhile by another logs add
            raise PackNameError(f"pack {name!r}: {folder} appeared while importing "
                                f"({error.strerror or error}); add the files to it again") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if made_parent:  # a failed first add leaves no trace, not even the packs folder
            with contextlib.suppress(OSError):
                folder.parent.rmdir()
        raise
    shutil.rmtree(staging, ignore_errors=True)
    # The report names the store where it now is, not where it was built.
    return AddedLogs(name, folder, True, replace(report, store=str(folder / STORE_FILE)))


def _meta_text(paths: list[Path], store: Path) -> str:
    import yaml

    shown = ", ".join(path.name for path in paths[:3])
    if len(paths) > 3:
        shown += f" and {len(paths) - 3} more"
    meta: dict[str, object] = {"description": f"Logs imported by superbiz logs add: {shown}"}
    examples = example_questions(store)
    if examples:
        meta["example_questions"] = examples
    meta["logs"] = PackLogs(store=STORE_FILE).model_dump()
    text: str = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False)
    return text


MAX_EXAMPLES = 3


def example_questions(store: Path) -> list[str]:
    """Questions the pack's logs answer, for the console's examples: for its busiest services,
    which errors (else warnings) each logged, when it logged any."""
    from core.sources.logstore import LogStore
    from core.tools import QueryLogsArgs, validate_arguments

    opened = LogStore.open(store)
    try:
        services: dict[str, int] = opened.stats()["services"]
        busiest = sorted(services, key=lambda name: (-services[name], name))[:MAX_EXAMPLES]
        questions = []
        for service in busiest:
            for level, words in (("ERROR", "errors"), ("WARN", "warnings")):
                arguments = validate_arguments("query_logs", {"service": service, "level": level,
                                                              "limit": 1})
                assert isinstance(arguments, QueryLogsArgs)
                if opened.query_logs(arguments)[0].total:
                    questions.append(f"Which {words} did {service} log?")
                    break
        return questions
    finally:
        opened.close()
