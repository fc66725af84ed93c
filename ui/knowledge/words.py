"""What the Knowledge tab's buttons say (issue 60): key → (English, Simplified Chinese), part of the one table
(``ui.words.WORDS``, served by ``ui.i18n``). The "app_<code>" keys are the sentences ``app/`` returns as an
``app.outcomes.Said`` (``app.knowledge.said``) or the handlers refuse with (``ui.knowledge.handlers``); the
English column is the app's English, word for word."""

from __future__ import annotations

__all__ = ["KNOWLEDGE"]

KNOWLEDGE: dict[str, tuple[str, str]] = {
    # a collection's query rewrite strategies (``[collections.NAME] strategy``; "" is the default), by name
    "strategy_": ("default", "默认"),
    "strategy_none": ("none", "不改写"),
    "strategy_keyword": ("keyword", "关键词"),
    "strategy_prompt": ("prompt", "按提示改写"),
    "strategy_retrieval": ("retrieval", "为检索改写"),
    "strategy_hyde": ("hyde", "假设文档（HyDE）"),
    "strategy_translation": ("translation", "翻译"),
    "confirm_remove_named": ("Yes, remove '{name}' and its index", "确定删除“{name}”及其索引"),
    # refused before the app is asked (``ui.knowledge.handlers``, ``documents_handlers``)
    "app_choose_collection": ("Choose a collection first.", "请先选择一个知识库。"),
    "app_choose_watched": ("Choose the folder to stop watching.", "请先选择要停止监视的文件夹。"),
    "app_choose_for_folder": (
        "Choose a collection or create one first; the folder was not added.",
        "请先选择或新建一个知识库；文件夹没有添加。",
    ),
    "app_choose_file": (
        "Choose a collection and one of its files first.",
        "请先选择一个知识库及其中的一个文件。",
    ),
    # what a collection's action did (``app.knowledge.said``)
    "app_created": (
        "Collection '{name}' created. Now drop files or a folder onto it, or add a folder to watch.",
        "已创建知识库“{name}”。现在把文件或文件夹拖到上面，或添加要监视的文件夹。",
    ),
    "app_renamed": (
        "Collection '{old}' is now named '{name}' (nothing is indexed again).",
        "知识库“{old}”已改名为“{name}”（不会重新索引）。",
    ),
    "app_unwatched": (
        "No longer watching {path} for '{name}'; its files leave the index in the background (they stay "
        "on disk).",
        "不再为“{name}”监视 {path}；其中的文件会在后台移出索引（它们仍留在磁盘上）。",
    ),
    "app_removed": (
        "Collection '{name}' removed (folders you added stay where they are on disk).",
        "已删除知识库“{name}”（你添加的文件夹仍留在磁盘上原处）。",
    ),
    "app_watching": (
        "Watching {path} for '{name}'; indexing in the background.",
        "正在为“{name}”监视 {path}；正在后台建立索引。",
    ),
    "app_watching_multilingual": (
        "Watching {path} for '{name}'; indexing in the background. Its documents are not all in English: "
        "it is indexed with the multilingual embedding model ({model}).",
        "正在为“{name}”监视 {path}；正在后台建立索引。它的文档不全是英文：用多语言嵌入模型（{model}）建立索引。",
    ),
    "app_reindexing": ("Re-indexing '{name}' in the background.", "正在后台重新索引“{name}”。"),
    "app_reembedding": (
        "Re-embedding '{name}' in the background; it keeps answering from its old index meanwhile.",
        "正在后台重新嵌入“{name}”；其间它仍用旧的索引回答。",
    ),
    "app_settings_saved": ("Settings of '{name}' saved.", "已保存“{name}”的设置。"),
    "app_indexing_paused": (
        "Indexing paused; it goes on where it stopped when you resume.",
        "索引已暂停；继续时会从停下的地方接着做。",
    ),
    "app_indexing_cancelled": (
        "Indexing cancelled; what was indexed is kept, and Re-index goes on from it.",
        "索引已取消；已索引的内容会保留，重新索引会从那里接着做。",
    ),
    # one file (``DesktopApp.remove_document`` and the two after it)
    "app_doc_removed": (
        "'{file}' removed from '{name}' (its uploaded copy is deleted).",
        "已把“{file}”从“{name}”中移除（它上传的副本已删除）。",
    ),
    "app_doc_unindexed": (
        "'{file}' removed from the index of '{name}'. It is still in the watched folder {folder}: the next "
        "change there brings it back unless you delete or move it.",
        "已把“{file}”从“{name}”的索引中移除。它仍在被监视的文件夹 {folder} 里：除非你删除或移走它，"
        "那里的下一次变化会把它带回来。",
    ),
    "app_doc_reading": ("Reading '{file}' again in the background.", "正在后台重新读取“{file}”。"),
    "app_doc_dismissed": (
        "The problem with '{file}' is dismissed; it warns again only if it fails differently.",
        "已忽略“{file}”的问题；只有它以不同的方式失败时才会再次提醒。",
    ),
    # a refusal the app raises (``KimasError.code``)
    "app_no_collection_named": ("There is no collection named '{name}'.", "没有名为“{name}”的知识库。"),
    "app_name_taken": (
        "There is already a collection named '{name}'; choose another name.",
        "已经有名为“{name}”的知识库；请换一个名称。",
    ),
    "app_no_files_yet": (
        "'{name}' has no files yet: drop some onto it or add a folder.",
        "“{name}”还没有文件：把文件拖到上面，或添加一个文件夹。",
    ),
    "app_name_invisible": (
        "A collection name cannot hold control or invisible formatting characters; type it again.",
        "知识库名称不能含有控制字符或不可见的格式字符；请重新输入。",
    ),
    "app_name_empty": (
        "Type a name for the collection (any words, in any language).",
        "请为知识库输入一个名称（任何文字、任何语言都可以）。",
    ),
    "app_name_long": (
        "That name has {n} characters; a collection name has at most {most}.",
        "这个名称有 {n} 个字符；知识库名称最多 {most} 个字符。",
    ),
    # why a file was not indexed (``ui.knowledge.documents_view.problem_said``; {why}: the indexer's words)
    "docs_problem_failed": ("{status}: {why}", "“{name}”读取失败：{why}"),
    "docs_problem_skipped": ("{status}: {why}", "“{name}”已跳过：{why}"),
    "docs_problem_indexed": ("{status}: {why}", "“{name}”已索引，附注：{why}"),
    # why a folder cannot be watched (``app.knowledge.collections.Knowledge.check_folder``, ``unwatch``)
    "app_folder_empty": (
        "Type the full path of a folder on this computer.",
        "请输入这台电脑上某个文件夹的完整路径。",
    ),
    "app_folder_not_full_path": (
        "'{folder}' is not a full path: start it with / (or a drive letter).",
        "“{folder}”不是完整路径：请以 / （或盘符）开头。",
    ),
    "app_no_folder_at": ("There is no folder at {path}.", "{path} 处没有文件夹。"),
    "app_folder_not_utf8": (
        "That folder's name is not valid UTF-8 text, so it cannot be kept in the settings; rename it.",
        "这个文件夹的名称不是有效的 UTF-8 文本，无法保存到设置中；请给它改名。",
    ),
    "app_folder_holds_data": (
        "That folder holds KIMAs' own data directory; choose a folder of documents.",
        "这个文件夹包含 KIMAs 自己的数据目录；请选择一个存放文档的文件夹。",
    ),
    "app_folder_in_data": (
        "That folder is inside KIMAs' own data directory; choose a folder of documents (files dropped onto "
        "a collection are kept there already).",
        "这个文件夹在 KIMAs 自己的数据目录里；请选择一个存放文档的文件夹（拖到知识库上的文件已经保存在那里）。",
    ),
    "app_folder_not_watched": (
        "'{folder}' is not a folder of '{name}' (its folders: {listed}).",
        "“{folder}”不是“{name}”的文件夹（它的文件夹：{listed}）。",
    ),
    # the store cannot be read ({error}: the library's own words)
    "app_store_unreadable": (
        "The collection store cannot be read ({error}).",
        "无法读取知识库存储（{error}）。",
    ),
    "app_store_unopenable": (
        "cannot open the collection database at {uri}: {error}",
        "无法打开位于 {uri} 的知识库数据库：{error}",
    ),
    # the one click to the multilingual embedding model (``app.models.multilingual``)
    "app_switching_to": ("Switching to {name}…", "正在切换到 {name}…"),
    "app_downloading": ("Downloading {name}…", "正在下载 {name}…"),
    "app_multilingual_not_downloaded": (
        "Could not download {name}: {why} Nothing was changed: the embedding model in use stays, and so do "
        "your collections.",
        "无法下载 {name}：{why} 什么都没有改变：正在使用的嵌入模型和你的知识库都保持原样。",
    ),
}
