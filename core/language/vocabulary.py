"""The vocabularies: word lists kept as YAML data in ``core/language/vocab/``, read once.

Each file is one document whose shape a ``VocabularyFile`` (a plain annotated class), a dataclass
or a ``TypedDict`` states; ``load(name, shape)`` reads ``vocab/<name>.yaml``, validates it into that shape and
caches the result, so a module turns its file into the same typed objects it used to write as
Python literals. A file that does not validate is a bug in the product, raised at once with the
file and the field (``VocabularyError``). The format of each file: ``vocab/README.md``.

Every command reads some of these files in every process, where a Python literal cost nothing:
so what a file was built into is kept, pickled, next to it (``__pycache__``, named by a digest of
its bytes and its shape, as Python keeps its bytecode), with the modules that define the shape's
classes and this one: while none of them changed, a process unpickles the objects without
parsing YAML, resolving annotations or building anything (~0.5 ms a file otherwise). Building
is the slow path: a shape (a ``VocabularyFile``, a dataclass or a ``TypedDict``) whose document
already holds exactly its types is built without pydantic (which validates every other
document, and names the field of a bad one).
"""

from __future__ import annotations

import _imp
import dataclasses
import functools
import operator
import os
import sys
import types
import typing
from _pickle import loads as unpickle  # the C unpickler: importing ``pickle`` costs more than it does
from functools import cache
from pathlib import Path
from typing import Any, Literal, NotRequired, TypeVar, cast, get_args, get_origin

from typing_extensions import is_typeddict  # pydantic's dependency, loaded with the contracts

from core.errors import SuperbizError

VOCAB_DIR = Path(__file__).with_name("vocab")
_T = TypeVar("_T")
_HASH_KEY = 0x76_6F_63_61_62  # any fixed key: the names need only be the same in every process
_SHAPES: dict[str, type[Any]] = {}  # what each file has been read as (shapes())
# A kept file: the (path, mtime_ns, size) of each module its objects were built by, and the
# pickled objects (unpickled only while those modules are as they were).
_Kept = tuple[tuple[tuple[str, int, int], ...], bytes]


