"""Knowledge tab handlers without a browser: uploads, collection actions and their settings, as the page
shows them, on deterministic fakes."""

from __future__ import annotations

from pathlib import Path

from tests.rigs import make_rig
from ui.knowledge import handlers


def test_upload_sanitizes_odd_names_into_the_managed_folder(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    incoming = tmp_path / "gradio-temp"
    incoming.mkdir()
    # Names a browser (or a crafted request) can leave on the temporary copy Gradio hands over.
    odd = [
        "..\\..\\evil.md",
        "C:\\Users\\me\\report.md",
        "CON.md",
        "inv\u202eoice.md",
        "Cafe\u0301 ☕.md",
        "tab\tname.md",
        ". .hidden.md",
    ]
    for i, name in enumerate(odd):
        (incoming / name).write_text(f"note {i}", "utf-8")
    action = handlers.upload(rig.session, "notes", [str(incoming / n) for n in odd])
    assert "7 new file(s) copied into 'notes'" in action.message
    stored = sorted(p.name for p in (rig.data_dir / "uploads" / "notes").iterdir())
    expected = ["evil.md", "report.md", "_CON.md", "invoice.md", "Café ☕.md", "tabname.md", "hidden.md"]
    assert stored == sorted(expected)
    outside = [p for p in tmp_path.rglob("*") if p.is_file() and rig.data_dir not in p.parents]
    assert sorted(p.name for p in outside) == sorted(odd)  # only the originals, nothing new outside


def test_knowledge_actions_report_plain_sentences(tmp_path: Path) -> None:
    rig = make_rig(tmp_path)
    s = rig.session
    refused = handlers.create_collection(s, "   ")
    assert refused.message.startswith("⚠ Type a name for the collection") and not refused.ok
    created = handlers.create_collection(s, "handbook")
    assert created.names == ["handbook"] and created.selected == "handbook"
    assert handlers.upload(s, "handbook", None).message == "⚠ No files were received."
    assert handlers.add_folder(s, "handbook", "").message.startswith("⚠ Type the full path")
    assert handlers.reindex(s, "handbook").message.startswith("⚠ 'handbook' has no files yet")
    assert handlers.remove_collection(s, None).message == "⚠ Choose a collection first."
    removed = handlers.remove_collection(s, "handbook")
    assert removed.names == [] and removed.selected is None and "removed" in removed.message


def test_collection_settings_round_trip(tmp_path: Path) -> None:
    s = make_rig(tmp_path).session
    fields = handlers.CollectionFields("Recipes", "How long do I boil an egg?\n\n", 0.4, 2.0, "en", "keyword")
    assert handlers.save_collection_settings(s, "kitchen", fields) == "Settings of 'kitchen' saved."
    loaded = handlers.load_collection_settings(s, "kitchen")
    assert loaded == handlers.CollectionFields(
        "Recipes", "How long do I boil an egg?", 0.4, 2.0, "en", "keyword"
    )
    assert handlers.save_collection_settings(s, None, fields).startswith("⚠")
