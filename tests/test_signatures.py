"""The papers' signatures' statistics on synthetic agents whose answer is known.

Each statistic is checked on trials made here by an agent with a known rule (the slopes it
chooses by, its bias per block, its accuracy after a switch): the estimate must recover the
rule, and the signature must fail for an agent that lacks it. The trained networks' runs are
the ``signatures`` nox session (``neurogym_apps.analysis._signatures_docs``), not these tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("torch")

from neurogym_apps.analysis import (
    block_bias,
    context_slopes,
    record_trials,
    stay_probabilities,
    switch_recovery,
)

RESAMPLES = 100


def _sigmoid(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1 / (1 + np.exp(-x))
    return out


# ----------------------------------------------------------------------------- Mante et al.
def _context_trials(relevant: float, irrelevant: float, n: int = 1200) -> list[dict[str, Any]]:
    """ContextDecisionMaking-like trials of an agent with known slopes (per unit coherence)."""
    rng = np.random.default_rng(0)
    context = rng.integers(0, 2, n)
    direction = rng.integers(1, 3, (n, 2))  # the choice each modality points to
    coh = rng.choice([5, 15, 50], (n, 2))
    signed = np.where(direction == 2, 1, -1) * coh / 100
    rel = signed[np.arange(n), context]
    irr = signed[np.arange(n), 1 - context]
    choice = 1 + (rng.random(n) < _sigmoid(relevant * rel + irrelevant * irr))
    return [
        {
            "context": context[i],
            "ground_truth": direction[i, context[i]],
            "other_choice": direction[i, 1 - context[i]],
            "coh_1": coh[i, 0],
            "coh_2": coh[i, 1],
            "actions": (0, 0, int(choice[i])),
        }
        for i in range(n)
    ]


def test_context_slopes_recover_the_agents_slopes() -> None:
    slopes = context_slopes(_context_trials(8.0, 0.0), resamples=RESAMPLES)
    assert [s.context for s in slopes] == [0, 1]
    for found in slopes:
        assert found.relevant.low < 8.0 < found.relevant.high
        assert found.irrelevant.low < 0.0 < found.irrelevant.high
        assert found.holds


def test_context_signature_fails_for_an_agent_that_ignores_the_context() -> None:
    slopes = context_slopes(_context_trials(4.0, 4.0), resamples=RESAMPLES)
    for found in slopes:
        assert found.irrelevant.low < 4.0 < found.irrelevant.high
        assert not found.holds


def test_context_slopes_leave_out_trials_without_a_choice() -> None:
    trials = _context_trials(8.0, 0.0, n=400)
    for trial in trials[:100]:
        trial["actions"] = (0, 0, 0)  # never answered
    assert sum(s.trials for s in context_slopes(trials, resamples=20)) == 300


# ----------------------------------------------------------------------------------- IBL
def _block_trials(bias: float, n: int = 3000) -> list[dict[str, Any]]:
    """IBLBlock-like trials of an agent whose log odds of right move by ``bias`` with the
    block's prior (+bias in right-biased blocks, -bias in left-biased, 0 unbiased)."""
    rng = np.random.default_rng(1)
    p_right = rng.choice([0.8, 0.2, 0.5], n)
    side = (rng.random(n) < p_right).astype(int)
    coh = rng.choice([1.6, 3.2, 6.4, 12.8, 25.6, 51.2], n)
    contrast = np.where(side == 1, 1, -1) * coh / 100
    shift = bias * np.sign(p_right - 0.5)
    choice = (rng.random(n) < _sigmoid(10 * contrast + shift)).astype(int)
    return [
        {"p_right": p_right[i], "ground_truth": side[i], "coh": coh[i], "actions": (choice[i],)}
        for i in range(n)
    ]


def test_block_bias_recovers_the_agents_shift() -> None:
    bias = block_bias(_block_trials(1.0), resamples=RESAMPLES)
    truth = _sigmoid(np.array(1.0)) - _sigmoid(np.array(-1.0))  # 0.462
    assert bias.shift.low < truth < bias.shift.high
    assert bias.p_right_at_zero[0.5].low < 0.5 < bias.p_right_at_zero[0.5].high
    assert bias.holds


