"""The model status line names the embedding model in use (issue 69): a new library whose first folder is
Chinese moves to multilingual-e5-small before it is indexed (``FirstEmbedder``), and every collection is
built with it; the status line went on naming all-MiniLM-L6-v2, the model it had loaded at start."""

from __future__ import annotations

import time
from pathlib import Path

from tests.rigs import make_rig
from ui.markup import model_markdown


def test_the_status_names_the_embedder_a_new_chinese_library_moved_to(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    s = rig.session
    s.start()
    deadline = time.monotonic() + 10
    while s.model_state().phase != "ready":
        assert time.monotonic() < deadline, s.model_state()
        time.sleep(0.01)
    assert "all-MiniLM-L6-v2" in s.model_state().message
    folder = tmp_path / "论文"
    folder.mkdir()
    text = "检索增强生成（RAG）设计模式通常用于在特定数据域中开发大语言模型应用。本文介绍了一种受人类研究方法启发的新方法。"
    (folder / "rag.zh.txt").write_text(text * 3, "utf-8")
    assert s.create_collection("论文").ok
    assert s.add_folder("论文", str(folder)).ok
    rig.wait_idle()
    assert s.config.embedding.name == "multilingual-e5-small"  # what the collection is built with
    for language in ("en", "zh"):
        shown = model_markdown(s.model_state(), s.config, language)
        assert "multilingual-e5-small" in shown and "all-MiniLM-L6-v2" not in shown, shown
    s.close()
