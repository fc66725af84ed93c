"""The product's words (issue 42, 60): key → (English, Simplified Chinese), the one table ``ui.i18n`` serves
to the page as labels (``t``) and fills in for the HTML and Markdown the server writes (``word``). The chat's
own lines around an answer are ``ui.chat.said``'s, in the question's language. Japanese and Hindi are two
further columns (``COLUMNS``), one file each, for the Chat tab's words (``CHAT_KEYS``) and the chat's lines."""

from __future__ import annotations

from app.models.languages import SWITCH_BUTTON
from kimas_desktop.answer.phrases import phrase_in
from ui.chat.build_words import MODEL_BUILD
from ui.evaluation.words import EVALUATION
from ui.knowledge.words import KNOWLEDGE
from ui.settings.words import SETTINGS
from ui.words_hi import HINDI
from ui.words_ja import JAPANESE

__all__ = ["CHAT_KEYS", "COLUMNS", "WORDS"]

# key → (English, Simplified Chinese). Keys hold no "." (Gradio's frontend reads it as nesting).
WORDS: dict[str, tuple[str, str]] = {
    "title": (
        "# KIMAs Desktop\nPrivate answers from your own documents, computed on this computer.",
        "# KIMAs Desktop\n基于你自己的文档给出私密的回答，全部在这台电脑上计算。",
    ),
    "tab_chat": ("Chat", "对话"),
    "tab_knowledge": ("Knowledge", "知识库"),
    "tab_evaluation": ("Evaluation", "评估"),
    "tab_settings": ("Settings", "设置"),
    "new_chat": ("New chat", "新对话"),
    "search_chats": ("Search conversations…", "搜索对话…"),
    "rename_or_delete": ("Rename or delete this chat", "重命名或删除此对话"),
    "chat_title": ("Title", "标题"),
    "rename": ("Rename", "重命名"),
    "delete_chat": ("Delete chat…", "删除对话…"),
    "confirm_delete_chat": ("Yes, delete it", "确定删除"),
    "cancel": ("Cancel", "取消"),
    "ask_placeholder": ("Ask about your documents…", "询问你的文档…"),
    "ask_placeholder_model": ("Ask the model alone (not your documents)…", "只问模型（不读你的文档）…"),
    "send": ("Send", "发送"),
    "also_ask": ("Also ask online (this question)", "同时在线询问（仅此问题）"),
    "stop": ("Stop", "停止"),
    "regenerate": ("Regenerate", "重新生成"),
    "scroll_down": ("Scroll down", "滚动到底部"),  # the chat's own button (Gradio names it in English only)
    "your_collections": ("## Your collections", "## 你的知识库"),
    "pause_indexing": ("Pause indexing", "暂停索引"),
    "resume": ("Resume", "继续"),
    "cancel_indexing": ("Cancel indexing", "取消索引"),
    "collection": ("Collection", "知识库"),
    "new_collection": ("New collection", "新建知识库"),
    "new_collection_example": ("e.g. handbook", "例如 手册"),
    "create": ("Create", "创建"),
    "drop_folder": ("Drop a folder", "拖入文件夹"),
    "drop_files": ("Drop files", "拖入文件"),
    "drop_folder_caption": (
        "Drop a folder here (its subfolders are kept), or click to choose one",
        "把文件夹拖到这里（保留其中的子文件夹），或点击选择",
    ),
    "drop_files_caption": ("Drop files here, or click to choose some", "把文件拖到这里，或点击选择"),
    "drop_note": (
        "Drop a whole folder or some files onto the selected collection (or click to choose). They are "
        "copied into KIMAs' data folder and indexed in the background; you can keep chatting meanwhile.",
        "把整个文件夹或几个文件拖到所选的知识库上（或点击选择）。它们会被复制到 KIMAs 的数据文件夹，"
        "并在后台建立索引；其间你可以继续对话。",
    ),
    "rename_or_unwatch": ("Rename, or stop watching a folder", "重命名，或停止监视某个文件夹"),
    "new_collection_name": ("New name (any words, in any language)", "新名称（任何文字、任何语言都可以）"),
    "watched_folder": ("Folder watched in place", "原位监视的文件夹"),
    "stop_watching": ("Stop watching", "停止监视"),
    "watch_folder_label": ("…or watch a folder on this computer in place", "…或直接监视这台电脑上的文件夹"),
    "watch_folder": ("Watch folder", "监视文件夹"),
    "collection_settings": ("Collection settings (routing and rewriting)", "知识库设置（路由与改写）"),
    "save_collection_settings": ("Save collection settings", "保存知识库设置"),
    "reindex": ("Re-index", "重新索引"),
    "coll_description": ("Description (what this collection is about)", "描述（这个知识库讲什么）"),
    "coll_examples": ("Example questions or text, one per line", "示例问题或文本，每行一个"),
    "coll_mixin": ("Weight of description and examples in routing", "描述和示例在路由中的权重"),
    "coll_scale": ("Scaling weight (multiplies the routing score)", "缩放权重（乘以路由分数）"),
    "coll_language": ("Language of the documents (for translation rewrite)", "文档的语言（用于翻译改写）"),
    "coll_strategy": ("Query rewrite strategy", "查询改写策略"),
    "no_collections": (
        "_No collections yet._ Create one on the right, then drop files or a folder onto it, or add a "
        "folder on this computer to watch.",
        "_还没有知识库。_ 在右侧新建一个，再把文件或文件夹拖到上面，或添加这台电脑上要监视的文件夹。",
    ),
    "files_in_collection": ("Files in the selected collection", "所选知识库中的文件"),
    "show_all_files": ("All files", "所有文件"),
    "show_problems_only": ("Problems only", "仅显示有问题的文件"),
    "file_picked": ("File", "文件"),  # not "file": Gradio's own table has a "file" group ("[object Object]")
    "online_sources": ("Online sources (web search, HTTP APIs)", "在线来源（网络搜索、HTTP API）"),
    "remove_from_collection": ("Remove from collection", "从知识库中移除"),
    "reindex_file": ("Re-index file", "重新索引文件"),
    "dismiss_problem": ("Dismiss problem", "忽略问题"),
    "documents_note": (
        "Removing an uploaded file deletes KIMAs' copy; a file in a watched folder stays on disk and "
        "comes back when it changes. A dismissed problem stops warning until the file fails differently.",
        "移除上传的文件会删除 KIMAs 保存的副本；监视文件夹中的文件仍留在磁盘上，文件改变时会重新加入。"
        "忽略的问题不再提醒，直到该文件出现不同的错误。",
    ),
    "reembed": ("Re-embed", "重新嵌入"),
    "remove_collection": ("Remove collection…", "删除知识库…"),
    "confirm_remove": ("Yes, remove it and its index", "确定删除它及其索引"),
    "ui_language": ("Language of the app", "应用的语言"),
    "ui_language_info": (
        "Automatic follows the browser's language. Gradio's own widget words (e.g. an upload box's) "
        "always follow the browser.",
        "自动：跟随浏览器的语言。Gradio 自身控件的文字（如上传框）始终跟随浏览器。",
    ),
    # the Knowledge tab's online sources form (ui/knowledge/sources_tab.py)
    "src_privacy": (
        "An online source sends the question's keywords to the address below, so it is **off until you "
        "enable it**. Each answer's trace says which source was asked and with what. Pages are fetched only "
        "from the addresses the source returns, never from this computer's or your network's private "
        "addresses (except the source's own, for an internal API).",
        "在线来源会把问题的关键词发送到下面的地址，所以它**在你启用之前是关闭的**。每个回答的过程记录都会说明"
        "询问了哪个来源、发送了什么。网页只从该来源返回的地址获取，绝不从这台电脑或你所在网络的私有地址获取"
        "（内部 API 来源自己的地址除外）。",
    ),
    "src_pick": ("Source", "来源"),
    "src_name": ("Name", "名称"),
    "src_name_example": ("e.g. team-wiki", "例如 team-wiki"),
    "src_kind": ("Kind", "类型"),
    "src_address": ("Address (SearXNG instance or API URL)", "地址（SearXNG 实例或 API 网址）"),
    "src_site": ("Only this site (optional)", "仅限此网站（可选）"),
    "src_knows": (
        "What it knows (a question far from this is not sent to it; empty: every question may be)",
        "它了解什么（与此相去甚远的问题不会发给它；留空：每个问题都可能发给它）",
    ),
    "src_enabled": ("Enabled", "已启用"),
    "src_use": ("Ask it", "何时询问"),
    "src_use_weak": ("when my documents do not answer", "当我的文档无法回答时"),
    "src_use_always": ("with every question", "每个问题都问"),
    "src_use_ask": ("only when I ask for it in the chat", "仅当我在对话中要求时"),
    "src_timeout": ("Time limit (s)", "时间限制（秒）"),
    "src_pages": ("Pages read per question", "每个问题读取的网页数"),
    "src_http": ("HTTP API request and response", "HTTP API 的请求与响应"),
    "src_method": ("Method", "方法"),
    "src_query_param": ("Query parameter (GET) or body field (POST)", "查询参数（GET）或请求体字段（POST）"),
    "src_token_env": ("Environment variable with a bearer token", "保存 bearer 令牌的环境变量"),
    "src_results_path": (
        "Where the results list is (dotted path, e.g. data.items)",
        "结果列表所在的位置（点分路径，例如 data.items）",
    ),
    "src_title_field": ("Title field", "标题字段"),
    "src_url_field": ("URL field", "网址字段"),
    "src_text_field": ("Text field", "正文字段"),
    "src_try_query": ("Try a query", "试一个查询"),
    "src_try": ("Try", "试试"),
    "src_save": ("Save source", "保存来源"),
    "src_remove": ("Remove source", "删除来源"),
    "src_kind_searxng": ("SearXNG instance (JSON API)", "SearXNG 实例（JSON API）"),
    "src_kind_ddgs": ("Web search (ddgs, no key)", "网络搜索（ddgs，无需密钥）"),
    "src_kind_http": ("HTTP API", "HTTP API"),
    # Written by the server in the page's language (``word``): the page translates labels, not the HTML and
    # Markdown the app writes. ``{…}`` are filled with ``str.format``; "{s}" is the English plural's "s".
    "src_new": ("(new source)", "（新来源）"),
    "src_on": ("{name} (on)", "{name}（已启用）"),
    "src_off": ("{name} (off)", "{name}（未启用）"),
    "src_saved_on": ("Saved **{name}** (on: asked {use}).", "已保存 **{name}**（已启用，何时询问：{use}）。"),
    "src_saved_off": (
        "Saved **{name}** (off). It is off: no question leaves this computer until you enable it.",
        "已保存 **{name}**（未启用）。它处于关闭状态：在你启用之前，不会有任何问题离开这台电脑。",
    ),
    "src_not_saved": ("**Not saved.** {why}", "**未保存。** {why}"),
    "src_choose": ("Choose a source first.", "请先选择一个来源。"),
    "src_removed": ("Removed **{name}**.", "已删除 **{name}**。"),
    "src_not_removed": ("**Not removed.** {why}", "**未删除。** {why}"),
    "src_failed": ("**The source failed:** {why}", "**来源出错：** {why}"),
    "src_no_results": ("The source answered with no results.", "来源没有返回任何结果。"),
    "src_results": ("**{n} results** for “{query}”:", "“{query}”的 **{n} 条结果**："),
    "src_page_read": ("page read", "已读取网页"),
    "src_snippet_only": ("snippet only", "仅摘要"),
    "idx_idle": ("Idle: all collections are up to date.", "空闲：所有知识库都是最新的。"),
    "idx_queued": ("Indexing queued…", "索引排队中…"),
    "idx_paused": ("Indexing paused.", "索引已暂停。"),
    "idx_active": ("Indexing {name}{why}: {files}", "正在索引 {name}{why}：{files}"),
    "idx_paused_in": ("Paused while indexing {name}{why}: {files}", "索引 {name}{why}时已暂停：{files}"),
    "idx_also": ("Also indexing {name}: {files}", "同时在索引 {name}：{files}"),
    "idx_files": ("{done} / {total} files", "{done} / {total} 个文件"),
    "idx_scanning": ("scanning files…", "正在扫描文件…"),
    "idx_now": (" · now: {name}", " · 当前：{name}"),
    "idx_eta": (" · about {s} s left", " · 约剩 {s} 秒"),
    "idx_ocr": (" · {n} page{s} waiting for OCR", " · {n} 页等待 OCR"),
    "idx_waiting": ("Waiting: {names}", "等待中：{names}"),
    "docs_choose": ("Choose a collection to see its files.", "选择一个知识库以查看其中的文件。"),
    "docs_no_problems": ("No problems: every file is indexed.", "没有问题：每个文件都已索引。"),
    "docs_none": (
        "No files indexed yet: drop some onto the collection or watch a folder.",
        "还没有已索引的文件：把文件拖到知识库上，或监视一个文件夹。",
    ),
    "docs_of": ("{n} of {total} files", "{total} 个文件中的 {n} 个"),
    "docs_in": ("{files} in {name}", "{name}：{files}"),
    "docs_uploaded": ("(uploaded)", "（已上传）"),
    "docs_dismissed": (" (dismissed)", "（已忽略）"),
    "col_file": ("File", "文件"),
    "col_status": ("Status", "状态"),
    "col_chunks": ("Chunks", "片段"),
    "col_indexed": ("Last indexed", "最近索引"),
    "status_indexed": ("indexed", "已索引"),
    "status_skipped": ("skipped", "已跳过"),
    "status_failed": ("failed", "失败"),
    "card_none": ("No card yet: it is made on the next sync.", "还没有卡片：下次同步时生成。"),
    "card_no_sentences": ("No sentences to show (code or tables).", "没有可显示的句子（代码或表格）。"),
    "card_outline": ("Outline ({n} heading{s})", "大纲（{n} 个标题）"),
    "card_no_headings": ("No headings.", "没有标题。"),
    "card_what": ("(document card{details})", "（文档卡片{details}）"),
    "card_language": (", language: {name}", "，语言：{name}"),
    "card_no_language": (", no language: numbers or codes", "，没有语言：数字或代码"),
    "card_table_no_language": (", a table: no language", "，表格：没有语言"),
    "card_page": ("(p. {n})", "（第 {n} 页）"),
    "card_line": ("(line {n})", "（第 {n} 行）"),
    "card_tables": ("Tables ({n})", "表格（{n}）"),
    "card_table": ("Table", "表格"),
    "card_rows": ("{n} row{s}", "{n} 行"),
    "card_header_row": ("(header on row {n})", "（表头在第 {n} 行）"),
    "coll_files": ("{n} file{s}", "{n} 个文件"),
    "coll_chunks": ("{n} chunk{s}", "{n} 个片段"),
    "coll_not_indexed": ("not indexed yet", "尚未索引"),
    "coll_model": (" · embedding model {model}", " · 嵌入模型 {model}"),
    "coll_updated": (" · last update {when}", " · 最近更新 {when}"),
    "coll_never": ("never", "从未"),
    "coll_damaged": (
        "**Index damaged, being rebuilt from its files** ({button} does the same): {why}",
        "**索引已损坏，正在根据其文件重建**（{button}也会这样做）：{why}",
    ),
    "coll_reembed": (
        "**Needs re-embedding**: built with another embedding model than the one in Settings. Press "
        "**{button}**; it keeps answering from its old index until the new one is complete.",
        "**需要重新嵌入**：它是用与设置中不同的嵌入模型建立的。按 **{button}**；在新索引完成之前，"
        "它继续用旧索引回答。",
    ),
    "coll_advice": (
        "🌐 **Most of these documents are not in English** and the embedding model reads English only. "
        "Press **{button}** below the collections: it downloads the multilingual model when needed, "
        "switches to it and re-embeds in the background.",
        "🌐 **这些文档大多不是英文**，而嵌入模型只读英文。按知识库下方的 **{button}**：它会在需要时"
        "下载多语言模型，切换过去，并在后台重新嵌入。",
    ),
    "coll_folders": ("Folders: {folders}", "文件夹：{folders}"),
    "coll_no_folders": ("Folders: none yet", "文件夹：暂无"),
    "coll_uploaded": (" (uploaded files)", "（上传的文件）"),
    "coll_watched": (" (watched in place)", "（原位监视）"),
    "coll_routing": (
        "Routing: {description}{examples}; weight {weight}; scale {scale}; rewrite {strategy}",
        "路由：{description}{examples}；权重 {weight}；缩放 {scale}；改写 {strategy}",
    ),
    "coll_no_description": ("no description", "无描述"),
    "coll_n_examples": ("; {n} example(s)", "；{n} 个示例"),
    "coll_default": ("default", "默认"),
    "coll_problems": ("{n} file(s) skipped or failed", "{n} 个文件被跳过或失败"),
    "activity_title": ("**Recent activity**", "**最近的活动**"),
    # The indexer's activity (``app.knowledge.indexing.Activity``: a code and values); "report" is a sync's
    "act_indexed": ("{n} file(s) indexed ({chunks} chunk(s))", "已索引 {n} 个文件（{chunks} 个片段）"),
    "act_deleted": ("{n} file(s) removed", "移除了 {n} 个文件"),
    "act_unchanged": ("{n} unchanged", "{n} 个未变"),
    "act_skipped": ("{n} skipped", "{n} 个已跳过"),
    "act_failed": ("{n} failed", "{n} 个失败"),
    "act_list_sep": (", ", "，"),
    "act_no_files": ("no files found", "没有找到文件"),
    "act_sync": ("{what} in {seconds} s", "{what}，用时 {seconds} 秒"),
    "act_watcher": (
        "Files changed on disk: {what} in {seconds} s",
        "磁盘上的文件有变化：{what}，用时 {seconds} 秒",
    ),
    "act_reembedded": (
        "Re-embedded with the embedding model in use: {what} in {seconds} s",
        "已用当前的嵌入模型重新嵌入：{what}，用时 {seconds} 秒",
    ),
    "act_repair": (
        "Damaged index rebuilt: {what} in {seconds} s",
        "已重建损坏的索引：{what}，用时 {seconds} 秒",
    ),
    "app_paused": ("Indexing paused.", "索引已暂停。"),
    "app_resumed": ("Indexing resumed.", "索引已继续。"),
    "app_cancelled": (
        "Indexing cancelled; what was indexed so far is kept.",
        "索引已取消；已索引的内容会保留。",
    ),
    "app_stopped": ("Indexing stopped: {why}", "索引已停止：{why}"),
    "app_failed": (
        "Indexing failed unexpectedly ({what}). Details are in {log}.",
        "索引意外失败（{what}）。详情见 {log}。",
    ),
    "app_failed_no_log": ("Indexing failed unexpectedly ({what}).", "索引意外失败（{what}）。"),
    "app_damaged": (
        "Its index is damaged (a table is missing or unreadable); rebuilding it.",
        "它的索引已损坏（某个表缺失或无法读取）；正在重建。",
    ),
    "app_not_watched": ("Folders are not watched for changes: {why}", "文件夹的变化没有被监视：{why}"),
    # How a button went (``app.outcomes.Said``)
    "app_uploaded": (
        "{n} new file(s) copied into '{name}'; indexing in the background.",
        "已把 {n} 个新文件复制到“{name}”；正在后台建立索引。",
    ),
    "app_no_collection": (
        "No collection was chosen, so the files went into '{name}' (to give it another name, open "
        '"Rename, or stop watching a folder" below; nothing is indexed again). ',
        "没有选择知识库，所以文件放进了“{name}”（要改名，请打开下面的“重命名，或停止监视某个文件夹”；"
        "不会重新索引）。",
    ),
    "models_here": ("### Models on this computer", "### 这台电脑上的模型"),
    "look_again": ("Look again", "重新查找"),
    "use_model": ("Use", "使用"),
    # the one click to the multilingual embedder (Chat and Knowledge tabs); the chat's note names it too
    "use_multilingual": (SWITCH_BUTTON, phrase_in("switch button", "zh")),
    # the Chat tab's labels (ui/chat/layout.py)
    "ready_hint": (
        "Ask a question about your documents. Answers cite the files they come from.",
        "询问关于你的文档的问题。回答会注明出自哪些文件。",
    ),
    "send_note": (
        "Sending a question while an answer is being written stops that answer (it keeps what it found) "
        "and asks the new one. **Regenerate** writes a different answer; the earlier ones stay below it.",
        "在回答还在写的时候发送新问题，会停止那个回答（保留它已找到的内容）并询问新问题。"
        "**重新生成** 会写出另一个回答；之前的回答保留在它下面。",
    ),
    "mode_label": ("Answer from", "回答依据"),
    "mode_info": (
        "Answer from your documents, or from the model alone: its own knowledge, not your documents.",
        "根据你的文档回答，或只由模型回答：用它自己的知识，而不是你的文档。",
    ),
    "mode_documents": ("my documents", "我的文档"),
    "mode_model": ("the model alone", "只用模型"),
    "ask_model_alone": ("Ask the model alone instead", "改为只问模型"),
    # Written by the server for the Chat tab, in the page's language (``word``)
    "no_knowledge_hint": (
        "**No knowledge yet.** Open the **Knowledge** tab, create a collection and drop files or a whole "
        "folder onto it (or add a folder to watch). Then ask your questions here. Or choose **Answer from: "
        "the model alone** below: it answers from its own knowledge, labelled as not from your documents.",
        "**还没有知识。** 打开 **知识库** 标签页，新建一个知识库，把文件或整个文件夹拖到上面"
        "（或添加要监视的文件夹），然后在这里提问。也可以在下面选择 **回答依据：只用模型**：它用自己的知识"
        "回答，并标明不是来自你的文档。",
    ),
    "app_unexpected": (  # ``app.outcomes.explained_said``: an error nobody expected ({error}: its words)
        "Something went wrong while {doing} ({error}). Details are in {log}.",
        "出了意外的错误（{error}）。详情见 {log}。",
    ),
    "store_problem": (
        "**The knowledge store cannot be read.** {message} Details are in {log}.",
        "**无法读取知识库存储。** {message} 详情见 {log}。",
    ),
    "chats_none": ("_Your conversations will be listed here._", "_你的对话会列在这里。_"),
    "chats_no_match": ("_No conversation matches._", "_没有匹配的对话。_"),
    "model_loading": ("Loading model…", "正在加载模型…"),
    "model_loading_named": ("Loading model… ({models})", "正在加载模型…（{models}）"),
    "model_ready": ("Ready: {models}.", "就绪：{models}。"),
    "models": ("chat model {chat}, embedding model {embedding}", "对话模型 {chat}，嵌入模型 {embedding}"),
    "built_in": ("{name} (built in)", "{name}（内置）"),
    "server_model": ("{model} at {url}", "{url} 上的 {model}"),
    "the_server_model": ("the server model", "服务器上的模型"),
    "marked_wrong": (
        "Marked wrong. To test this question, add it with the file that answers it under "
        "Evaluation → Add a question of your own.",
        "已标记为错误。要测试这个问题，请在 评估 → 添加你自己的问题 中，连同回答它的文件一起添加。",
    ),
    "marked_good_uncited": (
        "Marked good, but the answer cites no file, so it cannot join the test set.",
        "已标记为正确，但这个回答没有引用文件，所以不能加入测试集。",
    ),
    "marked_good_no_set": (
        "Marked good. Make a test set under Evaluation to keep questions like this one in it.",
        "已标记为正确。在 评估 中创建一个测试集，就能把这样的问题保存在里面。",
    ),
    "marked_good": (
        "Marked good: “{question}” joins the test set, answered by {file}.",
        "已标记为正确：“{question}”加入测试集，由 {file} 回答。",
    ),
    # a question over the [limits] (``kimas_desktop.limits``, ``OverLimitError``): the chat's refusal
    "app_over_limit": (
        "The question is over a limit: {size:,}, where [limits] {setting} in config.toml allows {limit:,}. "
        "Shorten it and ask again.",
        "问题超出了上限：{size:,}，而 config.toml 中 [limits] 的 {setting} 最多允许 {limit:,}。请缩短后再问。",
    ),
}
WORDS |= EVALUATION  # the Evaluation tab's
WORDS |= SETTINGS  # the Settings tab's
WORDS |= KNOWLEDGE  # what the Knowledge tab's buttons say
WORDS |= MODEL_BUILD  # the model status line while llama.cpp is built (issue 71)

# The Chat tab's labels and the words the server writes on it, with the page's title and the tabs' names: the
# keys Japanese and Hindi translate (every one, with every line of ``ui.chat.said``: tests/ui/test_i18n_keys.py).
# Not "use_multilingual": the chat's note for a Japanese or Hindi question names the button in English
# (``kimas_desktop.answer.phrases`` has no "switch button" in them), so the button keeps that name.
CHAT_KEYS = frozenset(
    "title tab_chat tab_knowledge tab_evaluation tab_settings new_chat search_chats rename_or_delete chat_title "
    "rename delete_chat confirm_delete_chat cancel ask_placeholder ask_placeholder_model send also_ask stop "
    "regenerate scroll_down ready_hint send_note mode_label mode_info mode_documents mode_model ask_model_alone "
    "no_knowledge_hint store_problem chats_none chats_no_match model_loading model_loading_named model_ready "
    "models built_in server_model the_server_model marked_wrong marked_good_uncited marked_good_no_set "
    "marked_good app_over_limit".split()
) | frozenset(MODEL_BUILD)
# language → key → words: the columns beyond English and Chinese (``ui.i18n.column``: English for the rest)
COLUMNS: dict[str, dict[str, str]] = {"ja": JAPANESE, "hi": HINDI}