def test_block_signature_fails_for_an_agent_blind_to_the_block() -> None:
    bias = block_bias(_block_trials(0.0), resamples=RESAMPLES)
    assert bias.shift.low < 0.0 < bias.shift.high
    assert not bias.holds


def test_block_bias_needs_both_biased_blocks() -> None:
    trials = [t for t in _block_trials(1.0, n=300) if t["p_right"] != 0.2]
    with pytest.raises(ValueError, match="both biased blocks"):
        block_bias(trials, resamples=20)


# ----------------------------------------------------------------------- switch recovery
def _switch_trials(accuracy_after: list[float], streams: int = 20) -> list[dict[str, Any]]:
    """Streams of rule blocks (10-20 trials) of an agent whose accuracy on the k-th trial of
    a block is ``accuracy_after[k - 1]`` (its last value afterwards); shuffled."""
    rng = np.random.default_rng(2)
    trials = []
    for stream in range(streams):
        index, rule = 0, 0
        for _ in range(8):
            for k in range(int(rng.integers(10, 21))):
                p = accuracy_after[min(k, len(accuracy_after) - 1)]
                performance = float(rng.random() < p)
                trials.append(
                    {"stream": stream, "index": index, "rule": rule, "performance": performance}
                )
                index += 1
            rule = 1 - rule
    order = rng.permutation(len(trials))  # the closed loop interleaves the streams
    return [trials[i] for i in order]


def test_switch_recovery_of_an_agent_that_errs_once() -> None:
    result = switch_recovery(_switch_trials([0.0, 0.95]), "rule", resamples=RESAMPLES)
    assert result.switches == 20 * 7
    assert result.first.value == 0.0
    assert result.late.low < 0.95 < result.late.high
    assert result.recovery.value == 2
    assert result.holds


def test_switch_signature_fails_for_a_slow_or_a_blind_agent() -> None:
    slow = switch_recovery(
        _switch_trials([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.9]), "rule", resamples=RESAMPLES
    )
    assert slow.recovery.value == 7  # 0.9 of the way to the late level (0.67): lag 7
    assert not slow.holds
    blind = switch_recovery(_switch_trials([0.5]), "rule", resamples=RESAMPLES)
    assert blind.first.low < blind.late.value < blind.first.high
    assert not blind.holds


def test_switch_accuracy_lines_up_the_trials_around_each_switch() -> None:
    from neurogym_apps.analysis._signatures_switch import LAGS, switch_accuracy

    trials = [
        {"stream": 0, "index": i, "rule": int(i >= 4), "performance": float(i)} for i in range(7)
    ]
    (row,) = switch_accuracy(trials, "rule")
    expected = {-3: 1.0, -2: 2.0, -1: 3.0, 1: 4.0, 2: 5.0, 3: 6.0}
    for lag, value in zip(LAGS.tolist(), row.tolist(), strict=True):
        assert value == expected[lag] if lag in expected else np.isnan(value)


# ------------------------------------------------------------------------- closed loop
def test_record_trials_adds_the_agents_actions_and_its_place_in_the_stream() -> None:
    from neurogym_apps.train import train

    model = train(
        "IBLBlock", steps=2, across_trials=True, batch_size=2, chunk_steps=5, progress=False
    )
    trials = record_trials(model, 200, seed=1)
    assert len(trials) == 200
    for stream in {t["stream"] for t in trials}:
        mine = [t["index"] for t in trials if t["stream"] == stream]
        assert mine == list(range(len(mine)))  # every trial of a stream, in order
    assert all(len(t["actions"]) == 1 and t["actions"][0] in (0, 1) for t in trials)
    assert {round(float(t["p_right"]), 1) for t in trials} <= {0.2, 0.5, 0.8}


