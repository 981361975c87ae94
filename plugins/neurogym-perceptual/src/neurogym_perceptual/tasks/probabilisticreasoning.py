"""Probabilistic reasoning: sum the log-odds carried by a sequence of shapes (weather task)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, StandardDecision, spaces, validate
from neurogym.rules import STANDARD_REWARDS

__all__ = ["ProbabilisticReasoning"]

DEFAULT_SHAPE_WEIGHT = (-10.0, -0.9, -0.7, -0.5, -0.3, 0.3, 0.5, 0.7, 0.9, 10.0)
_LN10 = math.log(10.0)


class ProbabilisticReasoning(ngym.TrialEnv):
    """Probabilistic reasoning: choose the side favoured by the summed evidence of shapes.

    ## Description
    Shapes appear one by one at ``n_loc`` locations and stay on screen. Each shape carries a
    weight of evidence (a log10 likelihood ratio) for choice 2 over choice 1; after a delay the
    agent reports its choice. The correct choice is drawn at random given the shapes: choice 2
    with probability ``1 / (1 + 10 ** -log_odd)``, ``log_odd`` being the sum of the shown
    shapes' weights (Yang & Shadlen 2007).

    ## Trial structure (periods)
    ``fixation`` (500 ms) → ``stimulus0`` … ``stimulus{n_loc-1}`` (500 ms each) → ``delay``
    (``("uniform", (450, 550))``) → ``decision`` (500 ms).

    ## Observation space (named dims)
    ``Box(-inf, inf, (1 + n_shape * n_loc,), float32)``: ``fixation`` (0) is 1 except in the
    decision period; ``loc{i}`` (``1 + i * n_shape`` .. ``(i + 1) * n_shape``) is the one-hot
    code of the shape shown at location ``i``. In period ``stimulus{j}`` the shapes of the
    first ``j + 1`` draws are shown (the display accumulates); nothing is shown in delay and
    decision.

    ## Action space
    ``Discrete(3)``: ``fixation`` (0), ``choice`` (1, 2).

    ## Reward
    Standard decision rule: ``abort`` (-0.1) for any action other than 0 before the decision
    period (ends the trial only when ``abort`` is True); in the decision period any choice ends
    the trial with ``correct`` (+1, performance 1) or ``fail`` (0).

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict.
    timing: Overrides of the timing dict (any timing spec form).
    shape_weight: Evidence weight of each shape, in log10 units (``(-10, -0.9, -0.7, -0.5,
        -0.3, 0.3, 0.5, 0.7, 0.9, 10)``); its length is the number of shapes ``n_shape``.
    n_loc: Number of locations, i.e. of shapes shown per trial (4).

    Trial dict: ``locs`` (``(n_loc,)``, the location of the i-th shape; a permutation),
    ``shapes`` (``(n_loc,)``, shape indices), ``log_odd`` (sum of the shapes' weights),
    ``ground_truth`` (choice index 0/1). ``locs``, ``shapes`` (a row for all trials or one row
    per trial) and ``ground_truth`` can be forced.

    ## References
    Yang & Shadlen (2007), "Probabilistic reasoning by neurons", Nature 447:1075.

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (defaults, spaces, periods, rewards) with these
    differences:

    * a forced ``ground_truth`` is honoured (upstream overwrote it with its own draw);
    * the probability of choice 2 is computed without overflow for any weights;
    * ``n_loc`` must be an int >= 1 and ``shape_weight`` finite numbers (upstream accepted
      anything and failed later, or never);
    * trials are generated batch-natively and drawn from the env's seeded generator.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        timing: Mapping[str, Any] | None = None,
        shape_weight: Any = None,
        n_loc: int = 4,
    ) -> None:
        super().__init__(dt=dt, rewards=rewards)
        self.shape_weight = _check_weights(shape_weight)
        self.n_loc = validate.positive_int(n_loc, "n_loc")
        self.n_shape = n_shape = self.shape_weight.shape[0]
        self.shapes = np.eye(n_shape)
        self.timing = {"fixation": 500, "delay": ("uniform", (450, 550)), "decision": 500}
        for i_loc in range(self.n_loc):
            self.timing[f"stimulus{i_loc}"] = 500
        if timing:
            self.timing.update(timing)
        self.abort = False
        self.rule = StandardDecision(
            fixation_periods=("fixation", *self.stimulus_periods, "delay"),
            decision_periods=("decision",),
        )
        self.choices = np.arange(2)
        names: dict[str, int | range] = {"fixation": 0}
        for i_loc in range(self.n_loc):
            names[f"loc{i_loc}"] = range(1 + i_loc * n_shape, 1 + (i_loc + 1) * n_shape)
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(1 + n_shape * self.n_loc,), dtype=np.float32, name=names
        )
        self.action_space = spaces.Discrete(3, name={"fixation": 0, "choice": [1, 2]})

    @property
    def stimulus_periods(self) -> list[str]:
        """Names of the stimulus periods, in order."""
        return [f"stimulus{i}" for i in range(self.n_loc)]

    def ideal_observer(self, batch: Any) -> np.ndarray:
        """The probability of a correct answer when choosing the side the shapes favour.

        The answer is drawn from the shapes' summed evidence (choice 2 with probability
        ``1 / (1 + 10 ** -log_odd)``), so even an observer that sees every shape and knows
        every weight is right only with probability ``max(p, 1 - p)`` (one half when the
        evidence is balanced).
        """
        log_odd = np.asarray(batch.trial["log_odd"], dtype=float)
        p_second = 0.5 * (1.0 + np.tanh(0.5 * _LN10 * log_odd))
        correct: np.ndarray = np.maximum(p_second, 1.0 - p_second)
        return correct

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        n, n_loc, n_shape = b.n, self.n_loc, self.n_shape
        locs = _trial_rows(b, "locs", n_loc, n_loc, lambda: _permutations(b.rng, n, n_loc))
        shapes = _trial_rows(
            b, "shapes", n_loc, n_shape, lambda: b.rng.integers(0, n_shape, size=(n, n_loc))
        )
        log_odd = b.set_param("log_odd", self.shape_weight[shapes].sum(axis=1))
        if "ground_truth" in kwargs:
            ground_truth = b.set_param("ground_truth", kwargs["ground_truth"])
            validate.integers_in_range(ground_truth, "ground_truth", 0, 1)
        else:
            p_second = 0.5 * (1.0 + np.tanh(0.5 * _LN10 * log_odd))
            ground_truth = b.set_param("ground_truth", (b.rng.random(n) < p_second).astype(int))

        b.add_period(["fixation", *self.stimulus_periods, "delay", "decision"])
        b.add_input(1, None, where="fixation")
        b.set_input(0, "decision", where="fixation")
        display = self._displays(locs, shapes)
        stimulus_dims = slice(1, 1 + n_loc * n_shape)
        for j, period in enumerate(self.stimulus_periods):
            b.add_input(display[:, j], period, where=stimulus_dims)
        b.set_target(ground_truth, "decision", where="choice")
        return {}

    def _displays(self, locs: np.ndarray, shapes: np.ndarray) -> np.ndarray:
        """What is on screen in each stimulus period: ``(B, n_loc, n_loc * n_shape)``.

        Draw ``i`` puts the one-hot code of ``shapes[:, i]`` into location block ``locs[:, i]``;
        period ``j`` shows draws ``0..j``.
        """
        n, n_loc = locs.shape
        # float32 (the observations' dtype) holds these small counts exactly.
        onehot = np.zeros((n, n_loc, n_loc * self.n_shape), dtype=np.float32)
        rows = np.arange(n)[:, None]
        draws = np.arange(n_loc)[None, :]
        onehot[rows, draws, locs * self.n_shape + shapes] = 1.0
        return np.cumsum(onehot, axis=1)


