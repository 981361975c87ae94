"""Train, evaluate and write everything a run produces: model, metrics and figures."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import numpy as np

from neurogym_apps import _json
from neurogym_apps.train._evaluate import Evaluation, evaluate
from neurogym_apps.train._trainer import TrainConfig, TrainedModel, train

__all__ = ["RUN_FILES", "RunResult", "plot_loss", "train_and_report", "write_figures"]

#: The files :func:`train_and_report` writes into a run folder (the figures only with
#: ``figures``; ``psychometric.png`` only for some tasks).
RUN_FILES = (
    "model.pt", "config.json", "metrics.json", "loss.png", "trial.png", "psychometric.png",
)  # fmt: skip


@dataclasses.dataclass(frozen=True, repr=False)
class RunResult:
    """What :func:`train_and_report` produced.

    Attributes:
        model: The trained model (also saved in ``folder``).
        evaluation: Its closed-loop evaluation.
        folder: Where ``model.pt``, ``config.json``, ``metrics.json`` and the figures are.
        figures: The figure files written.
    """

    model: TrainedModel
    evaluation: Evaluation
    folder: Path
    figures: list[Path]

    def __repr__(self) -> str:
        """One line: the folder, the headline numbers and the figure names."""
        names = [figure.name for figure in self.figures]
        return (
            f"RunResult(folder={str(self.folder)!r}, task={self.model.task!r}, "
            f"accuracy={self.evaluation.accuracy:.3f}, chance={self.evaluation.chance_level:.3f}, "
            f"figures={names})"
        )


def plot_loss(model: TrainedModel, window: int = 25) -> Any:
    """The training loss (and step accuracy for Discrete actions) against training steps."""
    from matplotlib.figure import Figure

    from neurogym_apps.plot import moving_average

    history = model.history
    steps = np.asarray(history["step"])
    fig = Figure(figsize=(8.0, 4.0), layout="constrained")
    loss_ax, acc_ax = fig.subplots(1, 2)
    loss_ax.plot(steps, history["loss"], color="0.75", lw=0.8, label="per step")
    loss_ax.plot(steps, moving_average(history["loss"], window), color="C0", label="moving mean")
    loss_ax.set(
        xlabel="training step",
        ylabel=f"loss ({model.config.loss} steps)",
        yscale="log",
        title="loss",
    )
    loss_ax.legend(frameon=False)
    accuracy = np.asarray(history["accuracy"], dtype=float)
    if np.isfinite(accuracy).any():
        acc_ax.plot(steps, accuracy, color="0.75", lw=0.8)
        acc_ax.plot(steps, moving_average(accuracy, window), color="C1")
        acc_ax.set(ylim=(0, 1.02), ylabel="fraction of trained steps correct")
    else:
        acc_ax.text(0.5, 0.5, "continuous actions:\nno step accuracy", ha="center", va="center")
    acc_ax.set(xlabel="training step", title="accuracy on training batches")
    name = model.task.removeprefix("neurogym/").removesuffix("-v0")
    fig.suptitle(f"{name}: {model.config.model.upper()} training")
    return fig


def has_psychometric(env: Any, strength: str = "coh") -> bool:
    """Whether ``write_figures`` draws a psychometric curve for the env's task.

    Two-choice tasks (``action_space.name["choice"]`` has two actions) whose trials record a
    signed-able strength ``strength`` (PerceptualDecisionMaking's ``coh``).
    """
    names = getattr(env.action_space, "name", None) or {}
    choices = names.get("choice") if isinstance(names, dict) else None
    if choices is None or len(np.atleast_1d(choices)) != 2:
        return False
    env.reset(seed=0)
    return strength in (env.unwrapped.trial or {})


#: Closed-loop trials behind a run's psychometric curve and fit.
PSYCHOMETRIC_TRIALS = 300


def psychometric_figure(model: TrainedModel, title: str, seed: int = 0) -> Any:
    """The trained network's psychometric curve (300 trials, closed loop) as a figure.

    The figure of :func:`psychometric_report`, which also returns the fit.
    """
    return psychometric_report(model, title, seed)[0]


def psychometric_report(
    model: TrainedModel, title: str, seed: int = 0
) -> tuple[Any, dict[str, Any]]:
    """The trained network's psychometric curve and its fit, as a figure and as JSON values.

    The choices of :data:`PSYCHOMETRIC_TRIALS` closed-loop trials (seeded by ``seed``),
    drawn and fitted by :func:`choices_report`.
    """
    from neurogym_apps.plot import collect_choices

    strengths, choices = collect_choices(
        model.make_env(), model.policy(), num_trials=PSYCHOMETRIC_TRIALS, seed=seed
    )
    return choices_report(strengths, choices, title)


def choices_report(strengths: Any, choices: Any, title: str) -> tuple[Any, dict[str, Any]]:
    """Figure and JSON values of psignifit's fit of (signed strength, choice) pairs.

    The fit is :func:`~neurogym_apps.plot.fit_psignifit` (credible intervals drawn, and in
    the JSON's ``fit``). Without psignifit installed, a run's figures still draw: the curve
    is then :func:`~neurogym_apps.plot.fit_psychometric`'s, the figure's title and the JSON's
    ``psignifit`` say it is missing and how to install it. Choices that admit no fit (a
    network that always picks one side) are drawn without a curve, ``fit`` is None and
    ``reason`` says why.

    Returns:
        The figure and ``{"trials", "fit", ...}`` (strict-JSON values).
    """
    from neurogym_apps.plot import PsychometricFit, plot_psychometric
    from neurogym_apps.plot._psignifit import INSTALL, installed

    values: dict[str, Any] = {"trials": int(np.size(choices))}
    psignifit = installed()
    if not psignifit:  # a run's figures do not need psignifit: say it is missing
        values["psignifit"] = f"not installed: {INSTALL}"
        title = f"{title} (psignifit not installed: GLM fit, no intervals)"
    try:
        fig, fit = plot_psychometric(strengths, choices, fit="psignifit" if psignifit else "glm")
    except ValueError as exc:  # drawn without a fit; the reason is in the figure
        fig, _ = plot_psychometric(strengths, choices, kind=None)
        values.update(fit=None, reason=str(exc))
        title = f"{title}\n(no fit: {exc})"
    else:
        if isinstance(fit, PsychometricFit):
            values["fit"] = {**dataclasses.asdict(fit), "method": f"glm ({fit.method})"}
        else:
            values["fit"] = fit.to_dict() if fit is not None else None
    fig.suptitle(title, fontsize=10)
    return fig, values


def write_figures(model: TrainedModel, folder: Path, seed: int = 0) -> list[Path]:
    """Writes the run's figures as PNG files into ``folder``; returns their paths.

    ``loss.png`` (the loss curve), ``trial.png`` (three trials of the network stepping the
    env) and, for two-choice tasks with a signed strength (:func:`has_psychometric`),
    ``psychometric.png`` (:func:`psychometric_report`). Any error while drawing propagates.
    """
    return _write_figures(model, folder, seed)[0]


def _write_figures(
    model: TrainedModel, folder: Path, seed: int
) -> tuple[list[Path], dict[str, Any] | None]:
    """:func:`write_figures`, and the psychometric fit's JSON values (None without one)."""
    from neurogym_apps.plot import plot_env

    folder.mkdir(parents=True, exist_ok=True)
    name = model.task.removeprefix("neurogym/").removesuffix("-v0")
    figures = {
        "loss.png": plot_loss(model),
        "trial.png": plot_env(
            model.make_env(),
            num_trials=3,
            policy=model.policy(),
            seed=seed,
            title=f"{name}: the trained network's actions (closed loop) against the ground truth",
        ),
    }
    psychometric = None
    if has_psychometric(model.make_env()):
        title = f"{name}: the trained network's choices"
        figures["psychometric.png"], psychometric = psychometric_report(model, title, seed)
    written = []
    for file, fig in figures.items():
        path = folder / file
        fig.savefig(path, dpi=110)
        written.append(path)
    return written, psychometric


def _writable_folder(out: Path, overwrite: bool) -> Path:
    """``out``, created if needed; raises a precise error if the run cannot be written there.

    A folder holding any of :data:`RUN_FILES` (an earlier run) is refused unless
    ``overwrite``.
    """
    if out.exists() and not out.is_dir():
        raise ValueError(f"cannot write the run into {str(out)!r}: it is a file, not a folder")
    earlier = _run_files(out)
    if earlier and not overwrite:
        raise ValueError(
            f"{str(out)!r} already holds a run ({', '.join(p.name for p in earlier)}): "
            "choose another folder, or overwrite it (overwrite=True; neurogym train "
            "--overwrite), which deletes that run's files first"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create the run folder {str(out)!r}: {exc.strerror}") from exc
    if not os.access(out, os.W_OK):
        raise ValueError(f"cannot write the run into {str(out)!r}: permission denied")
    return out


def _run_files(folder: Path) -> list[Path]:
    """The files of :data:`RUN_FILES` that ``folder`` holds."""
    return [folder / name for name in RUN_FILES if (folder / name).is_file()]


def train_and_report(
    task: str,
    folder: str | Path,
    config: TrainConfig | None = None,
    *,
    env_kwargs: dict[str, Any] | None = None,
    eval_trials: int = 500,
    figures: bool = True,
    progress: bool = True,
    overwrite: bool = False,
    **overrides: Any,
) -> RunResult:
    """Trains on ``task``, evaluates closed loop and writes the run into ``folder``.

    Files: ``model.pt`` and ``config.json`` (reload with ``TrainedModel.load(folder)``),
    ``metrics.json`` (config, steps and seconds used, final loss, closed-loop strict accuracy,
    fixation breaks and env performance, overall and per condition, and chance baselines)
    and, with ``figures``, ``loss.png``, ``trial.png`` and, where the task has a signed
    strength, ``psychometric.png``, whose psignifit fit (threshold, width, guess and lapse
    rates with their 95 % credible intervals; :func:`choices_report`) ``metrics.json`` then
    holds as ``psychometric``.

    A ``folder`` that already holds a run (any of :data:`RUN_FILES`) is refused before
    training, unless ``overwrite``: then, once the new run is trained and evaluated, the old
    run's files are deleted before the new ones are written, so no figure of the old run stays
    beside the new model (other files in ``folder`` are kept).

    Raises:
        ValueError: ``folder`` is a file, cannot be created or written, or holds a run and
            ``overwrite`` is False; and what :func:`train` raises.
    """
    # before training: a bad path must not lose the run
    out = _writable_folder(Path(folder), overwrite)
    model = train(task, config, env_kwargs=env_kwargs, progress=progress, **overrides)
    evaluation = evaluate(model, eval_trials, seed=model.config.seed + 1)
    earlier = _run_files(out)
    if earlier and not overwrite:  # written while this run trained
        raise ValueError(f"{str(out)!r} received another run while this one trained; not written")
    for file in earlier:
        file.unlink()
    model.save(out, overwrite=overwrite)
    history = model.history
    metrics = {
        "task": model.task,
        "env_kwargs": model.env_kwargs,
        "config": dataclasses.asdict(model.config),
        "steps": len(history["step"]),
        "seconds": history["seconds"][-1] if history["seconds"] else 0.0,
        "final_loss": float(np.mean(history["loss"][-25:])) if history["loss"] else None,
        "evaluation": evaluation.to_dict(),
    }
    _json.write(out / "metrics.json", metrics)  # before the figures: a drawing error keeps it
    written: list[Path] = []
    if figures:
        written, psychometric = _write_figures(model, out, seed=model.config.seed)
        if psychometric is not None:
            metrics["psychometric"] = psychometric
            _json.write(out / "metrics.json", metrics)
    return RunResult(model, evaluation, out, written)
