"""Memory recall: store binary patterns flagged by a storage signal, recall them from cues."""

from __future__ import annotations

from typing import Any

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces, validate

__all__ = ["MemoryRecall"]


class MemoryRecall(ngym.TrialEnv):
    """Store the flagged patterns of a sequence, then complete them from degraded cues.

    ## Description
    A sequence of random binary patterns is shown, one per step. A storage signal (the last
    input dim) flags some of them. In the recall phase each flagged pattern comes back degraded
    (``balanced``: elements hidden, set to 0, with probability ``2 (1 - chance)``; otherwise
    elements flipped with probability ``1 - chance``) and the agent must output the full
    pattern (continuous action).

    ## Trial structure (periods)
    ``store`` (``T - n_recall`` steps) → ``recall`` (``n_recall = int(p_recall * T)`` steps),
    with the sequence length ``T`` uniform in ``[t_min, t_max]`` steps (``dt=1``).

    ## Observation space (named dims)
    ``Box(-inf, inf, (stim_dim + 1,), float32)``: ``stimulus`` (0..stim_dim-1) the pattern
    (elements ±1 if ``balanced``, else 0/1; degraded in the recall phase), ``store`` (last dim)
    1 at the flagged steps of the store phase.

    ## Action space
    ``Box(-inf, inf, (stim_dim,), float32)``, continuous: the recalled pattern. The ground
    truth is the full pattern in the recall phase (0 in the store phase, outside the loss
    mask).

    ## Reward
    In the recall phase, minus the mean absolute error between action and pattern; 0 during
    storage. The trial ends by timeout; its performance is the fraction of recalled elements
    on the correct side (sign for ``balanced``, above/below 0.5 otherwise). It needs
    ``_step``: the action is continuous.

    ## Arguments
    dt: Step size in ms (1).
    stim_dim: Pattern size (10).
    store_signal_dim: Storage-signal dims; only 1 is supported (as upstream's spaces).
    t_min, t_max: Shortest and longest sequence, in steps (15, 25).
    t_distribution: Only ``"uniform"``.
    p_recall: Share of the sequence recalled, in ``(0, 0.5]`` (0.1).
    chance: Chance level of the degraded cues (0.7).
    balanced: Elements ±1 with hidden ones (True), or 0/1 with flipped ones (False).

    Trial dict: ``length`` (T) and ``n_recall``; ``length`` can be forced.

    ## References
    A generic working-memory benchmark from upstream NeuroGym's contrib (no paper).

    ## Version history
    v0: repaired from upstream NeuroGym 2.3.1's unregistered contrib task, which could not run
    (its ``_new_trial`` returned arrays instead of a trial dict and assigned ``ob``/``gt``
    directly): the reward is minus the recall error (upstream paid the error itself, so a
    worse recall earned more); ``p_recall > 0.5`` and ``store_signal_dim != 1`` raise
    (upstream logged a warning, then failed); unknown keyword arguments raise (upstream
    swallowed them).
    """

    def __init__(
        self,
        dt: float = 1,
        stim_dim: int = 10,
        store_signal_dim: int = 1,
        t_min: int = 15,
        t_max: int | None = 25,
        t_distribution: str = "uniform",
        p_recall: float = 0.1,
        chance: float = 0.7,
        balanced: bool = True,
    ) -> None:
        super().__init__(dt=dt)
        self.stim_dim = validate.positive_int(stim_dim, "stim_dim")
        validate.integer(store_signal_dim, "store_signal_dim", minimum=1, maximum=1)
        self.store_signal_dim = 1
        self.t_min = validate.integer(t_min, "t_min", minimum=2)
        self.t_max = self.t_min if t_max is None else validate.integer(t_max, "t_max", minimum=2)
        if self.t_max < self.t_min:
            raise ValueError(f"t_max must be >= t_min={self.t_min}, got {t_max!r}")
        self.t_distribution = validate.choice(t_distribution, "t_distribution", ("uniform",))
        self.p_recall = validate.number(p_recall, "p_recall", minimum=0, maximum=0.5,
                                        exclusive_minimum=True)  # fmt: skip
        if int(self.p_recall * self.t_min) < 1:
            raise ValueError(
                f"p_recall={p_recall!r} recalls no pattern of a {self.t_min}-step sequence; "
                "raise p_recall or t_min"
            )
        self.chance = validate.probability(chance, "chance")
        self.balanced = bool(balanced)
        self.p_unknown = (1 - self.chance) * 2.0
        self.p_flip = 1 - self.chance
        self.rewards: dict[str, float] = {}
        self.timing = {}
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(self.stim_dim + 1,),
            dtype=np.float32,
            name={"stimulus": range(self.stim_dim), "store": self.stim_dim},
        )
        self.action_space = spaces.Box(-np.inf, np.inf, shape=(self.stim_dim,), dtype=np.float32)

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        length = b.choice("length", np.arange(self.t_min, self.t_max + 1))
        n_recall = b.set_param("n_recall", (self.p_recall * length).astype(int))
        n_store = length - n_recall
        b.add_period(["store", "recall"], duration=[n_store * self.dt, n_recall * self.dt])
        longest, k = int(n_store.max()), self.stim_dim
        bits = (b.rng.random((b.n, longest, k)) > 0.5).astype(float)
        patterns = bits * 2 - 1 if self.balanced else bits
        keys = b.rng.random((b.n, longest))
        keys[np.arange(longest)[None, :] >= n_store[:, None]] = np.inf
        flagged = np.argsort(keys, axis=1)[:, : int(n_recall.max())]  # store steps to recall
        store = np.concatenate([patterns, np.zeros((b.n, longest, 1))], axis=2)
        rows = np.arange(b.n)[:, None]
        recall_steps = np.arange(flagged.shape[1])[None, :] < n_recall[:, None]
        store[rows, flagged, k] = recall_steps  # the storage signal at the flagged steps
        targets = patterns[rows, flagged]  # (B, longest recall, k)
        noise = b.rng.random(targets.shape)
        if self.balanced:
            cues = targets * (noise > self.p_unknown)
        else:
            cues = np.where(noise < self.p_flip, 1 - targets, targets)
        cue_obs = np.concatenate([cues, np.zeros((*cues.shape[:2], 1))], axis=2)
        b.add_input(store, "store", per_step=True)
        b.add_input(cue_obs, "recall", per_step=True)
        b.set_target(targets, "recall", per_step=True)
        return {}

    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        reward = 0.0
        if self.in_period("recall"):
            target = np.asarray(self.gt_now, dtype=float)
            guess = np.asarray(action, dtype=float)
            reward = -float(np.mean(np.abs(target - guess)))
            threshold = 0.0 if self.balanced else 0.5
            right = float(np.mean((guess > threshold) == (target > threshold)))
            assert self.trial is not None
            self.performance += right / int(self.trial["n_recall"])
        return self.ob_now, reward, False, False, {"new_trial": False}