def _permutations(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """``n`` independent uniform permutations of ``0..k-1``, ``(n, k)``."""
    return np.argsort(rng.random((n, k)), axis=1)


def _trial_rows(
    b: BatchBuilder, name: str, width: int, high: int, draw: Callable[[], np.ndarray]
) -> np.ndarray:
    """Trial variable ``name`` of shape ``(B, width)`` with ints in ``0..high-1``.

    A forced value (one row for all trials, or one row per trial) wins over ``draw()``.
    """
    if name not in b.kwargs:
        return b.set_param(name, draw())
    given = np.asarray(b.kwargs[name])
    value = np.broadcast_to(given, (b.n, *given.shape)) if given.ndim == 1 else given
    if value.shape != (b.n, width):
        raise ValueError(
            f"{name} must have shape ({width},) or ({b.n}, {width}) for a batch of {b.n}, "
            f"got {given.shape}"
        )
    if not np.issubdtype(value.dtype, np.integer) or np.any((value < 0) | (value >= high)):
        raise ValueError(f"{name} must hold ints in 0..{high - 1}, got {value.tolist()}")
    return b.set_param(name, value)


def _check_weights(shape_weight: Any) -> np.ndarray:
    if shape_weight is None:
        return np.asarray(DEFAULT_SHAPE_WEIGHT)
    try:
        weights = np.asarray(shape_weight, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"shape_weight must be a sequence of numbers, got {shape_weight!r}"
        ) from None
    if weights.ndim != 1 or weights.size == 0 or not np.all(np.isfinite(weights)):
        raise ValueError(
            "shape_weight must be a non-empty 1-D sequence of finite numbers, "
            f"got {shape_weight!r}"
        )
    return weights
