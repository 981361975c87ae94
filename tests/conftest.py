"""Options of the cross-package tests."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-pins",
        action="store_true",
        help="rewrite tests/pinned/trials.json from the current code (test_pinned_trials.py)",
    )
    parser.addoption(
        "--run-main-job",
        action="store_true",
        help="run the main job with its full budget (test_train.py; the mainjob nox session)",
    )
    parser.addoption(
        "--run-rl",
        action="store_true",
        help="run docs/rl.md with its full budgets and check the floors (the rl nox session)",
    )
