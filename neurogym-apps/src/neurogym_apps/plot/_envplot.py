"""``plot_env``: a task's observations, actions against ground truth, rewards and performance."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from neurogym import validate
from neurogym_apps.plot._run import Policy, Run, run_env

__all__ = ["plot_env"]

_TRACES_UP_TO = 6  # observations with more dims are drawn as a heatmap
_ACTION_LABELS = 9  # most labelled ticks on a Discrete action axis
# the action legend's title: what acted when no policy was given (Run.policy)
_POLICY_TITLE = {
    "ground truth": "ground-truth policy",
    "random": "random actions\n(no ground truth)",
}


def _integer_ticks(ax: Axes, values: np.ndarray) -> None:
    """Integer y ticks when every value drawn is an integer (no 0.25 on a 0/1 axis)."""
    data = np.asarray(values, dtype=float)
    finite = data[np.isfinite(data)]
    if finite.size and np.array_equal(finite, np.round(finite)):
        ax.yaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))


def _dim_labels(space: gym.Space[Any], size: int) -> list[str]:
    """One label per dim from the space's names: ``fixation``, ``stimulus 1``, ..."""
    labels = [str(i) for i in range(size)]
    names = getattr(space, "name", None) or {}
    start = int(getattr(space, "start", 0)) if not space.shape else 0
    for name, index in names.items():
        indices = [index] if isinstance(index, int) else list(index)
        for k, i in enumerate(indices):
            labels[i - start] = name if len(indices) == 1 else f"{name} {k + 1}"
    return labels


def _boundaries(axes: list[Axes], run: Run) -> None:
    for end in run.trial_ends[:-1] if len(run.trial_ends) else []:
        for ax in axes:
            ax.axvline(end + 0.5, color="0.55", linewidth=0.9, linestyle=":")


def _observations(
    ax: Axes, run: Run, space: gym.Space[Any], style: str, labels: list[str] | None = None
) -> None:
    """Observation traces or heatmap; ``labels`` (one per dim) replace the space's names."""
    obs = run.obs.reshape(len(run.obs), -1)
    if labels is None:
        labels = (
            _dim_labels(space, obs.shape[1])
            if obs.shape[1] == int(np.prod(space.shape or (1,)))
            else [str(i) for i in range(obs.shape[1])]
        )
    if style == "traces" or (style == "auto" and obs.shape[1] <= _TRACES_UP_TO):
        for i in range(obs.shape[1]):
            ax.plot(obs[:, i], label=labels[i], linewidth=1.3)
        _integer_ticks(ax, obs)
        ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8, frameon=False)
    else:
        image = ax.imshow(
            obs.T, aspect="auto", origin="lower", cmap="viridis", interpolation="nearest"
        )
        ax.figure.colorbar(image, cax=ax.inset_axes((1.01, 0.0, 0.015, 1.0)))
        groups: dict[str, list[int]] = {}
        for i, label in enumerate(labels):
            groups.setdefault(label.rsplit(" ", 1)[0] if " " in label else label, []).append(i)
        centres = [float(np.mean(indices)) for indices in groups.values()]
        ax.set_yticks(centres, list(groups), fontsize=8)
        for indices in groups.values():  # separate the named groups
            ax.axhline(indices[-1] + 0.5, color="w", linewidth=0.5, alpha=0.6)
    ax.set_ylabel("observation")


def _labelled_actions(n: int) -> list[int]:
    """Which of ``n`` discrete actions get a labelled tick: all, or every k-th and the last.

    The first action (fixation, in most tasks) and the last are always labelled; at most
    ``_ACTION_LABELS`` labels keep 8-point text apart at the default figure size (yang19's 16
    choices: fixation, choice 2, 4, ..., 16).
    """
    if n <= _ACTION_LABELS:
        return list(range(n))
    step = -(-(n - 1) // (_ACTION_LABELS - 1))  # ceil: the labels fit in the budget
    return sorted({*range(0, n, step), n - 1})


def _actions(ax: Axes, run: Run, space: gym.Space[Any]) -> None:
    if isinstance(space, gym.spaces.Discrete):
        ax.step(range(len(run.actions)), run.actions, where="mid", label="action",
                linewidth=4, alpha=0.45, color="C0")  # fmt: skip
        if run.gt is not None:
            ax.step(range(len(run.gt)), run.gt, where="mid", linestyle="--", color="k",
                    label="ground truth", linewidth=1.2)  # fmt: skip
        start, n = int(space.start), int(space.n)
        labelled = _labelled_actions(n)
        labels = _dim_labels(space, n)
        ax.set_yticks([start + i for i in labelled], [labels[i] for i in labelled], fontsize=8)
        if len(labelled) < n:  # every action keeps a tick and a faint line to read it by
            ax.set_yticks(range(start, start + n), minor=True)
            ax.grid(axis="y", which="both", color="0.85", linewidth=0.5)
            ax.set_axisbelow(True)
        ax.set_ylim(start - 0.5, start + n - 0.5)
    else:
        acts = run.actions.reshape(len(run.actions), -1)
        labels = _dim_labels(space, acts.shape[1])
        for i in range(acts.shape[1]):
            ax.plot(acts[:, i], color=f"C{i}", label=f"action: {labels[i]}", linewidth=4,
                    alpha=0.45)  # fmt: skip
        _integer_ticks(
            ax, acts if run.gt is None else np.concatenate([acts.ravel(), run.gt.ravel()])
        )
        if run.gt is not None:
            gt = run.gt.reshape(len(run.gt), -1)
            for i in range(gt.shape[1]):
                ax.plot(gt[:, i], color=f"C{i}", linestyle="--", linewidth=1.2,
                        label=f"ground truth: {labels[i]}")  # fmt: skip
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8, frameon=False,
              title=_POLICY_TITLE.get(run.policy), title_fontsize=8, alignment="left")  # fmt: skip
    ax.set_ylabel("action")


