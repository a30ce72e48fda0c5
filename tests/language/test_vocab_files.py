"""The word lists kept as data (core/language/vocab/*.yaml): each file loads into the objects its
module uses, and a file that does not have its shape fails naming the file and the field."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from core.language import concepts, lexicon, success, vocabulary
from core.language.concepts import CONCEPTS, TRANSLATIONS, Concept
from core.language.lexicon import TOPICS, Topic
from core.language.vocabulary import VocabularyError

# Each file this package's modules read, and the shape its module states.
SHAPES: dict[str, Any] = {
    "topics": lexicon._TopicsFile,
    "concepts": concepts._ConceptsFile,
    "translations": concepts._TranslationsFile,
    "success": success._SuccessFile,
}


@pytest.fixture
def vocab_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty vocabulary folder in place of the product's, with no file read from either
    cached before or after the test."""
    monkeypatch.setattr(vocabulary, "VOCAB_DIR", tmp_path)
    vocabulary._document.cache_clear()
    vocabulary._load.cache_clear()
    yield tmp_path
    vocabulary._document.cache_clear()
    vocabulary._load.cache_clear()


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_file_loads_and_validates_as_pydantic_reads_it(name: str) -> None:
    assert name in vocabulary.names()
    loaded = vocabulary.load(name, SHAPES[name])
    assert loaded == TypeAdapter(SHAPES[name]).validate_python(vocabulary._document(name))
    assert all(loaded.values()), f"{name}.yaml has an empty section"


def test_the_topics_are_the_lexicons_typed_topics() -> None:
    loaded = vocabulary.load("topics", lexicon._TopicsFile)["topics"]
    assert list(TOPICS.values()) == list(loaded)
    assert all(type(topic) is Topic for topic in loaded)
    memory = TOPICS["memory"]
    assert isinstance(memory.synonyms, tuple) and "jvm heap" in memory.synonyms
    assert memory.includes == ("gc",) and "memory" in memory.asks and "memory" not in memory.synonyms
    assert TOPICS["gc"].asks == () and TOPICS["gc"].related_alerts == ()  # an absent key is its default
    # A shape is a regular expression, kept as written (the YAML's backslashes are not escapes).
    assert lexicon.topics_in('"GET /api HTTP/1.1" 503 12', in_logs=True) == ["http_error"]


def test_the_concepts_and_translations_are_the_modules_objects() -> None:
    assert list(CONCEPTS.values()) == list(vocabulary.load("concepts", concepts._ConceptsFile)["concepts"])
    assert all(type(concept) is Concept for concept in CONCEPTS.values())
    assert CONCEPTS["error"].qualifier and CONCEPTS["error"].level == "ERROR"
    assert CONCEPTS["login"].succeeded == "signin" and CONCEPTS["signin"].asks == ()
    assert CONCEPTS["failure"].terms[2] == "couldn't"
    assert CONCEPTS["quota"].terms[-1] == "status: 429"
    assert TRANSLATIONS["完成"] == ("finish", "complet", "succe")
    assert list(TRANSLATIONS)[:2] == ["任务", "作业"]  # the file's order


def test_the_success_words_read_a_clause() -> None:
    said = "sshd 有没有登录成功的记录"
    start = said.index("登录")
    assert success.success_words(said, start, start + 2) == (start + 2, start + 4)
    refused = "users couldn't log in successfully"
    start = refused.index("log in")
    assert success.success_words(refused, start, start + 6) is None
    tried = "how many log in attempts today"
    start = tried.index("log in")
    assert success.success_words(tried, start, start + 6) is None
    last = "when did root last log in"
    start = last.index("log in")
    assert success.success_words(last, start, start + 6) == (start, start + 6)


def test_a_field_of_the_wrong_type_names_the_file_and_the_field(vocab_dir: Path) -> None:
    (vocab_dir / "topics.yaml").write_text(
        "topics:\n"
        "  - {name: cpu, label_zh: CPU, label_en: CPU, synonyms: [cpu usage]}\n"
        "  - {name: disk, label_zh: 磁盘, synonyms: [disk usage]}\n", encoding="utf-8")
    with pytest.raises(VocabularyError, match=r"topics\.yaml: topics\.1\.label_en: Field required"):
        vocabulary.load("topics", lexicon._TopicsFile)


def test_a_word_that_yaml_reads_as_no_string_is_refused(vocab_dir: Path) -> None:
    # Unquoted, YAML 1.1 reads `no` as false: the file must quote it.
    (vocab_dir / "translations.yaml").write_text("translations:\n  否: [no]\n", encoding="utf-8")
    with pytest.raises(VocabularyError, match=r"translations\.yaml: translations\.否\.0: Input should be a valid str"):
        vocabulary.load("translations", concepts._TranslationsFile)


