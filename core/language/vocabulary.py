"""The vocabularies: word lists kept as YAML data in ``core/language/vocab/``, read once.

Each file is one document whose shape a ``VocabularyFile`` (a plain annotated class), a dataclass
or a ``TypedDict`` states; ``load(name, shape)`` reads ``vocab/<name>.yaml``, validates it into that shape and
caches the result, so a module turns its file into the same typed objects it used to write as
Python literals. A file that does not validate is a bug in the product, raised at once with the
file and the field (``VocabularyError``). The format of each file: ``vocab/README.md``.

The lexicon's and the concepts' files are read by every question, in every process, where a
Python literal cost nothing: so a parsed file is kept as JSON next to it (``__pycache__``, named
by a digest of its bytes, as Python keeps its bytecode), and a shape (a ``VocabularyFile``, a
dataclass or a ``TypedDict``) whose document already holds exactly its types is built without
pydantic (which validates every other document, and names the field of a bad one).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import operator
import os
import types
import typing
from functools import cache
from pathlib import Path
from typing import Any, Literal, NotRequired, TypeVar, cast, get_args, get_origin

import yaml
from pydantic import ConfigDict, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict, is_typeddict

from core.errors import SuperbizError

VOCAB_DIR = Path(__file__).with_name("vocab")
_T = TypeVar("_T")
_SHAPES: dict[str, type[Any]] = {}  # what each file has been read as (shapes())
# libyaml's loader where PyYAML was built with it: the pure-Python one costs start-up time.
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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
    path = VOCAB_DIR / f"{name}.yaml"
    try:
        raw = path.read_bytes()
        copy = path.parent / "__pycache__" / f"{name}.{hashlib.sha256(raw).hexdigest()[:20]}.json"
        try:
            return json.loads(copy.read_bytes())
        except (OSError, ValueError):
            pass  # none kept yet (or unreadable): parse the YAML
        document = yaml.load(raw, Loader=_LOADER)  # a safe loader, C or Python
    except (OSError, yaml.YAMLError) as error:
        raise VocabularyError(f"vocabulary {path.name}: {error}") from None
    _keep(name, copy, document)
    return document


def _keep(name: str, copy: Path, document: Any) -> None:
    """Keep ``document`` as JSON at ``copy`` when JSON holds it unchanged (not a date nor a
    number as a key), replacing the copies of the file's earlier contents; where the folder is
    not writable, nothing is kept."""
    try:
        text = json.dumps(document, ensure_ascii=False)
    except (TypeError, ValueError):
        return
    if json.loads(text) != document:
        return
    try:
        copy.parent.mkdir(exist_ok=True)
        for stale in copy.parent.glob(f"{name}.*.json"):
            if stale.name.rsplit(".", 2)[0] == name:  # not another file's: "a.b" for "a"
                stale.unlink(missing_ok=True)
        partial = copy.with_name(f"{copy.name}.{os.getpid()}.partial")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, copy)  # whole or not at all, for a process reading it meanwhile
    except OSError:
        pass


def load(name: str, shape: type[_T]) -> _T:
    """``vocab/<name>.yaml`` validated as ``shape`` (cached per name and shape): a
    ``VocabularyFile``, dataclass or ``TypedDict`` (``typing_extensions``' for pydantic) whose fields are the
    file's top-level keys."""
    _SHAPES[name] = shape
    return cast(_T, _load(name, cast(Any, shape)))


def shapes() -> dict[str, type[Any]]:
    """Each file read so far in this process, and the shape it was read as."""
    return dict(_SHAPES)


@cache
def _load(name: str, shape: type[Any]) -> Any:
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


def validated(shape: type[Any], document: Any) -> Any:
    """``document`` as pydantic validates it for ``shape`` (``ValidationError`` if it cannot),
    built as ``load`` builds it: the slow path, and what the shortcut must agree with."""
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
