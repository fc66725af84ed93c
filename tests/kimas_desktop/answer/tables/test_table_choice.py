"""Which table a question is computed over, among the files of the top passages: one the question plans
over before one it does not, whatever their order ("How many snow days were there in Seattle?" found the
airports first, whose city column holds Seattle, and was declined as "no row for snow")."""

from __future__ import annotations

import pyarrow as pa

from indexer.tables.engine import ArrowEngine
from kimas_desktop.answer.tables.answer import TableAnswerer
from kimas_desktop.tables import TableColumn, TableFilter, TableInfo
from kimas_desktop.types import Chunk, Hit
from local_models.fake import MemoryShelf

IATA = ["SEA", "BFI", "LAX", "SFO", "SAN", "GEG"]
CITY = ["Seattle", "Seattle", "Los Angeles", "San Francisco", "San Diego", "Spokane"]
STATE = ["WA", "WA", "CA", "CA", "CA", "WA"]
AIRPORTS = TableInfo(
    "a", "c", "/k/airports.csv", "", 1,
    (TableColumn("iata", "text", tuple(IATA)), TableColumn("city", "text", tuple(dict.fromkeys(CITY))),
     TableColumn("state", "text", ("WA", "CA"))), 6,
)  # fmt: skip
WEATHER = TableInfo(
    "w", "c", "/k/seattle-weather.csv", "", 1,
    (TableColumn("date", "date", ("2012-01-01",)), TableColumn("weather", "text", ("snow", "rain"))), 3,
)  # fmt: skip


def test_a_table_the_question_plans_over_is_chosen_before_one_it_does_not() -> None:
    shelf = MemoryShelf()
    shelf.add(AIRPORTS, pa.table({"iata": IATA, "city": CITY, "state": STATE, "_row": list(range(2, 8))}))
    days = ["2012-01-01", "2012-01-02", "2012-01-03"]
    weather = ["snow", "rain", "snow"]
    shelf.add(WEATHER, pa.table({"date": days, "weather": weather, "_row": [2, 3, 4]}))
    hits = [
        Hit(Chunk("1", "c", AIRPORTS.source, "iata: SEA; city: Seattle; state: WA"), 0.9),
        Hit(Chunk("2", "c", WEATHER.source, "date: 2012-01-01; weather: snow"), 0.8),
    ]
    got = TableAnswerer(shelf, ArrowEngine(shelf)).answer("How many snow days were there in Seattle?", hits)
    assert got is not None and got.table.source == WEATHER.source
    assert got.query is not None and got.query.filters == (TableFilter("weather", "=", "snow"),)
    assert got.result.value == 2 and got.citation.n == 2
