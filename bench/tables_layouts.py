"""Tables as people lay them out (issue 73): one column per category (wide), one row per category and
period (long), dates written as text ("2025-05", "Apr 1854", "Q2 1980", "2010/05/01 13:00:00"), totals
before ranking, and questions in Chinese (and one in Japanese) over English values.

    .venv/bin/pip download --no-deps vega_datasets statsmodels -d /tmp/wheels
    .venv/bin/python -m bench.tables_layouts /tmp/wheels [--split tune|held-out|both] [--show]
    .venv/bin/python -m bench.tables_layouts /tmp/wheels --mode whole [--embedder multilingual-e5-small]

Eight tables, none of them in issue 43's ``bench/tables.py`` or issue 57's ``bench/tables_asked.py`` in
this layout:

- ``regional-sales.xlsx`` (ours): Month written as text "2024-01" … "2025-12", one column per region
  (North, South, East, West), 24 rows: the issue's sales sheet, wide. Numbers drawn with seed 73.
- ``sales.csv`` (ours): the same numbers long: Month, Region, Sales, 96 rows.
- ``sea-surface-temperature.csv``: statsmodels' elnino as shipped: YEAR, then one column per month.
- ``crimean-war-deaths.csv``: vega_datasets' crimea, its date written "Apr 1854", one column per cause.
- ``barley.csv``: vega_datasets' barley (yield, variety, year, site), long.
- ``danish-money.csv``: statsmodels' danish_data, its period written "Q1 1974".
- ``world-fertility.csv``: statsmodels' fertility (World Bank, one column per year) laid long:
  Country, Code, Year, Fertility rate.
- ``sf-temps.csv``: vega_datasets' hourly San Francisco temperatures as shipped ("2010/01/01 00:00:00").

Same machinery as ``bench.tables_asked`` (engine mode: the product's reader into LanceDB, ``TablePlanner``
over the question's own table with the five row lines sharing the rarest words as the search's stand-in,
``ArrowEngine``; mode ``whole``: `kimas index` and `kimas ask` over the eight files). The expected values
are computed here with pandas from the frames the files are written from. A question whose rows the
table lacks (a year outside its range, a name it does not hold) must be declined.

The questions were written before the product was changed for them (issue 73). The six questions of the
issue itself are in the tune half (they were seen); the others are split by a fixed seed (73): half tune,
half held out. Report the held-out figure.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bench.table_values import holds
from bench.tables_reading import Source, ask, print_tally, read_tables, wheel, xlsx

VEGA = "vega_datasets/_data/"
SM = "statsmodels/datasets/"
REGIONS = ("North", "South", "East", "West")
SEED = 73

Frames = dict[str, pd.DataFrame]
# What an answer must state: a value; a list: each of them; a set: any one of them (a month as the
# table writes it or in ISO form).
Expect = Callable[[Frames], Any]


def _sales() -> pd.DataFrame:
    """Monthly sales per region, 2024-01 … 2025-12: a base per region, a season, growth, noise (seed 73)."""
    rng = np.random.default_rng(SEED)
    base = {"North": 120, "South": 95, "East": 140, "West": 80}
    rows = []
    for year in (2024, 2025):
        for month in range(1, 13):
            row: dict[str, Any] = {"Month": f"{year}-{month:02d}"}
            for r in REGIONS:
                season = 1 + 0.15 * np.sin(2 * np.pi * (month - 3) / 12)
                row[r] = round(base[r] * (1 + 0.08 * (year - 2024)) * season + rng.normal(0, 9))
            rows.append(row)
    return pd.DataFrame(rows)


def _csv(df: pd.DataFrame) -> bytes:
    return str(df.to_csv(index=False)).encode("utf-8")


def sources(wheels: Path) -> dict[str, Source]:
    vega, sm = wheel(wheels, "vega_datasets"), wheel(wheels, "statsmodels")
    out: dict[str, Source] = {}
    wide = _sales()
    out["wide"] = Source("regional-sales.xlsx", _xlsx_text(wide), wide)
    long = wide.melt(id_vars="Month", var_name="Region", value_name="Sales")
    long = long.sort_values(["Month", "Region"], key=_region_order).reset_index(drop=True)
    out["long"] = Source("sales.csv", _csv(long), long)
    raw = sm.read(SM + "elnino/elnino.csv")
    out["sst"] = Source("sea-surface-temperature.csv", raw, pd.read_csv(io.BytesIO(raw)))
    crimea = pd.DataFrame(json.loads(vega.read(VEGA + "crimea.json")))
    crimea["date"] = pd.to_datetime(crimea["date"]).dt.strftime("%b %Y")
    crimea = crimea.rename(columns={"date": "Month"})
    out["crimea"] = Source("crimean-war-deaths.csv", _csv(crimea), crimea)
    barley = pd.DataFrame(json.loads(vega.read(VEGA + "barley.json")))
    out["barley"] = Source("barley.csv", _csv(barley), barley)
    danish = pd.read_csv(io.BytesIO(sm.read(SM + "danish_data/data.csv")), encoding="utf-8-sig")
    danish["period"] = danish["period"].str.replace(r"(\d{4})Q(\d)", r"Q\2 \1", regex=True)
    out["danish"] = Source("danish-money.csv", _csv(danish), danish)
    fert = pd.read_csv(io.BytesIO(sm.read(SM + "fertility/fertility.csv")))
    years = [c for c in fert.columns if c.isdigit()]
    fert = fert.melt(
        id_vars=["Country Name", "Country Code"],
        value_vars=years,
        var_name="Year",
        value_name="Fertility rate",
    ).dropna()
    fert = fert.rename(columns={"Country Name": "Country", "Country Code": "Code"})
    fert["Year"] = fert["Year"].astype(int)
    fert = fert.sort_values(["Country", "Year"]).reset_index(drop=True)
    out["fertility"] = Source("world-fertility.csv", _csv(fert), fert)
    raw = vega.read(VEGA + "sf-temps.csv")
    sf = pd.read_csv(io.BytesIO(raw))
    sf["date"] = pd.to_datetime(sf["date"], format="%Y/%m/%d %H:%M:%S")
    out["sf"] = Source("sf-temps.csv", raw, sf)
    return out


def _region_order(s: pd.Series) -> pd.Series:
    return s.map({r: i for i, r in enumerate(REGIONS)}) if s.name == "Region" else s


def _xlsx_text(df: pd.DataFrame) -> bytes:
    """``df`` as a workbook whose Month cells are text ("2024-01"), as a person types them."""
    out: bytes = xlsx(df.astype({"Month": str}))
    return out


# -- what pandas says -------------------------------------------------------------------------------------


def _year(df: pd.DataFrame, col: str, year: int) -> pd.DataFrame:
    return df[df[col].astype(str).str.startswith(str(year))]


def _months(df: pd.DataFrame, *months: str) -> pd.DataFrame:
    return df[df["Month"].isin(months)]


def _row_total(df: pd.DataFrame, cols: tuple[str, ...] = REGIONS) -> pd.Series:
    return df[list(cols)].sum(axis=1)


def _month_of_max(df: pd.DataFrame) -> str:
    return str(df.loc[_row_total(df).idxmax(), "Month"])


def _quarter(q: str) -> set[str]:
    """ "Q1 1983" as the table writes it, or "1983-Q1", "1983 Q1"."""
    n, year = q.split()
    return {q, f"{year}-{n}", f"{year} {n}"}


def _crimea_month(text: str) -> set[str]:
    return {text, pd.Timestamp(pd.to_datetime(text, format="%b %Y")).strftime("%Y-%m")}


MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
CAUSES = ("wounds", "other", "disease")


@dataclass(frozen=True)
class Question:
    table: str
    text: str
    expect: Expect | None  # None: the table holds no row it asks for: declined
    kind: str = ""  # "zh" (Chinese), "ja" (Japanese)
    issue: bool = False  # one of the issue's own six questions (always tune)
    after: str = ""  # (no follow-ups here; ``bench.tables_asked.ask`` reads it)


def _sst(d: Frames, year: int) -> pd.Series:
    return d["sst"][year == d["sst"].YEAR][list(MONTHS)].iloc[0]


def _barley(d: Frames, **eq: Any) -> pd.DataFrame:
    b = d["barley"]
    m = pd.Series(True, index=b.index)
    for k, v in eq.items():
        m &= b[k] == v
    return b[m]


def _danish(d: Frames, lo: int, hi: int) -> pd.DataFrame:
    y = d["danish"].period.str[-4:].astype(int)
    return d["danish"][(y >= lo) & (y <= hi)]


def _fert(d: Frames, country: str, lo: int, hi: int | None = None) -> pd.Series:
    f = d["fertility"]
    return f[(f.Country == country) & f.Year.between(lo, hi or lo)]["Fertility rate"]


def _sf(d: Frames, lo: str, hi: str) -> pd.Series:
    s = d["sf"]
    return s[(s.date >= pd.Timestamp(lo)) & (s.date < pd.Timestamp(hi))].temp


Q = Question
W, L = "wide", "long"
QUESTIONS: list[Question] = [
    # The issue's sales sheet, wide: Month (text), North, South, East, West.
    Q(W, "What were the total sales in the North region in 2025?",
      lambda d: _year(d[W], "Month", 2025).North.sum(), issue=True),
    Q(W, "Which month had the highest sales?", lambda d: _month_of_max(d[W]), issue=True),
    Q(W, "Average per region", lambda d: [d[W][r].mean() for r in REGIONS], issue=True),
    Q(W, "What were the sales in the East region in May 2025?", lambda d: _months(d[W], "2025-05").East.iloc[0]),
    Q(W, "Which region had the highest total sales in 2024?",
      lambda d: _year(d[W], "Month", 2024)[list(REGIONS)].sum().idxmax()),
    Q(W, "What were the total sales in Q2 2025?",
      lambda d: _row_total(_months(d[W], "2025-04", "2025-05", "2025-06")).sum()),
    Q(W, "What was the average monthly sales of the West region in 2024?",
      lambda d: _year(d[W], "Month", 2024).West.mean()),
    Q(W, "What were the total sales of the South region in 2023?", None),
    Q(W, "2025年北部地区的总销售额是多少？", lambda d: _year(d[W], "Month", 2025).North.sum(), "zh"),
    Q(W, "2024年哪个地区的销售额最高？", lambda d: _year(d[W], "Month", 2024)[list(REGIONS)].sum().idxmax(), "zh"),
    Q(W, "2025年3月东部的销售额是多少？", lambda d: _months(d[W], "2025-03").East.iloc[0], "zh"),
    # The same numbers, long: Month (text), Region, Sales.
    Q(L, "What were the total sales in the North region in 2025?",
      lambda d: _year(d[L][d[L].Region == "North"], "Month", 2025).Sales.sum(), issue=True),
    Q(L, "Which month had the highest sales?",
      lambda d: d[L].groupby("Month").Sales.sum().idxmax(), issue=True),
    Q(L, "Average per region", lambda d: list(d[L].groupby("Region").Sales.mean()), issue=True),
    Q(L, "What were the total sales in 2024?", lambda d: _year(d[L], "Month", 2024).Sales.sum()),
    Q(L, "Which region had the highest sales in Q4 2025?",
      lambda d: _months(d[L], "2025-10", "2025-11", "2025-12").groupby("Region").Sales.sum().idxmax()),
    Q(L, "What were the sales of the West region in 2025-02?",
      lambda d: d[L][(d[L].Region == "West") & (d[L].Month == "2025-02")].Sales.iloc[0]),
    Q(L, "In which month of 2024 were the sales of the South region the lowest?",
      lambda d: (x := _year(d[L][d[L].Region == "South"], "Month", 2024)).loc[x.Sales.idxmin(), "Month"]),
    Q(L, "What were the sales in the North region in 2026?", None),
    Q(L, "2024年南部地区的平均销售额是多少？",
      lambda d: _year(d[L][d[L].Region == "South"], "Month", 2024).Sales.mean(), "zh"),
    Q(L, "哪个月的总销售额最高？", lambda d: d[L].groupby("Month").Sales.sum().idxmax(), "zh"),
    Q(L, "2025年第一季度西部的销售额总共是多少？",
      lambda d: _months(d[L][d[L].Region == "West"], "2025-01", "2025-02", "2025-03").Sales.sum(), "zh"),
    # statsmodels' elnino: YEAR, JAN … DEC (sea surface temperatures).
    Q("sst", "What was the sea surface temperature in January 1998?", lambda d: _sst(d, 1998).JAN),
    Q("sst", "What was the average temperature in 1997?", lambda d: _sst(d, 1997).mean()),
    Q("sst", "In which month of 1983 was the temperature the highest?", lambda d: _sst(d, 1983).idxmax()),
    Q("sst", "What was the highest temperature in March?", lambda d: d["sst"].MAR.max()),
    Q("sst", "Which year had the highest average temperature?",
      lambda d: int(d["sst"].loc[d["sst"][list(MONTHS)].mean(axis=1).idxmax(), "YEAR"])),
    Q("sst", "What was the sea surface temperature in June 2015?", None),
    Q("sst", "1998年1月的海面温度是多少？", lambda d: _sst(d, 1998).JAN, "zh"),
    Q("sst", "1997年的平均海面温度是多少？", lambda d: _sst(d, 1997).mean(), "zh"),
    # vega_datasets' crimea: Month ("Apr 1854"), wounds, other, disease.
    Q("crimea", "How many soldiers died of disease in January 1855?",
      lambda d: d["crimea"][d["crimea"].Month == "Jan 1855"].disease.iloc[0]),
    Q("crimea", "What were the total deaths in 1855?",
      lambda d: _row_total(d["crimea"][d["crimea"].Month.str.endswith("1855")], CAUSES).sum()),
    Q("crimea", "Which month had the most deaths?",
      lambda d: _crimea_month(d["crimea"].loc[_row_total(d["crimea"], CAUSES).idxmax(), "Month"])),
    Q("crimea", "How many deaths from wounds were there in 1854?",
      lambda d: d["crimea"][d["crimea"].Month.str.endswith("1854")].wounds.sum()),
    Q("crimea", "What was the average number of deaths from disease per month?", lambda d: d["crimea"].disease.mean()),
    Q("crimea", "Which cause killed the most soldiers?", lambda d: d["crimea"][list(CAUSES)].sum().idxmax()),
    Q("crimea", "How many soldiers died of disease in May 1857?", None),
    Q("crimea", "1855年1月有多少士兵死于疾病？",
      lambda d: d["crimea"][d["crimea"].Month == "Jan 1855"].disease.iloc[0], "zh"),
    Q("crimea", "1854年因伤死亡的总人数是多少？",
      lambda d: d["crimea"][d["crimea"].Month.str.endswith("1854")].wounds.sum(), "zh"),
    # vega_datasets' barley: yield, variety, year, site.
    Q("barley", "Which site had the highest total yield in 1932?",
      lambda d: _barley(d, year=1932).groupby("site")["yield"].sum().idxmax()),
    Q("barley", "Which variety had the highest yield?", lambda d: d["barley"].groupby("variety")["yield"].sum().idxmax()),
    Q("barley", "What was the average yield at Waseca in 1931?", lambda d: _barley(d, site="Waseca", year=1931)["yield"].mean()),
    Q("barley", "What was the yield of Trebi at Morris in 1932?",
      lambda d: _barley(d, variety="Trebi", site="Morris", year=1932)["yield"].iloc[0]),
    Q("barley", "What was the total yield in 1931?", lambda d: _barley(d, year=1931)["yield"].sum()),
    Q("barley", "What was the yield at Waseca in 1935?", None),
    Q("barley", "1932年哪个地点的总产量最高？",
      lambda d: _barley(d, year=1932).groupby("site")["yield"].sum().idxmax(), "zh"),
    Q("barley", "1931年的平均产量是多少？", lambda d: _barley(d, year=1931)["yield"].mean(), "zh"),
    # statsmodels' danish_data: period ("Q1 1974"), lrm, lry, lpy, ibo, ide.
    Q("danish", "What was the bond rate (ibo) in Q2 1980?",
      lambda d: d["danish"][d["danish"].period == "Q2 1980"].ibo.iloc[0]),
    Q("danish", "What was the average deposit rate (ide) in 1985?", lambda d: _danish(d, 1985, 1985).ide.mean()),
    Q("danish", "In which quarter was the bond rate (ibo) the highest?",
      lambda d: _quarter(d["danish"].loc[d["danish"].ibo.idxmax(), "period"])),
    Q("danish", "What was ide in the third quarter of 1977?",
      lambda d: d["danish"][d["danish"].period == "Q3 1977"].ide.iloc[0]),
    Q("danish", "What was the average ibo between 1980 and 1982?", lambda d: _danish(d, 1980, 1982).ibo.mean()),
    Q("danish", "What was the bond rate (ibo) in Q1 1990?", None),
    Q("danish", "1980年第二季度的ibo是多少？", lambda d: d["danish"][d["danish"].period == "Q2 1980"].ibo.iloc[0], "zh"),
    # statsmodels' fertility, long: Country, Code, Year, Fertility rate.
    Q("fertility", "What was the fertility rate in Mexico in 1980?", lambda d: _fert(d, "Mexico", 1980).iloc[0]),
    Q("fertility", "Which country had the highest fertility rate in 2010?",
      lambda d: (x := d["fertility"][d["fertility"].Year == 2010]).loc[x["Fertility rate"].idxmax(), "Country"]),
    Q("fertility", "What was the average fertility rate of Sweden between 2000 and 2010?",
      lambda d: _fert(d, "Sweden", 2000, 2010).mean()),
    Q("fertility", "What was the fertility rate of Wakanda in 2000?", None),
    Q("fertility", "What was the fertility rate in Egypt in 2020?", None),
    Q("fertility", "1980年墨西哥的生育率是多少？", lambda d: _fert(d, "Mexico", 1980).iloc[0], "zh"),
    Q("fertility", "2000年泰国的生育率是多少？", lambda d: _fert(d, "Thailand", 2000).iloc[0], "zh"),
    Q("fertility", "西班牙在1990年到2000年之间的平均生育率是多少？", lambda d: _fert(d, "Spain", 1990, 2000).mean(), "zh"),
    Q("fertility", "2000年のタイの出生率は？", lambda d: _fert(d, "Thailand", 2000).iloc[0], "ja"),
    # vega_datasets' sf-temps: temp, date ("2010/01/01 00:00:00"), hourly.
    Q("sf", "What was the average temperature in San Francisco in May?", lambda d: _sf(d, "2010-05-01", "2010-06-01").mean()),
    Q("sf", "What was the highest temperature on 2010/07/04?", lambda d: _sf(d, "2010-07-04", "2010-07-05").max()),
    Q("sf", "Which month had the highest average temperature?",
      lambda d: {(m := d["sf"].groupby(d["sf"].date.dt.strftime("%Y-%m")).temp.mean().idxmax()),
                 pd.Timestamp(m).strftime("%B")}),
    Q("sf", "What was the temperature in San Francisco on 2011/03/01?", None),
    Q("sf", "2010年7月旧金山的平均气温是多少？", lambda d: _sf(d, "2010-07-01", "2010-08-01").mean(), "zh"),
]  # fmt: skip


def splits() -> list[str]:
    """Each question's half: the issue's own questions tune; the others shuffled with seed 73, the first
    half (rounded down) tune, the rest held out."""
    rest = [i for i, q in enumerate(QUESTIONS) if not q.issue]
    random.Random(SEED).shuffle(rest)
    tune = set(rest[: len(rest) // 2])
    return ["tune" if q.issue or i in tune else "held-out" for i, q in enumerate(QUESTIONS)]


def said(answer: str, expected: Any) -> bool:
    """Whether ``answer`` states ``expected``: each of a list, any of a set, else ``holds``."""
    if isinstance(expected, list):
        return all(said(answer, v) for v in expected)
    if isinstance(expected, set):
        return any(holds(answer, v) for v in expected)
    if isinstance(expected, np.generic):
        expected = expected.item()
    return holds(answer, expected)


def _shown(v: Any) -> str:
    if isinstance(v, list):
        return "; ".join(_shown(x) for x in v)
    if isinstance(v, set):
        return " | ".join(sorted(map(str, v)))
    if isinstance(v, float | np.floating) and float(v) == int(v):
        return str(int(v))
    return str(v)


def _tally(tally: dict[str, dict[str, int]], part: str, q: Question, answered: bool, ok: bool) -> None:
    t = tally.setdefault(part, {"questions": 0, "right": 0, "absent": 0, "declined": 0})
    if q.expect is None:
        t["absent"] += 1
        t["declined"] += not answered
    else:
        t["questions"] += 1
        t["right"] += ok
    for kind in (q.kind, q.table, "issue" if q.issue else ""):
        if kind:
            k = tally.setdefault(f"{part} {kind}", {"asked": 0, "ok": 0})
            k["asked"] += 1
            k["ok"] += ok


def run(wheels: Path, split: str, show: bool) -> dict[str, dict[str, int]]:
    srcs = sources(wheels)
    frames = {n: s.frame for n, s in srcs.items()}
    halves = splits()
    tally: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        bench = read_tables(srcs, Path(tmp))
        for i, q in enumerate(QUESTIONS):
            part = halves[i]
            if split not in ("both", part):
                continue
            plan, result = ask(bench, q)
            answered = result is not None and not result.empty
            text = f"{result.text} ({result.description})" if answered else ""
            ok = not answered if q.expect is None else answered and said(text, q.expect(frames))
            _tally(tally, part, q, answered, ok)
            if show and (part == "tune" or split == "held-out"):
                want = "declined" if q.expect is None else _shown(q.expect(frames))
                got = result.description if result is not None else "no plan"
                print(f"{'ok ' if ok else 'BAD'} [{q.table}] {q.text}\n    want {want}\n    got  {got}\n"
                      f"    plan {plan}")  # fmt: skip
    return tally


def run_whole(wheels: Path, cache: Path, split: str, show: bool, embedder: str) -> dict[str, dict[str, int]]:
    """The questions of ``split`` through `kimas index` and `kimas ask` (``bench.tables_asked``'s mode
    whole)."""
    from bench.table_asking import Asked, ask_all, index_files

    srcs = sources(wheels)
    frames = {n: s.frame for n, s in srcs.items()}
    halves = splits()
    data = index_files({s.file: s.data for s in srcs.values()}, cache, "layouts", embedder)
    chosen = [(i, q) for i, q in enumerate(QUESTIONS) if split in ("both", halves[i])]
    asked = ask_all(data, [Asked(str(i), q.text) for i, q in chosen])
    (cache / "asked.json").write_text(json.dumps(asked, ensure_ascii=False, indent=1))
    tally: dict[str, dict[str, int]] = {}
    for i, q in chosen:
        r, part = asked[str(i)], halves[i]
        answered = r.get("outcome") == "answered"
        ok = not answered if q.expect is None else answered and said(r.get("answer") or "", q.expect(frames))
        _tally(tally, part, q, answered, ok)
        if show and (part == "tune" or split == "held-out"):
            want = "declined" if q.expect is None else _shown(q.expect(frames))
            print(f"{'ok ' if ok else 'BAD'} [{q.table}] {q.text}\n    want {want}\n    got  "
                  f"{r.get('outcome')}: {(r.get('answer') or '')[:300]}")  # fmt: skip
    return tally


def counts() -> dict[str, int]:
    halves = splits()
    out = {"questions": len(QUESTIONS), "tables": len({q.table for q in QUESTIONS})}
    for kind in ("zh", "ja"):
        out[kind] = sum(q.kind == kind for q in QUESTIONS)
    out["absent"] = sum(q.expect is None for q in QUESTIONS)
    out["held-out"] = halves.count("held-out")
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("wheels", type=Path, help="folder holding the vega_datasets and statsmodels wheels")
    p.add_argument("--split", choices=["tune", "held-out", "both"], default="held-out")
    p.add_argument("--show", action="store_true", help="print each tune question, its plan and result")
    p.add_argument("--mode", choices=["engine", "whole"], default="engine")
    p.add_argument(
        "--cache", type=Path, default=Path("/tmp/kimas-tables-layouts"), help="mode whole's folder"
    )
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
