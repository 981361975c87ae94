"""One-dimensional reaching: steer a pointer on a ring towards a target direction."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces, validate

__all__ = ["STEP", "Reaching1D", "Reaching1DWithSelfDistraction", "circular_distance"]

STEP = 0.05
"""Radians the pointer turns per step of action 1 (+) or 2 (-)."""

_START = np.pi
"""The pointer's angle at the start of every trial."""

_TWO_PI = 2 * math.pi


def circular_distance(angle: Any) -> Any:
    """The absolute angular distance of ``angle`` from 0, in ``[0, pi]``."""
    return np.abs(np.mod(angle + np.pi, 2 * np.pi) - np.pi)


class _Reaching(ngym.TrialEnv):
    """What both reaching tasks share: timing, rewards, the pointer and its reward."""

    default_rewards: ClassVar[dict[str, float]] = {"correct": +1.0, "fail": -0.1}
    default_timing: ClassVar[dict[str, Any]] = {"fixation": 500, "reach": 500}

    has_groundtruth = False  # the target is an angle; the actions are pointer steps

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        if not self.rewards["correct"] > self.rewards["fail"]:
            raise ValueError(
                f"rewards['correct'] must be greater than rewards['fail'] (performance is the "
                f"reward rescaled between them), got {self.rewards['correct']!r} and "
                f"{self.rewards['fail']!r}"
            )
        # Private: prefetching keys its trials on the public attributes (configuration).
        self._state = _START

    @property
    def state(self) -> float:
        """The pointer's angle in radians (pi at each trial start)."""
        return self._state

    def _target_angle(self, b: BatchBuilder) -> np.ndarray:
        target = b.uniform("ground_truth", 0, 2 * np.pi)
        if not np.all(np.isfinite(np.asarray(target, dtype=float))):
            raise ValueError(f"forced ground_truth must be finite angles (rad), got {target!r}")
        b.add_period(["fixation", "reach"])
        return np.asarray(target, dtype=float)

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.t_ind == 0:  # a new trial: the pointer restarts
            self._state = _START
        turn = STEP if action == 1 else -STEP if action == 2 else 0.0
        # Python floats: the same floor modulo as np.mod, without numpy's scalar overhead.
        self._state = (self._state + turn) % _TWO_PI
        reward = 0.0
        if self.in_period("reach"):
            trial = self.trial
            assert trial is not None
            correct, fail = self.rewards["correct"], self.rewards["fail"]
            offset = self._state - float(trial["ground_truth"])
            error = abs((offset + math.pi) % _TWO_PI - math.pi)  # circular_distance(offset)
            reward = max(correct - error, fail)
            steps = self.end_ind["reach"] - self.start_ind["reach"]
            self.performance += (reward - fail) / (correct - fail) / steps
        return self.ob_now, reward, False, False, {"new_trial": False}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new episode with the pointer at pi (see :meth:`neurogym.TrialEnv.reset`)."""
        self._state = _START
        return super().reset(seed=seed, options=options)

    def post_step(
        self, ob: Any, reward: Any, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Shows the pointer in the returned observation (a copy; the trial is not written).

        Once a trial has ended, the pointer is back at pi for the next one.
        """
        if info.get("new_trial"):
            self._state = _START
        # ``step`` hands over a copy of the stored row (never a view), so it is written in place.
        return self._show(np.asarray(ob, dtype=np.float32)), reward, terminated, truncated, info

    def _show(self, ob: np.ndarray) -> np.ndarray:
        """Writes the pointer's input into ``ob`` (a copy of the stored row) and returns it."""
        raise NotImplementedError


