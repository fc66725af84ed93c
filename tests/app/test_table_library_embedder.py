"""A new library of spreadsheets gets the embedding model its tables' language needs (issues 56, 57): the
first embedder reads the tables' headers and text cells, not only documents' text. A folder whose only
files are Chinese-headed spreadsheets is indexed on multilingual-e5-small, and then "车库里一共有多少件物品？"
finds its table through `kimas index` and the runtime's pipeline (real LanceDB, the embedded models); a
folder of English tables shipped in vega_datasets (names, codes and all) keeps MiniLM."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest

from app.models.first_embedder import FirstEmbedder
from app.paths import Paths
from app.runtime import Runtime
from cli.main import main
from kimas_desktop.answer.outcome import Answered
from kimas_desktop.config import EmbeddingModelConfig, load_config
from kimas_desktop.events import Done, TableReady
from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER
from tests.app.test_table_questions_chinese import THINGS
from tests.indexer.tables.workbooks import xlsx_bytes

WEATHER_ZH = "日期,降水量,最高气温,最低气温,风速,天气"


def _vega(name: str) -> bytes:
    pytest.importorskip("vega_datasets")
    return (files("vega_datasets") / "_data" / name).read_bytes()


def _chinese_library(tmp_path: Path) -> Path:
    docs = tmp_path / "家"
    docs.mkdir()
    (docs / "家里的东西.xlsx").write_bytes(xlsx_bytes({"物品": THINGS}))
    return docs


def test_chinese_headed_spreadsheets_choose_the_multilingual_embedder(tmp_path: Path) -> None:
    docs = _chinese_library(tmp_path)
    weather = _vega("seattle-weather.csv").decode("utf-8").splitlines()  # Chinese headers, English cells
    (docs / "天气.csv").write_text("\n".join([WEATHER_ZH, *weather[1:]]), "utf-8")
    assert FirstEmbedder().languages([docs]) == {"zh": 2}
    assert FirstEmbedder().choose([docs], EmbeddingModelConfig()) == MULTILINGUAL_EMBEDDER


def test_english_tables_keep_the_english_embedder(tmp_path: Path) -> None:
    docs = tmp_path / "tables"
    docs.mkdir()
    for name in ("seattle-weather.csv", "stocks.csv", "iowa-electricity.csv", "airports.csv"):
        (docs / name).write_bytes(_vega(name))
    chooser = FirstEmbedder()
    assert chooser.languages([docs]) == {"en": 3}  # stocks.csv: too few words to tell ("MSFT", "AMZN"…)
    assert chooser.choose([docs], EmbeddingModelConfig()) is None


@pytest.mark.slow
def test_a_library_of_chinese_spreadsheets_answers_a_chinese_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    assert main(["index", str(_chinese_library(tmp_path)), "--data-dir", str(data)]) == 0
    assert "not all in English" in capsys.readouterr().out
    config = load_config(data / "config.toml")
    assert config.embedding.name == MULTILINGUAL_EMBEDDER
    rt = Runtime(Paths(data, data / "config.toml"), config)
    try:
        events = list(rt.pipeline().ask("车库里一共有多少件物品？"))
    finally:
        rt.close()
    (done,) = [e for e in events if isinstance(e, Done)]
    tables = [e for e in events if isinstance(e, TableReady)]
    assert isinstance(done.outcome, Answered), done.outcome
    assert tables and Path(tables[0].answer.table.source).name == "家里的东西.xlsx"
    assert done.outcome.text.startswith("47"), done.outcome.text
