"""Reading what people hand the program: files, stdin, JSON and YAML documents, text.

Every file, document and piece of text that comes from a user (a session document, an eval
case file, a pack, a question, a command-line argument) passes through here, so the limits
live in one place and every refusal is one ``InputError`` line naming the source:

- a file must be a regular file (never a directory, FIFO, device or socket: reading those hangs
  or never ends); it is opened without blocking and checked after opening, so a path swapped
  in between cannot slip through; it is read up to a size limit, never further;
- ``within=FOLDER`` also refuses a path that resolves outside the folder (a symlink in a pack
  pointing at ``/etc/passwd``), a dangling link and a link loop;
- text must be UTF-8 (the error names the byte offset) and hold only Unicode scalar values:
  no lone surrogate (``\\ud800``: no encoder can write it, so it would break every printer,
  exporter and page that meets it later);
- a JSON or YAML document may nest at most ``MAX_DEPTH`` levels, hold integers only within
  64 bits (what SQLite and PostgreSQL store), and YAML aliases may add at most
  ``MAX_ALIAS_NODES`` nodes to what the file spells out (no "billion laughs"), never a cycle.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import yaml

from core.errors import InputError

MAX_DEPTH = 64
MAX_ALIAS_NODES = 100_000
INT_LIMIT = 2**63 - 1
MiB = 1024 * 1024
MAX_DOCUMENT_BYTES = 64 * MiB  # a session document (gatekeeper check, replay)
MAX_QUESTION_CHARS = 4000      # a narrow question is a sentence or two; this is pages

# UTF-16 surrogates: valid only in pairs inside UTF-16, never as Python characters (a lone one
# is what undecodable argv bytes or a broken "\ud800" escape leave). NUL is valid text: the
# store keeps it (core.store.dialects), so it is not refused.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


# ---------------------------------------------------------------- text


def text_problem(text: str) -> str | None:
    """Why ``text`` is not valid Unicode text (it holds a lone surrogate), or ``None``."""
    found = _LONE_SURROGATE.search(text)
    if found is None:
        return None
    char = found.group()
    return (f"holds a lone surrogate U+{ord(char):04X} at position {found.start()} "
            "(not valid Unicode: undecodable bytes or a broken \\u escape)")


def check_text(text: str, *, source: str) -> str:
    """``text`` itself, or ``InputError`` when it holds a lone surrogate."""
    problem = text_problem(text)
    if problem:
        raise InputError(source, problem)
    return text


def repair_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD: for showing or printing stored
    data (which the store keeps losslessly); never for input, which is refused instead."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def repair_tree(data: Any) -> Any:
    """A JSON-like tree with every string (and key) passed through ``repair_text``; unchanged
    when nothing needed repair. Recursive: for stored data, already bounded when written."""
    if isinstance(data, str):
        return repair_text(data)
    if isinstance(data, list):
        return [repair_tree(item) for item in data]
    if isinstance(data, dict):
        return {repair_tree(key): repair_tree(value) for key, value in data.items()}
    return data


def check_question(question: str, *, source: str = "question") -> str:
    """A question, stripped: not empty, valid text, at most ``MAX_QUESTION_CHARS``."""
    check_text(question, source=source)
    stripped = question.strip()
    if not stripped:
        raise InputError(source, "is empty")
    if len(stripped) > MAX_QUESTION_CHARS:
        raise InputError(source, f"is {len(stripped):,} characters long "
                                 f"(at most {MAX_QUESTION_CHARS:,}: ask one narrow question)")
    return stripped


def decode_utf8(data: bytes, *, source: str) -> str:
    """UTF-8 bytes as text; an error names the first bad byte and its offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(source, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                                 f"{exc.start})") from None


def regex_problem(pattern: str) -> str | None:
    """Why a user's regular expression may take exponential time, or ``None``.

    Python's ``re`` has no time limit, so a pattern that backtracks catastrophically would hang
    the command on one line of input. The classic shape is refused: an unbounded repetition
    whose body is nothing but repetitions (``(a+)+``, ``(\\w+\\s?)*``), so the same text can be
    split between the inner and outer repetition in exponentially many ways. A body with a part
    that must match once (``(\\.\\d+)*``, ``[a-z]+(-[a-z]+)*``) or a possessive (``a++``) or
    atomic (``(?>...)``) inner part is allowed. A heuristic: it catches the common shapes, not
    every slow pattern.
    """
    try:
        from re import _constants as constants  # type: ignore[attr-defined]
        from re import _parser as parser  # type: ignore[attr-defined]

        parsed = parser.parse(pattern)
    except Exception:  # a pattern re cannot parse is reported by whoever compiles it
        return None
    repeats = {constants.MAX_REPEAT, constants.MIN_REPEAT}

    def only_repetitions(items: Any) -> bool:
        """Whether every part of ``items`` is a repetition (no part that must match once)."""
        parts = list(items)
        if len(parts) == 1 and parts[0][0] == constants.SUBPATTERN:
            return only_repetitions(parts[0][1][-1])
        return bool(parts) and all(op in repeats for op, _ in parts) and any(
            arg[1] == constants.MAXREPEAT for op, arg in parts)

    def children(op: Any, arg: Any) -> list[Any]:
        if op in repeats:
            return [arg[2]]
        if op == constants.SUBPATTERN:
            return [arg[-1]]
        if op == constants.BRANCH:
            return list(arg[1])
        if op in (constants.ASSERT, constants.ASSERT_NOT):
            return [arg[1]]
        return []

    def catastrophic(items: Any) -> bool:
        for op, arg in items:
            if op in repeats and arg[1] == constants.MAXREPEAT and only_repetitions(arg[2]):
                return True
            if any(catastrophic(child) for child in children(op, arg)):
                return True
        return False

    if catastrophic(parsed):
        return ("it repeats, without bound, a part made only of repetitions (such as (a+)+), "
                "which can take exponential time on one line; put a part that must match once "
                "inside the repetition, or make the inner one possessive (a++)")
    return None


