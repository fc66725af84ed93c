"""Chinese follow-ups bind to the turn they follow (issue 69): "它的第二个阶段是什么？" after a question about
KAG and then one about RAGentA is about RAGentA. The context manager's rules on Chinese (pronouns, names
written in Latin letters inside a Chinese question), the real multilingual-e5-small, and the real pipeline
over two of the seed papers indexed into LanceDB."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import local_models
from app.paths import Paths
from app.runtime import Runtime
from kimas_desktop.config import ContextConfig, EmbeddingModelConfig, parse_config
from kimas_desktop.context.dependence import TurnDependence, names_its_subject, unresolved_reference
from kimas_desktop.context.manager import QueryContextualizer
from kimas_desktop.protocols import Embedder
from kimas_desktop.text.words import named, words
from kimas_desktop.types import Message
from local_models.catalog.catalog import MULTILINGUAL_EMBEDDER
from local_models.fake import ScriptedChatModel

PAPERS = Path(__file__).resolve().parents[4] / "shared" / "papers"
KAG_Q = "KAG 框架由哪几部分组成？"
KAG_A = "KAG 框架由三部分组成：KAG-Builder、KAG-Solver 和 KAG-Model。KAG-Builder 用于离线索引。"
RAGENTA_Q = "RAGentA 的检索是怎么做的？"
RAGENTA_A = "框架的第一阶段是一个混合检索系统，结合密集检索和稀疏检索：稀疏检索基于 BM25。"
SECOND = "它的第二个阶段是什么？"


def chat(files: tuple[str, str] = ("", "")) -> list[Message]:
    """KAG, then RAGentA; each answer names its paper when ``files`` are given."""
    kag, ragenta = ((f,) if f else () for f in files)
    return [
        Message("user", KAG_Q),
        Message("assistant", KAG_A, kag),
        Message("user", RAGENTA_Q),
        Message("assistant", RAGENTA_A, ragenta),
    ]


def test_a_chinese_pronoun_refers_back_unless_a_name_before_it_says_what() -> None:
    assert unresolved_reference(SECOND) == "它"
    assert unresolved_reference("该框架的 Recall@20 提升了多少？") == "该"
    assert unresolved_reference("其中哪个智能体是新增的？") == "其中"
    assert unresolved_reference("那它的忠实度评分范围呢？") == "那"
    assert unresolved_reference("RAGentA 和它的基线有什么不同？") is None  # the name says what 它 is
    assert unresolved_reference(RAGENTA_Q) is None
    assert unresolved_reference("这次开源的是哪两个模块？") is None  # 这次 ("this time") points nowhere


def test_a_word_in_latin_letters_names_something_in_a_chinese_or_hindi_question() -> None:
    assert named(RAGENTA_Q) == ["RAGentA"]  # the first word, not capitalised as an English name
    assert named("它的 solver 入口在哪里？") == ["solver"]
    assert named(SECOND) == []
    assert named("RAGentA का दूसरा चरण क्या है?") == ["RAGentA"]  # Hindi: as in English, a name by its capital
    assert named("What did Tesla study?") == ["Tesla"]  # English: its names and acronyms, as before
    assert names_its_subject(RAGENTA_Q)  # a name and a word of its own stand alone in Chinese
    assert not names_its_subject("What about RAGentA?")
    assert words(SECOND)[0] == "它"


@pytest.fixture(scope="module")
def e5(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    cfg = EmbeddingModelConfig(name=MULTILINGUAL_EMBEDDER)
    return local_models.build_embedder(cfg, tmp_path_factory.mktemp("models"))


def test_the_follow_up_binds_to_ragenta_not_to_the_older_kag(e5: Embedder) -> None:
    """The reported case: the topic restarts where a question names a new subject (RAGentA), so the
    pronoun's turns are that exchange's, and the search query carries RAGentA, not KAG."""
    ctx = QueryContextualizer(ScriptedChatModel([]), ContextConfig(rewrite="heuristic"), TurnDependence(e5))
    history = chat()
    out = ctx.rewrite(SECOND, history)
    assert out.decision.depends == "previous" and out.decision.turns == (2, 3)
    query = {w.casefold() for w in words(out.query)}
    assert "ragenta" in query and "kag" not in query, out.query
    # the turn that names RAGentA stood alone: asked after KAG, it is searched as asked
    assert ctx.rewrite(RAGENTA_Q, history[:2]).query == RAGENTA_Q


@pytest.fixture(scope="module")
def papers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Runtime, Path]]:
    tmp = tmp_path_factory.mktemp("papers")
    docs = tmp / "docs"
    docs.mkdir()
    for name in ("kag.zh.txt", "ragenta.zh.txt"):
        (docs / name).write_text((PAPERS / name).read_text("utf-8"), "utf-8")
    config = parse_config(
        {"collections": {"papers": {"folders": [str(docs)]}}, "embedding": {"name": MULTILINGUAL_EMBEDDER}}
    )
    rt = Runtime(Paths(tmp / "data", tmp / "data" / "config.toml"), config)
    report = rt.indexer().index("papers", [docs])
    assert report.indexed == 2 and not report.problems, report
    yield rt, docs
    rt.close()


@pytest.mark.slow
def test_the_follow_up_search_finds_ragenta_s_second_stage(papers: tuple[Runtime, Path]) -> None:
    """Through the real pipeline (embedded models, LanceDB): the follow-up's first passage is RAGentA's,
    the one about its multi-agent architecture; before, its query was KAG's and so were its passages."""
    rt, docs = papers
    history = chat((str(docs / "kag.zh.txt"), str(docs / "ragenta.zh.txt")))
    result = rt.pipeline().retrieve(SECOND, history)
    assert "RAGentA" in result.query and "KAG" not in words(result.query), result.query
    assert Path(result.hits[0].chunk.source).name == "ragenta.zh.txt", [h.chunk.source for h in result.hits]
