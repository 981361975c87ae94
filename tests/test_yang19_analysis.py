"""The Yang et al. reproduction's page analyses its saved network: figures, numbers, verdicts."""

from __future__ import annotations

import pytest

pytest.importorskip("torch", reason="neurogym_apps.train needs the torch extra")
pytest.importorskip("sklearn", reason="the analysis needs the analysis extra")

from neurogym_apps.train._yang19_analysis import _verdicts, section


def _numbers(**changes):
    numbers = {
        "trials_per_task": 128,
        "units_kept": 250,
        "n_clusters": 12,
        "silhouette": 0.41,
        "shuffled_silhouette": 0.12,
        "cluster_sizes": [40, 30, 20],
        "ftv_separated": {"dm1 vs dm2": 0.1, "ctxdm1 vs ctxdm2": 0.7},
    }
    return {**numbers, **changes}


def test_each_finding_holds_or_not_by_its_stated_rule():
    assert [row[2] for row in _verdicts(_numbers())] == ["yes", "yes", "yes"]
    shared = _numbers(n_clusters=2, silhouette=0.15, ftv_separated={"ctxdm1 vs ctxdm2": 0.05})
    assert [row[2] for row in _verdicts(shared)] == ["no", "no", "no"]
    text = "\n".join(section(_numbers()))
    assert "| 0.41 (12 clusters) against 0.12 shuffled | yes |" in text
    assert "ctxdm1 vs ctxdm2 70%" in text
    assert "| 70% of units with FTV below -0.5 or above 0.5 | yes |" in text
