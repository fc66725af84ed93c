"""Tables answer what people ask (issue 57), on real public tables shipped inside packages (vega_datasets'
seattle-weather, stocks, iowa-electricity and airports; palmerpenguins' penguins): read by the product's
reader into LanceDB, planned by ``TablePlanner``, run by ``ArrowEngine``. The expected values are computed
here with the csv module from the same files."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from importlib.resources import files
from pathlib import Path
from statistics import mean

import pytest

from indexer import LanceStore
from indexer.parse.zip_guard import ZipLimits
from indexer.tables.engine import ArrowEngine
from indexer.tables.ingest import TableReader
from kimas_desktop.answer.tables.planner import TablePlanner
from kimas_desktop.tables import TableInfo, TableResult

pytest.importorskip("vega_datasets")
pytest.importorskip("palmerpenguins")


def _shipped(package: str, path: str) -> bytes:
    return (files(package) / path).read_bytes()


WEATHER = _shipped("vega_datasets", "_data/seattle-weather.csv")
STOCKS = _shipped("vega_datasets", "_data/stocks.csv")
IOWA = _shipped("vega_datasets", "_data/iowa-electricity.csv")
AIRPORTS = _shipped("vega_datasets", "_data/airports.csv")
PENGUINS = _shipped("palmerpenguins", "data/penguins.csv")
ZH_HEADER = "日期,降水量,最高气温,最低气温,风速,天气"
CARS_JSON = json.loads(_shipped("vega_datasets", "_data/cars.json"))


def _cars_csv() -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(CARS_JSON[0]))
    writer.writeheader()
    writer.writerows(CARS_JSON)
    return out.getvalue().encode("utf-8")


def _rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


def _chinese_weather() -> bytes:
    lines = WEATHER.decode("utf-8").splitlines()
    return "\n".join([ZH_HEADER, *lines[1:]]).encode("utf-8")


Ask = Callable[..., TableResult | None]


@pytest.fixture(scope="module")
def ask(tmp_path_factory: pytest.TempPathFactory) -> Ask:
    tmp = tmp_path_factory.mktemp("asked")
    store = LanceStore(str(tmp / "db"))
    reader = TableReader(store.shelf, "c", zip_limits=ZipLimits(), text_chars=10**9)
    tables: dict[str, tuple[TableInfo, list[str]]] = {}
    for name, data in (
        ("seattle-weather.csv", WEATHER),
        ("stocks.csv", STOCKS),
        ("iowa-electricity.csv", IOWA),
        ("airports.csv", AIRPORTS),
        ("penguins.csv", PENGUINS),
        ("西雅图天气.csv", _chinese_weather()),
        ("cars.csv", _cars_csv()),
    ):
        path = Path(tmp / name)
        path.write_bytes(data)
        read = reader.read(path, data)
        store.shelf.register("c", str(path), list(read.stored))
        lines = [line for b in read.blocks for line in b.text.splitlines()]
        tables[name] = (read.stored[0].info, lines)
    engine, planner = ArrowEngine(store.shelf), TablePlanner()

    def run(file: str, question: str, rows: tuple[str, ...] = (), after: str = "") -> TableResult | None:
        info, lines = tables[file]
        found = [line for line in lines if any(r in line for r in rows)][:5]
        plan = planner.plan(question, info, found)
        if after:
            before = planner.plan(after, info, found)
            assert before is not None
            plan = planner.follow(question, info, before, found)
        return None if plan is None else engine.run(info, plan)

    run.planner = planner  # type: ignore[attr-defined]
    run.tables = tables  # type: ignore[attr-defined]
    return run


def _value(result: TableResult | None) -> float | str | None:
    assert result is not None and not result.empty
    return result.value


def _weather(year: str = "", lo: str = "", hi: str = "") -> list[dict[str, str]]:
    rows = _rows(WEATHER)
    if year:
        return [r for r in rows if r["date"].startswith(year)]
    return [r for r in rows if lo <= r["date"][:4] <= hi]


def test_the_subject_in_the_file_name_is_no_filter(ask: Ask) -> None:
    want = sum(float(r["precipitation"]) for r in _weather("2014"))
    assert _value(
        ask("seattle-weather.csv", "What was the total precipitation in Seattle in 2014?")
    ) == pytest.approx(want)


def test_dates_by_month_range_since_and_a_year_of_january_firsts(ask: Ask) -> None:
    july = mean(float(r["temp_max"]) for r in _weather("2013/07"))
    assert _value(ask("seattle-weather.csv", "What was the average temp_max in July 2013?")) == pytest.approx(
        july
    )
    both = sum(float(r["precipitation"]) for r in _weather(lo="2013", hi="2014"))
    got = ask("seattle-weather.csv", "What was the total precipitation between 2013 and 2014?")
    assert _value(got) == pytest.approx(both)
    since = mean(float(r["wind"]) for r in _weather(lo="2015", hi="9999"))
    assert _value(ask("seattle-weather.csv", "What was the average wind since 2015?")) == pytest.approx(since)
    iowa = [r for r in _rows(IOWA) if r["year"] == "2010-01-01" and r["source"] == "Renewables"]
    got = ask("iowa-electricity.csv", "What was the net generation from renewables in Iowa in 2010?")
    assert _value(got) == float(iowa[0]["net_generation"])


def test_a_column_named_like_an_operation_is_a_lookup(ask: Ask) -> None:
    day = next(r for r in _rows(WEATHER) if r["date"] == "2013/07/04")
    got = ask("seattle-weather.csv", "What was the maximum temperature in Seattle on 2013-07-04?")
    assert _value(got) == float(day["temp_max"]) and got is not None and got.used == 1
    hottest = max(float(r["temp_max"]) for r in _weather("2014"))
    assert _value(ask("seattle-weather.csv", "What was the maximum temperature in 2014?")) == hottest


def test_codes_in_brackets_abbreviations_and_plurals_meet_the_columns_values(ask: Ask) -> None:
    texas = sum(r["state"] == "TX" for r in _rows(AIRPORTS))
    assert _value(ask("airports.csv", "How many airports are in Texas (TX)?")) == texas
    apple = mean(
        float(r["price"]) for r in _rows(STOCKS) if r["symbol"] == "AAPL" and r["date"].endswith("2008")
    )
    got = ask("stocks.csv", "What was the average price of Apple (AAPL) in 2008?", rows=("AAPL",))
    assert _value(got) == pytest.approx(apple)
    males = mean(float(r["bill_length_mm"]) for r in _rows(PENGUINS) if r["sex"] == "male")
    assert _value(ask("penguins.csv", "What is the average bill length of males?")) == pytest.approx(males)


def test_chinese_questions_over_english_and_chinese_headers(ask: Ask) -> None:
    want = sum(float(r["precipitation"]) for r in _weather("2013"))
    assert _value(ask("seattle-weather.csv", "2013年西雅图的总降水量是多少？")) == pytest.approx(want)
    assert _value(ask("西雅图天气.csv", "2013年的总降水量是多少？")) == pytest.approx(want)
    assert _value(ask("西雅图天气.csv", "What was the total precipitation in 2013?")) == pytest.approx(want)


def test_numbers_as_a_person_reads_them(ask: Ask) -> None:
    got = ask("seattle-weather.csv", "What was the average temp_max in July 2013?")
    assert got is not None
    july = mean(float(r["temp_max"]) for r in _weather("2013/07"))
    assert got.text == f"{july:.1f}" and f"{july:.4f}".rstrip("0") in got.description


def test_a_follow_up_takes_the_plan_before_it(ask: Ask) -> None:
    want = sum(float(r["precipitation"]) for r in _weather("2015"))
    got = ask(
        "seattle-weather.csv", "and in 2015?", after="What was the total precipitation in Seattle in 2014?"
    )
    assert _value(got) == pytest.approx(want)


def test_a_decline_names_what_the_table_lacks_and_the_closest_column(ask: Ask) -> None:
    question = "What was the total snowfall in Seattle in 2014?"
    assert ask("seattle-weather.csv", question) is None
    info, _ = ask.tables["seattle-weather.csv"]  # type: ignore[attr-defined]
    said = ask.planner.absent(question, info)  # type: ignore[attr-defined]
    assert "no column for snowfall" in said and "temp_max" in said and "closest: weather" in said
    assert ask("airports.csv", "How many airports are in Ontario (ON)?") is None


def test_a_top_k_counted_in_words_or_figures_before_the_rows_noun(ask: Ask) -> None:
    by_power = sorted((c for c in CARS_JSON if c["Horsepower"]), key=lambda c: -c["Horsepower"])
    got = ask("cars.csv", "What are the three cars with the highest horsepower?")
    assert got is not None and got.text.startswith(f"{by_power[0]['Name']} ({by_power[0]['Horsepower']})")
    assert [dict(r.cells)["Horsepower"] for r in got.rows] == [str(c["Horsepower"]) for c in by_power[:3]]
    light = sorted(CARS_JSON, key=lambda c: c["Weight_in_lbs"])[:5]
    got = ask("cars.csv", "Which are the 5 cars with the lowest weight?")
    assert got is not None and len(got.rows) == 5 and light[0]["Name"] in got.text
    got = ask("cars.csv", "List the twelve cars with the most cylinders.")
    assert got is not None and got.text.count(" (8)") == 12 and got.used == len(CARS_JSON)
    assert ask("cars.csv", "How many cars have the highest horsepower?") is not None  # no k: as before


def test_which_group_has_the_most_or_fewest_rows_counts_the_rows_per_group(ask: Ask) -> None:
    states = Counter(r["state"] for r in _rows(AIRPORTS))
    got = ask("airports.csv", "Which state has the most airports?")
    assert _value(got) == states.most_common(1)[0][0] and got is not None and got.used == states.total()
    assert got.text.startswith(f"{states.most_common(1)[0][0]} {states.most_common(1)[0][1]};")
    assert _value(ask("airports.csv", "哪个州的机场最多？")) == states.most_common(1)[0][0]
    fewest = states[str(_value(ask("airports.csv", "Which state has the fewest airports?")))]
    assert fewest == min(states.values())
    origins = Counter(c["Origin"] for c in CARS_JSON)
    assert _value(ask("cars.csv", "Which origin has the fewest cars?")) == min(
        origins, key=origins.__getitem__
    )
    assert _value(ask("cars.csv", "Which car has the most cylinders?")) != "USA"  # a number column: argmax


def test_on_which_day_a_measure_was_highest_answers_the_rows_date_with_the_value(ask: Ask) -> None:
    msft = [r for r in _rows(STOCKS) if r["symbol"] == "MSFT"]
    best = max(msft, key=lambda r: float(r["price"]))
    day = datetime.strptime(best["date"], "%b %d %Y").date().isoformat()
    got = ask("stocks.csv", "On which day was the price of MSFT the highest?", rows=("MSFT",))
    assert _value(got) == day and got is not None and f"price {best['price']}" in got.description
    amzn = min((r for r in _rows(STOCKS) if r["symbol"] == "AMZN"), key=lambda r: float(r["price"]))
    got = ask("stocks.csv", "In which month was the price of AMZN the lowest?", rows=("AMZN",))
    assert _value(got) == datetime.strptime(amzn["date"], "%b %d %Y").date().isoformat()
