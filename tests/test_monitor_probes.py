"""NeuroGym 2.3.1's Monitor activation probes (record_activations, plot_activations).

The Monitor (neurogym-core) reaches ``neurogym_apps.train._probes`` (torch) through importlib
only; these tests check the recorded histories trial by trial, the ``steps`` cap, the figure,
the warnings, and 2.3.1's notebook pattern with a tiny RecurrentPPO.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="activation probes need the train extra")

from matplotlib.figure import Figure  # noqa: E402
from torch import nn  # noqa: E402

from neurogym._deprecation import reset_warnings  # noqa: E402
from neurogym.wrappers import Monitor  # noqa: E402
from neurogym_apps.train._probes import ActivationProbe, plot_activations  # noqa: E402

LENGTHS = (3, 5, 4, 6)
RECORD = r"Monitor\.record_activations is NeuroGym 2\.3\.1's spelling.*ActivationProbe"
PLOT = r"Monitor\.plot_activations is NeuroGym 2\.3\.1's spelling.*_probes\.plot_activations"


class ChainedTrials(gym.Env[np.ndarray, np.int64]):
    """Trials of LENGTHS steps in turn; the last step of each says ``new_trial``."""

    observation_space = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.trial, self.t = 0, 0
        return self._ob(), {}

    def _ob(self) -> np.ndarray:
        return np.full(3, np.sin(self.t + self.trial), dtype=np.float32)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        self.t += 1
        info: dict[str, Any] = {"new_trial": self.t == LENGTHS[self.trial % len(LENGTHS)]}
        if info["new_trial"]:
            self.trial, self.t = self.trial + 1, 0
            info["performance"] = 1.0
        return self._ob(), float(info["new_trial"]), False, False, info


class Net(nn.Module):
    """An RNN, then an LSTM, then a Linear readout."""

    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.RNN(3, 4)
        self.lstm = nn.LSTM(4, 5)
        self.readout = nn.Linear(5, 2)


class FakeModel:
    """stable-baselines3's predict, running Net one step at a time (recurrent state kept)."""

    def __init__(self) -> None:
        torch.manual_seed(0)
        self.net = Net().eval()

    def predict(self, ob: Any, state: Any = None, episode_start: Any = None, **_: Any) -> Any:
        with torch.no_grad():
            x = torch.as_tensor(ob, dtype=torch.float32).reshape(1, 1, 3)
            h_rnn, lstm_state = (None, None) if state is None else state
            out, h_rnn = self.net.rnn(x, h_rnn)
            out, lstm_state = self.net.lstm(out, lstm_state)
            logits = self.net.readout(out[0])
        return np.array([int(logits.argmax())]), (h_rnn, lstm_state)


@pytest.fixture(autouse=True)
def _fresh_warnings():
    reset_warnings()
    yield
    reset_warnings()


def _record(monitor: Monitor, layer: nn.Module, name: str, steps: int | None = None) -> Any:
    with pytest.warns(DeprecationWarning, match=RECORD):
        return monitor.record_activations(layer, name, steps=steps)


def _probed() -> tuple[Monitor, FakeModel, dict[str, Any]]:
    monitor = Monitor(ChainedTrials(), verbose=False)
    model = FakeModel()
    net = model.net
    probes = {"rnn": _record(monitor, net.rnn, "rnn")}
    for name in ("lstm", "readout"):  # warned once per process
        probes[name] = monitor.record_activations(getattr(net, name), name)
    return monitor, model, probes


def test_evaluate_policy_records_each_population_trial_by_trial():
    monitor, model, probes = _probed()
    monitor.evaluate_policy(len(LENGTHS), model, verbose=False, seed=1)
    expected = {
        "rnn": {"output": (1, 4), "hidden": (1, 4)},
        "lstm": {"output": (1, 5), "hidden": (1, 5), "cell": (1, 5)},
        "readout": {"output": (1, 2)},
    }
    assert set(monitor.activations) == set(expected)
    for name, populations in expected.items():
        probe = probes[name]
        assert monitor.activations[name] is probe
        assert probe.name == name
        assert set(probe.history) == set(populations)
        shapes = probe.probe.get_population_shapes()
        for population, shape in populations.items():
            trials = probe.history[population]
            assert [len(trial) for trial in trials] == list(LENGTHS)
            assert {array.shape for trial in trials for array in trial} == {shape}
            assert shapes[population] == shape[-1:]
    # The LSTM's hidden state of a step is its output of that step (one layer).
    lstm = probes["lstm"].history
    np.testing.assert_allclose(lstm["hidden"][2][1], lstm["output"][2][1], rtol=1e-6)
    # A second run starts afresh in the env: its trials follow the first run's.
    monitor.evaluate_policy(2, model, verbose=False)
    assert [len(t) for t in probes["rnn"].history["hidden"]] == [*LENGTHS, *LENGTHS[:2]]


def test_steps_caps_each_trial_and_step_delimits_trials_too():
    monitor = Monitor(ChainedTrials(), verbose=False)
    model = FakeModel()
    capped = _record(monitor, model.net.lstm, "capped", steps=4)
    full = monitor.record_activations(model.net.rnn, "full")
    ob, _ = monitor.reset(seed=0)
    state = None
    for _ in range(sum(LENGTHS) + 2):  # four trials and two steps of the fifth
        action, state = model.predict(ob, state)
        ob, *_ = monitor.step(int(action[0]))
    assert [len(t) for t in full.history["output"]] == [*LENGTHS, 2]
    assert [len(t) for t in capped.history["cell"]] == [3, 4, 4, 4, 2]
    monitor.reset()  # a reset ends the trial under way
    model.predict(ob)
    assert [len(t) for t in full.history["output"]] == [*LENGTHS, 2, 1]
    full.remove()
    model.predict(ob)
    assert len(full.history["output"][-1]) == 1
    with pytest.raises(ValueError, match="steps must be a positive integer"):
        ActivationProbe(model.net.rnn, steps=0)


