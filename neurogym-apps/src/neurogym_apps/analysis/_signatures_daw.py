"""Wang et al. (2018)'s signature: a meta-RL agent's stay probabilities look model-based.

In the two-step task (Daw et al. 2011, ``DawTwoStep``) the first choice leads to one of two
second-stage states by a common (0.8) or a rare (0.2) transition, and which state pays well
drifts. A model-free learner repeats a rewarded first choice whatever the transition; a
model-based one knows that a reward after a rare transition speaks for the *other* first
choice, so its probability of staying is highest after a common rewarded and a rare
unrewarded trial: a reward x transition interaction. Wang et al. (2018, Nature Neuroscience
21:860-868, Fig. 4) found this pattern in an LSTM trained with reward and action feedback
(meta-reinforcement learning), as in people.

:func:`stay_probabilities` measures the four stay probabilities and their interaction,
``(common rewarded - rare rewarded) - (common unrewarded - rare unrewarded)``, with
bootstrap intervals; :func:`plot_stay_probabilities` draws the paper's bar plot.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from neurogym_apps.analysis._signatures import Estimate, bootstrap

__all__ = [
    "CONDITIONS",
    "StayProbabilities",
    "plot_stay_probabilities",
    "stay_probabilities",
    "two_step_transitions",
]

#: (rewarded, common) of the four conditions, in the paper's order.
CONDITIONS = ((True, True), (True, False), (False, True), (False, False))


@dataclasses.dataclass(frozen=True)
class StayProbabilities:
    """P(repeat the first-stage choice) after each (reward, transition) of the trial before.

    Attributes:
        stay: (rewarded, common) -> the probability of staying, with its interval.
        interaction: ``(stay[R, C] - stay[R, rare]) - (stay[unR, C] - stay[unR, rare])``:
            positive for the model-based pattern.
        reward_effect: The mean stay after rewarded minus after unrewarded trials (the
            model-free main effect).
        pairs: Consecutive trial pairs counted.
    """

    stay: dict[tuple[bool, bool], Estimate]
    interaction: Estimate
    reward_effect: Estimate
    pairs: int

    @property
    def holds(self) -> bool:
        """The model-based signature: the interaction's interval lies above 0."""
        return self.interaction.low > 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with ``holds``."""
        names = {
            c: f"{'rewarded' if c[0] else 'unrewarded'}, {'common' if c[1] else 'rare'}"
            for c in CONDITIONS
        }
        return {
            "stay": {names[c]: e.to_dict() for c, e in self.stay.items()},
            "interaction": self.interaction.to_dict(),
            "reward_effect": self.reward_effect.to_dict(),
            "pairs": self.pairs,
            "holds": self.holds,
        }


def two_step_transitions(trials: Sequence[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Per pair of consecutive completed trials of a stream: reward, transition, stay.

    A trial is completed when its first action is a choice (1 or 2; 0 aborts). Its
    transition is common when the choice reached the state of the same number (action 1 to
    state 1), and it is rewarded when that state paid.

    Returns:
        ``rewarded``, ``common`` (of the earlier trial) and ``stay`` (the later trial's first
        choice repeats it), bool arrays of one entry per pair.
    """
    out: dict[str, list[bool]] = {"rewarded": [], "common": [], "stay": []}
    for stream in sorted({trial["stream"] for trial in trials}):
        mine = sorted((t for t in trials if t["stream"] == stream), key=lambda t: t["index"])
        for before, after in itertools.pairwise(mine):
            choice, next_choice = before["actions"][0], after["actions"][0]
            if choice not in (1, 2) or next_choice not in (1, 2):
                continue
            state = int(np.asarray(before["transition"])[choice])
            out["rewarded"].append(bool(np.asarray(before["reward"])[state - 1] > 0))
            out["common"].append(state == choice)
            out["stay"].append(next_choice == choice)
    return {key: np.array(values, dtype=bool) for key, values in out.items()}


def _stats(data: dict[str, np.ndarray], rows: np.ndarray) -> list[float]:
    """The four stay probabilities, the interaction and the reward effect of pairs ``rows``."""
    stay = data["stay"][rows]
    p = []
    for rewarded, common in CONDITIONS:
        picked = (data["rewarded"][rows] == rewarded) & (data["common"][rows] == common)
        p.append(float(stay[picked].mean()) if picked.any() else np.nan)
    interaction = (p[0] - p[1]) - (p[2] - p[3])
    reward_effect = (p[0] + p[1]) / 2 - (p[2] + p[3]) / 2
    return [*p, interaction, reward_effect]


def stay_probabilities(
    trials: Sequence[dict[str, Any]], *, resamples: int = 1000, seed: int = 0
) -> StayProbabilities:
    """The stay probabilities and the reward x transition interaction, with intervals.

    Args:
        trials: Closed-loop trials (:func:`~neurogym_apps.analysis.record_trials`) of
            ``DawTwoStep``, from an agent that carries its state across trials.
        resamples: Bootstrap resamples (of the trial pairs).
        seed: Seeds the resampling.

    Raises:
        ValueError: A condition has no trial pair.
    """
    data = two_step_transitions(trials)
    for rewarded, common in CONDITIONS:
        if not ((data["rewarded"] == rewarded) & (data["common"] == common)).any():
            raise ValueError(f"no trial pair after rewarded={rewarded}, common={common}")
    n = len(data["stay"])
    *stay, interaction, reward_effect = bootstrap(
        lambda rows: _stats(data, rows), n, resamples=resamples, seed=seed
    )
    return StayProbabilities(
        dict(zip(CONDITIONS, stay, strict=True)), interaction, reward_effect, n
    )


def plot_stay_probabilities(result: StayProbabilities) -> Figure:
    """Stay probability by previous reward and transition (Wang et al. 2018, Fig. 4)."""
    fig = Figure(figsize=(4.8, 4.0), layout="constrained")
    ax = fig.subplots()
    for i, rewarded in enumerate((True, False)):
        for j, common in enumerate((True, False)):
            e = result.stay[(rewarded, common)]
            x = i + (j - 0.5) * 0.38
            ax.bar(
                x,
                e.value,
                width=0.36,
                color="C0" if common else "C3",
                label=("common" if common else "rare") if i == 0 else None,
            )
            ax.errorbar(
                x, e.value, yerr=[[e.value - e.low], [e.high - e.value]], color="k", capsize=3
            )
    ax.set_xticks([0, 1], ["rewarded", "unrewarded"])
    ax.set_ylabel("P(repeat first-stage choice)")
    ax.set_ylim(0, 1.05)
    ax.legend(title="transition", fontsize=8)
    ax.set_title(f"DawTwoStep: reward x transition interaction {result.interaction}", fontsize=9)
    return fig
