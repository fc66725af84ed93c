"""The Settings tab's words (issue 60): key → (English, Simplified Chinese), part of the one table
(``ui.words.WORDS``, served by ``ui.i18n``). ``CATALOG`` holds the Chinese of the model catalog's titles
and notes (``local_models/catalog/catalog.toml`` holds the English), by model name: server-written only,
never a page label (a model name holds "." and "/")."""

from __future__ import annotations

__all__ = ["CATALOG", "LANGUAGES", "SETTINGS"]

SETTINGS: dict[str, tuple[str, str]] = {
    "set_heading": ("## Settings", "## 设置"),
    "set_models": ("### Models", "### 模型"),
    "set_model": ("Model", "模型"),
    "set_download": ("Download", "下载"),
    "set_cancel_download": ("Cancel download", "取消下载"),
    "set_use_model": ("Use this model", "使用这个模型"),
    "set_answering": ("### Answering", "### 回答"),
    "set_preset": ("Preset", "预设"),
    "set_preset_info": (
        "full: everything on · routed: one best collection · turbo: lowest latency · custom: your own "
        "switches",
        "完整：全部开启 · 路由：只用最合适的一个知识库 · 极速：延迟最低 · 自定义：你自己的开关",
    ),
    # the presets' names on the radio (issue 69): the values stay the config's keys
    "preset_full": ("full", "完整"),
    "preset_routed": ("routed", "路由"),
    "preset_turbo": ("turbo", "极速"),
    "preset_custom": ("custom", "自定义"),
    "ui_language_auto": ("Automatic", "自动"),
    "set_context": ("Context manager (understands follow-up questions)", "上下文管理（理解追问）"),
    "set_routing": ("Route questions to the best collections", "把问题路由到最合适的知识库"),
    "set_top_k": ("How many collections to search", "检索多少个知识库"),
    "set_agentic": (
        "Agentic round (search again when evidence is thin)",
        "智能体轮次（证据不足时再检索一次）",
    ),
    "set_other_model": ("A model that is not in the catalog", "不在目录中的模型"),
    "set_chat_path": (
        "Chat model: a .gguf file on this computer (empty = built-in SmolLM2-135M-Instruct)",
        "对话模型：这台电脑上的一个 .gguf 文件（留空 = 内置的 SmolLM2-135M-Instruct）",
    ),
    "set_embedding": (
        "Embedding model: a model name or a local model folder (empty = built-in all-MiniLM-L6-v2; "
        "multilingual-e5-small is built in too)",
        "嵌入模型：模型名或本地模型文件夹（留空 = 内置的 all-MiniLM-L6-v2；multilingual-e5-small 也是内置的）",
    ),
    "set_save": ("Save settings", "保存设置"),
    "set_restore": ("Restore defaults", "恢复默认"),
    "set_files": ("Config file: {config} · Log file: {log}", "配置文件：{config} · 日志文件：{log}"),
    # the model catalog (``ui/settings/handlers.catalog_html``), written in the page's language
    "cat_ram": (
        "This computer has {gb} GB of RAM. Nothing is downloaded until you press Download.",
        "这台电脑有 {gb} GB 内存。在你按下“下载”之前，不会下载任何东西。",
    ),
    "cat_ram_unknown": ("This computer's RAM is unknown.", "这台电脑的内存大小未知。"),
    "cat_chat": ("Chat models", "对话模型"),
    "cat_embedding": ("Embedding models", "嵌入模型"),
    "cat_reranker": ("Rerankers", "重排序模型"),
    "cat_reader": ("Readers", "阅读模型"),
    "cat_columns": (
        "<tr><th>Model</th><th>Download</th><th>RAM</th><th>Fits</th><th>Status</th></tr>",
        "<tr><th>模型</th><th>下载大小</th><th>内存</th><th>能否运行</th><th>状态</th></tr>",
    ),
    "cat_too_big": ("too big for this RAM", "内存不够"),
    "cat_built_in": ("built in", "内置"),
    "cat_downloading": ("downloading…{pct}", "正在下载…{pct}"),
    "cat_not_installed": ("not installed", "未安装"),
    "cat_in_use": ("<b>in use</b>", "<b>使用中</b>"),
    "cat_installed": ("installed", "已安装"),
    "cat_unverified": (" (unverified)", "（未校验）"),
    "cat_context": ("{k}k context", "{k}k 上下文"),
    "cat_dims": ("{n} dims", "{n} 维"),
    # models on this computer (``ui/settings/local_handlers.py``)
    "loc_waiting": (
        "Opening this tab looks for the models already on this computer (nothing is asked before).",
        "打开这个标签页时会查找这台电脑上已有的模型（在此之前不会询问任何程序）。",
    ),
    "loc_looking": ("Looking for models on this computer…", "正在查找这台电脑上的模型…"),
    "loc_none": (
        "No model was found on this computer: no model server answered on 127.0.0.1 (Ollama, LM Studio, "
        "llama.cpp's server, Jan, vLLM) and no GGUF file is in the folders of LM Studio, GPT4All, Jan or "
        "Ollama.",
        "这台电脑上没有找到模型：127.0.0.1 上没有模型服务器应答（Ollama、LM Studio、llama.cpp 服务器、Jan、"
        "vLLM），LM Studio、GPT4All、Jan 和 Ollama 的文件夹里也没有 GGUF 文件。",
    ),
    "loc_found": (
        "Found {n} model{s} on this computer ({chats} for chat). Use one with one click; nothing is copied.",
        "在这台电脑上找到 {n} 个模型（{chats} 个用于对话）。点一下即可使用；不会复制任何文件。",
    ),
    # use it from other tools (``ui/settings/other_tools.py``; ``app.settings.tools_access`` codes)
    "tools_heading": ("### Use it from other tools", "### 在其他工具中使用"),
    "tools_mcp": (
        "MCP server on stdio: the command for Claude Desktop, VS Code, Cursor…",
        "stdio 上的 MCP 服务器：用于 Claude Desktop、VS Code、Cursor 等的命令…",
    ),
    "tools_api": ("OpenAI-compatible API (base URL)", "兼容 OpenAI 的 API（基础网址）"),
    "tools_mcp_http": ("MCP over streamable HTTP", "基于可流式 HTTP 的 MCP"),
    "tools_serve": ("Serve the API and MCP over HTTP", "通过 HTTP 提供 API 和 MCP"),
    "tools_token": ("Token (send it as Authorization: Bearer …)", "令牌（以 Authorization: Bearer … 发送）"),
    "tools_show_token": ("Show the token", "显示令牌"),
    "app_api_off": (
        "The API and MCP over HTTP are **off**: no port is open for them.",
        "HTTP 上的 API 和 MCP **已关闭**：没有为它们打开任何端口。",
    ),
    "app_api_on": (
        "The API and MCP over HTTP are **on** at 127.0.0.1:{port} (this computer only), for programs that "
        "send the token.",
        "HTTP 上的 API 和 MCP **已开启**，地址 127.0.0.1:{port}（仅限本机），供发送令牌的程序使用。",
    ),
    "app_api_port_taken": (
        "The API and MCP over HTTP are **on** in the settings but **not served**: port {port} on 127.0.0.1 is "
        "in use (another KIMAs, or another program). Set another `api_port` under [server] in {path}; the "
        "app follows it within a second.",
        "HTTP 上的 API 和 MCP 在设置中**已开启**，但**没有提供**：127.0.0.1 的端口 {port} 已被占用（另一个 KIMAs 或其他"
        "程序）。请在 {path} 的 [server] 下设置另一个 `api_port`；应用会在一秒内跟上。",
    ),
    # what the Settings tab's buttons say (``app.outcomes.Said`` codes; the refusals of ``ui.settings``)
    "app_choose_model": ("Choose a model first.", "请先选择一个模型。"),
    "app_model_gone": (
        "That model is no longer listed: press Look again.",
        "这个模型已不在列表中：请按“重新查找”。",
    ),
    "app_settings_saved_to": ("Settings saved to {path}.", "设置已保存到 {path}。"),
    "app_settings_saved_loading": (
        "Settings saved to {path}. Loading the model… (saved once it loads; answers use the current one "
        "meanwhile)",
        "设置已保存到 {path}。正在加载模型…（加载完成后保存；其间回答仍用当前的模型）",
    ),
    "app_defaults_restored": (
        "Default settings restored (preset {preset}); your models and collections are kept.",
        "已恢复默认设置（预设 {preset}）；你的模型和知识库都保留。",
    ),
    "app_language_saved": ("Language saved; the page reloads in it.", "语言已保存；页面会用它重新加载。"),
    "app_model_in_use": ("{name} is already in use.", "{name} 已经在使用中。"),
    "app_model_loading_saved": (
        "Loading {name}… (saved once it loads; answers use the current model meanwhile)",
        "正在加载 {name}…（加载完成后保存；其间回答仍用当前的模型）",
    ),
    "set_download_stopping": (
        "Stopping the download of {name}; Download again goes on where it stopped.",
        "正在停止下载 {name}；再按“下载”会从停下的地方接着下载。",
    ),
    "set_no_download": ("No download of that model is running.", "这个模型没有正在进行的下载。"),
    # the downloads panel (``ui.settings.handlers.downloads_html``)
    "dl_downloading": ("Downloading {who}: {text}", "正在下载 {who}：{text}"),
    "dl_starting": ("starting… (you can keep working meanwhile)", "正在开始…（其间可以继续使用）"),
    "dl_connecting": ("connecting…", "正在连接…"),
    "dl_verifying": ("checking the SHA-256…", "正在校验 SHA-256…"),
    "dl_of": ("{done} of {total}", "{done} / {total}"),
    "dl_left": (" · about {s} s left", " · 约剩 {s} 秒"),
    "dl_installed": ("Installed at {path} ({check}).", "已安装到 {path}（{check}）。"),
    "dl_checked": ("checked against its published SHA-256", "已按公布的 SHA-256 校验"),
    "dl_no_hash": ("no published hash", "没有公布的哈希值"),
    "dl_done": (
        "✓ {who} downloaded. {message} Press <i>Use this model</i> to switch to it.",
        "✓ {who} 已下载。{message}按<i>使用这个模型</i>切换到它。",
    ),
    "dl_failed": ("⚠ {who}: {message}", "⚠ {who} 下载失败：{message}"),
    "dl_at": (" at {size}", "（停在 {size}）"),
    # why a download failed (``local_models.catalog.download.DownloadError``'s codes; the log keeps the error)
    "app_download_offline": (
        "Cannot download {name}: cannot connect to {host}. Check the internet connection; the models "
        "already installed keep working.",
        "无法下载 {name}：无法连接到 {host}（可能没有联网）。请检查网络连接；已安装的模型仍可使用。",
    ),
    "app_download_not_public": (
        "Cannot download {name}: {url} answered HTTP {status} (not found or not public). The catalog entry "
        "may be out of date.",
        "无法下载 {name}：{url} 返回 HTTP {status}（不存在或不公开）。模型目录中的这一项可能已过时。",
    ),
    "app_download_interrupted": (
        "Cannot download {name} from {host} after {attempts} attempts. Run the download again to resume it.",
        "从 {host} 下载 {name} 尝试了 {attempts} 次仍未完成。再次下载会从中断的地方接着下载。",
    ),
    "app_download_no_space": (
        "Not enough disk space for {name}: it needs {needed} MB more and {where} has {free} MB free. Free "
        "some space, or choose a smaller model.",
        "磁盘空间不足，无法下载 {name}：还需要 {needed} MB，而 {where} 只剩 {free} MB。请释放一些空间，"
        "或选择更小的模型。",
    ),
    "app_download_offline_mode": (
        "Cannot download {name}: HF_HUB_OFFLINE is set (offline mode). Unset it first.",
        "无法下载 {name}：设置了 HF_HUB_OFFLINE（离线模式）。请先取消这个设置。",
    ),
    "app_download_checksum": (
        "{name} is not the published file: it was deleted and not used. Try again; if it happens again, the "
        "source has changed or the connection alters data.",
        "{name} 与公布的文件不一致（SHA-256 不同）：已删除，没有使用。请再试一次；如果再次发生，"
        "说明来源已经改变，或者连接篡改了数据。",
    ),
    "dl_cancelled": (
        "{who}: cancelled{got}; Download goes on from there.",
        "{who}：已取消{got}；再按“下载”会从那里接着下载。",
    ),
    # "Models on this computer" (``ui.settings.local_handlers``)
    "loc_chat_model": ("chat model", "对话模型"),
    "loc_embedding_model": ("embedding model", "嵌入模型"),
    "loc_folder_of": ("{title} folder", "{title} 文件夹"),
    "loc_size_unknown": ("size unknown", "大小未知"),
    "loc_quantization_unknown": ("quantization unknown", "量化方式未知"),
    "loc_context": ("{n} tokens of context", "{n} 个词元的上下文"),
    "loc_context_unknown": ("context unknown", "上下文长度未知"),
    "loc_fits": ("fits this computer's RAM", "这台电脑的内存够用"),
    "loc_too_big": ("too big for this computer's RAM", "这台电脑的内存不够"),
    "loc_ram_unknown": ("RAM need unknown", "所需内存未知"),
    "loc_in_use": ("in use", "使用中"),
    # the model status line after Use or Save (``app.outcomes.ModelState.said``; {models}: the models named)
    "app_models_switching": (
        "Loading {models}… (answers use {before} meanwhile)",
        "正在加载{models}…（其间回答仍用{before}）",
    ),
    "app_models_ready": ("Ready: {models}.", "就绪：{models}。"),
    "app_models_ready_reembedding": (
        "Ready: {models}. Re-embedding {names} with the new embedding model in the background; the "
        "Knowledge tab shows the progress.",
        "就绪：{models}。正在后台用新的嵌入模型重新嵌入 {names}；进度见“知识库”标签页。",
    ),
    "app_models_ready_but": ("Ready: {models}. {why}", "就绪：{models}。{why}"),
    "app_models_not_switched": (
        "Could not switch models: {why} Still using {models}; the new model was not saved.",
        "无法切换模型：{why} 仍在使用{models}；新模型没有保存。",
    ),
    "app_model_not_loaded": ("The model could not be loaded: {why}", "模型无法加载：{why}"),
}

