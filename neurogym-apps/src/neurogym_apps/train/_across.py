"""Training across trials: seeded streams of consecutive trials, stepped by the network itself.

Each of ``batch_size`` streams is one env of the task, seeded once and stepped on: its trials
follow each other as a single env serves them (a task's cross-trial state, such as a block or
a context, runs on), and the recurrent state is carried from step to step, across trial
boundaries and from one training step's chunk to the next (detached there: truncated
backpropagation through time over ``chunk_steps`` steps). The envs are wrapped in
:class:`~neurogym.wrappers.PassAction` and :class:`~neurogym.wrappers.PassReward`, so each
observation also holds the network's previous action and the reward it earned, as a
reinforcement-learning agent sees them. See docs/training.md ("Training across trials").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
import torch

from neurogym.wrappers import PassAction, PassReward
from neurogym_apps.train._closed_loop import strict_criterion

if TYPE_CHECKING:
    from neurogym_apps.train._network import RecurrentNetwork

__all__ = ["ACROSS_TRIALS_CONFIG", "Chunk", "Streams", "with_feedback"]

#: TrainConfig fields of training across trials as docs/training.md section 5 measures it (the
#: learnability table's cross-trial rows and the signature runs start from it).
ACROSS_TRIALS_CONFIG: dict[str, Any] = {
    "across_trials": True, "chunk_steps": 30, "batch_size": 16, "lr": 5e-3, "response_weight": 5,
}  # fmt: skip


def with_feedback(env: gym.Env[Any, Any]) -> gym.Env[Any, Any]:
    """``env`` with the feedback inputs: the previous action, then the previous reward."""
    return PassReward(PassAction(env))


def detach(state: Any) -> Any:
    """The recurrent state (a tensor or an LSTM's pair) cut from the graph."""
    if isinstance(state, tuple):
        return tuple(part.detach() for part in state)
    return None if state is None else state.detach()


class Chunk:
    """One training step's chunk of every stream.

    Attributes:
        outputs: The network's outputs ``(B, chunk_steps, n_out)`` (with their graph).
        targets: Each step's ground truth, the env's ``info["gt"]`` ``(B, chunk_steps)``.
        response: True on the steps whose ground truth is not the fixation action (every
            step for tasks without one).
    """

    def __init__(self, outputs: torch.Tensor, targets: np.ndarray, fixation: int | None) -> None:
        self.outputs = outputs
        self.targets = torch.as_tensor(targets)
        self.response = (
            torch.ones_like(self.targets, dtype=torch.bool)
            if fixation is None
            else self.targets != fixation
        )


class Streams:
    """``n`` envs of a task with feedback inputs, seeded from ``seed``, stepped by a network.

    Stream ``i`` is reset once, with the ``i``-th seed :class:`numpy.random.SeedSequence`
    (``seed``) generates, and then stepped on (an env whose episode ends is reset and goes
    on), so its trials are those one env serves after that reset, for the actions taken.

    Args:
        make_env: Makes one env of the task, feedback wrappers included.
        n: Streams (the batch size).
        seed: Seeds the streams (and the random actions).
        random_actions: The fraction of steps whose action is drawn uniformly at random,
            not the network's (``TrainConfig.random_actions``), from a generator seeded by
            ``seed``. 0: the network's actions only.

    Raises:
        ValueError: If the task's actions are not Discrete or its steps report no ground
            truth (``info["gt"]``): train such a task with reinforcement learning.
    """

    def __init__(
        self,
        make_env: Callable[[], gym.Env[Any, Any]],
        n: int,
        seed: int,
        *,
        random_actions: float = 0.0,
    ) -> None:
        self.envs = [make_env() for _ in range(n)]
        space = self.envs[0].action_space
        if not isinstance(space, gym.spaces.Discrete):
            raise ValueError(f"training across trials needs Discrete actions, got {space}")
        self.n_actions = int(space.n)
        self.random_actions = random_actions
        sequence = np.random.SeedSequence(seed)
        self._action_rng = np.random.default_rng(sequence.spawn(1)[0])
        seeds = sequence.generate_state(n)
        self.obs = np.stack(
            [env.reset(seed=int(s))[0] for env, s in zip(self.envs, seeds, strict=True)]
        ).astype(np.float32)
        self.fixation = strict_criterion(self.envs[0])[1]
        self.state: Any = None

    def chunk(self, network: RecurrentNetwork, steps: int) -> Chunk:
        """Steps every stream ``steps`` times with ``network``'s arg-max actions.

        (Or random ones, on a ``random_actions`` fraction of steps.) The network starts
        from the state the previous chunk ended with (detached) and the new final state is
        kept for the next chunk.
        """
        outputs = []
        targets = np.zeros((len(self.envs), steps), dtype=np.int64)
        state = self.state
        for t in range(steps):
            out, state = network(torch.from_numpy(self.obs).unsqueeze(1), state)
            outputs.append(out[:, 0])
            actions = self._actions(out[:, 0].detach().argmax(-1).numpy())
            targets[:, t] = self._step_envs(actions)
        self.state = detach(state)
        return Chunk(torch.stack(outputs, 1), targets, self.fixation)

    def _actions(self, chosen: np.ndarray) -> np.ndarray:
        """The network's ``chosen`` actions, each replaced by a random one at the set rate."""
        if not self.random_actions:
            return chosen
        replace = self._action_rng.random(len(chosen)) < self.random_actions
        drawn = self._action_rng.integers(self.n_actions, size=len(chosen))
        return np.where(replace, drawn, chosen)

    def _step_envs(self, actions: np.ndarray) -> np.ndarray:
        """Steps each env with its action; returns the steps' ground truths."""
        gts = np.zeros(len(self.envs), dtype=np.int64)
        for i, env in enumerate(self.envs):
            ob, _, terminated, truncated, info = env.step(int(actions[i]))
            gt = info.get("gt")
            if gt is None or np.ndim(gt) != 0:
                raise ValueError(
                    f"training across trials needs a scalar info['gt'] on every step, got "
                    f"{gt!r} from {type(env.unwrapped).__name__}: train it with "
                    "reinforcement learning instead (docs/rl.md)"
                )
            gts[i] = int(gt)
            if terminated or truncated:
                ob, _ = env.reset()
            self.obs[i] = ob
        return gts