# ---------------------------------------------------------------- files


def _size(count: int) -> str:
    return f"{count / MiB:.0f} MiB" if count >= MiB else f"{count:,} bytes"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def resolve_within(path: str | Path, folder: Path, *, source: str) -> Path:
    """``path`` with every link resolved, refused unless it stays inside ``folder`` (resolved)."""
    candidate = Path(path)
    try:
        real = candidate.resolve(strict=True)
    except FileNotFoundError:
        if candidate.is_symlink():
            raise InputError(source, "cannot read: a symlink to nothing (dangling)") from None
        raise InputError(source, "cannot read: no such file") from None
    except RuntimeError:  # Python < 3.13 reports a link loop this way
        raise InputError(source, "cannot read: a symlink loop") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(source, "cannot read: a symlink loop") from None
        raise InputError(source, f"cannot read: {exc.strerror or exc}") from None
    except ValueError:
        raise InputError(source, "cannot read: not a valid file name") from None
    if not real.is_relative_to(folder.resolve()):
        raise InputError(source, "cannot read: it links outside its folder "
                                 "(only files inside it are read)")
    return real


def open_regular(path: str | Path, *, source: str | None = None, max_bytes: int,
                 within: Path | None = None) -> IO[bytes]:
    """A regular file opened for binary reading, at most ``max_bytes`` long.

    The file is opened without blocking (a FIFO would block the open itself) and checked on
    the open descriptor. ``within``: the path must resolve inside that folder, and the final
    component must not be a link swapped in after the check.
    """
    label = source or str(path)
    target = resolve_within(path, within, source=label) if within is not None else Path(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    if within is not None:
        flags |= os.O_NOFOLLOW
    try:
        descriptor = os.open(target, flags)
    except FileNotFoundError:
        if Path(target).is_symlink():
            raise InputError(label, "cannot read: a symlink to nothing (dangling)") from None
        raise InputError(label, "cannot read: no such file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(label, "cannot read: a symlink loop" if within is None
                             else "cannot read: it became a symlink while being read") from None
        raise InputError(label, f"cannot read: {exc.strerror or exc}") from None
    except ValueError:  # an embedded NUL, or a name the file system cannot encode
        raise InputError(label, "cannot read: not a valid file name") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(label, f"cannot read: {_kind(info.st_mode)}, not a regular file")
        if info.st_size > max_bytes:
            raise InputError(label, f"is too large ({_size(info.st_size)}; the limit is "
                                    f"{_size(max_bytes)})")
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_bytes(path: str | Path, *, source: str | None = None, max_bytes: int,
               within: Path | None = None) -> bytes:
    """The bytes of a regular file (see ``open_regular``); never more than ``max_bytes``."""
    label = source or str(path)
    with open_regular(path, source=label, max_bytes=max_bytes, within=within) as handle:
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise InputError(label, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:  # it grew after the check
        raise InputError(label, f"is too large (the limit is {_size(max_bytes)})")
    return data


def read_text(path: str | Path, *, source: str | None = None, max_bytes: int,
              within: Path | None = None) -> str:
    """The UTF-8 text of a regular file, or of stdin when ``path`` is ``-``."""
    label = source or str(path)
    if str(path) == "-":
        return read_stdin(source=source or "stdin", max_bytes=max_bytes)
    return decode_utf8(read_bytes(path, source=label, max_bytes=max_bytes, within=within),
                       source=label)


def read_stdin(*, source: str = "stdin", max_bytes: int) -> str:
    """Standard input as UTF-8 text, at most ``max_bytes`` (``/dev/zero`` on stdin ends)."""
    stream = sys.stdin
    if stream is None:
        raise InputError(source, "cannot read: closed")
    buffer = getattr(stream, "buffer", None)
    try:
        if buffer is not None:
            data = buffer.read(max_bytes + 1)
        else:  # a text stream without bytes underneath (tests, embedding)
            text = stream.read(max_bytes + 1)
            data = text.encode("utf-8", "surrogatepass")
    except OSError as exc:
        raise InputError(source, f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise InputError(source, f"not UTF-8 text (offset {exc.start})") from None
    if len(data) > max_bytes:
        raise InputError(source, f"is too large (the limit is {_size(max_bytes)})")
    return check_text(decode_utf8(data, source=source), source=source)


# ---------------------------------------------------------------- documents


def _path_of(parts: list[Any]) -> str:
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)


def _walk(data: Any) -> Iterator[tuple[list[Any], Any]]:
    """Every (path, value) of a JSON-like tree, depth first, without recursion."""
    stack: list[tuple[list[Any], Any]] = [([], data)]
    while stack:
        path, value = stack.pop()
        yield path, value
        if len(path) > MAX_DEPTH:
            continue  # the caller refuses it; no need to go deeper
        if isinstance(value, dict):
            for key, item in value.items():
                yield [*path, key], key if isinstance(key, str) else None
                stack.append(([*path, key], item))
        elif isinstance(value, list):
            stack.extend(([*path, index], item) for index, item in enumerate(value))


def check_tree(data: Any, *, source: str) -> Any:
    """``data`` (parsed JSON or YAML) itself, or ``InputError`` for the first value that is
    nested too deep, an integer beyond 64 bits, or text that is not valid Unicode."""
    for path, value in _walk(data):
        if len(path) > MAX_DEPTH:
            raise InputError(source, f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, str):
            problem = text_problem(value)
            if problem:
                raise InputError(source, f"{_path_of(path)}: text {problem}")
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > INT_LIMIT:
            raise InputError(source, f"{_path_of(path)}: integer out of range "
                                     f"(beyond ±{INT_LIMIT}, the 64-bit limit)")
    return data


def parse_json(text: str, *, source: str) -> Any:
    """A JSON document, bounded (see the module docstring)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(source, f"not JSON: {exc.msg} at line {exc.lineno}, "
                                 f"column {exc.colno}") from None
    except RecursionError:
        raise InputError(source, f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise InputError(source, f"not usable JSON: {exc}".split(";")[0]) from None
    return check_tree(data, source=source)


def read_json_file(path: str | Path, *, source: str | None = None,
                   max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """``read_text`` then ``parse_json`` (``-`` is stdin)."""
    label = source or ("stdin" if str(path) == "-" else str(path))
    return parse_json(read_text(path, source=label, max_bytes=max_bytes), source=label)


# ---------------------------------------------------------------- YAML

_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: fast


class DocumentLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe YAML for user documents: timestamps stay text (the contracts hold them as strings)
    and a duplicated key is an error (PyYAML would silently keep the last one)."""


DocumentLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _construct_unique_mapping(loader: DocumentLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if not isinstance(key, str | int | float | bool):
            continue  # unhashable keys are left to construct_mapping to reject
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    mapping: dict[Any, Any] = loader.construct_mapping(node)
    return mapping


DocumentLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
                               _construct_unique_mapping)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_node_graph(root: yaml.Node, source: str) -> None:
    """Refuse a composed document that nests too deep, holds an alias cycle, or whose aliases
    would expand it by more than ``MAX_ALIAS_NODES`` nodes. Iterative: no recursion limit."""
    done: dict[int, int] = {}  # id(node) -> nodes once aliases are expanded
    active = {id(root)}
    stack: list[tuple[yaml.Node, Iterator[yaml.Node]]] = [(root, iter(_children(root)))]
    while stack:
        node, pending = stack[-1]
        child = next(pending, None)
        if child is None:
            stack.pop()
            active.discard(id(node))
            done[id(node)] = 1 + sum(done[id(item)] for item in _children(node))
            continue
        if id(child) in active:
            raise InputError(source, "a YAML alias refers to a node that contains it (a cycle)",
                             line=child.start_mark.line + 1)
        if id(child) in done:
            continue
        if len(stack) >= MAX_DEPTH:
            raise InputError(source, f"nested deeper than {MAX_DEPTH} levels",
                             line=child.start_mark.line + 1)
        active.add(id(child))
        stack.append((child, iter(_children(child))))
    if done[id(root)] > len(done) + MAX_ALIAS_NODES:
        raise InputError(source, f"YAML aliases expand the document to {done[id(root)]:,} nodes "
                                 f"(aliases may add at most {MAX_ALIAS_NODES:,})")


def parse_yaml(text: str, *, source: str) -> Any:
    """One YAML document (safe tags only), bounded (see the module docstring); ``None`` when empty.

    Syntax errors carry the line in ``InputError.line``.
    """
    check_text(text, source=source)
    loader = DocumentLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_node_graph(node, source)
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        detail = " ".join(part for part in (exc.context, exc.problem) if part) or str(exc)
        if "nesting depth" in detail or "flow level" in detail:
            raise InputError(source, f"nested deeper than {MAX_DEPTH} levels",
                             line=mark.line + 1 if mark else None) from None
        raise InputError(source, f"invalid YAML: {detail}",
                         line=mark.line + 1 if mark else None,
                         column=mark.column + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise InputError(source, f"invalid YAML: {' '.join(str(exc).split())}") from None
    except RecursionError:  # the pure-Python composer, before our own depth check
        raise InputError(source, f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise InputError(source, f"not usable YAML: {exc}".split(";")[0]) from None
    finally:
        loader.dispose()
    return check_tree(data, source=source)