class Reaching1D(_Reaching):
    """Steer a pointer on a ring to the direction of a target (Georgopoulos et al. 1986).

    ## Description
    A target direction is shown on a ring of ``dim_ring`` units during the reach period. The
    agent steers its own pointer, which starts at pi every trial: action 1 turns it by +0.05
    rad, action 2 by -0.05 rad, action 0 leaves it. The pointer is shown on a second ring.

    ## Trial structure (periods)
    ``fixation`` (500 ms) → ``reach`` (500 ms): 10 steps at ``dt=100``.

    ## Observation space (named dims)
    ``Box(-inf, inf, (2 * dim_ring,), float32)``: ``target`` (0..dim_ring-1) is ``cos(theta
    - target)`` during reach; ``self`` (dim_ring..2 dim_ring-1) is ``cos(theta - pointer)`` at
    every step. ``theta`` are ``dim_ring`` evenly spaced angles from 0. The ``self`` dims are
    written from the agent's actions in ``post_step`` into the returned observation, never
    into the stored trial: ``env.ob``, ``env.new_trials`` and the first observation after a
    reset show the pointer's start, pi (``agent_dependent_dims = ("self",)``).

    ## Action space
    ``Discrete(3)``: ``fixation`` (0), ``left`` (1: +0.05 rad), ``right`` (2: -0.05 rad).

    ## Reward
    At every reach step ``max(correct - d, fail)``, with ``d`` the circular distance between
    the pointer (after the step's action) and the target (``correct`` 1, ``fail`` -0.1); 0 in
    fixation. Trials end by timeout; the performance is the mean over the reach steps of the
    reward rescaled to ``[0, 1]``. It needs ``_step``: the pointer is agent state.

    There is no ground truth (``has_groundtruth = False``): the target is an angle while the
    actions are pointer steps, so ``neurogym.batch``/``Dataset`` refuse the task and point to
    reinforcement learning.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict (``correct`` must exceed ``fail``).
    timing: Overrides of the timing dict (any timing spec form).
    dim_ring: Units per ring (16); an int >= 2.

    Trial dict: ``ground_truth``, the target angle in rad (uniform in ``[0, 2 pi)``, a float;
    can be forced).

    ## References
    Georgopoulos, Schwartz & Kettner (1986), "Neuronal population coding of movement
    direction", Science 233(4771):1416-1419.

    ## Version history
    v0: from upstream NeuroGym 2.3.1 (defaults, spaces, names, periods, rewards, trial-dict
    keys), with these fixes: the reward is computed against the float target angle (upstream
    stored it in an int64 ground-truth array, so 2.9 rad was scored as 2); there is no
    ground-truth array (upstream's held those truncated angles, outside the action space);
    the pointer is written into the returned observation, never into the stored trial
    (upstream wrote into its cached observation array); the ring angles are ``linspace(0, 2
    pi, dim_ring, endpoint=False)``, so every ``dim_ring`` works. Trials are generated
    batch-natively from the env's seeded generator.
    """

    agent_dependent_dims = ("self",)

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        dim_ring: int = 16,
    ) -> None:
        super().__init__(dt, rewards, timing)
        self.dim_ring = n = validate.integer(
            dim_ring, "dim_ring", minimum=2, maximum=validate.MAX_RING
        )
        self.theta = np.linspace(0, 2 * np.pi, n, endpoint=False)
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(2 * n,),
            dtype=np.float32,
            name={"self": range(n, 2 * n), "target": range(n)},
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "left": 1, "right": 2})

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        target = self._target_angle(b)
        b.add_input(np.cos(self.theta[None, :] - target[:, None]), "reach", where="target")
        b.add_input(np.cos(self.theta - _START), None, where="self")  # the pointer's start
        return {}

    def _show(self, ob: np.ndarray) -> np.ndarray:
        """The pointer on the ``self`` dims."""
        ob[self.dim_ring :] = np.cos(self.theta - self._state)
        return ob


class Reaching1DWithSelfDistraction(_Reaching):
    """Reach to a weak target input that the pointer's own strong input overshadows.

    ## Description
    As :class:`Reaching1D`, but the target and the pointer share one 32-unit ring: the target
    adds ``0.3 cos(theta - target)`` during reach, and the pointer adds ``cos(theta -
    pointer)`` at every step, so the agent's own movement dominates its input (after active
    sensing in weakly electric fish, whose own discharges distract their electric sense).

    ## Trial structure (periods)
    ``fixation`` (500 ms) → ``reach`` (500 ms): 10 steps at ``dt=100``.

    ## Observation space (named dims)
    ``Box(-inf, inf, (32,), float32)``; upstream named no dims, here all 32 are ``ring``:
    ``0.3 cos(theta - target)`` during reach plus ``cos(theta - pointer)`` at every step. The
    pointer's part is written from the agent's actions in ``post_step`` into the returned
    observation, never into the stored trial: ``env.ob``, ``env.new_trials`` and the first
    observation after a reset show the pointer's start, pi (``agent_dependent_dims =
    ("ring",)``).

    ## Action space
    ``Discrete(3)``: 0 keeps the pointer, 1 turns it by +0.05 rad, 2 by -0.05 rad.

    ## Reward
    As :class:`Reaching1D`: ``max(correct - d, fail)`` at every reach step, trials end by
    timeout, performance is the mean rescaled reward; no ground truth (``has_groundtruth =
    False``). It needs ``_step``: the pointer is agent state.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict (``correct`` must exceed ``fail``).
    timing: Overrides of the timing dict (any timing spec form).

    Trial dict: ``ground_truth``, the target angle in rad (uniform in ``[0, 2 pi)``, a float;
    can be forced).

    ## References
    A NeuroGym task without a paper, inspired by active electrosensing in weakly electric
    fish (and echolocation in bats).

    ## Version history
    v0: from upstream NeuroGym 2.3.1 (defaults, spaces, periods, rewards, trial-dict keys),
    with the fixes of :class:`Reaching1D` (float target angle in the reward, no truncated
    ground-truth array, the stored trial never written to: upstream added the pointer's input
    into its cached observation array in place) and the name ``ring`` for the 32 dims.
    """

    agent_dependent_dims = ("ring",)

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(dt, rewards, timing)
        self.action_space = spaces.Discrete(3)
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(32,), dtype=np.float32, name={"ring": range(32)}
        )
        self.theta = np.linspace(0, 2 * np.pi, 32, endpoint=False)
        self._start_input = np.cos(self.theta - _START)

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        target = self._target_angle(b)
        # The target's input is weaker than the pointer's own.
        b.add_input(0.3 * np.cos(self.theta[None, :] - target[:, None]), "reach", where="ring")
        b.add_input(self._start_input, None, where="ring")  # the pointer at its start
        return {}

    def _show(self, ob: np.ndarray) -> np.ndarray:
        """The pointer's input moved from its start (in the stored row) to the pointer."""
        if self._state != _START:
            ob += (np.cos(self.theta - self._state) - self._start_input).astype(np.float32)
        return ob
