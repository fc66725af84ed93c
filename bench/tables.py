"""Table questions answered in code (issue 43): the computed value in the answer, and absent rows declined.

    .venv/bin/pip download --no-deps scikit-learn statsmodels -d /tmp/wheels
    .venv/bin/python -m bench.tables /tmp/wheels [--split dev|held-out|both] [--show] [--choose]

Real tables that ship in packages, read from the wheels at bench time (nothing of them is committed):
statsmodels' statecrime, grunfeld, longley, cpunish, co2 (its YYYYMMDD column read as dates), nile,
scotvote, china_smoking and copper, scikit-learn's iris (its header written out from the package's
documentation). Each question's answer is computed by pandas here; the absent ones name a row the table
does not hold (a date outside its range, a name it lacks) and must be declined.

Mode ``engine`` (the default): the planner (``kimas_desktop.answer.tables``) and the engine
(``indexer.tables.engine``) over the tables as Arrow, the column kinds and samples as the indexer
describes them (up to 50 distinct values as text), and, standing in for the search, the five rows whose
"Header: value; …" text shares most words with the question. The questions are split by their place:
even ones are the dev half (looked at while building), odd ones held out (not looked at). With
``--choose`` each question is planned over the table the planner scores highest among all ten (as the
product chooses among the files the search found), not its own: a name another table holds then reaches
a table that lacks what is asked ("How many executions did Ohio have?" over statecrime).

Mode ``product``: the tables written as files (``XLSX`` ones as .xlsx with xlsxwriter, one sheet named
"Data"; the others as .csv), indexed into one collection of a fresh data directory with `kimas index`,
and every question asked through `kimas ask --batch --json` with the embedded models. The value must be
in the answer's text; an absent one must not be answered (declined or nothing found).

    .venv/bin/python -m bench.tables /tmp/wheels --mode product [--cache /tmp/kimas-tables-bench]
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from bench.devkit import kimas_batch
from bench.table_values import holds
from bench.workspace import configure
from indexer.tables.engine import ArrowEngine
from kimas_desktop.answer.tables.planner import TablePlanner
from kimas_desktop.answer.tables.reading import keys
from kimas_desktop.tables import TableColumn, TableInfo

IRIS = ["sepal length", "sepal width", "petal length", "petal width", "species"]
STATSMODELS = {
    "statecrime": "statecrime/statecrime.csv",
    "grunfeld": "grunfeld/grunfeld.csv",
    "longley": "longley/longley.csv",
    "cpunish": "cpunish/cpunish.csv",
    "co2": "co2/co2.csv",
    "nile": "nile/nile.csv",
    "scotvote": "scotland/scotvote.csv",
    "china_smoking": "china_smoking/china_smoking.csv",
    "copper": "copper/copper.csv",
}


def _wheel(wheels: Path, name: str) -> zipfile.ZipFile:
    found = sorted(wheels.glob(f"{name}-*.whl"))
    if not found:
        raise SystemExit(
            f"no {name} wheel in {wheels}: pip download --no-deps scikit-learn statsmodels -d DIR"
        )
    return zipfile.ZipFile(found[-1])


def load(wheels: Path) -> dict[str, pd.DataFrame]:
    """The bench's tables as pandas read them from the wheels."""
    sm = _wheel(wheels, "statsmodels")
    out = {
        name: pd.read_csv(io.BytesIO(sm.read(f"statsmodels/datasets/{path}")))
        for name, path in STATSMODELS.items()
    }
    out["co2"]["date"] = pd.to_datetime(out["co2"]["date"].astype(str), format="%Y%m%d")
    sk = _wheel(wheels, "scikit_learn")
    iris = pd.read_csv(io.BytesIO(sk.read("sklearn/datasets/data/iris.csv")), skiprows=1, header=None)
    iris.columns = IRIS
    iris["species"] = iris["species"].map({0: "setosa", 1: "versicolor", 2: "virginica"})
    out["iris"] = iris
    return out


def _kind(s: pd.Series) -> str:
    if pd.api.types.is_datetime64_any_dtype(s):
        return "date"
    return "number" if pd.api.types.is_numeric_dtype(s) else "text"


def _text(v: Any) -> str:
    if isinstance(v, pd.Timestamp):
        return v.date().isoformat()
    if isinstance(v, float) and v != v:
        return ""
    if isinstance(v, float) and v == int(v):
        return str(int(v))
    return str(v)


