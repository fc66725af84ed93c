"""A newcomer finds the pipeline: the README's first screen says what the product does and points to
docs/architecture.md (so does its "Read more" list), whose layout names every stage folder of the core."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def test_the_architecture_layout_names_each_stage_folder() -> None:
    layout = ARCHITECTURE.read_text("utf-8").split("## Layout", 1)[1]
    stages = sorted(p.parent.name for p in (ROOT / "kimas_desktop").glob("*/__init__.py"))
    missing = [s for s in stages if f"  {s}/" not in layout]
    assert stages and not missing, missing


def test_the_readme_layout_points_to_the_architecture() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "](docs/architecture.md)" in readme.split("\n## Read more", 1)[1]
    first_screen = readme.split("\n## ", 1)[0]
    assert len(first_screen.splitlines()) <= 20  # a few short sentences, not the pipeline's details
    assert "](docs/architecture.md)" in first_screen


def test_the_architecture_draws_the_stages_in_the_order_a_question_travels() -> None:
    text = ARCHITECTURE.read_text("utf-8")
    diagram = text.split("```mermaid", 1)[1].split("```", 1)[0]
    order = [
        "context manager",
        "knowledge routing",
        "retrieval agents",
        "reranker",
        "answer policy",
        "events",
    ]
    places = [diagram.find(stage) for stage in order]
    assert -1 not in places and places == sorted(places), dict(zip(order, places, strict=True))
