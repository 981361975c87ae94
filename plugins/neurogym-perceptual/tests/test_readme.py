from pathlib import Path

from neurogym.testing.differences import check_readme_section, declared, missing_tests
from neurogym.testing.readme import check_readme_table

README = Path(__file__).resolve().parents[1] / "README.md"
REPO = Path(__file__).resolve().parents[3]


def test_readme_task_table_matches_the_specs():
    check_readme_table("perceptual", README)


def test_readme_differences_section_is_generated():
    check_readme_section("perceptual", README)


def test_declared_differences_cite_existing_tests():
    assert declared("perceptual"), "the plugin declares no differences from upstream"
    test_dirs = [REPO / "tests", REPO / "neurogym-core" / "tests", *REPO.glob("plugins/*/tests")]
    assert missing_tests("perceptual", test_dirs) == []