def table_of(name: str, df: pd.DataFrame, folder: Path) -> tuple[TableInfo, pa.Table]:
    """The table as the indexer describes and stores it (kinds, first 50 distinct values, ``_row``)."""
    columns = []
    for c in df.columns:
        samples = tuple(dict.fromkeys(_text(v) for v in df[c].dropna()))[:50]
        columns.append(TableColumn(str(c), _kind(df[c]), samples))  # type: ignore[arg-type]
    data = {}
    for c in df.columns:
        s = df[c]
        if _kind(s) == "number":
            data[str(c)] = pa.array(s.astype("float64"), pa.float64())
        elif _kind(s) == "date":
            data[str(c)] = pa.array(s.dt.date, pa.date32())
        else:
            data[str(c)] = pa.array(s.astype(str), pa.string())
    data["_row"] = pa.array(range(2, len(df) + 2), pa.int64())  # header on row 1
    source = str(folder / f"{name}.csv")
    info = TableInfo(name, "bench", source, "", 1, tuple(columns), len(df))
    return info, pa.table(data)


class FrameShelf:
    def __init__(self, tables: dict[str, tuple[TableInfo, pa.Table]]) -> None:
        self._tables = tables

    def arrow(self, table: TableInfo) -> pa.Table:
        return self._tables[table.table_id][1]


def row_lines(info: TableInfo, df: pd.DataFrame) -> list[str]:
    return [
        "; ".join(f"{c}: {_text(v)}" for c, v in zip(df.columns, r, strict=True))
        for r in df.itertuples(index=False)
    ]


def found_rows(question: str, lines: list[str], k: int = 5) -> list[str]:
    """Standing in for the search: the ``k`` row lines that share most keys with the question."""
    want = set(keys(question))
    scored = sorted(((len(want & set(keys(line))), i) for i, line in enumerate(lines)), reverse=True)
    return [lines[i] for s, i in scored[:k] if s > 0]


Expect = Callable[[dict[str, pd.DataFrame]], Any]


@dataclass(frozen=True)
class Question:
    table: str
    text: str
    expect: Expect | None  # None: the table holds no row it asks for (declined)


def _at(df: pd.DataFrame, where: dict[str, Any], col: str) -> Any:
    m = pd.Series(True, index=df.index)
    for k, v in where.items():
        m &= df[k] == v
    return df.loc[m, col].iloc[0]


def _arg(df: pd.DataFrame, col: str, label: str, largest: bool = True) -> Any:
    return df.loc[df[col].idxmax() if largest else df[col].idxmin(), label]


def _year(df: pd.DataFrame, y: int, month: int | None = None) -> pd.DataFrame:
    d = df[df["date"].dt.year == y]
    return d if month is None else d[d["date"].dt.month == month]


