from pathlib import Path

from neurogym.testing.readme import check_readme_table

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_task_table_matches_the_specs():
    check_readme_table("multitask", README)


def test_readme_lists_differences_from_upstream():
    text = README.read_text(encoding="utf-8")
    assert "## Differences from NeuroGym 2.3.1" in text
