"""Logs made askable from the console: a pack added while the console runs is in its pickers at
once; the Data page imports an uploaded file into a pack and keeps the pack picked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from streamlit.testing.v1 import AppTest

from core.packs import list_packs
from core.settings import get_settings
from core.userpacks import add_logs

DATA = "pages/4_Data.py"
INVESTIGATE = "app.py"
LOG = "".join(f"2024-03-01 10:00:{i:02d},000 {'ERROR' if i % 10 == 0 else 'INFO'} [m] shop.Db: "
              f"{'connection refused' if i % 10 == 0 else f'query {i} ok'}\n" for i in range(60))


def _shop_log(tmp_path: Path) -> Path:
    log = tmp_path / "shop.log"
    log.write_text(LOG, encoding="utf-8")
    return log


def _metrics(app: AppTest) -> dict[str, str]:
    return {metric.label: metric.value for metric in app.metric}


def test_pickers_see_a_pack_added_after_the_console_started(open_app: Callable[..., AppTest],
                                                            tmp_path: Path) -> None:
    investigate = open_app()
    data = open_app(DATA)
    assert "shop" not in investigate.selectbox(key="pack").options
    assert "shop" not in data.selectbox(key="data_pack").options

    add_logs([_shop_log(tmp_path)], "shop")  # as `superbiz logs add` in another terminal

    investigate.run()
    assert "shop" in investigate.selectbox(key="pack").options
    investigate.selectbox(key="pack").select("shop").run()
    assert not investigate.exception and not investigate.error
    data.run()
    data.selectbox(key="data_pack").select("shop").run()
    assert not data.exception and _metrics(data)["Log lines"] == "60"


def test_data_page_keeps_the_picked_pack(open_app: Callable[..., AppTest], tmp_path: Path) -> None:
    add_logs([_shop_log(tmp_path)], "shop")
    app = open_app(DATA)
    assert app.selectbox(key="data_pack").value == "demo"
    app.selectbox(key="data_pack").select("shop").run()
    assert app.query_params["pack"] == "shop"  # a reload or a link shows it again
    app.switch_page(INVESTIGATE).run()
    app.switch_page(DATA).run()  # the picker's own state went with the page
    assert app.selectbox(key="data_pack").value == "shop" and _metrics(app)["Log lines"] == "60"

    linked = open_app(DATA, query={"pack": "shop"})  # a new browser tab on the link
    assert linked.selectbox(key="data_pack").value == "shop"
    unknown = open_app(DATA, query={"pack": "gone"})
    assert unknown.selectbox(key="data_pack").value == "demo" and not unknown.exception


def test_data_page_imports_an_uploaded_file(open_app: Callable[..., AppTest]) -> None:
    app = open_app(DATA)
    app.get("file_uploader")[0].set_value(("shop.log", LOG.encode(), "text/plain"))
    app.text_input(key="add_pack").input("shop").run()
    app.button(key="add_button").click().run()
    assert not app.exception and not app.error
    assert any("60 log entries made pack shop" in box.value for box in app.success)
    assert app.selectbox(key="data_pack").value == "shop"  # the new pack is shown
    assert _metrics(app)["Log lines"] == "60"
    assert ("shop", "Logs imported by superbiz logs add: shop.log") in list_packs()

    # Refused: a built-in pack's name; nothing is made.
    app.text_input(key="add_pack").input("demo").run()
    app.button(key="add_button").click().run()
    assert any("a pack of that name is already at" in box.value for box in app.error)
    assert sorted(p.name for p in get_settings().user_packs_path().iterdir()) == ["shop"]
