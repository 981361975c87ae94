import re
from pathlib import Path

from neurogym.testing.differences import check_readme_section, declared, missing_tests
from neurogym.testing.readme import check_readme_table

README = Path(__file__).resolve().parents[1] / "README.md"
REPO = Path(__file__).resolve().parents[3]


def test_readme_task_table_matches_the_specs():
    check_readme_table("motor", README)


def test_readme_differences_section_is_generated():
    check_readme_section("motor", README)


def test_declared_differences_cite_existing_tests():
    assert declared("motor"), "the plugin declares no differences from upstream"
    test_dirs = [REPO / "tests", REPO / "neurogym-core" / "tests", *REPO.glob("plugins/*/tests")]
    assert missing_tests("motor", test_dirs) == []


def test_readme_usage_example_runs():
    text = README.read_text(encoding="utf-8")
    (example,) = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    namespace: dict[str, object] = {}
    exec(compile(example, str(README), "exec"), namespace)
    x, env = namespace["x"], namespace["env"]
    assert x.shape[0] == 128
    assert abs(env.unwrapped.state - (3.141592653589793 + 7 * 0.05)) < 1e-9
