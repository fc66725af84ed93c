"""The tests mirror the packages: ``tests/<package>/<subpackage>/test_<module>.py`` (issue 22).

Every folder of tests is a folder of the project (``tests/kimas_desktop/answer`` tests
``kimas_desktop/answer``); the tests at the top of ``tests/`` are about the whole project (layering,
installing, offline). Fixtures' data folders (``data``) are not test folders.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"


def folders_of(tests: Path) -> list[Path]:
    return sorted(
        p.relative_to(tests)
        for p in tests.rglob("*")
        if p.is_dir() and p.name not in {"__pycache__", "data"} and "data" not in p.relative_to(tests).parts
    )


def test_every_test_folder_is_a_package_folder() -> None:
    folders = folders_of(TESTS)
    assert folders
    stray = [str(f) for f in folders if not (ROOT / f / "__init__.py").is_file()]
    assert not stray, f"test folders without a package of that name: {stray}"
    # Each is a package too, so that test files of the same name in two folders do not collide.
    assert all((TESTS / f / "__init__.py").is_file() for f in folders)