# the catalog's "languages" of a model → in Chinese
LANGUAGES = {
    "English": "英文",
    "English, Chinese": "英文、中文",
    "100 languages": "100 种语言",
    "50+ languages": "50 多种语言",
    "about 100 languages": "约 100 种语言",
    "100+ languages": "100 多种语言",
}

# model name → (title, notes) in Chinese; "" keeps the catalog's (a title that is only a model name)
CATALOG: dict[str, tuple[str, str]] = {
    "smollm2-135m-instruct": (
        "SmolLM2 135M Instruct（内置默认）",
        "始终安装。回答是你的文档中的段落；要让模型写出回答，请选择更大的模型。",
    ),
    "qwen2.5-0.5b-instruct": (
        "",
        "最小的一次真正提升：0.5B 的 Qwen2.5 instruct 在 30 个留出问题中答对 12 个（SmolLM2：4 个）。",
    ),
    "qwen2.5-1.5b-instruct": ("", "适合 8 GB 内存笔记本的默认选择。"),
    "qwen2.5-7b-instruct": ("", "需要 8 GB 空闲内存；在笔记本 CPU 上回答很慢（每秒几个词元）。"),
    "all-MiniLM-L6-v2": ("all-MiniLM-L6-v2（内置默认）", ""),
    "multilingual-e5-small": (
        "multilingual-e5-small（内置，约 100 种语言）",
        "随应用安装，可离线使用。能读中文、印地语、德语……并能为一种语言的问题找到另一种语言的页面。"
        "每秒索引的片段数是 all-MiniLM-L6-v2 的 0.58 倍（英文文本上为 0.37 倍）。",
    ),
    "BAAI/bge-small-en-v1.5": ("BGE small English v1.5（量化）", ""),
    "BAAI/bge-base-en-v1.5": ("BGE base English v1.5（量化）", ""),
    "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2": (
        "Multilingual MiniLM L12 v2（50 多种语言，量化）",
        "",
    ),
    "intfloat/multilingual-e5-large": ("Multilingual E5 large（100 种语言）", ""),
    "Xenova/ms-marco-MiniLM-L-6-v2": ("MS MARCO MiniLM L6 交叉编码器", ""),
    "Xenova/ms-marco-MiniLM-L-12-v2": ("MS MARCO MiniLM L12 交叉编码器", ""),
    "BAAI/bge-reranker-base": ("BGE reranker base（英文和中文）", ""),
    "kimas-reader-e5-small": (
        "KIMAs 阅读模型 e5-small（内置默认）",
        "随应用安装：multilingual-e5-small 的 6 层，由本项目训练。",
    ),
    "qwen3-reranker-0.6b": (
        "Qwen3-Reranker 0.6B（100 多种语言）",
        "用 100 多种语言逐段判断它是否回答了问题；比内置阅读模型慢得多。",
    ),
}
