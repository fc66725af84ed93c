"""A newcomer finds the pipeline: the README's layout names every stage folder of the core."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_layout_names_each_stage_folder() -> None:
    layout = (ROOT / "README.md").read_text("utf-8").split("## Layout", 1)[1]
    stages = sorted(p.parent.name for p in (ROOT / "kimas_desktop").glob("*/__init__.py"))
    missing = [s for s in stages if f"  {s}/" not in layout and s != "presets"]
    assert stages and not missing, missing
