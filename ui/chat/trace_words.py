"""The words of the trace ("How this answer was made", issue 69), key → (English, Simplified Chinese), merged
into ``ui.chat.said``'s table: the trace is said in its question's language like the chat's other lines
(Japanese and Hindi in ``ui.words_ja``, ``ui.words_hi``). ``{…}`` are filled with ``str.format``; "{s}" is
the English plural's "s".

The pipeline's trace records hold sentences of their own (the context manager's reasons, why hops stopped,
why the agentic round did not run, the chat model's check, the online sources' whys): each in English for
the CLI and the log, with a ``kimas_desktop.trace.Reason`` beside it, a code and plain values.
``reason_said`` says a sentence from its code ("re <code>" below), never by matching its English, which
the pipeline may reword (issue 69); a record without a code (a trace stored before) shows its English.
The model's own words (what the agentic round found missing) and an error's own words are never
translated.
"""

from __future__ import annotations

from collections.abc import Callable

from kimas_desktop.trace import Reason

__all__ = ["MARKS", "TRACE", "reason_said"]

# language → the marks between the items of a list, between queries, and at the end of a sentence
MARKS: dict[str, tuple[str, str, str]] = {
    "en": (", ", "; ", "."),
    "zh": ("、", "；", "。"),
    "ja": ("、", "、", "。"),
    "hi": (", ", "; ", "।"),
}