Q = Question
QUESTIONS: list[Question] = [
    Q(
        "statecrime",
        "What is the murder rate of Texas?",
        lambda d: _at(d["statecrime"], {"state": "Texas"}, "murder"),
    ),
    Q(
        "statecrime",
        "What is the poverty of Alabama?",
        lambda d: _at(d["statecrime"], {"state": "Alabama"}, "poverty"),
    ),
    Q(
        "statecrime",
        "How many states have a murder rate above 10?",
        lambda d: int((d["statecrime"].murder > 10).sum()),
    ),
    Q("statecrime", "What is the average poverty of the states?", lambda d: d["statecrime"].poverty.mean()),
    Q(
        "statecrime",
        "Which state has the highest murder rate?",
        lambda d: _arg(d["statecrime"], "murder", "state"),
    ),
    Q(
        "statecrime",
        "Which state has the lowest hs_grad?",
        lambda d: _arg(d["statecrime"], "hs_grad", "state", False),
    ),
    Q("statecrime", "What is the highest violent crime rate?", lambda d: d["statecrime"].violent.max()),
    Q("statecrime", "What is the sum of violent over all states?", lambda d: d["statecrime"].violent.sum()),
    Q(
        "statecrime",
        "What are the top 3 states by poverty?",
        lambda d: _arg(d["statecrime"], "poverty", "state"),
    ),
    Q(
        "statecrime",
        "How many states have poverty below 10?",
        lambda d: int((d["statecrime"].poverty < 10).sum()),
    ),
    Q(
        "statecrime",
        "What is the difference in murder between Louisiana and Maine?",
        lambda d: (
            _at(d["statecrime"], {"state": "Louisiana"}, "murder")
            - _at(d["statecrime"], {"state": "Maine"}, "murder")
        ),
    ),
    Q(
        "statecrime",
        "What is the single of Wyoming?",
        lambda d: _at(d["statecrime"], {"state": "Wyoming"}, "single"),
    ),
    Q(
        "grunfeld",
        "What was the invest of General Motors in 1940?",
        lambda d: _at(d["grunfeld"], {"firm": "General Motors", "year": 1940}, "invest"),
    ),
    Q(
        "grunfeld",
        "What is the average invest for each firm?",
        lambda d: d["grunfeld"].groupby("firm").invest.mean().max(),
    ),
    Q(
        "grunfeld",
        "Which firm had the highest invest in 1954?",
        lambda d: _arg(d["grunfeld"][d["grunfeld"].year == 1954], "invest", "firm"),
    ),
    Q(
        "grunfeld",
        "What was the total invest of US Steel?",
        lambda d: d["grunfeld"][d["grunfeld"].firm == "US Steel"].invest.sum(),
    ),
    Q(
        "grunfeld",
        "How many rows are there for Chrysler?",
        lambda d: int((d["grunfeld"].firm == "Chrysler").sum()),
    ),
    Q(
        "grunfeld",
        "What was the maximum capital of IBM?",
        lambda d: d["grunfeld"][d["grunfeld"].firm == "IBM"].capital.max(),
    ),
    Q(
        "grunfeld",
        "Which firm has the largest total value?",
        lambda d: d["grunfeld"].groupby("firm").value.sum().idxmax(),
    ),
    Q(
        "grunfeld",
        "What was the lowest invest of Goodyear?",
        lambda d: d["grunfeld"][d["grunfeld"].firm == "Goodyear"].invest.min(),
    ),
    Q("longley", "What was the GNP in 1950?", lambda d: _at(d["longley"], {"YEAR": 1950}, "GNP")),
    Q("longley", "What was the average UNEMP?", lambda d: d["longley"].UNEMP.mean()),
    Q("longley", "In which year was TOTEMP highest?", lambda d: _arg(d["longley"], "TOTEMP", "YEAR")),
    Q("longley", "What was the total ARMED?", lambda d: d["longley"].ARMED.sum()),
    Q(
        "longley",
        "What is the difference in GNP between 1962 and 1947?",
        lambda d: _at(d["longley"], {"YEAR": 1962}, "GNP") - _at(d["longley"], {"YEAR": 1947}, "GNP"),
    ),
    Q("longley", "How many years had UNEMP above 4000?", lambda d: int((d["longley"].UNEMP > 4000).sum())),
    Q(
        "cpunish",
        "How many executions did Texas have?",
        lambda d: _at(d["cpunish"], {"STATE": "Texas"}, "EXECUTIONS"),
    ),
    Q("cpunish", "Which state had the most executions?", lambda d: _arg(d["cpunish"], "EXECUTIONS", "STATE")),
    Q("cpunish", "What is the total number of executions?", lambda d: d["cpunish"].EXECUTIONS.sum()),
    Q("cpunish", "What is the average INCOME of the states?", lambda d: d["cpunish"].INCOME.mean()),
    Q("cpunish", "How many states have SOUTH equal to 1?", lambda d: int((d["cpunish"].SOUTH == 1).sum())),
    Q(
        "cpunish",
        "What is the PERPOVERTY of Virginia?",
        lambda d: _at(d["cpunish"], {"STATE": "Virginia"}, "PERPOVERTY"),
    ),
    Q("co2", "What was the co2 on 1958-03-29?", lambda d: d["co2"].co2.iloc[0]),
    Q("co2", "What was the co2 on April 5, 1958?", lambda d: d["co2"].co2.iloc[1]),
    Q("co2", "What was the average co2 in 1990?", lambda d: _year(d["co2"], 1990).co2.mean()),
    Q("co2", "What was the highest co2 in 2000?", lambda d: _year(d["co2"], 2000).co2.max()),
    Q(
        "co2",
        "On which date was co2 the lowest?",
        lambda d: _arg(d["co2"], "co2", "date", False).date().isoformat(),
    ),
    Q("co2", "How many measurements were taken in 1975?", lambda d: len(_year(d["co2"], 1975))),
    Q("co2", "What was the average co2 in March 1980?", lambda d: _year(d["co2"], 1980, 3).co2.mean()),
    Q("nile", "What was the volume in 1900?", lambda d: _at(d["nile"], {"year": 1900}, "volume")),
    Q("nile", "In which year was the volume lowest?", lambda d: _arg(d["nile"], "volume", "year", False)),
    Q("nile", "What was the average volume?", lambda d: d["nile"].volume.mean()),
    Q("nile", "How many years had a volume above 1000?", lambda d: int((d["nile"].volume > 1000).sum())),
    Q(
        "nile",
        "What is the difference in volume between 1871 and 1913?",
        lambda d: _at(d["nile"], {"year": 1871}, "volume") - _at(d["nile"], {"year": 1913}, "volume"),
    ),
    Q(
        "scotvote",
        "What was the YES vote in Glasgow City?",
        lambda d: _at(d["scotvote"], {"COUNCILDIST": "Glasgow_City"}, "YES"),
    ),
    Q(
        "scotvote",
        "Which council district had the highest COUTAX?",
        lambda d: _arg(d["scotvote"], "COUTAX", "COUNCILDIST"),
    ),
    Q("scotvote", "What is the average GDP?", lambda d: d["scotvote"].GDP.mean()),
    Q("scotvote", "How many districts have YES above 60?", lambda d: int((d["scotvote"].YES > 60).sum())),
    Q(
        "iris",
        "What is the average petal length of setosa?",
        lambda d: d["iris"][d["iris"].species == "setosa"]["petal length"].mean(),
    ),
    Q(
        "iris",
        "How many virginica flowers are there?",
        lambda d: int((d["iris"].species == "virginica").sum()),
    ),
    Q(
        "iris",
        "What is the maximum sepal width for versicolor?",
        lambda d: d["iris"][d["iris"].species == "versicolor"]["sepal width"].max(),
    ),
    Q(
        "iris",
        "What is the average sepal length for each species?",
        lambda d: d["iris"].groupby("species")["sepal length"].mean().max(),
    ),
    Q("iris", "What is the total petal width?", lambda d: d["iris"]["petal width"].sum()),
    Q(
        "china_smoking",
        "What is the smoking_yes_cancer_yes of Shanghai?",
        lambda d: _at(d["china_smoking"], {"Location": "Shanghai"}, "smoking_yes_cancer_yes"),
    ),
    Q(
        "china_smoking",
        "Which location has the highest smoking_no_cancer_no?",
        lambda d: _arg(d["china_smoking"], "smoking_no_cancer_no", "Location"),
    ),
    Q(
        "china_smoking",
        "What is the total smoking_yes_cancer_no?",
        lambda d: d["china_smoking"].smoking_yes_cancer_no.sum(),
    ),
    Q(
        "copper",
        "What was the COPPERPRICE in 1960?",
        lambda d: _at(d["copper"], {"YEAR": 1960}, "COPPERPRICE"),
    ),
    Q(
        "copper",
        "In which year was WORLDCONSUMPTION highest?",
        lambda d: _arg(d["copper"], "WORLDCONSUMPTION", "YEAR"),
    ),
    Q("copper", "What was the average ALUMPRICE?", lambda d: d["copper"].ALUMPRICE.mean()),
    Q(
        "copper",
        "What were the top 3 years by COPPERPRICE?",
        lambda d: _arg(d["copper"], "COPPERPRICE", "YEAR"),
    ),
    Q(
        "statecrime",
        "What is the white of Vermont?",
        lambda d: _at(d["statecrime"], {"state": "Vermont"}, "white"),
    ),
    Q(
        "statecrime",
        "How many states have urban above 80?",
        lambda d: int((d["statecrime"].urban > 80).sum()),
    ),
    Q(
        "grunfeld",
        "What was the average value of IBM?",
        lambda d: d["grunfeld"][d["grunfeld"].firm == "IBM"].value.mean(),
    ),
    Q("grunfeld", "How many rows have invest above 500?", lambda d: int((d["grunfeld"].invest > 500).sum())),
    Q("longley", "What was the POP in 1955?", lambda d: _at(d["longley"], {"YEAR": 1955}, "POP")),
    Q("longley", "What was the lowest GNPDEFL?", lambda d: d["longley"].GNPDEFL.min()),
    Q(
        "cpunish",
        "Which state has the lowest DEGREE?",
        lambda d: _arg(d["cpunish"], "DEGREE", "STATE", False),
    ),
    Q("co2", "What was the maximum co2?", lambda d: d["co2"].co2.max()),
    Q("nile", "What was the highest volume?", lambda d: d["nile"].volume.max()),
    Q("iris", "What is the minimum petal length?", lambda d: d["iris"]["petal length"].min()),
    Q(
        "statecrime",
        "What is the average murder in states with poverty above 15?",
        lambda d: d["statecrime"][d["statecrime"].poverty > 15].murder.mean(),
    ),
    Q(
        "grunfeld",
        "What was the invest of Westinghouse in 1950?",
        lambda d: _at(d["grunfeld"], {"firm": "Westinghouse", "year": 1950}, "invest"),
    ),
    # Absent: the table holds no row the question asks for.
    Q("co2", "What was the co2 on 2030-01-01?", None),
    Q("statecrime", "What is the murder rate of Ontario?", None),
    Q("grunfeld", "What was the invest of Ford in 1940?", None),
    Q("nile", "What was the volume in 1800?", None),
    Q("longley", "What was the GNP in 1990?", None),
    Q("cpunish", "How many executions did Ohio have?", None),
    Q("iris", "How many tulip flowers are there?", None),
    Q("copper", "What was the COPPERPRICE in 2010?", None),
    Q("scotvote", "What was the YES vote in Paris?", None),
    Q("grunfeld", "Which firm had the highest invest in 1990?", None),
    Q("co2", "What was the co2 on March 3, 1957?", None),
    Q("china_smoking", "What is the smoking_yes_cancer_yes of Tokyo?", None),
    Q("statecrime", "What is the poverty of Puerto Rico?", None),
    Q("co2", "What was the average co2 in 1950?", None),
    # More absent ones (added with the tables inside documents, before any was asked): six of each half.
    Q("cpunish", "What is the INCOME of Nevada?", None),
    Q("nile", "What was the volume in 1750?", None),
    Q("copper", "What was the WORLDCONSUMPTION in 1900?", None),
    Q("statecrime", "What is the violent rate of Quebec?", None),
    Q("grunfeld", "What was the total invest of Microsoft?", None),
    Q("china_smoking", "What is the smoking_no_cancer_no of Seoul?", None),
    Q("co2", "What was the highest co2 in 2025?", None),
    Q("scotvote", "What was the COUTAX in Cardiff?", None),
    Q("iris", "What is the average petal length of the daisy flowers?", None),
    Q("longley", "What was the UNEMP in 1930?", None),
    Q("grunfeld", "What was the capital of Toyota in 1945?", None),
    Q("cpunish", "How many executions did Michigan have?", None),
]


