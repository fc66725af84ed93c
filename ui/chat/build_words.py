"""The model status line while llama.cpp is built beside the app (issue 71; ``app.models.chat_build``), and
the sentence of a chat model that is not ready yet (``kimas_desktop.answer.unwritten``): key → (English,
Simplified Chinese), merged into ``ui.words``. Japanese and Hindi are in ``ui.words_ja`` and ``ui.words_hi``."""

from __future__ import annotations

__all__ = ["MODEL_BUILD"]

_MEANWHILE = ("; until then, answers quote your documents.", "；在此之前，回答直接引用你的文档。")

MODEL_BUILD: dict[str, tuple[str, str]] = {
    "app_chat_model_building": (
        "Preparing the chat model: llama.cpp is compiling for this computer ({percent}% done, about "
        "{minutes} min left). Until then, answers quote your documents.",
        "正在准备对话模型：llama.cpp 正在为这台电脑编译（已完成 {percent}%，大约还需 {minutes} 分钟）。"
        "在此之前，回答直接引用你的文档。",
    ),
    "app_chat_model_building_starting": (
        "Preparing the chat model: llama.cpp is starting to compile for this computer. Until then, answers "
        "quote your documents.",
        "正在准备对话模型：llama.cpp 即将开始为这台电脑编译。在此之前，回答直接引用你的文档。",
    ),
    "app_chat_model_build_compiler": (
        "The chat model could not be built because no C++ compiler was found: install one (Debian or Ubuntu: "
        "build-essential; macOS: xcode-select --install; Windows: Visual Studio's C++ build tools) and CMake, "
        "then run {run} again" + _MEANWHILE[0],
        "对话模型无法构建，因为找不到 C++ 编译器：请安装一个（Debian 或 Ubuntu：build-essential；"
        "macOS：xcode-select --install；Windows：Visual Studio 的 C++ 生成工具）和 CMake，然后再次运行 {run}"
        + _MEANWHILE[1],
    ),
    "app_chat_model_build_cmake": (
        "The chat model could not be built because CMake is missing or too old: install CMake 3.21 or newer, "
        "then run {run} again" + _MEANWHILE[0],
        "对话模型无法构建，因为 CMake 缺失或版本太旧：请安装 CMake 3.21 或更新版本，然后再次运行 {run}"
        + _MEANWHILE[1],
    ),
    "app_chat_model_build_network": (
        "The chat model could not be built because llama.cpp's sources could not be downloaded: connect to "
        "the internet, then run {run} again" + _MEANWHILE[0],
        "对话模型无法构建，因为无法下载 llama.cpp 的源代码：请连接互联网，然后再次运行 {run}" + _MEANWHILE[1],
    ),
    "app_chat_model_build_interrupted": (
        "The chat model's build was stopped before it finished: run {run} again to finish it" + _MEANWHILE[0],
        "对话模型的构建在完成前被停止了：再次运行 {run} 即可完成" + _MEANWHILE[1],
    ),
    "app_chat_model_build_other": (
        "The chat model could not be built ({detail}; the whole log is {log}): check that a C++ compiler and "
        "CMake are installed, then run {run} again" + _MEANWHILE[0],
        "对话模型无法构建（{detail}；完整日志见 {log}）：请确认已安装 C++ 编译器和 CMake，然后再次运行 {run}"
        + _MEANWHILE[1],
    ),
    "app_chat_model_not_ready": (
        "The chat model is still being prepared (llama.cpp is compiling for this computer); until it is "
        "ready, answers are the sentences of your documents that answer.",
        "对话模型仍在准备中（llama.cpp 正在为这台电脑编译）；在它就绪之前，回答是你的文档中回答问题的句子。",
    ),
}
