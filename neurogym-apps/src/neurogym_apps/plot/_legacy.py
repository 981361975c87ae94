"""NeuroGym 2.3.1's plotting functions, with their signatures, on today's ``neurogym_apps.plot``.

Code written for 2.3.1 imports these from ``neurogym.utils.plotting`` and
``neurogym.utils.psychometric``; thin modules at those paths (in ``neurogym``) resolve each
name to this module and emit the ``DeprecationWarning``. Nothing here warns.

Each function takes 2.3.1's arguments and gives 2.3.1's result, drawn by today's code (the
panels of :func:`neurogym_apps.plot.plot_env`, the fit of :func:`fit_psychometric`). What
differs on purpose is said in each docstring; in short: figures are built without pyplot (no
global state, never shown, returned), ``plot_config`` is accepted and ignored (neurogym 3 has
no plot configuration), ``.npz`` files are read with ``allow_pickle=False`` (arrays that need
pickle, such as a Monitor's trial dicts, are skipped: a crafted file cannot run code), and the
2.3.1 failures (``put_together_files`` on Python 3.11, ``plot_psychometric`` on empty input)
are fixed.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from neurogym_apps.plot._envplot import _actions, _boundaries, _observations, _outcomes
from neurogym_apps.plot._legacy_files import (
    order_by_suffix,
    plot_psychometric,
    plot_rew_across_training,
    plot_training_history,
    probit,
    put_together_files,
)
from neurogym_apps.plot._run import Run, resolve_env
from neurogym_apps.plot._run import run_env as _record

__all__ = [
    "order_by_suffix",
    "plot_env",
    "plot_env_1dbox",
    "plot_env_3dbox",
    "plot_psychometric",
    "plot_rew_across_training",
    "plot_training_history",
    "probit",
    "put_together_files",
    "run_env",
    "visualize_run",
]

# keyword arguments 2.3.1 passed to pyplot.subplots that belong to the grid, not the figure
_SUBPLOTS_KEYS = ("sharex", "sharey", "squeeze", "subplot_kw", "gridspec_kw", "height_ratios")


# ------------------------------------------------------------------------ running a task
def _single_env(env: Any) -> gym.Env[Any, Any]:
    """The env to step: made from an id, the first env of a vectorized env, or ``env``."""
    if isinstance(env, str):
        return resolve_env(env)
    envs = getattr(env, "envs", None)
    if not isinstance(env, gym.Env) and envs:  # stable-baselines3's DummyVecEnv
        first: gym.Env[Any, Any] = envs[0]
        return first
    return resolve_env(env)


def _legacy_policy(env: gym.Env[Any, Any], def_act: Any, model: Any) -> Any:
    """What 2.3.1 acted with: the model, else ``def_act`` every step, else random actions."""
    if model is not None:
        try:
            params = inspect.signature(model.predict).parameters.values()
            takes_state = any(p.name == "state" or p.kind == p.VAR_KEYWORD for p in params)
        except (TypeError, ValueError):
            takes_state = True
        if takes_state:
            return model  # today's run_env carries a recurrent model's state through a trial

        def predict(ob: Any) -> Any:  # a model whose predict takes (ob, deterministic) only
            action = np.asarray(model.predict(ob, deterministic=True)[0])
            return int(action) if action.ndim == 0 else action

        return predict
    if def_act is not None:
        return lambda ob: def_act
    space = env.action_space
    return lambda ob: space.sample()


def _run(env: Any, num_steps: int, num_trials: int | None, def_act: Any, model: Any) -> Run:
    """Today's :func:`~neurogym_apps.plot.run_env`, with 2.3.1's policy and limits.

    The env is reset without a seed (its random stream continues, as in 2.3.1).
    """
    task = _single_env(env)
    policy = _legacy_policy(task, def_act, model)
    if num_trials is not None:
        return _record(task, num_trials=num_trials, policy=policy, seed=None)
    return _record(task, num_steps=int(num_steps), policy=policy, seed=None)


def run_env(
    env: Any,
    num_steps: int = 200,
    num_trials: int | None = None,
    def_act: Any = None,
    model: Any = None,
) -> dict[str, Any]:
    """Run a task and return 2.3.1's dict of arrays (2.3.1's signature).

    Built on today's :func:`neurogym_apps.plot.run_env`. Differences from 2.3.1: a task
    without ``info["performance"]`` gets NaN at trial ends instead of a ``KeyError``; a
    vectorized env is stepped through its first env (same observations, no batch axis); the
    run never ends early at 10^5 steps (a task whose trials never end raises instead).

    Args:
        env: A task id, an env, or a stable-baselines3 ``DummyVecEnv`` (its first env runs).
        num_steps: Steps to run, unless ``num_trials`` is given.
        num_trials: Trials to run (overrides ``num_steps``).
        def_act: Action taken on every step when no model is given.
        model: A stable-baselines3 model (or any object with ``predict``); its recurrent state
            is carried within a trial and reset at each trial's start. Default: random actions
            (``env.action_space.sample()``).

    Returns:
        ``ob`` (observation returned by each step), ``ob_cum`` (their running sum within each
        trial; the first trial's starts from the initial observation, as in 2.3.1),
        ``rewards``, ``actions``, ``perf`` (-1 except at trial ends), ``actions_end_of_trial``
        (-1 except at trial ends), ``gt`` (0 where the task gives none), ``states`` (None, as
        in 2.3.1) and ``initial_ob`` (the observation after reset).
    """
    run = _run(env, num_steps, num_trials, def_act, model)
    final = run.obs[-1] if run.final_ob is None else run.final_ob
    ob = np.concatenate([run.obs[1:], final[None]]).astype(float)
    ends = set(run.trial_ends.tolist())
    perf_at = dict(zip(run.trial_ends.tolist(), run.performance.tolist(), strict=True))
    total = run.obs[0].astype(float).copy()
    ob_cum, perf, end_actions = [], [], []
    for step in range(len(ob)):
        total += ob[step]
        ob_cum.append(total.copy())
        if step in ends:
            total = np.zeros_like(total)
        perf.append(perf_at[step] if step in ends else -1)
        end_actions.append(_plain(run.actions[step]) if step in ends else -1)
    gt = [0] * len(ob) if run.gt is None else [_plain(g) for g in run.gt]
    return {
        "ob": ob,
        "ob_cum": np.asarray(ob_cum, dtype=float),
        "rewards": run.rewards.tolist(),
        "actions": [_plain(a) for a in run.actions],
        "perf": perf,
        "actions_end_of_trial": end_actions,
        "gt": gt,
        "states": None,
        "initial_ob": run.obs[0].copy(),
    }


def _plain(value: np.ndarray) -> Any:
    """A Python int or float for a scalar array, the array itself otherwise."""
    return value.item() if value.ndim == 0 else value


# ------------------------------------------------------------------------ drawing a run
def plot_env(
    env: Any,
    num_steps: int = 200,
    num_trials: int | None = None,
    def_act: Any = None,
    model: Any = None,
    name: str | None = None,
    legend: bool = True,
    ob_traces: Sequence[str] | None = None,
    fig_kwargs: dict[str, Any] | None = None,
    fname: str | Path | None = None,
    plot_performance: bool = True,
    plot_config: Any = None,
) -> Figure:
    """Run a task and draw observations, actions, rewards and performance (2.3.1's signature).

    The run is :func:`run_env`'s (random actions unless ``def_act`` or ``model`` is given);
    the panels are today's :func:`neurogym_apps.plot.plot_env`'s. Differences from 2.3.1: the
    figure is built without pyplot (not shown, not registered with pyplot; it is returned);
    action and observation ticks name every dim; the title is ``name`` above the figure
    (default the task's id); ``plot_config`` is ignored (neurogym 3 has no plot configuration).

    Args:
        env: A task id, an env, or a stable-baselines3 ``DummyVecEnv`` (its first env runs).
        num_steps: Steps to run, unless ``num_trials`` is given.
        num_trials: Trials to run (overrides ``num_steps``).
        def_act: Action taken on every step when no model is given.
        model: A stable-baselines3 model (its ``predict``, recurrent state carried).
        name: Figure title.
        legend: Draw the legends.
        ob_traces: One label per observation dim: draw the observations as labelled traces
            instead of a heatmap.
        fig_kwargs: Figure keyword arguments (``figsize``, ``dpi``...; grid arguments such as
            ``sharex`` go to the subplots).
        fname: Save the figure here (dpi 300; ``.png`` appended unless it ends in ``.png`` or
            ``.svg``, as in 2.3.1).
        plot_performance: Draw the performance panel.
        plot_config: Accepted for compatibility and ignored.

    Returns:
        The figure.
    """
    task = _single_env(env)
    run = _run(task, num_steps, num_trials, def_act, model)
    spec = getattr(task.unwrapped, "spec", None)
    title = (
        name if name is not None else getattr(spec, "id", None) or type(task.unwrapped).__name__
    )
    return _draw(run, task.observation_space, task.action_space, title=title, legend=legend,
                 ob_traces=ob_traces, fig_kwargs=fig_kwargs, fname=fname,
                 rewards=True, performance=plot_performance)  # fmt: skip


def visualize_run(
    ob: Any,
    actions: Any,
    gt: Any = None,
    rewards: Any = None,
    performance: Any = None,
    states: Any = None,
    legend: bool = True,
    ob_traces: Sequence[str] | None = None,
    name: str = "",
    fname: str | Path | None = None,
    fig_kwargs: dict[str, Any] | None = None,
    env: gym.Env[Any, Any] | None = None,
    initial_ob: Any = None,
    trial_starts: Any = None,
    plot_config: Any = None,
) -> Figure:
    """Draw recorded arrays, as :func:`run_env` returns them (2.3.1's signature).

    As in 2.3.1, ``ob`` (the observation returned by each step) is aligned with the actions
    by putting ``initial_ob`` (default ``ob[0]``) first and dropping the last; 2-D
    observations go to :func:`plot_env_1dbox`, 4-D (images) to :func:`plot_env_3dbox`.
    ``plot_config`` is ignored.

    Args:
        ob: Observations, ``(steps, dims)``.
        actions: Actions, one per step.
        gt: Ground truth per step; None leaves it out.
        rewards: Rewards per step; None leaves out the reward panel.
        performance: Per step, -1 except at trial ends; None leaves out its panel.
        states: Network activity ``(steps, units)``: its second half is drawn (2.3.1's
            choice: an LSTM's ``(h, c)`` concatenated).
        legend: Draw the legends.
        ob_traces: One label per observation dim: traces instead of a heatmap.
        name: Figure title.
        fname: Save the figure here (see :func:`plot_env`).
        fig_kwargs: Figure keyword arguments.
        env: The env that was run: names the observation and action dims.
        initial_ob: The observation after reset.
        trial_starts: 1-based steps where trials start (2.3.1's convention), used for the
            trial boundaries when ``performance`` is None.
        plot_config: Accepted for compatibility and ignored.

    Returns:
        The figure.

    Raises:
        ValueError: If ``ob`` is neither 2-D nor 4-D.
        NotImplementedError: For 4-D (image) observations.
    """
    obs = np.asarray(ob)
    first = obs[:1] if initial_ob is None else np.asarray(initial_ob)[None]
    obs = np.concatenate([first, obs])[:-1]
    if obs.ndim == 4:
        plot_env_3dbox(obs, fname=str(fname or ""), env=env)
    if obs.ndim != 2:
        raise ValueError(f"observations of shape {obs.shape} are not supported (2-D or 4-D)")
    return plot_env_1dbox(obs, actions, gt, rewards, performance, states, legend, ob_traces,
                          name, fname, fig_kwargs, env, trial_starts, plot_config)  # fmt: skip


def plot_env_1dbox(
    ob: Any,
    actions: Any,
    gt: Any = None,
    rewards: Any = None,
    performance: Any = None,
    states: Any = None,
    legend: bool = True,
    ob_traces: Sequence[str] | None = None,
    name: str = "",
    fname: str | Path | None = None,
    fig_kwargs: dict[str, Any] | None = None,
    env: gym.Env[Any, Any] | None = None,
    trial_starts: Any = None,
    plot_config: Any = None,
) -> Figure:
    """Draw a run of a task with 1-D observations, already aligned (2.3.1's signature).

    The arguments are :func:`visualize_run`'s, with ``ob[t]`` the observation that action
    ``t`` answered. The panels are today's :func:`neurogym_apps.plot.plot_env`'s, plus a
    panel of ``states`` when given; ``plot_config`` is ignored.

    Returns:
        The figure.

    Raises:
        ValueError: If ``ob`` is not 2-D, or ``ob_traces`` has not one label per dim.
    """
    obs = np.asarray(ob, dtype=float)
    if obs.ndim != 2:
        raise ValueError(f"ob must be 2-dimensional (steps, dims), got shape {obs.shape}")
    acts = np.asarray(actions)
    truth = None if gt is None else np.asarray(gt)
    steps = len(obs)
    if performance is not None:
        perf = np.asarray(performance, dtype=float)
        ends = np.flatnonzero(perf != -1)
        per_trial = perf[ends]
    else:
        starts = np.asarray([] if trial_starts is None else trial_starts, dtype=int)
        # 1-based trial starts -> 0-based ends, and the run's last step ending the last trial
        ends = np.union1d(starts[(starts >= 2) & (starts - 2 < steps)] - 2, [steps - 1])
        per_trial = np.full(len(ends), np.nan)
    run = Run(
        obs=obs,
        actions=acts,
        gt=truth,
        rewards=np.zeros(steps) if rewards is None else np.asarray(rewards, dtype=float),
        trial_ends=ends.astype(int),
        performance=per_trial,
        trials=[{} for _ in ends],
        dt=float(getattr(getattr(env, "unwrapped", None), "dt", 0.0) or 0.0),
    )
    ob_space = getattr(env, "observation_space", None) or gym.spaces.Box(
        -np.inf, np.inf, obs.shape[1:]
    )
    act_space = getattr(env, "action_space", None) or _space_of(acts, truth)
    return _draw(run, ob_space, act_space, title=name, legend=legend, ob_traces=ob_traces,
                 fig_kwargs=fig_kwargs, fname=fname, rewards=rewards is not None,
                 performance=performance is not None, states=states)  # fmt: skip


def plot_env_3dbox(ob: Any, fname: str = "", env: gym.Env[Any, Any] | None = None) -> None:
    """2.3.1's movie of image observations (2.3.1's signature): not available.

    Raises:
        NotImplementedError: Always: image-observation tasks (2.3.1's psychopy tasks) are
            not part of neurogym 3, so there is nothing to animate.
    """
    raise NotImplementedError(
        "plot_env_3dbox (a movie of image observations) is not available: image-observation "
        "tasks (NeuroGym 2.3.1's psychopy tasks) are not part of neurogym 3"
    )


def _space_of(actions: np.ndarray, gt: np.ndarray | None) -> gym.Space[Any]:
    """An action space for recorded actions drawn without their env."""
    values = actions if gt is None else np.concatenate([actions.ravel(), gt.ravel()])
    if actions.ndim == 1 and np.array_equal(values, np.round(values)):
        low = min(0, int(values.min())) if values.size else 0
        high = int(values.max()) if values.size else 0
        return gym.spaces.Discrete(high - low + 1, start=low)
    return gym.spaces.Box(-np.inf, np.inf, actions.shape[1:] or (1,))


def _draw(
    run: Run,
    ob_space: gym.Space[Any],
    act_space: gym.Space[Any],
    *,
    title: str,
    legend: bool,
    ob_traces: Sequence[str] | None,
    fig_kwargs: dict[str, Any] | None,
    fname: str | Path | None,
    rewards: bool,
    performance: bool,
    states: Any = None,
) -> Figure:
    """Today's panels for a recorded run, with 2.3.1's options."""
    panels = ["obs", "actions"] + ["rewards"] * rewards + ["performance"] * performance
    panels += ["states"] * (states is not None)
    heights = {"obs": 3.0, "actions": 2.0, "rewards": 1.2, "performance": 1.2, "states": 2.0}
    kwargs = dict(fig_kwargs or {})
    grid = {key: kwargs.pop(key) for key in _SUBPLOTS_KEYS if key in kwargs}
    grid.setdefault("sharex", True)
    grid.setdefault("height_ratios", [heights[p] for p in panels])
    grid["squeeze"] = False
    kwargs.setdefault("figsize", (12.0, 1.6 * len(panels) + 0.8))
    kwargs.setdefault("layout", "constrained")
    fig = Figure(**kwargs)
    axes: list[Axes] = list(fig.subplots(len(panels), 1, **grid)[:, 0])
    ax = dict(zip(panels, axes, strict=True))
    labels = None
    if ob_traces:
        labels = [str(label) for label in ob_traces]
        dims = int(np.prod(run.obs.shape[1:]))
        if len(labels) != dims:
            raise ValueError(
                f"ob_traces needs one label for each of the {dims} observation dims, "
                f"got {len(labels)}: {labels}"
            )
    _observations(ax["obs"], run, ob_space, "traces" if labels else "heatmap", labels)
    _actions(ax["actions"], run, act_space)
    _outcomes(ax.get("rewards"), ax.get("performance"), run)
    if "states" in ax:
        activity = np.asarray(states, dtype=float).reshape(len(states), -1)
        ax["states"].imshow(activity[:, activity.shape[1] // 2 :].T, aspect="auto",
                            origin="lower", interpolation="nearest")  # fmt: skip
        ax["states"].set_ylabel("activity\n(units)")
    _boundaries(axes, run)
    if not legend:
        for each in axes:
            drawn = each.get_legend()
            if drawn is not None:
                drawn.remove()
    axes[-1].set_xlabel(f"step (dt = {run.dt:g} ms)" if run.dt else "step")
    axes[-1].xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    if title:
        fig.suptitle(title)
    if fname:
        path = str(fname)
        fig.savefig(path if path.endswith((".png", ".svg")) else path + ".png", dpi=300)
    return fig