class VocabularyFile:
    """The base of a vocabulary file's shape: a plain class whose annotated attributes are the
    file's keys (one with a value in the class may be left out), frozen, with no unknown key (a
    misspelt key is an error, not a silent default).

    Not a pydantic model: every command imports some thirty of these shapes, and creating a
    pydantic class costs ~0.5 ms. A document already of its types is built by ``_exactly``;
    any other is validated by pydantic against a ``TypedDict`` made from the annotations
    (``_validator_type``), which names the field of a bad file, and then built the same way.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: vocabularies are data")

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    __hash__ = object.__hash__  # each file is built once per process

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{key}={value!r}' for key, value in vars(self).items())})"


class VocabularyError(SuperbizError):
    """A vocabulary file is missing or does not have its shape."""


@cache
def _document(name: str) -> Any:
    """``vocab/<name>.yaml`` parsed (YAML's safe loader: libyaml's where PyYAML was built with
    it, the pure-Python one costs milliseconds)."""
    import yaml  # only a file not kept (``_load``) is parsed

    path = VOCAB_DIR / f"{name}.yaml"
    try:
        return yaml.load(path.read_bytes(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError) as error:
        raise VocabularyError(f"vocabulary {path.name}: {error}") from None


def load(name: str, shape: type[_T]) -> _T:
    """``vocab/<name>.yaml`` validated as ``shape`` (cached per name and shape): a
    ``VocabularyFile``, dataclass or ``TypedDict`` (``typing_extensions``' for pydantic) whose fields are the
    file's top-level keys."""
    _SHAPES[name] = shape
    return cast(_T, _load(name, cast(Any, shape)))


def read_later(name: str, shape: type[Any]) -> None:
    """Say at import that a module reads ``vocab/<name>.yaml`` as ``shape`` on first use (it
    is not needed by every command), so ``shapes()`` lists it before then."""
    _SHAPES.setdefault(name, shape)


def shapes() -> dict[str, type[Any]]:
    """Each file read (or to be read, ``read_later``) in this process, and its shape."""
    return dict(_SHAPES)


@cache
def _load(name: str, shape: type[Any]) -> Any:
    # Paths as strings, files read with open(): pathlib's objects cost more than the reading.
    folder = os.fspath(VOCAB_DIR)
    try:
        with open(os.path.join(folder, f"{name}.yaml"), "rb") as file:
            raw = file.read()
    except OSError as error:
        raise VocabularyError(f"vocabulary {name}.yaml: {error}") from None
    # Named by the shape and the file's bytes, with the SipHash hash-based bytecode uses (a
    # fifth of sha256's time).
    shape_key = _imp.source_hash(_HASH_KEY, f"{shape.__module__}.{shape.__qualname__}".encode()).hex()[:8]
    copy = os.path.join(folder, "__pycache__", f"{name}.{shape_key}.{_imp.source_hash(_HASH_KEY, raw).hex()}.pickle")
    kept = _kept(copy)
    if kept is not _NOTHING_KEPT:
        return kept
    built = _built(name, shape)
    _keep(Path(copy), shape, built)
    return built


_NOTHING_KEPT = object()


def _kept(copy: str) -> Any:
    """The objects kept at ``copy``, or ``_NOTHING_KEPT``: none kept, unreadable, or built by a
    module that has changed since."""
    try:
        with open(copy, "rb") as file:
            modules, pickled = cast(_Kept, unpickle(file.read()))
        for module_path, mtime_ns, size in modules:
            found = os.stat(module_path)
            if (found.st_mtime_ns, found.st_size) != (mtime_ns, size):
                return _NOTHING_KEPT
        return unpickle(pickled)
    except Exception:  # any unusable copy (gone, corrupt, a class renamed) is rebuilt
        return _NOTHING_KEPT


def _built(name: str, shape: type[Any]) -> Any:
    from pydantic import ValidationError

    document = _document(name)
    try:
        return _exactly(shape, document)
    except (_Inexact, TypeError, ValueError):
        pass  # pydantic decides, and names what is wrong
    try:
        return validated(shape, document)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise VocabularyError(f"vocabulary {name}.yaml: {where}: {first['msg']}") from None


def _keep(copy: Path, shape: type[Any], built: Any) -> None:
    """Keep ``built`` pickled at ``copy`` with the modules it was built by (this one and those
    defining the shape's classes), replacing the copies of the file's earlier contents; where
    the folder is not writable, or a class cannot be pickled, nothing is kept."""
    import pickle

    try:
        modules = tuple((path, found.st_mtime_ns, found.st_size)
                        for path in sorted(_modules_of(shape) | {__file__})
                        for found in [os.stat(path)])
        data = pickle.dumps((modules, pickle.dumps(built, pickle.HIGHEST_PROTOCOL)), pickle.HIGHEST_PROTOCOL)
        copy.parent.mkdir(exist_ok=True)
        name, shape_key = copy.name.split(".")[:2]
        for stale in copy.parent.glob(f"{name}.{shape_key}.*.pickle"):
            stale.unlink(missing_ok=True)
        partial = copy.with_name(f"{copy.name}.{os.getpid()}.partial")
        partial.write_bytes(data)
        os.replace(partial, copy)  # whole or not at all, for a process reading it meanwhile
    except (OSError, pickle.PicklingError, AttributeError, TypeError):
        pass


def _modules_of(hint: Any) -> set[str]:
    """The files of the modules defining the classes in ``hint`` (a shape, its fields' types)."""
    if isinstance(hint, type) and (issubclass(hint, VocabularyFile) or dataclasses.is_dataclass(hint)
                                   or is_typeddict(hint)):
        found = {cast(str, sys.modules[hint.__module__].__file__)}
        for item in _hints(hint).values():
            found |= _modules_of(item)
        return found
    return {path for arg in get_args(hint) for path in _modules_of(arg)}


def validated(shape: type[Any], document: Any) -> Any:
    """``document`` as pydantic validates it for ``shape`` (``ValidationError`` if it cannot),
    built as ``load`` builds it: the slow path, and what the shortcut must agree with."""
    from pydantic import TypeAdapter

    return _exactly(shape, TypeAdapter(_validator_type(cast(Any, shape))).validate_python(document))


def names() -> list[str]:
    """Every vocabulary file's name (without ``.yaml``)."""
    return sorted(path.stem for path in VOCAB_DIR.glob("*.yaml"))


class _Inexact(Exception):
    """A value that is not exactly of its type: pydantic validates the document."""


@cache
def _hints(shape: type[Any]) -> dict[str, Any]:
    return typing.get_type_hints(shape)


def _exactly(hint: Any, value: Any) -> Any:
    """``value`` built as ``hint`` without pydantic, where it already has exactly that type: a
    dataclass or ``TypedDict`` from a mapping of its fields (no other key), a ``tuple[X, ...]``
    from a list (``list``, ``frozenset`` too), a ``dict[K, V]``, a ``Literal``, ``X | None``, ``str``,
    ``bool``, ``int``, ``float``. Anything else
    raises ``_Inexact`` (or the dataclass's own ``TypeError``/``ValueError``), and pydantic
    validates: whatever this builds, pydantic builds the same."""
    if hint in (str, bool, int):
        if type(value) is not hint:
            raise _Inexact
        return value
    if hint is float and type(value) in (int, float):
        return float(value)
    origin, args = get_origin(hint), get_args(hint)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis and type(value) in (list, tuple):
        if args[0] is str:  # a word list: most of a file
            if not all(type(item) is str for item in value):
                raise _Inexact
            return tuple(value)
        return tuple(_exactly(args[0], item) for item in value)
    if origin in (list, frozenset) and len(args) == 1 and type(value) in (list, tuple, set, frozenset):
        return origin(_exactly(args[0], item) for item in value)
    if origin is dict and len(args) == 2 and type(value) is dict:
        return {_exactly(args[0], key): _exactly(args[1], item) for key, item in value.items()}
    if origin is Literal:
        if not any(type(value) is type(allowed) and value == allowed for allowed in args):
            raise _Inexact
        return value
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        return None if value is None else _exactly(next(a for a in args if a is not type(None)), value)
    if isinstance(hint, type) and type(value) is hint and dataclasses.is_dataclass(hint):
        return value  # built by pydantic already (``validated``)
    if type(value) is not dict:
        raise _Inexact
    if is_typeddict(hint):
        hints = _hints(hint)
        if not hint.__required_keys__ <= value.keys() <= hints.keys():
            raise _Inexact
        return {key: _exactly(hints[key], item) for key, item in value.items()}
    if isinstance(hint, type) and issubclass(hint, VocabularyFile):
        return _plain(hint, value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = _hints(hint)
        if not value.keys() <= {field.name for field in dataclasses.fields(hint) if field.init}:
            raise _Inexact
        return hint(**{key: _exactly(hints[key], item) for key, item in value.items()})
    raise _Inexact


def _plain(shape: type[VocabularyFile], value: dict[str, Any]) -> VocabularyFile:
    """A ``VocabularyFile`` of exactly its annotations' types (a key it lacks takes the class's
    value), no unknown key."""
    hints = _hints(cast(Any, shape))
    if not value.keys() <= hints.keys() or any(key not in value and not hasattr(shape, key) for key in hints):
        raise _Inexact
    built = object.__new__(shape)
    for key, hint in hints.items():
        object.__setattr__(built, key, _exactly(hint, value[key]) if key in value else getattr(shape, key))
    return built


@cache
def _validator_type(hint: Any) -> Any:
    """``hint`` for pydantic: each ``VocabularyFile`` as a ``TypedDict`` of its annotations
    (unknown keys forbidden), inside the same generics."""
    from pydantic import ConfigDict, with_config
    from typing_extensions import TypedDict
    if isinstance(hint, type) and issubclass(hint, VocabularyFile):
        hints = _hints(cast(Any, hint))
        fields = {key: _validator_type(item) if not hasattr(hint, key) else NotRequired[_validator_type(item)]
                  for key, item in hints.items()}
        return with_config(ConfigDict(extra="forbid"))(TypedDict(hint.__name__, fields))  # type: ignore[operator]
    origin, args = get_origin(hint), get_args(hint)
    if origin is None or origin is Literal or not args:
        return hint
    if origin in (typing.Union, types.UnionType):
        return functools.reduce(operator.or_, (_validator_type(arg) for arg in args))
    return origin[tuple(arg if arg is Ellipsis else _validator_type(arg) for arg in args)]
