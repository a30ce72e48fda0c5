"""The look-alike letters come from Unicode's confusables data (the confusable_homoglyphs package),
read on first need; a character the ref holds is never one."""

from __future__ import annotations

import unicodedata

from core.language import confusables
from core.language.confusables import foreign_lookalikes, latin_lookalikes, lookalike_forms

# The hand list the table replaced: Cyrillic and Greek letters whose glyph is a Latin one's.
FORMER_HAND_LIST = "аеорсухіјѕԁԛԝһӏАВЕКМНОРСТХІЈЅԌԚԜҮαορνικτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"


def test_the_table_holds_every_letter_of_the_former_hand_list_and_more_scripts() -> None:
    table = latin_lookalikes()
    assert set(FORMER_HAND_LIST) <= table
    scripts = {unicodedata.name(char).split()[0] for char in table}
    assert {"CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "LISU"} <= scripts
    assert len(table) > 5 * len(FORMER_HAND_LIST)


def test_the_table_holds_no_latin_character_nor_a_form_nfkc_folds_to_one() -> None:
    table = latin_lookalikes()
    assert not any(char.isascii() for char in table)
    assert "ａ" not in table and "Ｏ" not in table  # full-width: typed in a CJK input mode
    assert "𝐨" not in table  # a mathematical letter: lookalike_forms names its form
    assert not {"中", "，", "。", "：", "、"} & table


def test_a_lookalike_of_a_script_the_hand_list_lacked_is_rejected() -> None:
    ref = "HighMemoryUsage firing, service=order-service"
    armenian_o = "\u0585"  # ARMENIAN SMALL LETTER OH
    assert foreign_lookalikes(f"service={armenian_o}rder-service", ref) == [armenian_o]
    cherokee_a = "\u13aa"  # CHEROKEE LETTER GO, an "A"
    assert foreign_lookalikes(f"{cherokee_a}lert firing", "Alert firing") == [cherokee_a]


def test_a_character_the_ref_holds_is_never_a_lookalike() -> None:
    ref = "[ERROR][billing-service] Сервис недоступен: timeout after 5000ms"
    assert foreign_lookalikes("Сервис недоступен: timeout", ref) == []
    assert foreign_lookalikes("СЕРВИС недоступен", ref) == []  # case-folded
    assert foreign_lookalikes("ｏｒｄｅｒ-service", "order-service") == []
    assert lookalike_forms("ｏｒｄｅｒ-service", "order-service") == []


def test_a_copied_excerpt_does_not_read_the_data() -> None:
    latin_lookalikes.cache_clear()
    try:
        ref = "数据库连接未释放, 连接池无可用连接, 等待线程数: 32"
        assert foreign_lookalikes("连接池无可用连接, 等待线程数: 32", ref) == []
        assert foreign_lookalikes("order-service", "order-service") == []
        assert latin_lookalikes.cache_info().currsize == 0
        assert foreign_lookalikes("сonnection", "connection") == ["с"]
        assert latin_lookalikes.cache_info().currsize == 1
    finally:
        latin_lookalikes.cache_clear()


def test_the_data_file_is_the_packages() -> None:
    path = confusables._confusables_json()
    assert path.name == "confusables.json" and path.parent.name == "confusable_homoglyphs"
