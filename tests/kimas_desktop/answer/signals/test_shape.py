"""The answer's shape (``answer/signals/shape.py``, issue 69): what the embedded model wrote that is no
answer, and real answers that keep their place."""

from kimas_desktop.answer.signals.shape import misshapen

ZH = "演示场景中比较的是哪两种产品？"


def test_what_is_no_answer() -> None:
    assert misshapen("[1] [2]", ZH) == "markers only"
    assert misshapen("【1】。", "What is it?") == "markers only"
    template = "The original document is: [1] 2. 框架概述 The document is: [1]"
    assert misshapen(template, ZH) == "another language"
    assert misshapen("The answer is in the document [1].", "भारत की राजधानी क्या है?") == "another language"


def test_real_answers_keep_their_place() -> None:
    assert misshapen("RAG（Retrieval-Augmented Generation）是检索增强生成 [1]。", ZH) == ""
    assert misshapen("比较的是 Qwen 和 Llama [2]。", ZH) == ""
    assert misshapen("भारत की राजधानी नई दिल्ली है [1]।", "भारत की राजधानी क्या है?") == ""
    assert misshapen("The backups are kept for 90 days [1].", "How long are backups kept?") == ""
    assert misshapen("KAG-Builder [1], KAG-Solver [2] and KAG-Model [3].", ZH) == ""  # names, no template