def test_training_mode_and_paused_passes_are_not_recorded():
    layer = nn.Tanh()
    probe = ActivationProbe(layer)
    layer(torch.zeros(2))  # training mode: skipped, as in 2.3.1
    layer.eval()
    probe.pause()
    layer(torch.zeros(2))
    probe.resume()
    layer(torch.ones(2))
    assert probe.get_population_shapes() == {"output": (2,)}
    assert [len(trial) for trial in probe.history["output"]] == [1]
    np.testing.assert_allclose(probe.history["output"][0][0], np.tanh([1.0, 1.0]), rtol=1e-6)


def test_plot_activations_one_axis_per_neuron(tmp_path):
    monitor, model, _ = _probed()
    monitor.evaluate_policy(len(LENGTHS), model, verbose=False, seed=1)
    with pytest.warns(DeprecationWarning, match=PLOT):
        fig, axes = monitor.plot_activations("lstm", "hidden", neurons=[0, 1, 2], batch_dim=2)
    assert isinstance(fig, Figure)
    assert len(axes) == 3
    assert len(fig.axes) == 3
    assert [ax.get_title() for ax in axes] == ["Neuron 0", "Neuron 1", "Neuron 2"]
    assert [len(ax.lines) for ax in axes] == [len(LENGTHS)] * 3  # trials overlaid
    assert len(axes[0].lines[0].get_xdata()) == max(LENGTHS)
    fig_mean, axes_mean = monitor.plot_activations("lstm", "hidden", mean=True)
    assert len(axes_mean) == 5
    assert len(fig_mean.axes) == 5
    assert [len(ax.lines) for ax in axes_mean] == [1] * 5
    # The mean at a step is over the trials that lasted that long.
    stacked = [np.asarray(t)[:, 0, 4] for t in monitor.activations["lstm"].history["hidden"]]
    expected_last = stacked[LENGTHS.index(max(LENGTHS))][-1]
    assert axes_mean[4].lines[0].get_ydata()[-1] == pytest.approx(expected_last)
    readout, axes_one = monitor.plot_activations("readout", "output", neurons=1, figsize=(3, 2))
    assert len(axes_one) == 1
    assert tuple(readout.get_size_inches()) == (3, 2)
    fig.savefig(tmp_path / "traces.png")
    fig_mean.savefig(tmp_path / "mean.png")
    assert (tmp_path / "traces.png").stat().st_size > 5000


def test_plot_activations_errors():
    monitor, model, _ = _probed()
    with pytest.warns(DeprecationWarning, match=PLOT), pytest.raises(ValueError, match="nothing"):
        monitor.plot_activations("rnn", "output")
    monitor.evaluate_policy(1, model, verbose=False)
    with pytest.raises(ValueError, match="no activation probe named 'nope'"):
        monitor.plot_activations("nope", "output")
    with pytest.raises(KeyError, match="no population 'cell'"):
        monitor.plot_activations("rnn", "cell")
    with pytest.raises(ValueError, match="neuron indices must be between 0 and 3"):
        monitor.plot_activations("rnn", "output", neurons=[4])
    with pytest.raises(ValueError, match="batch_dim"):
        plot_activations(monitor.activations["rnn"].history["output"], batch_dim=3)


def test_missing_train_extra_names_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "neurogym_apps.train._probes", None)
    monitor = Monitor(ChainedTrials(), verbose=False)
    with (
        pytest.warns(DeprecationWarning, match=RECORD),
        pytest.raises(ImportError, match=r'pip install "neurogym\[train\]"'),
    ):
        monitor.record_activations(nn.Linear(2, 2))


def test_core_monitor_imports_neither_torch_nor_the_probes():
    code = (
        "import sys, neurogym.wrappers.monitor as m; "
        "print(sorted(k for k in ('torch', 'neurogym_apps.train') if k in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_recurrent_ppo_notebook_pattern():
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="RecurrentPPO needs the rl extra")
    policy = sb3_contrib.common.recurrent.policies.RecurrentActorCriticPolicy
    env = ChainedTrials()
    model = sb3_contrib.RecurrentPPO(
        policy, env, n_steps=16, batch_size=16, seed=0, policy_kwargs={"lstm_hidden_size": 8}
    )
    monitor = Monitor(env, verbose=False)
    am = _record(monitor, model.policy.get_submodule("lstm_actor"), "Actor net")
    assert am.probe.get_population_shapes() == {"output": (8,), "hidden": (8,), "cell": (8,)}
    monitor.evaluate_policy(3, model, verbose=False, seed=0)
    assert len(am.history["hidden"]) == 3
    assert [len(t) for t in am.history["hidden"]] == list(LENGTHS[:3])
    assert am.history["hidden"][0][0].shape == (1, 8)
    with pytest.warns(DeprecationWarning, match=PLOT):
        fig_mean, axes_mean = monitor.plot_activations(
            am.name, "hidden", neurons=[0, 1, 2], mean=True, batch_dim=2
        )
    assert isinstance(fig_mean, Figure)
    assert len(axes_mean) == 3
