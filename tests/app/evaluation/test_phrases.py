"""Known-item questions read like a person's question (issue 46): about a phrase of the evidence sentence,
in the sentence's language, never about four words drawn from all over it ("What do the documents say
about breakfast morning kinywa Reykjavik?"). Real text: paragraphs of ../shared/papers/kimas.txt and
ragenta.zh.txt, and Hindi sentences."""

from __future__ import annotations

import re

from app.evaluation.phrases import ask_about, best_phrase
from app.evaluation.questions import FOREIGN, generate
from kimas_desktop.text.words import STOPWORDS, words
from kimas_desktop.types import Chunk

ENGLISH = (
    "Large language models (LLMs) have had a profound impact on various aspects of people's lives, "
    "particularly as the foundational technology behind conversational applications such as chatbots. "
    "These models have become indispensable as virtual assistants, offering powerful capabilities for "
    "various tasks, including addressing common-sense queries, generating summaries for academic papers, "
    "and solving programming challenges and tasks. Despite their impressive functionality, LLMs are of some "
    "limitations.",
    "While many real-world applications have adopted RAG techniques, open-source frameworks have also "
    "emerged to facilitate the adaptation of RAG to a wide range of tasks for the public to hold RAG "
    "application services themselves with local data. While these open-source RAG frameworks provide "
    "convenient starting points for building RAG-based applications, there remain significant opportunities "
    "for improvement, especially in more practical and complicated scenarios.",
    "Challenge 1. While developing a basic chatbot using LLM APIs is relatively straightforward, the "
    "complexity increases significantly when the conversation requires intensive external knowledge. A "
    "user's question may contain only partial information, while the rest is in the conversation history, "
    "such as containing pronouns referring to an object in the previous question.",
    "Challenge 2. Unlike commercial products, building a complete powerful data collection and "
    "preprocessing pipeline may be too heavy for tasks relying on private knowledge. Therefore, a "
    "lightweight and configurable retrieval mechanism may be a more desirable solution for developers to "
    "utilize their local knowledge from different sources with heterogeneous topics and formats.",
)
CHINESE = (
    "一个用于可归因问答(attributed question answering, QA)的多智能体检索增强生成(Retrieval-Augmented "
    "Generation, RAG)框架。以生成可信答案为目标,RAGentA 专注于优化答案的正确性,包括对问题的覆盖性和相关性,"
    "以及“忠实度”(faithfulness),即答案在多大程度上基于检索到的文档。",
    "RAGentA 使用一种多智能体架构,通过迭代筛选检索文档、生成带有内联引用的答案,并通过动态优化验证其完整性。"
    "该框架的核心是一种结合稀疏与密集方法的混合检索策略,相比最佳单一检索模型,其 Recall@20 提升了 12.5%,"
    "从而产生更正确且有更好支持的答案。",
    "在完成文档检索之后,Agent-1 针对每个检索到的文档生成与查询相关的问题答案,形成 文档-查询-答案三元组"
    "(Document-Query-Answer triplets) 。该智能体使用一个大语言模型(LLM),在给定查询的上下文中分析每篇文档,"
    "并基于其内容生成答案。",
    "该智能体通过判断文档是否有助于回答问题,来评估每篇文档的相关性。对于每一个三元组,Agent-2 回答这样一个问题:"
    "“这篇文档是否与问题相关并能提供有效支持?” 并给出“是”或“否”的二元判断。",
)
ASKED_EN = re.compile(r"^What do the documents say about (.+)\?$")
ASKED_ZH = re.compile(r"^文档中关于(.+)是怎么说的？$")


def chunks(collection: str, paragraphs: tuple[str, ...]) -> list[Chunk]:
    return [
        Chunk(f"{collection}{i}", collection, f"/docs/{collection}.txt", p) for i, p in enumerate(paragraphs)
    ]


def flat(text: str) -> str:
    return " ".join(text.split()).lower()


def content(phrase: str) -> list[str]:
    return [w for w in words(phrase) if w.lower() not in STOPWORDS]


def test_every_question_asks_about_a_phrase_of_its_passage_in_its_language() -> None:
    made = generate({"papers": chunks("papers", ENGLISH), "zh": chunks("zh", CHINESE)}, 10, seed=3)
    known = [q for q in made.questions if q.answerable]
    assert {q.collection for q in known} == {"papers", "zh"}
    for q in known:
        asked = (ASKED_ZH if q.collection == "zh" else ASKED_EN).match(q.question)
        assert asked, q.question
        phrase = asked.group(1).removeprefix("the ").removeprefix("a ")
        assert flat(phrase) in flat(q.evidence), (q.question, q.evidence)  # a phrase of it, as written
        assert 1 <= len(content(phrase)) <= 4 and q.answer not in content(phrase)
    for q in made.questions:
        if not q.answerable:  # a control keeps the wording, with a place the papers never mention
            assert ASKED_EN.match(q.question) or ASKED_ZH.match(q.question), q.question
            assert any(place in q.question for place in FOREIGN)


def test_the_phrase_is_the_sentences_noun_phrase() -> None:
    def idf(word: str) -> float:
        return float(len(word))

    english = "The Calloway signal box near the Harcourt junction was rebuilt in 1864 by a cooper called Nairnshire."
    phrase = best_phrase(english, idf, "Nairnshire")
    assert (
        phrase is not None and ask_about(phrase) == "What do the documents say about the Calloway signal box?"
    )
    rag = "Retrieval-augmented generation improves the factual accuracy of large language models."
    assert (
        best_phrase(rag, idf) is not None and best_phrase(rag, idf).text == "Retrieval-augmented generation"
    )  # type: ignore[union-attr]
    chinese = "检索增强生成(RAG)通过从外部知识库中检索相关文档来提高大语言模型回答的准确性。"
    phrase = best_phrase(chinese, idf, "RAG")
    assert phrase is not None and phrase.text in chinese and ask_about(phrase).startswith("文档中关于")
    hindi = "भारतीय रेलवे का मुख्यालय नई दिल्ली में है और इसकी स्थापना 1853 में हुई थी।"
    phrase = best_phrase(hindi, idf, "1853")
    assert phrase is not None and phrase.text in hindi and ask_about(phrase).endswith("के बारे में क्या कहते हैं?")


def test_a_sentence_with_no_short_run_is_asked_about_in_its_own_language() -> None:
    """A Chinese sentence of two-character words with no stopword between them has no run of one to four
    words: its phrase is drawn word by word, still asked in Chinese and written unspaced (it was asked in
    English, and two-character words did not count as words, so such a sentence made no question)."""
    sentence = "检索增强生成技术显著提升大型语言模型回答专业领域问题准确性。"
    assert best_phrase(sentence, lambda w: 1.0) is None
    chunk = Chunk("c1", "papers", "/papers/rag.zh.md", sentence)
    known = [q for q in generate({"papers": [chunk]}, 5).questions if q.answerable]
    assert len(known) == 1
    asked = known[0].question
    assert asked.startswith("文档中关于") and asked.endswith("是怎么说的？"), asked
    about = asked.removeprefix("文档中关于").removesuffix("是怎么说的？")
    assert about and " " not in about and known[0].answer not in about, about
    assert all(ch in sentence for ch in about), about  # the sentence's own words, in its order


def test_drawn_words_are_joined_as_their_scripts_write_them() -> None:
    from app.evaluation.questions import _joined

    assert _joined(["检索", "增强", "Debian", "main", "アーカイブ"]) == "检索增强 Debian main アーカイブ"
    assert _joined(["signal", "box"]) == "signal box"
