"""Training across trials (``TrainConfig(across_trials=True)``): state, feedback, saving."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("neurogym_valuebased")

import neurogym  # noqa: E402
from neurogym_apps.train import TrainConfig, TrainedModel, evaluate, train  # noqa: E402
from neurogym_apps.train._across import Streams  # noqa: E402
from neurogym_apps.train._network import RecurrentNetwork  # noqa: E402
from neurogym_valuebased.tasks.ibl import IBL  # noqa: E402

CE = "ChangingEnvironment"


class Echo(IBL):
    """One-step trials whose answer is the side shown on the previous trial.

    No observer without memory of the previous trial beats 0.5: the current input says
    nothing about the answer.
    """

    cross_trial_state = True

    def __init__(self, dt: float = 100) -> None:
        super().__init__(dt=dt)
        self._shown: int | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        self._shown = None
        return super().reset(seed=seed, options=options)

    def _new_trials(self, b: Any, **kwargs: Any) -> dict[str, Any]:
        shown = b.rng.integers(0, 2, b.n + 1)
        if self._shown is not None:
            shown[0] = self._shown  # the answer of the first trial: the last side shown
        self._shown = int(shown[-1])
        answer = b.set_param("ground_truth", shown[:-1].astype(np.int64))
        b.add_period("stimulus", duration=self.dt)
        sides = (shown[1:, None] == self.choices).astype(float)
        b.add_input(sides, "stimulus", where="stimulus")
        b.set_target(answer, "stimulus", where="choice")
        return {}


@pytest.fixture
def echo(monkeypatch: pytest.MonkeyPatch) -> str:
    """``neurogym.make("Echo")`` makes an :class:`Echo` for the test's duration."""
    make = neurogym.make

    def patched(task: str, /, **kwargs: Any) -> Any:
        return Echo(**kwargs) if task == "Echo" else make(task, **kwargs)

    monkeypatch.setattr(neurogym, "make", patched)
    return "Echo"


def test_only_training_across_trials_fits_an_answer_given_on_the_previous_trial(echo):
    model = train(
        echo, steps=100, hidden_size=16, batch_size=8, chunk_steps=8, lr=2e-2, seed=0,
        across_trials=True, progress=False,
    )  # fmt: skip
    losses = model.history["loss"]
    assert np.mean(losses[-20:]) < 0.35 < np.log(2)  # chance: ln 2
    carried = evaluate(model, 200, seed=1, chance=False)
    restarted = evaluate(model, 200, seed=1, chance=False, carry_state=False)
    independent = train(echo, steps=100, hidden_size=16, batch_size=8, lr=2e-2, progress=False)
    assert np.mean(independent.history["loss"][-20:]) > 0.6  # each row a trial: no memory
    # The first trial of each of the 64 envs cannot be known: 0.84 at best on 200 trials
    assert carried.accuracy > 0.75
    assert restarted.accuracy < 0.62  # the memory is the network's state, not its input


def _across(network: RecurrentNetwork) -> TrainedModel:
    """An untrained model of ChangingEnvironment in the across-trials mode."""
    return TrainedModel(network, CE, {}, TrainConfig(across_trials=True, hidden_size=8), False)


def test_the_state_runs_on_from_chunk_to_chunk_across_trial_boundaries():
    torch.manual_seed(0)
    network = RecurrentNetwork(5, 5, 8, "gru").eval()
    make = _across(network).make_env

    with torch.no_grad():
        split = Streams(make, 3, seed=4)
        parts = [split.chunk(network, 30).outputs for _ in range(2)]
        whole = Streams(make, 3, seed=4).chunk(network, 60).outputs
        restarted = Streams(make, 3, seed=4)
        first = restarted.chunk(network, 30).outputs
        restarted.state = None
        second = restarted.chunk(network, 30).outputs
    ends = [env.unwrapped.num_tr for env in split.envs]
    assert min(ends) >= 2  # trials ended inside the chunks
    torch.testing.assert_close(torch.cat(parts, 1), whole)
    torch.testing.assert_close(first, parts[0])
    assert not torch.allclose(second, parts[1])


@pytest.mark.parametrize("task", [CE, "IBLBlock"])
def test_each_stream_is_the_seeded_stream_of_one_env(task):
    n_in = neurogym.make(task).observation_space.shape[0] + 2
    network = RecurrentNetwork(n_in, neurogym.make(task).action_space.n, 8, "gru")
    model = TrainedModel(network, task, {}, TrainConfig(across_trials=True), False)
    streams = Streams(model.make_env, 2, seed=3)
    with torch.no_grad():
        streams.chunk(network, 60)
    seeds = np.random.SeedSequence(3).generate_state(2)
    for env, seed in zip(streams.envs, seeds, strict=True):
        task_env = env.unwrapped
        served = neurogym.batch(task, task_env.num_tr, seed=int(seed)).trial
        assert task_env.num_tr > 2
        for key, value in task_env.trial.items():
            assert served[key][-1] == value, key


def test_the_feedback_inputs_are_the_previous_action_and_the_reward_it_earned():
    env = _across(RecurrentNetwork(5, 5, 8, "gru")).make_env()
    names = env.observation_space.name
    assert names["action"] == 3
    assert names["reward"] == 4
    env.reset(seed=0)
    for _ in range(40):  # answer 1 on every step: the reward of each choice shows next
        ob, reward, *_ = env.step(1)
        assert ob[names["action"]] == 1
        assert ob[names["reward"]] == reward