def split_of(i: int) -> str:
    return "dev" if i % 2 == 0 else "held-out"


def _chosen(planner: TablePlanner, question: str, tables: dict[str, Any], lines: dict[str, list[str]]) -> str:
    """The table the planner scores highest among all of them (``TableAnswerer`` chooses so among the
    files of the top passages); ties go to the first."""
    scores = {n: planner.score(question, tables[n][0], found_rows(question, lines[n])) for n in tables}
    return max(scores, key=lambda n: scores[n])


def run_engine(wheels: Path, split: str, show: bool, choose: bool = False) -> dict[str, Any]:
    frames = load(wheels)
    tables = {n: table_of(n, df, Path("/bench")) for n, df in frames.items()}
    lines = {n: row_lines(tables[n][0], frames[n]) for n in frames}
    engine, planner = ArrowEngine(FrameShelf(tables)), TablePlanner()
    tally: dict[str, dict[str, int]] = {}
    for i, q in enumerate(QUESTIONS):
        part = split_of(i)
        if split != "both" and part != split:
            continue
        name = _chosen(planner, q.text, tables, lines) if choose else q.table
        info = tables[name][0]
        plan = planner.plan(q.text, info, found_rows(q.text, lines[name]))
        result = engine.run(info, plan) if plan is not None else None
        answered = result is not None and not result.empty
        t = tally.setdefault(part, {"questions": 0, "right": 0, "absent": 0, "declined": 0})
        if q.expect is None:
            t["absent"] += 1
            t["declined"] += not answered
            ok = not answered
        else:
            t["questions"] += 1
            said = f"{result.text} ({result.description})" if result is not None and answered else ""
            ok = answered and holds(said, q.expect(frames))
            t["right"] += ok
        if show and part == "dev":
            want = "declined" if q.expect is None else q.expect(frames)
            got = "declined" if not answered or result is None else result.description
            print(f"{'ok ' if ok else 'BAD'} {q.text}\n    want {want}\n    got  {got}\n    plan {plan}")
    return tally