def _outcomes(reward_ax: Axes | None, perf_ax: Axes | None, run: Run) -> None:
    """Rewards per step and performance at trial ends; a panel given as None is left out."""
    if reward_ax is not None:
        steps = np.arange(len(run.rewards))
        reward_ax.bar(steps, run.rewards, width=0.8, color="C2")
        reward_ax.axhline(0, color="0.3", linewidth=0.6)
        reward_ax.set_ylabel("reward")
        _integer_ticks(reward_ax, np.append(run.rewards, 0.0))
    if perf_ax is None:
        return
    if len(run.trial_ends):
        perf_ax.plot(run.trial_ends, run.performance, "o", color="C4", markersize=6)
    perf_ax.set_ylim(-0.1, 1.1)
    perf_ax.set_yticks([0, 0.5, 1])
    perf_ax.set_ylabel("performance\n(trial end)")
    if len(run.performance):
        perf_ax.set_title(f"mean performance {np.nanmean(run.performance):.2f}", fontsize=9)


def plot_env(
    env_or_id: str | gym.Env[Any, Any],
    num_trials: int | None = None,
    num_steps: int | None = None,
    policy: Policy | None = None,
    *,
    seed: int = 0,
    title: str | None = None,
    ob_style: str = "auto",
    figsize: tuple[float, float] = (9.0, 7.0),
    **kwargs: Any,
) -> Figure:
    """Step a task and draw what happened: four stacked panels sharing the time axis.

    Panels: observations (traces labelled by the named dims, or a heatmap for more than six
    dims), actions against the ground truth (ticks labelled by the action names), rewards,
    and each trial's performance at its end. Dotted lines mark trial boundaries. Works for
    ``Discrete`` and ``Box`` actions and for tasks without a ground truth.

    Args:
        env_or_id: An env, or a task id made with ``kwargs``.
        num_trials: Trials to run (default 2); or give ``num_steps``.
        num_steps: Steps to run instead of whole trials.
        policy: ``policy(ob) -> action`` or ``policy(ob, state) -> (action, state)``; default
            the ground-truth action (what correct behaviour looks like), or random actions for
            tasks without one (the action legend's title says which).
        seed: Seed of ``env.reset``.
        title: Figure title; default the task's id or class name.
        ob_style: ``"auto"`` (traces up to six dims, else a heatmap), ``"traces"`` or
            ``"heatmap"``.
        figsize: Figure size in inches.
        **kwargs: Constructor arguments when ``env_or_id`` is an id.

    Returns:
        A ``matplotlib.figure.Figure`` (no pyplot state involved): ``fig.savefig(path)``.
    """
    from neurogym_apps.plot._run import resolve_env

    validate.choice(ob_style, "ob_style", ("auto", "traces", "heatmap"))
    env = resolve_env(env_or_id, **kwargs)
    run = run_env(env, num_trials, num_steps, policy, seed=seed)
    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(4, 1, sharex=True, height_ratios=[3, 2, 1.2, 1.2])
    _observations(axes[0], run, env.observation_space, ob_style)
    _actions(axes[1], run, env.action_space)
    _outcomes(axes[2], axes[3], run)
    _boundaries(list(axes), run)
    axes[-1].set_xlabel(f"step (dt = {run.dt:g} ms)")
    axes[-1].xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))  # whole steps
    spec = getattr(env.unwrapped, "spec", None)
    fig.suptitle(title or getattr(spec, "id", None) or type(env.unwrapped).__name__)
    return fig
