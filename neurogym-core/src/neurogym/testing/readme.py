"""``python -m neurogym.testing.readme PLUGIN README.md`` rewrites a plugin README's task table."""

from neurogym.testing._readme import check_readme_table, main, task_table, update_readme_table

__all__ = ["check_readme_table", "main", "task_table", "update_readme_table"]

if __name__ == "__main__":
    raise SystemExit(main())
