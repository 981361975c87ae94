"""ANNUBeS detection: respond while a (multi)modal stimulus is on, stay silent on catch trials."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeAlias

import numpy as np

import neurogym as ngym
from neurogym import BatchBuilder, spaces, validate
from neurogym.rules import STANDARD_REWARDS

__all__ = ["AnnubesEnv"]

Stimulus: TypeAlias = tuple[str, ...]
"""A stimulus: the sorted tuple of its modalities; ``()`` is a catch trial."""

CATCH = "catch"
"""Reserved name: the ``max_sequential`` key (and forbidden modality name) for catch trials."""
DEFAULT_SESSION: dict[str | tuple[str, ...], float] = {"v": 0.5, "a": 0.5}
DEFAULT_CATCH_PROB = 0.5
DEFAULT_INTENSITIES = (0.8, 0.9, 1.0)


def _as_stimulus(key: Any, modalities: set[str] | None = None) -> Stimulus:
    """A session key or forced value as a sorted tuple of modalities (``()`` for catch).

    Raises:
        TypeError: ``key`` is neither a str, a tuple of str nor None.
        ValueError: A modality is unknown (when ``modalities`` is given) or reserved.
    """
    if key is None:
        return ()
    names = (key,) if isinstance(key, str) else key
    if not isinstance(names, tuple) or not all(isinstance(m, str) for m in names):
        raise TypeError(f"a stimulus is a modality name (str) or a tuple of names, got {key!r}")
    if any(m.lower() == CATCH for m in names):
        raise ValueError(f"{CATCH!r} is reserved for catch trials and cannot be a modality")
    if modalities is not None and not set(names) <= modalities:
        raise ValueError(
            f"stimulus {key!r} has modalities outside this session's {sorted(modalities)}"
        )
    return tuple(sorted(set(names)))


def _prepare_session(session: Any) -> tuple[dict[Stimulus, float], set[str]]:
    """Normalised session (sorted-tuple keys) and the set of modalities."""
    if not isinstance(session, Mapping) or not session:
        raise TypeError(
            f"session must be a non-empty dict of stimulus (str or tuple of str) to "
            f"probability, got {session!r}"
        )
    probs: dict[Stimulus, float] = {}
    for key, prob in session.items():
        stim = _as_stimulus(key)
        if not stim:
            raise TypeError(f"session key {key!r}: expected a modality name or a tuple of names")
        if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not prob >= 0:
            raise ValueError(f"session[{key!r}] = {prob!r}: probabilities are numbers >= 0")
        probs[stim] = probs.get(stim, 0.0) + float(prob)
    total = sum(probs.values())
    if total <= 0:
        raise ValueError(f"session {session!r}: at least one probability must be > 0")
    modalities = {m for stim in probs for m in stim}
    return {stim: p / total for stim, p in probs.items()}, modalities


def _prepare_intensities(intensities: Any, modalities: set[str]) -> dict[str, np.ndarray]:
    """Per-modality arrays of intensity values."""
    if intensities is None:
        intensities = dict.fromkeys(modalities, DEFAULT_INTENSITIES)
    elif not isinstance(intensities, Mapping):
        intensities = dict.fromkeys(modalities, intensities)
    if set(intensities) != modalities:
        raise ValueError(
            f"intensities must have one entry per modality {sorted(modalities)}, got keys "
            f"{sorted(map(str, intensities))}"
        )
    out = {}
    for modality, values in intensities.items():
        arr = np.atleast_1d(np.asarray(values, dtype=float))
        if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
            raise ValueError(
                f"intensities[{modality!r}] = {values!r}: expected a number or a non-empty "
                "list of finite numbers"
            )
        out[modality] = arr
    return out


def _check_seed(seed: object) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"random_seed must be None or an int >= 0, got {seed!r}")
    return int(seed)


def _check_limit(key: Any, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"max_sequential[{key!r}] = {value!r}: expected an int >= 1 or None")
    return int(value)


def _prepare_max_sequential(
    max_sequential: Any,
    modalities: set[str],
) -> dict[str, int | None]:
    """Limit per modality and for catch trials (key ``"catch"``); None means no limit."""
    if max_sequential is None or isinstance(max_sequential, (int, np.integer)):
        limit = _check_limit("*", max_sequential)
        return {**dict.fromkeys(sorted(modalities), limit), CATCH: None}
    if not isinstance(max_sequential, Mapping):
        raise TypeError(f"max_sequential must be an int, a dict or None, got {max_sequential!r}")
    limits: dict[str, int | None] = {**dict.fromkeys(sorted(modalities)), CATCH: None}
    for key, value in max_sequential.items():
        name = CATCH if key is None else key
        if name not in limits:
            raise ValueError(
                f"max_sequential key {key!r} is neither a modality of the session "
                f"{sorted(modalities)} nor {CATCH!r} (None)"
            )
        limits[name] = _check_limit(key, value)
    return limits


class AnnubesEnv(ngym.TrialEnv):
    """Detect a stimulus in one or several sensory modalities; withhold on catch trials.

    ## Description
    The ANNUBeS task family (rodent multisensory detection). After a fixation period, each
    trial presents a stimulus made of one or more modalities (e.g. visual ``v``, auditory
    ``a`` or audiovisual ``("a", "v")``), each at an intensity drawn from ``intensities``,
    or nothing at all (a catch trial, probability ``catch_prob``). The agent must respond (1)
    throughout the stimulus period when a stimulus is present and stay silent (0) on catch
    trials. ``max_sequential`` caps how many consecutive trials may contain a modality (or
    be catch trials).

    ## Trial structure (periods)
    ``fixation`` (``fix_time``, 500 ms) → ``stimulus`` (``stim_time``, 1000 ms) → ``iti``
    (``iti``, 0 ms). All three accept any timing spec form.

    ## Observation space (named dims)
    ``Box(-inf, inf, (2 + n_modalities,), float32)``: ``fixation`` (0) is ``fix_intensity``
    (default 0) during fixation; ``start`` (1) is 1 during the stimulus period; one dim per
    modality, in sorted order (2..), carries the modality's intensity plus Gaussian noise of
    std ``noise_std * sqrt(2 / alpha)`` (``alpha = dt / tau``) during the stimulus, when the
    modality is presented, and is 0 otherwise.

    ## Action space
    ``Discrete(len(output_behavior))`` (2 by default): ``fixation`` (0, no response),
    ``choice`` (1.., respond). The ground truth is 1 during the stimulus of a stimulus trial,
    0 everywhere else (fixation, iti and whole catch trials).

    ## Reward
    In fixation and iti any action other than 0 pays ``abort`` (-0.1) and does not end the
    trial. In the stimulus period **every step** pays ``correct`` (+1) when the action equals
    the gt and ``fail`` (0) otherwise. The trial ends at its last step. ``performance`` is 1
    when the action equals the gt on every stimulus step (respond throughout a stimulus,
    withhold throughout a catch trial), else 0; upstream counted a trial correct after one
    correct step, so a random policy scored 1.0.

    ## Arguments
    session: Stimulus (a modality name or a tuple of names) to relative probability among
        non-catch trials (default ``{"v": 0.5, "a": 0.5}``: two equiprobable modalities).
    catch_prob: Probability of a catch trial, in [0, 1] (default 0.5).
    intensities: Possible intensities: one list for all modalities or a dict modality to
        list (default ``[0.8, 0.9, 1.0]``), drawn uniformly.
    stim_time: Stimulus duration in ms (1000).
    max_sequential: Maximum number of consecutive trials containing a modality: an int (for
        every modality, not catch trials), a dict modality (or ``"catch"``) to int/None, or
        None (no limit; default). Counts persist across ``new_trial`` and ``new_trials`` calls
        (within and across batches) and restart at ``reset``.
    fix_intensity: Value of the ``fixation`` dim during fixation (0).
    fix_time: Fixation duration spec in ms (500). iti: Inter-trial interval spec in ms (0).
    dt: Step size in ms (100). tau: Time constant in ms scaling the noise (100).
    output_behavior: Output levels; only its length (the number of actions) is used
        ([0, 1]).
    noise_std: Input noise (0.01). rewards: Overrides of the reward dict.
    random_seed: If given, seeds the env's generator at construction (so ``reset()``
        without a seed is reproducible); ``reset(seed=s)`` re-seeds it as for every task.
    frozen_seed: Accepted for compatibility and ignored: copies of an env always continue
        its generator exactly (seed copies with ``reset(seed=...)`` to decorrelate them).

    Trial dict: ``catch`` (bool), ``stim_types`` (tuple of modalities, ``()`` on catch
    trials), ``stim_values`` (dict modality to intensity), ``sequential_count`` (snapshot
    of the counts after this trial). Forced kwargs: ``stim_types=`` (a name, a tuple, or
    ``()``/None for catch; a list gives one per trial), ``catch=`` (bool; False draws a
    stimulus) and ``stim_values=`` (a dict, or a list of dicts, of intensities).

    ## References
    ANNUBeS, "Training Artificial Neural Networks to Uncover Behavioral Strategies in
    neuroscience" (Netherlands eScience Center / University of Amsterdam).

    ## Version history
    v0: as upstream NeuroGym 2.3.1 (periods, timing, obs/gt layout, per-step rewards, trial
    dict keys), with these differences:

    * Buildable with defaults: ``session={"v": 0.5, "a": 0.5}``, ``catch_prob=0.5``
      (upstream 2.3.1 required both, so ``make("AnnubesEnv-v0")`` failed).
    * Modality, intensity and noise all come from the env's generator: ``reset(seed=s)``
      fixes every trial. Upstream drew modality and intensity from a private generator
      that neither ``seed()`` nor ``reset(seed=)`` reached; ``random_seed`` now seeds the
      env's generator and ``frozen_seed`` has no effect (upstream's ``__deepcopy__``
      re-seeded the *original* env unless ``frozen_seed``).
    * ``max_sequential`` works: upstream 2.3.1 ignored every value of a dict (all limits
      became None) and reset the catch count to 1 on every catch trial. Counts restart at
      ``reset``; infeasible limits raise ``ValueError`` at construction.
    * The observation space is ``Box(-inf, inf)``: upstream declared ``[0, 1]`` although
      intensity 1 plus noise (or another ``fix_intensity``) lies outside it.
    * Action names are action indices (``fixation`` 0, ``choice`` 1..); upstream named them
      by the values of ``fix_intensity`` and ``output_behavior``.
    * ``rewards`` updates the defaults (upstream replaced the whole dict);
      ``sequential_count`` in the trial dict is a snapshot (upstream shared one live
      dict); ``info["trial"]`` is the finished trial (upstream's base class overwrote it).
    * Standard forced kwargs; trials are generated batch-natively.
    """

    default_rewards: ClassVar[Mapping[str, float]] = STANDARD_REWARDS

    cross_trial_state = True  # sequential_count carries over from trial to trial

    def __init__(
        self,
        session: Mapping[str | tuple[str, ...], float] | None = None,
        catch_prob: float = DEFAULT_CATCH_PROB,
        intensities: Sequence[float] | Mapping[str, Sequence[float]] | None = None,
        stim_time: Any = 1000,
        max_sequential: int | Mapping[str | None, int | None] | None = None,
        fix_intensity: float = 0,
        fix_time: Any = 500,
        iti: Any = 0,
        dt: float = 100,
        tau: float = 100,
        output_behavior: Sequence[float] | None = None,
        noise_std: float = 0.01,
        rewards: Mapping[str, float] | None = None,
        random_seed: int | None = None,
        frozen_seed: bool = False,
    ) -> None:
        super().__init__(dt=dt, rewards=rewards)
        self.session, self.modalities = _prepare_session(
            DEFAULT_SESSION if session is None else session
        )
        self.catch_prob = validate.probability(catch_prob, "catch_prob")
        if self.catch_prob == 1 and any(p > 0 for p in self.session.values()):
            raise ValueError(
                "catch_prob=1 makes every trial a catch trial, so the session's stimuli "
                f"{sorted(map(str, self.session))} (with probabilities > 0) would never be "
                "shown; use catch_prob < 1"
            )
        self.intensities = _prepare_intensities(intensities, self.modalities)
        self.max_sequential = _prepare_max_sequential(max_sequential, self.modalities)
        self._check_feasible()
        validate.number(tau, "tau", minimum=0, exclusive_minimum=True)
        validate.number(noise_std, "noise_std", minimum=0)
        self.stim_time, self.fix_time, self.iti = stim_time, fix_time, iti
        self.fix_intensity = validate.number(fix_intensity, "fix_intensity")
        self.tau = tau
        self.noise_std = noise_std
        alpha = self.dt / tau
        self.noise_factor = noise_std * np.sqrt(2 * alpha) / alpha
        self.output_behavior = list(output_behavior or (0, 1))
        if len(self.output_behavior) < 2:
            raise ValueError(
                f"output_behavior needs at least 2 levels (one per action), got "
                f"{output_behavior!r}"
            )
        self._set_timing()
        self.random_seed = _check_seed(random_seed)
        self.frozen_seed = frozen_seed
        if random_seed is not None:
            self.rng = np.random.default_rng(random_seed)
        self.sequential_count = dict.fromkeys(self.max_sequential, 0)
        self._limits = {m: n for m, n in self.max_sequential.items() if n is not None}
        self._table = [
            (stim, tuple(m for m in (stim or (CATCH,)) if m in self._limits), prob)
            for stim, prob in [
                *((stim, (1 - self.catch_prob) * p) for stim, p in self.session.items()),
                ((), self.catch_prob),
            ]
            if prob > 0
        ]
        names = sorted(self.modalities)
        self._dims = {m: i for i, m in enumerate(names)}
        self.observation_space = spaces.Box(
            -np.inf,
            np.inf,
            shape=(2 + len(names),),
            dtype=np.float32,
            name={"fixation": 0, "start": 1, **{m: i + 2 for i, m in enumerate(names)}},
        )
        n_actions = len(self.output_behavior)
        self.action_space = spaces.Discrete(
            n_actions, name={"fixation": 0, "choice": range(1, n_actions)}
        )

    def _set_timing(self) -> None:
        for key, arg, value in (
            ("fixation", "fix_time", self.fix_time),
            ("stimulus", "stim_time", self.stim_time),
            ("iti", "iti", self.iti),
        ):
            try:
                self.timing[key] = value
            except (TypeError, ValueError) as error:
                raise type(error)(f"{arg}={value!r} is not a valid timing spec: {error}") from None

    def _check_feasible(self) -> None:
        """Raises ``ValueError`` if ``max_sequential`` can leave no stimulus to draw."""
        limits = self.max_sequential
        if self.catch_prob == 1 and limits[CATCH] is not None:
            raise ValueError(
                f"max_sequential limits catch trials to {limits[CATCH]} in a row, but "
                "catch_prob=1 makes every trial a catch trial"
            )
        if self.catch_prob > 0:
            return  # a catch trial (after a stimulus) or any stimulus (after a catch) is free
        positive = [stim for stim, p in self.session.items() if p > 0]
        for stim in positive:
            limited = {m for m in stim if limits[m] is not None}
            if all(set(other) & limited for other in positive):
                raise ValueError(
                    f"max_sequential={ {m: limits[m] for m in sorted(limited)} } can block "
                    f"every stimulus after {stim!r} and catch_prob=0 leaves no catch trial "
                    "to draw instead; raise catch_prob or relax the limits"
                )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Restarts the ``max_sequential`` counts, then resets as every task does."""
        self.sequential_count = dict.fromkeys(self.max_sequential, 0)
        return super().reset(seed=seed, options=options)

    # ------------------------------------------------------------------ trial generation
    def _forced_stimuli(self, b: BatchBuilder) -> list[Stimulus | None]:
        """Per trial: the forced stimulus (``()`` = catch), or None to draw it."""
        forced: list[Stimulus | None] = [None] * b.n
        if "stim_types" in b.kwargs:
            value = b.kwargs["stim_types"]
            items = value if isinstance(value, (list, np.ndarray)) else [value] * b.n
            if len(items) != b.n:
                raise ValueError(f"stim_types: {len(items)} values for a batch of {b.n} trials")
            forced = [_as_stimulus(item, self.modalities) for item in items]
        if "catch" in b.kwargs:
            flags = np.asarray(b.kwargs["catch"])
            if flags.shape not in ((), (b.n,)):
                raise ValueError(
                    f"forced catch must be one bool or one per trial ({b.n}), got shape "
                    f"{flags.shape}"
                )
            flags = np.broadcast_to(flags, (b.n,))
            catch = validate.among(flags, "catch", np.array([False, True])).astype(bool)
            for i in np.flatnonzero(catch):
                if forced[i]:
                    raise ValueError(f"trial {i}: catch=True contradicts stim_types={forced[i]}")
                forced[i] = ()
        return forced

    def _draw_stimuli(self, b: BatchBuilder) -> tuple[list[Stimulus], list[dict[str, int]]]:
        """Stimulus of each trial under ``max_sequential`` (a loop over the batch)."""
        forced = self._forced_stimuli(b)
        no_catch = (
            np.broadcast_to(~np.asarray(b.kwargs["catch"], dtype=bool), (b.n,))
            if "catch" in b.kwargs
            else np.zeros(b.n, dtype=bool)
        )
        draws = b.rng.random(b.n)
        counts = self.sequential_count
        stimuli, snapshots = [], []
        for i in range(b.n):
            stim = forced[i]
            if stim is None:
                stim = self._pick(draws[i], counts, allow_catch=not no_catch[i])
            counts = self._advance(counts, stim)
            stimuli.append(stim)
            snapshots.append(counts)
        self.sequential_count = dict(counts)
        return stimuli, snapshots

    def _pick(self, u: float, counts: dict[str, int], *, allow_catch: bool) -> Stimulus:
        """The option that uniform draw ``u`` selects among those ``counts`` still allow."""
        limits = self._limits
        allowed = [
            (stim, prob)
            for stim, limited, prob in self._table
            if (stim or allow_catch) and all(counts[m] < limits[m] for m in limited)
        ]
        if not allowed:
            raise RuntimeError(
                f"AnnubesEnv: no stimulus can be drawn: counts {counts} reached "
                f"max_sequential {self.max_sequential} for every option with probability > 0"
            )
        target = u * sum(prob for _, prob in allowed)
        for stim, prob in allowed:
            target -= prob
            if target < 0:
                return stim
        return allowed[-1][0]  # u * total rounded up to total

    @staticmethod
    def _advance(counts: dict[str, int], stim: Stimulus) -> dict[str, int]:
        """Counts after a trial: +1 for what it contained, 0 for everything else."""
        present = set(stim) if stim else {CATCH}
        return {m: count + 1 if m in present else 0 for m, count in counts.items()}

    def _intensities(
        self, b: BatchBuilder, stimuli: list[Stimulus]
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(B, n_modalities)`` intensities (0 for absent modalities) and presence mask."""
        codes: dict[Stimulus, int] = {}
        rows = [codes.setdefault(stim, len(codes)) for stim in stimuli]
        table = np.zeros((len(codes), len(self._dims)), dtype=bool)
        for stim, k in codes.items():
            table[k, [self._dims[m] for m in stim]] = True
        present = table[rows]
        values = np.zeros(present.shape)
        for modality, col in self._dims.items():
            options = self.intensities[modality]
            idx = (b.rng.random(b.n) * options.size).astype(np.intp)
            values[:, col] = np.where(present[:, col], options[idx], 0.0)
        if "stim_values" in b.kwargs:
            self._apply_forced_values(b.kwargs["stim_values"], stimuli, values)
        return values, present

    def _apply_forced_values(
        self,
        forced: Any,
        stimuli: list[Stimulus],
        values: np.ndarray,
    ) -> None:
        if isinstance(forced, Mapping):
            rows = [forced] * len(stimuli)
        else:  # a list of dicts; anything else (a number, None) is refused below
            rows = list(forced) if isinstance(forced, (list, tuple, np.ndarray)) else []
        if len(rows) != len(stimuli) or not all(isinstance(r, Mapping) for r in rows):
            raise ValueError(
                f"stim_values must be a dict of modality to intensity or {len(stimuli)} such "
                f"dicts, got {forced!r}"
            )
        for i, (row, stim) in enumerate(zip(rows, stimuli, strict=True)):
            for modality, value in row.items():
                if modality not in self._dims:
                    raise ValueError(
                        f"stim_values: unknown modality {modality!r}; modalities: "
                        f"{sorted(self._dims)}"
                    )
                if modality in stim:
                    values[i, self._dims[modality]] = float(value)

    def _new_trials(self, b: BatchBuilder, **kwargs: Any) -> dict[str, Any]:
        stimuli, snapshots = self._draw_stimuli(b)
        values, present = self._intensities(b, stimuli)
        catch = np.array([not stim for stim in stimuli])
        b.add_period(["fixation", "stimulus", "iti"])
        b.add_input(self.fix_intensity, "fixation", where="fixation")
        b.add_input(1, "stimulus", where="start")
        mod_dims = slice(2, 2 + len(self._dims))
        b.add_input(values, "stimulus", where=mod_dims)
        start, end = b.period_steps("stimulus")
        longest = int(np.max(np.asarray(end) - np.asarray(start)))
        noise = b.rng.standard_normal((b.n, longest, len(self._dims)))
        noise *= self.noise_factor * present[:, None, :]
        b.add_input(noise, "stimulus", where=mod_dims, per_step=True)
        b.set_target(0, ["fixation", "iti"])
        b.set_target(np.where(catch, 0, 1), "stimulus")
        b.set_param("catch", catch)
        b.set_param("stim_types", _objects(stimuli))
        dims = self._dims
        given = [{m: float(values[i, dims[m]]) for m in stim} for i, stim in enumerate(stimuli)]
        b.set_param("stim_values", _objects(given))
        b.set_param("sequential_count", _objects(snapshots))
        return {}

    # ------------------------------------------------------------------ stepping
    def _step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Abort outside the stimulus, correct/fail at every stimulus step (see Reward)."""
        reward = 0.0
        new_trial = False
        if self.in_period("fixation") or self.in_period("iti"):
            if action != 0:
                reward = self.rewards["abort"]
        elif self.in_period("stimulus"):
            if self.t_ind == self.start_ind["stimulus"]:  # correct until a step is not
                self.performance = 1
            if action == self.gt_now:
                reward = self.rewards["correct"]
            else:
                reward = self.rewards["fail"]
                self.performance = 0
            new_trial = self.t_ind + 1 >= round(self.tmax / self.dt)  # the trial's last step
        return self.ob_now, reward, False, False, {"new_trial": new_trial}


def _objects(items: list[Any]) -> np.ndarray:
    """A ``(B,)`` object array holding ``items`` (tuples and dicts stay whole)."""
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out
