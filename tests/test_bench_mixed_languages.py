"""bench.mixed_languages: a question's gold is the chunk that holds its aligned paragraph (whitespace aside,
in any script)."""

from __future__ import annotations

from bench.mixed_languages import holds

ZH = "Libtool 是一个 shell 脚本，当从源代码编译共享库时，用来定位软件的移植性问题。它还有别的用途。"
HI = "गंगा भारत की सबसे लंबी नदी है। यह हिमालय से निकलती है।"


def test_a_chunk_holds_its_paragraph_whatever_the_line_breaks() -> None:
    chunk = "前一段。\n\nLibtool 是一个 shell\n脚本，当从源代码编译共享库时，用来定位软件的移植性问题。它还有别的用途。"
    assert holds(chunk, ZH)
    assert holds("यह दस्तावेज़ कहता है: गंगा भारत की सबसे लंबी नदी है।", HI)  # one sentence of it
    assert holds("用来定位软件的移植性问题", ZH)  # a quote inside it
    assert not holds("这里有几种可用于 POSIX shell 的循环形式。", ZH)
    assert not holds("दिल्ली भारत की राजधानी है।", HI)