def test_training_across_trials_is_repeatable():
    def run() -> list[float]:
        model = train(
            CE, steps=4, hidden_size=8, batch_size=3, chunk_steps=20, seed=2,
            across_trials=True, progress=False,
        )  # fmt: skip
        return model.history["loss"]

    assert run() == run()


def test_a_saved_model_keeps_its_mode_and_is_evaluated_in_it(tmp_path):
    model = train(
        CE, steps=2, hidden_size=8, batch_size=2, chunk_steps=30, seed=0, across_trials=True,
        progress=False,
    )  # fmt: skip
    model.save(tmp_path)
    saved = json.loads((tmp_path / "config.json").read_text())
    assert saved["config"]["across_trials"] is True
    assert saved["config"]["chunk_steps"] == 30
    loaded = TrainedModel.load(tmp_path)
    assert loaded.config == model.config
    assert loaded.network.recurrent.input_size == 5  # 3 task inputs, action, reward
    assert loaded.make_env().observation_space.shape == (5,)
    first = evaluate(model, 100, seed=3, chance=False)
    again = evaluate(loaded, 100, seed=3, chance=False)
    carried = evaluate(loaded, 100, seed=3, chance=False, carry_state=True)
    np.testing.assert_array_equal(first.per_trial, again.per_trial)
    np.testing.assert_array_equal(again.per_trial, carried.per_trial)  # carried by default


def _stepped(task: str, network: RecurrentNetwork, random_actions: float) -> tuple[Any, ...]:
    """Two chunks of two streams: the observations seen, the last targets, trials served."""
    model = TrainedModel(network, task, {}, TrainConfig(across_trials=True), False)
    streams = Streams(model.make_env, 2, seed=5, random_actions=random_actions)
    seen = []
    with torch.no_grad():
        for _ in range(2):
            seen.append(streams.obs.copy())
            targets = streams.chunk(network, 40).targets
    return np.array(seen), targets.numpy(), [env.unwrapped.num_tr for env in streams.envs]


def test_random_actions_make_the_streams_independent_of_the_network():
    one, other = (RecurrentNetwork(4, 2, 8, "gru") for _ in range(2))
    first, second = _stepped("IBLBlock", one, 1.0), _stepped("IBLBlock", other, 1.0)
    for a, b in zip(first, second, strict=True):  # the feedback inputs too
        np.testing.assert_array_equal(a, b)
    own = _stepped("IBLBlock", one, 0.0)[0]
    assert not np.array_equal(own, first[0])  # the network's own actions: other feedback


def test_random_actions_replace_the_set_fraction_of_the_network_s_actions():
    streams = Streams(lambda: neurogym.make("IBLBlock"), 1, seed=0, random_actions=0.3)
    chosen = np.zeros(20_000, dtype=np.int64)
    taken = streams._actions(chosen)
    assert set(np.unique(taken)) == {0, 1}
    assert np.mean(taken == 1) == pytest.approx(0.15, abs=0.01)  # 0.3 random, half of them 1
    again = Streams(lambda: neurogym.make("IBLBlock"), 1, seed=0, random_actions=0.3)
    np.testing.assert_array_equal(again._actions(chosen), taken)  # seeded
    none = Streams(lambda: neurogym.make("IBLBlock"), 1, seed=0)
    np.testing.assert_array_equal(none._actions(chosen), chosen)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"random_actions": 1.5, "across_trials": True}, "random_actions must be a finite"),
        ({"random_actions": 0.5}, "random_actions=0.5 chooses the actions that step the "
         "streams of across_trials=True: set across_trials=True, or random_actions=0"),
    ],
)  # fmt: skip
def test_random_actions_are_a_fraction_of_across_trials_steps(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        TrainConfig(**kwargs)


def test_the_mode_refuses_losses_it_cannot_compute():
    with pytest.raises(ValueError, match="loss must be 'valid', got 'mask'"):
        train(CE, steps=1, loss="mask", across_trials=True, progress=False)


# Losses of train(task, steps=15, hidden_size=16, batch_size=8, seed=3) recorded before
# training across trials existed: the default mode is unchanged.
BEFORE = {
    "PerceptualDecisionMaking": 0.5460184216499329,
    "IBLBlock": 0.6647956967353821,
    "ChangingEnvironment": 1.3283450603485107,
}


@pytest.mark.parametrize("task", sorted(BEFORE))
def test_training_on_independent_trials_is_unchanged(task):
    model = train(task, steps=15, hidden_size=16, batch_size=8, seed=3, progress=False)
    assert model.history["loss"][-1] == pytest.approx(BEFORE[task], rel=1e-6)


def test_neurogym_train_across_trials_writes_a_model_of_that_mode(tmp_path):
    from neurogym.cli import main as cli

    args = ["train", CE, "--steps", "2", "--batch-size", "2", "--hidden", "8", "--no-figures"]
    mode = ["--across-trials", "--chunk-steps", "20", "--eval-trials", "20"]
    extra = ["--response-weight", "5", "--random-actions", "0.25"]
    assert cli([*args, *mode, *extra, "--out", str(tmp_path)]) == 0
    config = TrainedModel.load(tmp_path).config
    assert config.across_trials
    assert config.chunk_steps == 20
    assert config.response_weight == 5.0
    assert config.random_actions == 0.25
