"""IBL-style tasks: one-step contrast discrimination, with unbiased or block-biased sides."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, StandardDecision, spaces, validate

from ._stream import side_log_odds

__all__ = ["IBL", "IBLBlock"]

COHS = (1.6, 3.2, 6.4, 12.8, 25.6, 51.2)
BLOCK_PRIORS = ((0.2, 0.8), (0.8, 0.2), (0.5, 0.5))
"""``(p(left), p(right))`` of the three IBLBlock block types."""


class IBL(ngym.TrialEnv):
    """One-step two-alternative contrast discrimination (International Brain Laboratory style).

    ## Description
    Every step is a trial: two inputs show a stimulus on the left or the right, with a
    contrast drawn from six levels, plus Gaussian noise; the agent answers at once with the
    side (The International Brain Laboratory 2017). Sides are equally likely; see
    ``IBLBlock`` for blocks with biased priors.

    ## Trial structure (periods)
    One period, ``stimulus``, of one step (``dt``); the answer is scored at that step.

    ## Observation space (named dims)
    ``Box(-inf, inf, (2,), float32)``: ``stimulus`` (0: left, 1: right) is
    ``0.5 + coh/200`` on the trial's side and ``0.5 - coh/200`` on the other, plus Gaussian
    noise of std ``sigma`` (0.1; not scaled by ``dt``).

    ## Action space
    ``Discrete(2)``: ``choice`` (0: left, 1: right); there is no fixation action.

    ## Reward
    ``correct`` (+1, ``performance`` 1) if the action is the trial's side, else ``fail`` (0);
    either way the trial ends (a declared rule in which every action is a response).

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict (``correct``, ``fail``).

    Trial dict: ``ground_truth`` (the side, 0 or 1) and ``coh`` (one of 1.6, 3.2, 6.4, 12.8,
    25.6, 51.2); both can be forced.

    ## References
    The International Brain Laboratory (2017), "An International Laboratory for Systems and
    Computational Neuroscience", Neuron 96(6):1213-1218.

    ## Version history
    v0: repaired from upstream NeuroGym 2.3.1's unregistered contrib task, which could not be
    built (empty timing) nor stepped (its ``_step`` took no action): every draw comes from the
    env's generator (upstream used its own generator seeded with 0, so every env showed the
    same trials); the reward is ``correct`` only for the right side (upstream paid
    ``correct`` for any action); the observation a step returns is the next trial's stimulus,
    the one the agent answers next (upstream returned the stimulus just answered, and ``reset``
    showed none); each trial has its ground truth (upstream reported it only in ``info``);
    observations are float32 (upstream float64).
    """

    default_rewards: ClassVar[dict[str, float]] = {"correct": +1.0, "fail": 0.0}

    # No action means "fixate": every action is the answer of the trial's only step.
    rule = StandardDecision(
        fixation_periods=(), decision_periods=("stimulus",), fixation_action=-1
    )

    def __init__(self, dt: float = 100, rewards: Mapping[str, float] | None = None) -> None:
        super().__init__(dt=dt, rewards=rewards)
        self.sigma = 0.10
        self.choices = np.array([0, 1])
        self.cohs = np.array(COHS)
        self.observation_space = spaces.Box(
            -np.inf, np.inf, shape=(2,), dtype=np.float32, name={"stimulus": [0, 1]}
        )
        self.action_space = spaces.Discrete(2, name={"choice": [0, 1]})

    def _sides(self, b: BatchBuilder) -> np.ndarray:
        """The side of each trial of the batch (a forced ``ground_truth`` wins)."""
        return b.choice("ground_truth", self.choices)

    def ideal_observer(self, batch: Any) -> np.ndarray:
        """Correct when the stronger input is the answer's side.

        The low contrasts are noise-limited (1.6 % against a noise of 0.1 per input).
        ``IBLBlock``'s observer is the same: evaluated with the state restarting at every
        trial, as the learnability table evaluates, a network cannot know the block's prior.
        """
        choice = self.choices[batch.period_sum("stimulus", [0, 1]).argmax(1)]
        correct: np.ndarray = (choice == batch.trial["ground_truth"]).astype(float)
        return correct

    def stream_observer(self, batch: Any) -> np.ndarray:
        """Per trial of a stream, whether the Bayesian observer of the stream is correct.

        IBL's sides are independent and equally likely whatever came before, so earlier
        trials and their feedback say nothing about the next one: the observer of the stream
        is :meth:`ideal_observer` (``IBLBlock`` overrides this with a block posterior).

        Args:
            batch: Consecutive trials of one env from its ``reset``, a numpy
                :class:`~neurogym.data.TrainingBatch` (``neurogym.batch(env, n, seed=0)``).

        Returns:
            ``(B,)``: 1.0 where the observer's answer is the side, else 0.0.
        """
        return self.ideal_observer(batch)

    def _stimulus_log_odds(self, batch: Any) -> np.ndarray:
        """Per trial, the log odds of the right side given its two inputs alone.

        The inputs' difference (right minus left) is ``±coh/100`` plus Gaussian noise of std
        ``sigma * sqrt(2)``, the contrast drawn uniformly from ``cohs``.
        """
        shown = batch.period_sum("stimulus", [0, 1])
        return side_log_odds(shown[:, 1] - shown[:, 0], self.cohs / 100, self.sigma * np.sqrt(2))

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        side = validate.integers_in_range(self._sides(b), "ground_truth", 0, 1)
        coh = b.choice("coh", self.cohs, minimum=0)
        b.add_period("stimulus", duration=self.dt)
        shown = 0.5 + np.where(side[:, None] == self.choices, 1, -1) * coh[:, None] / 200
        b.add_input(shown, "stimulus", where="stimulus")
        b.add_noise(0, self.sigma, "stimulus", where="stimulus")
        b.set_target(side, "stimulus", where="choice")
        return {}


class IBLBlock(IBL):
    """IBL contrast discrimination in blocks of 200 trials with biased side priors.

    ## Description
    As ``IBL``, but trials come in blocks of ``block_size`` (200) trials; each block draws one
    of three priors uniformly, ``(p(left), p(right))`` = (0.2, 0.8), (0.8, 0.2) or (0.5, 0.5),
    and its trials' sides follow it. An agent that tracks the block can use the prior when the
    contrast is low, as mice do (The International Brain Laboratory 2017).

    ## Trial structure (periods)
    One period, ``stimulus``, of one step (``dt``).

    ## Observation space (named dims)
    As ``IBL``: ``stimulus`` (0: left, 1: right).

    ## Action space
    ``Discrete(2)``: ``choice`` (0: left, 1: right).

    ## Reward
    As ``IBL``: ``correct`` if the action is the side, else ``fail``; every step ends a trial.

    ## Arguments
    dt: Step size in ms (100).
    rewards: Overrides of the reward dict (``correct``, ``fail``).
    block_priors: The block types, one ``(p(left), p(right))`` pair each, drawn uniformly
        per block (default :data:`BLOCK_PRIORS`; e.g. ``[(0.5, 0.5)]`` for unbiased blocks
        only, a first stage of a curriculum).

    Attributes ``block`` (the current block's type: 0, 1 or 2, an index into ``probs``),
    ``block_size`` and ``trial_in_block`` hold the block state: the first trial after
    ``reset`` starts a block, and the state runs on across trials (``cross_trial_state``), so
    a batch is consecutive trials. Trial dict: ``block``, ``p_right`` (the block's
    probability of the right side), ``ground_truth`` and ``coh``; ``ground_truth`` and
    ``coh`` can be forced.

    ## References
    The International Brain Laboratory (2017), "An International Laboratory for Systems and
    Computational Neuroscience", Neuron 96(6):1213-1218.

    ## Version history
    v0: repaired from upstream NeuroGym 2.3.1's unregistered contrib ``IBL_Block``, with
    ``IBL``'s repairs; the block sequence draws from the env's generator and restarts on
    ``reset``; the block type is in the trial dict (upstream put it in ``info``); the class is
    named ``IBLBlock``; it accepts ``rewards`` like ``IBL`` (upstream took only ``dt``).
    """

    cross_trial_state = True  # the block runs on across trials

    def __init__(
        self,
        dt: float = 100,
        rewards: Mapping[str, float] | None = None,
        block_priors: Sequence[Sequence[float]] | None = None,
    ) -> None:
        super().__init__(dt=dt, rewards=rewards)
        self.probs = _block_priors(BLOCK_PRIORS if block_priors is None else block_priors)
        self.block_size = 200
        self._restart_blocks()

    def _restart_blocks(self) -> None:
        """Puts the block sequence before its first block."""
        self.block = 0
        self.trial_in_block = self.block_size

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Starts a new episode and a new block sequence (see ``TrialEnv.reset``)."""
        self._restart_blocks()
        return super().reset(seed=seed, options=options)

    def _next_blocks(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Block types of the next ``n`` trials; advances the block sequence by ``n``."""
        blocks = np.empty(n, dtype=np.int64)
        done = 0
        while done < n:
            if self.trial_in_block >= self.block_size:
                self.block = int(rng.integers(len(self.probs)))
                self.trial_in_block = 0
            take = min(self.block_size - self.trial_in_block, n - done)
            blocks[done : done + take] = self.block
            self.trial_in_block += take
            done += take
        return blocks

    def stream_observer(self, batch: Any) -> np.ndarray:
        """Per trial of a stream, whether the Bayesian observer of the block prior is correct.

        What the observer knows: the generative process. A block of ``block_size`` trials
        starts at ``reset`` and after every ``block_size`` trials; its type is drawn uniformly
        from the rows of ``probs`` (``(p(left), p(right))``), independently of the previous
        block (a type can repeat); within a block the sides are independent draws from its
        type; the contrast is uniform over ``cohs``; each input carries Gaussian noise of std
        ``sigma``. What it sees: each trial's two inputs and, after answering, whether its
        answer was correct, which with two sides tells it the side. What it does not know:
        the block types, the contrasts, the noise.

        It answers with the more probable side: the stimulus's log odds (the contrast
        marginalised) plus the log prior odds ``p(right) = sum_k P(type k | sides so far in
        this block) * probs[k, 1]``; the posterior over types restarts uniform with each
        block. Ties go to the left.

        Args:
            batch: Consecutive trials of one env from its ``reset``, a numpy
                :class:`~neurogym.data.TrainingBatch` (``neurogym.batch(env, n, seed=0)``).

        Returns:
            ``(B,)``: 1.0 where the observer's answer is the side, else 0.0.
        """
        stimulus = self._stimulus_log_odds(batch)
        sides = np.asarray(batch.trial["ground_truth"])
        log_probs = np.log(self.probs)
        correct = np.empty(len(sides))
        log_post = np.zeros(len(self.probs))
        for t, side in enumerate(sides):
            if t % self.block_size == 0:
                log_post[:] = 0.0  # a new block: its type is a fresh uniform draw
            post = np.exp(log_post - log_post.max())
            p_right = post @ self.probs[:, 1] / post.sum()
            choice = int(stimulus[t] + np.log(p_right) - np.log1p(-p_right) > 0)
            correct[t] = choice == side
            log_post += log_probs[:, side]  # the feedback revealed the side
        return correct

    def _sides(self, b: BatchBuilder) -> np.ndarray:
        block = b.set_param("block", self._next_blocks(b.rng, b.n))
        p_right = b.set_param("p_right", self.probs[block, 1])
        forced = b.forced("ground_truth")
        if forced is not None:
            return forced
        return b.set_param("ground_truth", (b.rng.random(b.n) < p_right).astype(np.int64))


def _block_priors(value: Any) -> np.ndarray:
    """``(K, 2)`` block types: pairs ``(p(left), p(right))``, each in (0, 1), summing to 1."""
    rows = list(value) if isinstance(value, (list, tuple, np.ndarray)) else []
    if not rows:
        raise ValueError(
            f"block_priors must be a non-empty list of (p(left), p(right)) pairs, got {value!r}"
        )
    out = np.array(
        [validate.probabilities(row, f"block_priors[{i}]", size=2) for i, row in enumerate(rows)]
    )
    if np.any((out <= 0) | (out >= 1)):
        raise ValueError(
            f"block_priors must have every probability strictly between 0 and 1 (the block "
            f"posterior needs each side possible), got {value!r}"
        )
    return out