# ------------------------------------------------------------------------------- DawTwoStep
def _two_step_trials(stay: dict[tuple[bool, bool], float], n: int = 4000) -> list[dict[str, Any]]:
    """DawTwoStep-like trials of an agent that repeats its first choice with probability
    ``stay[(rewarded, common)]`` of the trial before; one stream."""
    rng = np.random.default_rng(3)
    trials, choice = [], 1
    for index in range(n):
        common = rng.random() < 0.8
        state = choice if common else 3 - choice
        transition = np.array([0, 0, 0])
        transition[choice], transition[3 - choice] = state, 3 - state
        reward = (rng.random(2) < 0.5).astype(float)
        trials.append(
            {
                "stream": 0,
                "index": index,
                "actions": (choice, 0),
                "transition": transition,
                "reward": reward,
            }
        )
        rewarded = bool(reward[state - 1] > 0)
        if rng.random() >= stay[(rewarded, bool(common))]:
            choice = 3 - choice
    return trials


MODEL_BASED = {(True, True): 0.9, (True, False): 0.4, (False, True): 0.4, (False, False): 0.8}
MODEL_FREE = {(True, True): 0.8, (True, False): 0.8, (False, True): 0.4, (False, False): 0.4}


def test_stay_probabilities_of_a_model_based_agent() -> None:
    result = stay_probabilities(_two_step_trials(MODEL_BASED), resamples=RESAMPLES)
    for condition, p in MODEL_BASED.items():
        assert result.stay[condition].low < p < result.stay[condition].high
    assert result.interaction.low < 0.9 < result.interaction.high
    assert result.holds


def test_two_step_signature_fails_for_a_model_free_agent() -> None:
    result = stay_probabilities(_two_step_trials(MODEL_FREE), resamples=RESAMPLES)
    assert result.interaction.low < 0.0 < result.interaction.high
    assert result.reward_effect.low < 0.4 < result.reward_effect.high
    assert not result.holds


def test_stay_probabilities_skip_aborted_trials() -> None:
    trials = _two_step_trials(MODEL_BASED, n=200)
    trials[10]["actions"] = (0,)  # aborted: pairs (9, 10) and (10, 11) are not counted
    assert stay_probabilities(trials, resamples=20).pairs == 199 - 2


def test_context_slopes_refuse_an_agent_that_always_makes_the_same_choice() -> None:
    trials = _context_trials(8.0, 0.0, n=200)
    for trial in trials:
        trial["actions"] = (0, 2)
    with pytest.raises(ValueError, match="chose only one side"):
        context_slopes(trials, resamples=20)


# ----------------------------------------------------------------------- the docs' runner
def test_the_runner_writes_figure_and_json_and_fails_when_a_signature_does_not_hold(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from matplotlib.figure import Figure

    from neurogym_apps.analysis import _signatures_docs as runner

    class Fails:
        holds = False

        def to_dict(self) -> dict[str, Any]:
            return {"measured": 1.0}

    def measure(trials: list[dict[str, Any]], resamples: int) -> tuple[Any, Figure]:
        assert len(trials) == 60
        assert resamples == 7
        return Fails(), Figure()

    config = {"across_trials": True, "batch_size": 2, "chunk_steps": 5, "steps": 2}
    monkeypatch.setattr(runner, "RUNS", {"tiny": runner.Run("IBLBlock", config, {}, 60, measure)})
    (tmp_path / "docs" / "figures").mkdir(parents=True)
    argv = ["--docs", str(tmp_path / "docs"), "--runs", str(tmp_path / "runs"), "--resamples", "7"]
    assert runner.main(argv) == 1
    assert (tmp_path / "docs" / "figures" / "signature_tiny.png").is_file()
    written = json.loads((tmp_path / "docs" / "signatures.json").read_text())["tiny"]
    assert written["holds"] is False
    assert written["result"] == {"measured": 1.0}
    assert isinstance(written["seconds"], int)
    assert written["config"] == config
    model = tmp_path / "runs" / "tiny" / "model.pt"
    before = model.stat().st_mtime_ns
    assert runner.main(argv) == 1  # the second run reuses the network and its time
    assert model.stat().st_mtime_ns == before
    again = json.loads((tmp_path / "docs" / "signatures.json").read_text())["tiny"]
    assert again["seconds"] == written["seconds"]
    monkeypatch.setattr(runner, "KNOWN_FAILURES", {"tiny": "measured"})
    assert runner.main(argv) == 0  # a declared failure passes while it fails ...
    Fails.holds = True
    assert runner.main(argv) == 1  # ... and fails the session once it holds