def test_a_misspelt_key_is_refused(vocab_dir: Path) -> None:
    (vocab_dir / "topics.yaml").write_text(
        "topics:\n  - {name: cpu, label_zh: CPU, label_en: CPU, synonyms: [cpu usage], synonym: [cpu load]}\n",
        encoding="utf-8")
    with pytest.raises(VocabularyError, match=r"topics\.yaml: topics\.0\.synonym: Unexpected keyword argument"):
        vocabulary.load("topics", lexicon._TopicsFile)


def test_an_empty_word_list_is_refused(vocab_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lists = "\n".join(f"{key}: {{substrings: [x]}}" for key in success._SuccessFile.__annotations__
                      if key != "went_wrong")
    (vocab_dir / "success.yaml").write_text(lists + "\nwent_wrong: {words: []}\n", encoding="utf-8")
    monkeypatch.setattr(success, "_readers", success._readers.__wrapped__)  # not the product's, cached
    with pytest.raises(VocabularyError, match=r"success\.yaml: went_wrong: a word list needs"):
        success.success_words("logged in", 0, 9)


def test_a_built_file_is_kept_and_a_changed_file_read_again(vocab_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = vocab_dir / "translations.yaml"
    path.write_text("translations:\n  任务: [task]\n", encoding="utf-8")
    assert vocabulary.load("translations", concepts._TranslationsFile) == {"translations": {"任务": ("task",)}}
    [kept] = (vocab_dir / "__pycache__").glob("translations.*.pickle")
    vocabulary._load.cache_clear()
    with monkeypatch.context() as patched:  # another process: it neither parses nor builds
        patched.setattr(vocabulary, "_built", None)
        assert vocabulary.load("translations", concepts._TranslationsFile) == {"translations": {"任务": ("task",)}}
    path.write_text("translations:\n  任务: [task, job]\n", encoding="utf-8")
    vocabulary._document.cache_clear()
    vocabulary._load.cache_clear()
    assert vocabulary.load("translations", concepts._TranslationsFile) == {"translations": {"任务": ("task", "job")}}
    [fresh] = (vocab_dir / "__pycache__").iterdir()  # the stale copy went
    assert fresh.name != kept.name


def test_a_kept_file_built_by_a_module_changed_since_is_built_again(vocab_dir: Path) -> None:
    path = vocab_dir / "translations.yaml"
    path.write_text("translations:\n  任务: [task]\n", encoding="utf-8")
    vocabulary.load("translations", concepts._TranslationsFile)
    [kept] = (vocab_dir / "__pycache__").glob("translations.*.pickle")
    modules, _ = pickle.loads(kept.read_bytes())
    assert {module for module, _, _ in modules} == {vocabulary.__file__, concepts.__file__}
    # As if concepts.py had changed since: the kept objects (here another word) are not used.
    stale = tuple((module, mtime - 1, size) for module, mtime, size in modules)
    kept.write_bytes(pickle.dumps((stale, pickle.dumps({"translations": {"任务": ("job",)}}))))
    vocabulary._load.cache_clear()
    assert vocabulary.load("translations", concepts._TranslationsFile) == {"translations": {"任务": ("task",)}}
    assert pickle.loads(kept.read_bytes())[0] == modules  # kept again, as built now


def test_a_file_that_is_not_yaml_or_is_missing_names_the_file(vocab_dir: Path) -> None:
    (vocab_dir / "concepts.yaml").write_text("concepts: [name: error\n", encoding="utf-8")
    with pytest.raises(VocabularyError, match=r"vocabulary concepts\.yaml: "):
        vocabulary.load("concepts", concepts._ConceptsFile)
    with pytest.raises(VocabularyError, match=r"vocabulary topics\.yaml: "):
        vocabulary.load("topics", lexicon._TopicsFile)


def _every_reader_imported() -> dict[str, Any]:
    """Import every module that reads a vocabulary file; the shape each file was read as."""
    import pkgutil

    import core.language
    for module in pkgutil.iter_modules(core.language.__path__, "core.language."):
        __import__(module.name)
    __import__("core.pipeline")  # every stage: the verifier's and the composer's words too
    return vocabulary.shapes()


def test_every_file_is_read_by_a_module_and_built_as_pydantic_validates_it() -> None:
    read = _every_reader_imported()
    assert sorted(read) == vocabulary.names(), "a vocab file no module reads, or a module reading a missing file"
    for name, shape in read.items():
        document = vocabulary._document(name)
        # Every file is built by the shortcut that skips pydantic's validator (building one costs
        # each process milliseconds at start-up), and the shortcut builds what the validator does.
        shortcut = vocabulary._exactly(shape, document)
        assert shortcut == vocabulary.validated(shape, document), name
        assert vocabulary.load(name, shape) == shortcut, name
