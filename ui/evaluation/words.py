"""The Evaluation tab's words (issue 60): key → (English, Simplified Chinese), part of the one table
(``ui.words.WORDS``, served by ``ui.i18n``). Labels are shown with ``t``; what the handlers write with
``word``, in the page's language. Metric names (recall@5, MRR) and preset names stay as they are: they are
code."""

from __future__ import annotations

from app.evaluation.evaluation import DEFAULT_ANSWERS, DEFAULT_QUESTIONS

__all__ = ["EVALUATION"]

_RAISE = "(raise 'Questions also answered' for more)"
_RAISE_ZH = "（调高“同时回答的问题数”可得到更多）"

EVALUATION: dict[str, tuple[str, str]] = {
    # the labels (``ui/evaluation/layout.py``)
    "ev_heading": ("## How good is it on my documents?", "## 在我的文档上效果如何？"),
    "ev_about": (
        "A test set is made from your own collections without a model: questions about a phrase of a "
        "passage, and unanswerable controls on the same topics that should be declined. Every question goes "
        "through retrieval; **answers** of them are also answered by the chat model, which takes most of "
        f"the time. The default ({DEFAULT_QUESTIONS} questions, {DEFAULT_ANSWERS} answered) is sized for "
        "about two minutes on a quiet 2-core laptop with the embedded models; the progress line says the "
        "time left on yours. Runs of the same test set can be compared; a cancelled run keeps the figures "
        "of the questions it ran, marked partial. Nothing is sent anywhere, and your collections are only "
        "read.",
        "测试集从你自己的知识库生成，不需要模型：关于某个段落中一个短语的问题，以及同一主题上无法回答、"
        "应当拒答的对照问题。每个问题都会经过检索；其中 **同时回答** 的那些还会由对话模型回答，这占了大部分"
        f"时间。默认（{DEFAULT_QUESTIONS} 个问题，回答其中 {DEFAULT_ANSWERS} 个）在一台空闲的双核笔记本上用"
        "内置模型大约需要两分钟；进度行会显示在你的电脑上还剩多少时间。同一测试集的多次运行可以相互比较；"
        "被取消的运行保留已完成问题的数据，并标为部分结果。不会向任何地方发送数据，你的知识库只会被读取。",
    ),
    "ev_make_heading": ("### 1 · Make a test set", "### 1 · 生成测试集"),
    "ev_size": ("Questions in the test set", "测试集中的问题数"),
    "ev_make": ("Make a test set", "生成测试集"),
    "ev_run_heading": ("### 2 · Run it", "### 2 · 运行"),
    "ev_preset": ("Preset", "预设"),
    "ev_answers": ("Questions also answered", "同时回答的问题数"),
    "ev_run": ("Run", "运行"),
    "ev_side_by_side": ("### Runs side by side", "### 各次运行对比"),
    "ev_runs": ("Runs of this test set (times are medians)", "这个测试集的各次运行（时间取中位数）"),
    "ev_failed": ("Failed questions", "未通过的问题"),
    "ev_retrieval": (
        "Retrieval testing: why a passage ranks where it does",
        "检索测试：段落为什么排在那个位置",
    ),
    "ev_question": ("Question", "问题"),
    "ev_query_hint": (
        "Type a question; the search runs under the preset chosen above",
        "输入一个问题；检索按上面选择的预设进行",
    ),
    "ev_inspect": ("Test retrieval", "测试检索"),
    "ev_own": ("Add a question of your own to the test set", "向测试集添加你自己的问题"),
    "ev_own_file": ("The file that answers it", "回答它的文件"),
    "ev_own_answer": ("Words the answer holds (optional)", "答案包含的词（可选）"),
    "ev_own_add": ("Add to the test set", "添加到测试集"),
    # written by the handlers (``ui/evaluation/handlers.py``), in the page's language
    "ev_chart_recall": ("recall@5 (passage in top 5)", "recall@5（段落在前 5 名中）"),
    "ev_chart_mrr": ("MRR (1 / rank of passage)", "MRR（1 / 段落的名次）"),
    "ev_chart_quote": ("Quote holds the answer", "引文包含答案"),
    "ev_chart_declined": ("Controls declined", "对照问题被拒答"),
    "ev_chart_by_collection": ("recall@5 per collection (latest run)", "各知识库的 recall@5（最近一次运行）"),
    "ev_chart_over_time": ("recall@5 over time", "recall@5 随时间的变化"),
    "ev_note_by_collection": ("recall@5 per collection", "各知识库的 recall@5"),
    "ev_run_started": ("run started", "运行开始时间"),
    "ev_collection": ("collection", "知识库"),
    "ev_no_run_yet": ("no run has finished a question yet", "还没有哪次运行完成过一个问题"),
    "ev_no_answerable": (
        f"none of the questions the model answered was an answerable one yet {_RAISE}",
        f"模型回答的问题中还没有可回答的问题{_RAISE_ZH}",
    ),
    "ev_no_control": (
        f"none of the questions the model answered was an unanswerable control yet {_RAISE}",
        f"模型回答的问题中还没有无法回答的对照问题{_RAISE_ZH}",
    ),
    "ev_no_data": ("No data yet: {why}.", "暂无数据：{why}。"),
    "ev_no_height": (" (bars of no height)", "（柱高为零）"),
    "ev_one_run": (
        "One run so far ({run}: recall@5 {value}); the line starts with the second.",
        "目前只有一次运行（{run}：recall@5 {value}）；从第二次起才画出折线。",
    ),
    "ev_partial": (" (partial)", "（部分）"),
    "ev_no_set": (
        "No test set yet: make one from your collections (no model is needed for that).",
        "还没有测试集：从你的知识库生成一个（不需要模型）。",
    ),
    "ev_set": (
        "**{n} questions** ({answerable} answerable, {controls} unanswerable controls) from {m} "
        "collection{s} · made {when}",
        "**{n} 个问题**（{answerable} 个可回答，{controls} 个无法回答的对照问题），来自 {m} 个知识库 · "
        "生成于 {when}",
    ),
    "ev_easiness": (
        "**Note:** Known-item questions are easier than real questions (they use the passage's own words): "
        "use them to compare settings, not as a grade of the answers you will get.",
        "**注意：** 已知条目问题比真实问题容易（它们用的是段落自己的词）：用它们来比较设置，"
        "而不是给你将得到的回答打分。",
    ),
    "ev_failed_of": ("Failed questions of run {run} ({n})", "运行 {run} 未通过的问题（{n}）"),
    "ev_failed_none": ("Failed questions (no run yet)", "未通过的问题（尚无运行）"),
    "ev_not_in_top": ("expected passage not in the top 10", "预期的段落不在前 10 名"),
    "ev_at_rank": ("expected passage at rank {rank}", "预期的段落排在第 {rank} 名"),
    "ev_falsely_declined": ("answerable, but declined", "可以回答，却拒答了"),
    "ev_falsely_answered": ("unanswerable, but answered", "无法回答，却回答了"),
    "ev_a_control": ("— (unanswerable control)", "—（无法回答的对照问题）"),
    "ev_nothing": ("nothing", "无"),
    "ev_not_asked": ("not asked", "未提问"),
    "ev_outcome_answered": ("answered", "已回答"),
    "ev_outcome_declined": ("declined", "拒答"),
    "ev_outcome_nothing_found": ("nothing found", "什么也没找到"),
    "ev_outcome_stopped": ("stopped", "已停止"),
    "ev_status_running": ("running", "运行中"),
    "ev_status_complete": ("complete", "完成"),
    "ev_status_cancelled": ("cancelled", "已取消"),
    "ev_status_interrupted": ("interrupted", "被中断"),
    "ev_status_failed": ("failed", "失败"),
    "ev_status_partial": (" · partial", " · 部分"),
    "ev_of": ("{n} of {total}", "{n} / {total}"),
    "ev_making": ("Making a test set: {done} / {total} questions", "正在生成测试集：{done} / {total} 个问题"),
    "ev_running": (
        "Running the test set: {done} / {total} questions",
        "正在运行测试集：{done} / {total} 个问题",
    ),
    "ev_last": (" · last: “{question}”", " · 最近一个：“{question}”"),
    "ev_stopping": (
        " · stopping; the figures measured so far are kept…",
        " · 正在停止；已测得的数据会保留…",
    ),
    "ev_measuring": ("measuring the speed…", "正在测量速度…"),
    "ev_left_s": ("about {s} s left", "约剩 {s} 秒"),
    "ev_left_min": ("about {min} min left", "约剩 {min} 分钟"),
    "ev_left_min_s": ("about {min} min {s} s left", "约剩 {min} 分 {s} 秒"),
    "ev_longer": ("taking longer than measured so far…", "比目前测得的要久…"),
    # the runs table's and the failed questions' columns (``handlers.COLUMNS``, ``FAILED_HEADERS``)
    "ev_col_run": ("run", "运行"),
    "ev_col_status": ("status", "状态"),
    "ev_col_started": ("started", "开始时间"),
    "ev_col_questions": ("questions", "问题数"),
    "ev_col_routing": ("routing", "路由"),
    "ev_col_quote": ("quote has answer", "引文含答案"),
    "ev_col_declined": ("controls declined", "对照被拒答"),
    "ev_col_falsely": ("answerable declined", "可答却拒答"),
    "ev_col_supported": ("sentences supported", "句子有依据"),
    "ev_col_grounded": ("grounded words (ms)", "有依据的词（毫秒）"),
    "ev_col_first": ("first answer word (ms)", "第一个回答词（毫秒）"),
    "ev_col_question": ("question", "问题"),
    "ev_col_wrong": ("what went wrong", "出了什么问题"),
    "ev_col_expected": ("expected passage", "预期的段落"),
    "ev_col_found": ("found instead", "实际找到的"),
    "ev_col_answer": ("answer", "回答"),
    # the own-question tools (``ui/evaluation/own_questions.py``)
    "ev_col_final": ("final", "最终"),
    "ev_col_dense": ("dense", "向量"),
    "ev_col_full_text": ("full text", "全文"),
    "ev_col_fused": ("fused", "融合"),
    "ev_col_passage": ("passage", "段落"),
    "ev_inspected": (
        "**Query:** {query}  \n**Routing:** {routes}; searched: {searched}  \nEach stage's rank is within the "
        "passage's collection; *final* is the order the answer sees.",
        "**查询：** {query}  \n**路由：** {routes}；检索了：{searched}  \n每个阶段的名次都是在段落所在的"
        "知识库之内；*最终* 是回答看到的顺序。",
    ),
    "ev_none": ("none", "无"),
    "ev_own_no_set": (
        "⚠ Make a test set first: your question is added to it.",
        "⚠ 请先生成测试集：你的问题会加入其中。",
    ),
    "ev_own_no_file": ("⚠ Choose the file that answers it.", "⚠ 请选择回答它的文件。"),
    "ev_own_added": (
        "Added. The test set has {n} questions, {mine} of them yours; run it to see how it does.",
        "已添加。测试集现有 {n} 个问题，其中 {mine} 个是你的；运行它看看效果如何。",
    ),
    # the evaluation job's sentences (``app.evaluation.job``: ``Said`` codes)
    "app_eval_set_made": ("A test set of {n} questions was made.", "已生成一个包含 {n} 个问题的测试集。"),
    "app_eval_no_set": (
        "Make a test set first: there is nothing to run yet.",
        "请先生成测试集：还没有可运行的内容。",
    ),
    "app_eval_run_complete": ("Run '{run}' is complete.", "运行“{run}”已完成。"),
    "app_eval_run_partial": (
        "Run '{run}' was {status} after {done} of {total} questions; its partial figures are shown.",
        "运行“{run}”在完成 {done} / {total} 个问题后结束（{status}）；显示的是它的部分数据。",
    ),
    "app_eval_run_no_figures": (
        "Run '{run}' was {status} after {done} of {total} questions; it has no figures.",
        "运行“{run}”在完成 {done} / {total} 个问题后结束（{status}）；它没有数据。",
    ),
    "app_eval_not_running": ("No evaluation is running.", "没有正在进行的评估。"),
    "app_eval_stopping": (
        "Stopping the run; the figures measured so far are kept…",
        "正在停止运行；已测得的数据会保留…",
    ),
    "app_eval_busy": (
        "An evaluation is already going: wait for it or cancel it.",
        "已经有一个评估在进行：请等它结束或取消它。",
    ),
    "app_eval_making": ("Making a test set…", "正在生成测试集…"),
    "app_eval_running": ("Running {n} questions…", "正在运行 {n} 个问题…"),
}
