from pathlib import Path

from neurogym.testing.readme import check_readme_table

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_task_table_matches_the_specs():
    check_readme_table("motor", README)


def test_readme_lists_differences_from_upstream():
    text = README.read_text(encoding="utf-8")
    assert "## Differences from NeuroGym 2.3.1" in text


def test_readme_usage_example_runs():
    import re

    text = README.read_text(encoding="utf-8")
    (example,) = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    namespace: dict[str, object] = {}
    exec(compile(example, str(README), "exec"), namespace)
    x, env = namespace["x"], namespace["env"]
    assert x.shape[0] == 128
    assert abs(env.unwrapped.state - (3.141592653589793 + 7 * 0.05)) < 1e-9
