"""bench.mixed_languages: a question's gold is the chunk that holds its aligned paragraph (whitespace aside,
in any script), and the query-time options change only the question's dense searches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bench.mixed_languages import Option, QueryTimeSearcher, holds
from kimas_desktop.types import Chunk, Hit

ZH = "Libtool 是一个 shell 脚本，当从源代码编译共享库时，用来定位软件的移植性问题。它还有别的用途。"
HI = "गंगा भारत की सबसे लंबी नदी है। यह हिमालय से निकलती है।"


def test_a_chunk_holds_its_paragraph_whatever_the_line_breaks() -> None:
    chunk = "前一段。\n\nLibtool 是一个 shell\n脚本，当从源代码编译共享库时，用来定位软件的移植性问题。它还有别的用途。"
    assert holds(chunk, ZH)
    assert holds("यह दस्तावेज़ कहता है: गंगा भारत की सबसे लंबी नदी है।", HI)  # one sentence of it
    assert holds("用来定位软件的移植性问题", ZH)  # a quote inside it
    assert not holds("这里有几种可用于 POSIX shell 的循环形式。", ZH)
    assert not holds("दिल्ली भारत की राजधानी है।", HI)


class _Store:
    """Records each search; returns one hit named after the files it was kept to."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[str, ...], Any]] = []

    def search(
        self, collection: str, *, text: str, vector: Any, k: int, mode: str, sources: Sequence[str] = ()
    ) -> list[Hit]:
        self.calls.append((mode, tuple(sources), np.asarray(vector)))
        name = ",".join(sources) or "all"
        return [Hit(Chunk(name, collection, name, text), 1.0)]


def test_other_scripts_add_a_dense_search_of_the_other_script_files_only() -> None:
    store = _Store()
    means = {"en": np.array([1.0, 0.0], dtype=np.float32)}
    scripts = {"a.en.html": "LATIN", "b.zh-cn.html": "CJK"}
    searcher = QueryTimeSearcher(store, Option("b", other_scripts=True), means, scripts)
    hits = searcher.search("c", text="What is libtool for?", vector=np.array([0.6, 0.8]), k=4, mode="hybrid")
    assert [(m, s) for m, s, _ in store.calls] == [("hybrid", ()), ("dense", ("b.zh-cn.html",))]
    assert {h.chunk.chunk_id for h in hits} == {"all", "b.zh-cn.html"}
    np.testing.assert_allclose(store.calls[0][2], [0.6, 0.8])  # no centering asked


def test_centering_takes_the_question_languages_mean_off_the_dense_vector() -> None:
    store = _Store()
    means = {"en": np.array([1.0, 0.0], dtype=np.float32)}
    searcher = QueryTimeSearcher(store, Option("a", alpha=0.5), means, {"a.en.html": "LATIN"})
    searcher.search("c", text="What is libtool for?", vector=np.array([0.6, 0.8]), k=4, mode="dense")
    searcher.search("c", text="libtool 是什么？", vector=np.array([0.6, 0.8]), k=4, mode="dense")
    english, chinese = (v for _, _, v in store.calls)
    np.testing.assert_allclose(english, np.array([0.1, 0.8]) / np.hypot(0.1, 0.8), rtol=1e-6)
    np.testing.assert_allclose(chinese, [0.6, 0.8])  # no zh-cn mean given: unchanged