TRACE: dict[str, tuple[str, str]] = {
    # the question (``_question_lines``)
    "tr query": ("**Search query:**", "**搜索查询：**"),
    "tr by": (" _(by {method})_", " _（方式：{method}）_"),
    "tr conversation": ("**Conversation:**", "**对话：**"),
    "tr within": (
        "in the files the earlier answers came from ({files})",
        "在之前的回答所出自的文件中（{files}）",
    ),
    "tr as asked": ("searched as asked: {reason}{also}", "按原问题搜索：{reason}{also}"),
    "tr as asked kept": (
        "searched as asked ({note}): {reason}{also}",
        "按原问题搜索（{note}）：{reason}{also}",
    ),
    "tr also within": ("; also {within}, and the searches merged", "；同时{within}搜索，并合并了搜索结果"),
    "tr used earlier": (
        "used the earlier question {asked}: {reason}{both}",
        "用了之前的问题{asked}：{reason}{both}",
    ),
    "tr the earlier answers": ("the earlier answers", "之前的回答"),
    "tr also as asked": (
        "; also searched as asked{kept}, and the searches merged",
        "；也按原问题搜索{kept}，并合并了搜索结果",
    ),
    "tr in all files and": (", in all files and {within}", "，在所有文件中以及{within}"),
    "tr needs reembedding": (
        "**Needs re-embedding:** {names} (built with another embedding model: not searched by meaning until "
        "re-embedded in the Knowledge tab)",
        "**需要重新嵌入：** {names}（用另一个嵌入模型建立：在知识库标签页重新嵌入之前，不按含义搜索）",
    ),
    # the rewrite's method (``RewriteStage.method``)
    "tr method first-turn": ("first-turn", "对话的第一个问题"),
    "tr method none": ("none", "未改写"),
    "tr method as-asked": ("as-asked", "按原问题"),
    "tr method heuristic": ("heuristic", "按规则改写"),
    "tr method llm": ("llm", "由对话模型改写"),
    "tr method llm-fallback": ("llm-fallback", "对话模型改写失败，改用规则"),
    # routing, the agents' queries, the evidence (``_search_lines``)
    "tr collections": (
        "**Collections** (how well each matches the question: its main topics, its description, the meaning "
        "of its best passages, its characteristic words)",
        "**知识库**（每个知识库与问题的匹配程度：主要主题、描述、最佳段落的含义、特征词）",
    ),
    "tr col collection": ("collection", "知识库"),
    "tr col score": ("score", "分数"),
    "tr col topics": ("topics", "主题"),
    "tr col description": ("description", "描述"),
    "tr col passages": ("passages", "段落"),
    "tr col words": ("words", "词语"),
    "tr col searched": ("searched", "已搜索"),
    "tr yes": ("yes", "是"),
    "tr agent queries": ("**Queries of each retrieval agent**", "**每个检索智能体的查询**"),
    "tr evidence": ("**Evidence given to the model**", "**交给模型的证据**"),  # to write the answer from
    "tr evidence quote": ("**Evidence the quote was chosen from**", "**引用所选自的证据**"),  # no model asked
    "tr evidence found": ("**Evidence found**", "**找到的证据**"),  # a decline, a value computed in code
    "tr score": ("score {score}", "分数 {score}"),
    # the time budget (``budget_line``)
    "tr budget": ("**Time budget:**", "**时间预算：**"),
    "tr budget given": (
        "{n} source{s} given to the model ({prompt} prompt tokens)",
        "给了模型 {n} 个来源（{prompt} 个提示词元）",
    ),
    "tr budget came": (" The first word came at {at} s.", "第一个词在 {at} 秒时出现。"),
    "tr budget none": ("none ({why}); {given}.", "无（{why}）；{given}。"),
    "tr budget no limit": ("no time limit set", "没有设定时间限制"),
    "tr budget speed unknown": ("prompt speed {source}", "提示速度：{source}"),
    "tr budget speed": ("{rate} prompt tokens/s ({source})", "每秒 {rate} 个提示词元（{source}）"),
    "tr budget ahead": (
        "the first word was aimed for {target} s after the question, {elapsed} s had passed; at {speed} that "
        "left {allowed} prompt tokens: {given}",
        "第一个词的目标是在提问后 {target} 秒出现，当时已过 {elapsed} 秒；按{speed}，剩下 {allowed} 个提示词元：{given}",
    ),
    "tr budget passed": (
        "the aim of a first word {target} s after the question had passed before the model was asked "
        "({elapsed} s spent finding the evidence); at {speed}, only what must stay: {given}",
        "在询问模型之前，提问后 {target} 秒出现第一个词的目标已经错过（查找证据用了 {elapsed} 秒）；"
        "按{speed}，只保留必须保留的内容：{given}",
    ),
    "tr budget cut": (
        ", {n} lower-ranked source{s} left out for time",
        "，因时间省去了 {n} 个排名较低的来源",
    ),
    "tr budget over": (
        "; the quoted sources alone needed more, and they stay",
        "；仅引用的来源就需要更多，它们仍保留",
    ),
    "tr budget expected": (
        ". At that speed the first word was expected at {at} s",
        "。按这个速度，预计第一个词在 {at} 秒时出现",
    ),
    # a document's card or chapter, hops, computed values (``_evidence_lines``)
    "tr document": ("**Document**: {name}, {what}: {why}", "**文档**：{name}，{what}：{why}"),
    "tr its chapter": (
        "its chapter “{section}” ({n} passage(s) first)",
        "其中的章节“{section}”（先放 {n} 个段落）",
    ),
    "tr its card": ("its card", "它的文档卡片"),
    "tr hops": (
        "**Hops** (searching again from the best passages for what the question leaves implicit)",
        "**多跳检索**（从最佳段落出发，再次搜索问题中没有明说的内容）",
    ),
    "tr hop round": (
        "round {round}: “{query}”: {n} new passage(s)",
        "第 {round} 轮：“{query}”：{n} 个新段落",
    ),
    "tr computed": (
        "**Computed, not written by the model:** {said} ({order}).",
        "**计算得出，不是模型写的：** {said}（{order}）。",
    ),
    "tr computed pairs": (
        "**Computed, not written by the model:** compared {pairs} ({order}).",
        "**计算得出，不是模型写的：** 比较了 {pairs}（{order}）。",
    ),
    # the agentic round (``_agentic_lines``): the KIMAs paper's second retrieval round
    "tr agentic": ("**Agentic round:** {text}", "**第二轮检索：** {text}"),
    "tr skipped": ("skipped ({why})", "已跳过（{why}）"),
    "tr fell back": ("fell back to the first search ({why})", "退回到第一次搜索的结果（{why}）"),
    "tr sufficient": ("the evidence was judged sufficient", "证据被判定为充分"),
    "tr searched again": ("searched again for: {queries}", "再次搜索：{queries}"),
    "tr missing": (" (missing: {info})", "（缺少：{info}）"),
    "tr did not run": ("did not run", "没有运行"),
    # the verdicts (``_verdict_lines``)
    "tr grounding answers": (
        "**Grounding:** the evidence answers the question (score {score}, threshold {threshold}); quote ready "
        "after {ms} ms",
        "**依据：** 证据能回答这个问题（分数 {score}，阈值 {threshold}）；引用在 {ms} 毫秒后就绪",
    ),
    "tr grounding not": (
        "**Grounding:** the evidence does not answer the question (score {score}, threshold {threshold}); "
        "quote ready after {ms} ms",
        "**依据：** 证据不能回答这个问题（分数 {score}，阈值 {threshold}）；引用在 {ms} 毫秒后就绪",
    ),
    "tr check": ("**The chat model's check:** {text}", "**对话模型的检查：** {text}"),
    "tr check failed": ("could not judge ({why}); the answer went ahead", "无法判断（{why}）；回答照常进行"),
    "tr check words": (" (“{words}”)", "（模型摘出的：“{words}”）"),
    "tr check answers": ("the sources answer the question{found}", "来源回答了这个问题{found}"),
    "tr check not": ("the sources do not answer it: {reason}{found}", "来源没有回答它：{reason}{found}"),
    "tr decision": ("**Decision:** {what} ({rule})", "**决定：** {what}（{rule}）"),
    "tr answer": ("answer", "回答"),
    "tr decline": ("decline", "不回答"),
    "tr rule lexical": ("from how well the evidence matches the question", "根据证据与问题的匹配程度"),
    "tr rule rescued": (
        "the chat model copied the answer from a source, though the match was weak",
        "虽然匹配较弱，但对话模型从来源中照抄出了答案",
    ),
    "tr rule doubted": (
        "the chat model found no source that states it, though the match was good",
        "虽然匹配良好，但对话模型没有找到写明答案的来源",
    ),
    "tr rule try anyway": ("you asked the model to try", "你让模型尝试回答"),
    "tr rule computed": (
        "the sources give both values the question compares",
        "来源给出了问题所比较的两个值",
    ),
    "tr written by": ("**Written by:** {model}", "**撰写者：** {model}"),
    "tr answer quote": (
        "**Answer:** the quote, your documents' own words; no model was asked to write ({why})",
        "**回答：** 引用，即你的文档的原话；没有让模型撰写（{why}）",
    ),
    "tr support": (
        "**Support check:** {n} of {total} answer sentences not found in the sources",
        "**支持检查：** 回答的 {total} 个句子中有 {n} 个在来源中找不到",
    ),
    # online sources (``online_lines``)
    "tr online": ("**Online sources**", "**在线来源**"),
    "tr not asked": ("{source}: not asked ({why})", "{source}：未询问（{why}）"),
    "tr asked query": ("asked “{query}” ({why})", "询问了“{query}”（{why}）"),
    "tr asked": ("asked ({why})", "已询问（{why}）"),
    "tr online failed": (
        "{source}: {asked}; **failed**: {error}. The answer used your documents only.",
        "{source}：{asked}；**失败**：{error}。回答只用了你的文档。",
    ),
    "tr online found": (
        "{source}: {asked}: {results} results, {pages} pages read, {passages} passages ({seconds} s)",
        "{source}：{asked}：{results} 条结果，读取了 {pages} 个网页，{passages} 个段落（{seconds} 秒）",
    ),
    # a model-alone answer's trace (``ui.chat.model_alone_view.model_alone_trace``)
    "tr no retrieval": (
        "**No retrieval ran:** the model answered alone; your documents were not read.",
        "**没有检索：** 模型独自回答；没有读取你的文档。",
    ),
    "tr model read": (
        "**Time budget:** the model read {prompt} prompt tokens{left}.",
        "**时间预算：** 模型读了 {prompt} 个提示词元{left}。",
    ),
    "tr left out messages": (
        "; {n} earlier message(s) of this chat left out to start in time",
        "；为了按时开始，省去了这个对话中 {n} 条较早的消息",
    ),
    # the timings (``_timing_lines``): each stage by what it does
    "tr timings": ("**Timings**", "**用时**"),
    "tr timings head": ("| stage | ms |", "| 步骤 | 毫秒 |"),
    "tr stage rewrite": ("understanding the question", "理解问题"),
    "tr stage route": ("choosing collections", "选择知识库"),
    "tr stage reroute": ("choosing collections again", "再次选择知识库"),
    "tr stage retrieve": ("searching", "搜索"),
    "tr stage context_analysis": ("reading the conversation", "阅读对话"),
    "tr stage rerank": ("ranking the evidence", "给证据排序"),
    "tr stage pack": ("fitting the evidence", "整理证据"),
    "tr stage budget": ("planning for the first word", "规划第一个词的时间"),
    "tr stage compute": ("comparing the values", "比较数值"),
    "tr stage hop": ("searching for the bridge", "搜索中间环节"),
    "tr stage document": ("reading the document's card or chapter", "阅读文档卡片或章节"),
    "tr stage agentic": ("second search", "第二次搜索"),
    "tr stage online": ("online sources", "在线来源"),
    "tr stage quote": ("finding the quote", "查找引用"),
    "tr stage answer_check": ("the model's check", "模型的检查"),
    "tr stage first_token": ("first word of the answer", "回答的第一个词"),
    "tr stage answer": ("writing the answer", "撰写回答"),
    "tr stage citations": ("citing sources", "引用来源"),
    "tr stage support": ("checking the answer", "检查回答"),
    "tr stage total": ("total", "总计"),
    "tr stage decision": ("decision", "决定"),
    "tr stage needs_reembedding": ("needs re-embedding", "需要重新嵌入"),
    "tr stage retrieve_error": ("search failed", "搜索失败"),
    # The sentences the pipeline writes into the trace's records, by their codes (``Reason``, ``reason_said``)
    "re first_question": ("the conversation's first question", "对话的第一个问题"),
    "re refers_by_description": (
        "it refers back ('{described}', which the conversation spoke of)",
        "它指向前文（“{described}”，对话中提到过）",
    ),
    "re refers_back": ("it refers back ('{ref}')", "它指向前文（“{ref}”）"),
    "re fragment": ("it is a fragment with no verb of its own", "它是个片段，没有自己的动词"),
    "re own_subject": ("it names its own subject", "它有自己的主题"),
    "re adds_nothing": (
        "the conversation adds nothing to it (meaning kept {kept})",
        "对话没有给它增加什么（含义保留 {kept}）",
    ),
    "re continues": (
        "it continues that topic (similarity {best}, meaning kept {kept})",
        "它延续了那个话题（相似度 {best}，含义保留 {kept}）",
    ),
    "re too_short": ("it is too short to stand alone", "它太短，不能单独成立"),
    "re unrelated": (
        "it is unrelated to the conversation (closest similarity {best})",
        "它与对话无关（最高相似度 {best}）",
    ),
    "re context_off": ("context manager off", "上下文管理已关闭"),
    "re judged_alone": ("the chat model found it makes sense on its own", "对话模型认为它本身就能理解"),
    "re judged_topic": (
        "the chat model found it omits the conversation's subject",
        "对话模型认为它省略了对话的主题",
    ),
    "re judged_previous": (
        "the chat model found it refers to the previous question or answer",
        "对话模型认为它指向上一个问题或回答",
    ),
    "re judged_kept": ("{judged}; kept: {reason}", "{judged}；保留：{reason}"),
    "re kept_subject": ("kept the conversation's subject: {kept}", "保留了对话的主题：{kept}"),
    "re rewrite_too_long": ("rewrite was empty or too long", "改写为空或太长"),
    "re rewrite_failed": ("the chat model's rewrite failed: {error}", "对话模型改写失败：{error}"),
    "re nothing_to_start": ("nothing found to start from", "没有可以作为起点的内容"),
    "re covers": ("the best passage covers the question ({share})", "最佳段落涵盖了这个问题（{share}）"),
    "re covers_part": (
        "the best passage covers {share}% of the question's words",
        "最佳段落涵盖了问题中 {share}% 的词",
    ),
    "re stopped": ("{why}; stopped: {stop}", "{why}；停止：{stop}"),
    "re rounds_used_up": ("the rounds are used up", "轮次已用完"),
    "re nothing_new": ("a hop found nothing new", "一次多跳检索没有找到新内容"),
    "re evidence_answers": ("the evidence answers", "证据已能回答"),
    "re no_chat_model": ("the decision needed no chat model", "这个决定不需要对话模型"),
    "re judgement_failed": ("judgement failed: {error}", "判断失败：{error}"),
    "re second_search_failed": ("second search failed: {error}", "第二次搜索失败：{error}"),
    "re check_failed": ("the check failed: {error}", "检查失败：{error}"),
    "re no_answer_found": ("the model found no answer in the sources", "模型在来源中没有找到答案"),
    "re not_as_written": (
        "the model's words are not in the sources as written",
        "模型的话在来源中没有原样出现",
    ),
    "re repeats_question": ("the model's words only repeat the question", "模型的话只是重复了问题"),
    "re quote_only": ("the chat model writes no answer of its own", "对话模型不自己撰写回答"),
    "re model_not_ready": ("the chat model is not ready yet", "对话模型还没有准备好"),
    "re always_asked": ("always asked", "总是询问"),
    "re local_weak": ("local knowledge was weak", "本地知识不足"),
    "re you_asked": ("you asked for it", "你要求询问"),
    "re local_answers": ("local knowledge answers", "本地知识已能回答"),
    "re only_when_asked": ("only when you ask for it", "仅当你要求时"),
    "re off_topic": (
        "the question is not about what it knows (match {match} < {least})",
        "问题与它了解的内容无关（匹配度 {match} < {least}）",
    ),
    "re whole_document": ("a question about the whole of {how}", "关于{how}整体的问题"),
    "re points_at": ("it points at '{title}' of {how}", "它指向{how}中的“{title}”"),
    "re named": ("'{title}' (named in the question)", "“{title}”（问题中提到的）"),
    "re only_document": ("'{title}' (the only document)", "“{title}”（唯一的文档）"),
    "re best_passage_document": (
        "'{title}' (the document of the best passage)",
        "“{title}”（最佳段落所在的文档）",
    ),
    "re no_answer_in_time": ("no answer within the time limit", "在时间限制内没有回答"),
    "re unreadable": ("its answer could not be read ({error})", "无法读取它的回答（{error}）"),
    # an online source's failure (``SourceError``'s code, ``web/``)
    "re source_timeout": ("{host} did not answer within {seconds} s", "{host} 在 {seconds} 秒内没有回答"),
    "re source_http": ("{host} answered HTTP {status}", "{host} 返回了 HTTP {status}"),
    "re source_unreachable": ("{host} could not be reached: {error}", "无法连接到 {host}：{error}"),
    "re source_redirects": ("{host}: more than {n} redirects", "{host}：重定向超过 {n} 次"),
    "re source_unresolved": ("cannot resolve {host}", "无法解析 {host}（可能没有联网）"),
    "re source_search_failed": ("the web search failed: {error}", "网页搜索失败：{error}"),
    "re source_too_big": ("{host}'s answer is over {mb} MB or too slow", "{host} 的回答超过 {mb} MB 或太慢"),
    "re source_not_json": ("{host} did not answer with JSON", "{host} 的回答不是 JSON"),
    "re source_too_deep": ("{host}'s answer is nested too deeply to read", "{host} 的回答嵌套太深，无法读取"),
    "re source_not_searxng": (
        "{host} did not answer in SearXNG's JSON format",
        "{host} 的回答不是 SearXNG 的 JSON 格式",
    ),
    "re source_no_results": (
        "{host}'s answer has no list of results at the top",
        "{host} 的回答顶层没有结果列表",
    ),
    "re source_no_results_at": (
        "{host}'s answer has no list of results at '{path}'",
        "{host} 的回答在“{path}”处没有结果列表",
    ),
    "re source_env_unset": ("the environment variable {name} is not set", "环境变量 {name} 没有设置"),
    "re source_token_unset": (
        "the environment variable {name} (the API token) is not set",
        "环境变量 {name}（API 令牌）没有设置",
    ),
    "re source_unreadable": (
        "{where}: the answer could not be read ({error})",
        "{where}：无法读取回答（{error}）",
    ),
    # what a computed answer did (``ComputeStage.order``: a comparison's order or a table's operation)
    "tr order difference": ("difference", "差值"),
    "tr order earliest": ("earliest", "最早"),
    "tr order latest": ("latest", "最晚"),
    "tr order smallest": ("smallest", "最小"),
    "tr order largest": ("largest", "最大"),
    "tr order lookup": ("lookup", "查找"),
    "tr order count": ("count", "计数"),
    "tr order sum": ("sum", "求和"),
    "tr order mean": ("mean", "平均值"),
    "tr order min": ("min", "最小值"),
    "tr order max": ("max", "最大值"),
    "tr order argmax": ("argmax", "最大的一项"),
    "tr order argmin": ("argmin", "最小的一项"),
    "tr order group": ("group", "分组"),
    "tr order top": ("top", "前几项"),
}


def reason_said(english: str, reason: Reason | None, say: Callable[..., str]) -> str:
    """A sentence the pipeline wrote into a trace record, in the trace's language: ``say(key, **values)``
    for its ``reason``'s code ("re <code>"), a value that is a reason itself said the same way. The
    ``english`` as it is for a record without a reason (stored before they had codes) or with a code this
    table lacks. Values are returned unescaped, as ``english`` is."""
    if reason is None or f"re {reason.code}" not in TRACE:
        return english
    values = {
        k: reason_said(v.english, v, say) if isinstance(v, Reason) else v for k, v in reason.values.items()
    }
    return say(f"re {reason.code}", **values)
