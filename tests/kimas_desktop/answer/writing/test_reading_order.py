"""An answer's sources numbered as a reader meets them, whole (the chat, the API's content) and as it streams
to an output that cannot take back what it sent (``kimas ask``, the API's stream): issue 69, "citation
numbers start at [2] or [3]"."""

from __future__ import annotations

from kimas_desktop.answer.writing.reading_order import StreamNumbering, in_reading_order
from kimas_desktop.types import Chunk, Citation, Quote


def _chunk(n: int, name: str, text: str) -> Chunk:
    return Chunk(f"c{n}", "docs", f"/d/{name}", text, line_start=n, line_end=n)


WALKS = _chunk(2, "walks.md", "安娜每天遛雷克斯三十分钟。")
LOVE = _chunk(10, "love.md", "雷克斯爱安娜。")
PARK = _chunk(5, "park.md", "他们在公园里散步 [12]。")
QUOTE = Quote(2, WALKS, 0, len(WALKS.text), WALKS.text, 0.9)
CITED = (Citation(2, WALKS, WALKS.text), Citation(10, LOVE, LOVE.text), Citation(5, PARK, PARK.text))


def test_a_stream_sends_each_marker_once_it_is_whole_in_the_numbers_a_reader_meets() -> None:
    stream = StreamNumbering()
    assert stream.quoted([QUOTE]) == {2: 1}  # the quote is shown first: [1]
    sent = [stream.add(d) for d in ("安娜每天遛它三十分钟[", "2", "]。雷克斯爱安娜 [1", "0, 2]。")]
    assert sent[0] == "安娜每天遛它三十分钟" and sent[1] == ""  # "[" and "[2" wait for their end
    assert "".join(sent) == "安娜每天遛它三十分钟[1]。雷克斯爱安娜 [2, 1]。"
    assert stream.said("雷克斯爱安娜 [10, 2]。") == "雷克斯爱安娜 [2, 1]。"  # a flagged sentence, as sent
    rest, order = stream.end(None, (), CITED)
    assert rest == ""
    assert [(c.n, c.chunk.source) for c in order.citations] == [(1, "/d/walks.md"), (2, "/d/love.md"),
                                                                (3, "/d/park.md")]  # fmt: skip
    assert order.answer == "".join(sent) + rest and [q.n for q in order.quotes] == [1]


def test_a_stream_that_was_set_aside_ends_with_the_final_text_in_the_same_numbers() -> None:
    stream = StreamNumbering(quote_first=False)
    stream.quoted([QUOTE])
    assert stream.add("अन्ना रोज़ रेक्स को घुमाती थी [10]।") == "अन्ना रोज़ रेक्स को घुमाती थी [1]।"
    final = "आपके दस्तावेज़ों में लिखा है: “安娜每天遛雷克斯三十分钟。” [2]"
    rest, order = stream.end(final, (), CITED[:2])
    assert rest == "\n\n" + final and order.numbers == {10: 1, 2: 2}


def test_a_whole_answer_drops_a_marker_to_a_source_it_does_not_list_and_keeps_the_documents_own() -> None:
    answer = "他们在公园里散步 [12]。安娜每天遛它 [2]。雷克斯爱安娜 [7]。"
    park = Quote(5, PARK, 0, len(PARK.text), "他们在公园里散步 [12]", 0.9)
    order = in_reading_order(answer, (), (CITED[2], CITED[0]), (park,), quote_first=False)
    assert order.answer == "他们在公园里散步 [12]。安娜每天遛它 [1]。雷克斯爱安娜。"
    assert [(c.n, c.chunk.source) for c in order.citations] == [(1, "/d/walks.md"), (2, "/d/park.md")]
    assert order.quotes[0].n == 2  # the quote, not shown above this answer, comes after its markers