XLSX = ("grunfeld", "statecrime", "iris", "copper", "co2")


def write_files(frames: dict[str, pd.DataFrame], folder: Path) -> None:
    """Each table as the user would keep it: a workbook (sheet "Data") or a CSV."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, df in frames.items():
        if name in XLSX:
            with pd.ExcelWriter(folder / f"{name}.xlsx", engine="xlsxwriter", date_format="yyyy-mm-dd") as w:
                df.to_excel(w, sheet_name="Data", index=False)
        else:
            df.to_csv(folder / f"{name}.csv", index=False)


def run_product(wheels: Path, cache: Path, split: str, show: bool) -> dict[str, Any]:
    frames = load(wheels)
    folder, data = cache / "tables", cache / "data"
    shutil.rmtree(cache, ignore_errors=True)
    write_files(frames, folder)
    configure(data, {"tables": folder})
    cmd = [sys.executable, "-m", "cli.main", "index", str(folder), "--data-dir", str(data)]
    subprocess.run([*cmd, "--collection", "tables", "--quiet"], check=True)
    chosen = [(i, q) for i, q in enumerate(QUESTIONS) if split in ("both", split_of(i))]
    items = [{"id": str(i), "question": q.text} for i, q in chosen]
    asked = kimas_batch("ask", data, items, "--json")
    (cache / "asked.json").write_text(json.dumps(asked, ensure_ascii=False, indent=1))  # each answer, to read
    tally: dict[str, dict[str, int]] = {}
    for i, q in chosen:
        r = asked[str(i)]
        part = split_of(i)
        answered = r.get("outcome") == "answered"
        t = tally.setdefault(part, {"questions": 0, "right": 0, "absent": 0, "declined": 0})
        if q.expect is None:
            t["absent"] += 1
            t["declined"] += not answered
            ok = not answered
        else:
            t["questions"] += 1
            ok = answered and holds(r.get("answer") or "", q.expect(frames))
            t["right"] += ok
        if show and part == "dev":
            want = "declined" if q.expect is None else q.expect(frames)
            print(
                f"{'ok ' if ok else 'BAD'} {q.text}\n    want {want}\n    got  {r.get('outcome')}: {r.get('answer')}"
            )
    return tally


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("wheels", type=Path, help="folder holding the scikit-learn and statsmodels wheels")
    p.add_argument("--split", choices=["dev", "held-out", "both"], default="both")
    p.add_argument("--show", action="store_true", help="print each dev question, its plan and result")
    p.add_argument("--mode", choices=["engine", "product"], default="engine")
    p.add_argument("--cache", type=Path, default=Path("/tmp/kimas-tables-bench"))
    p.add_argument(
        "--choose",
        action="store_true",
        help="engine mode: plan over the table the planner scores highest among all ten, not the question's own",
    )
    args = p.parse_args()
    if args.mode == "product":
        tally = run_product(args.wheels, args.cache, args.split, args.show)
    else:
        tally = run_engine(args.wheels, args.split, args.show, args.choose)
    for part, t in tally.items():
        t_right = t["right"] / t["questions"] if t["questions"] else 0.0
        t_decl = t["declined"] / t["absent"] if t["absent"] else 0.0
        print(f"{part}: value in the answer {t['right']}/{t['questions']} ({t_right:.2f}); "
              f"absent declined {t['declined']}/{t['absent']} ({t_decl:.2f})")  # fmt: skip
    print(json.dumps(tally))


if __name__ == "__main__":
    main()
