"""Learnability rows of the tasks trained by reinforcement learning (stable-baselines3).

Tasks without a ground truth (bandits, reaching with a pointer, a learning opponent) and
tasks behind a step-level wrapper (``perceptualdecisionmaking.roitman02``'s reaction time)
cannot be trained on supervised batches. Each gets a declared RL recipe (PPO or sb3-contrib's
RecurrentPPO through :func:`neurogym_apps.rl.as_sb3_vec_env`, a step budget) and an oracle: a
scripted agent that plays the task as well as what an agent sees allows (DawTwoStep's is a
Bayesian learner of the paying state from rewards).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import neurogym
from neurogym_apps.train._ceilings import observed_ceiling, row_ceiling, scripted_score
from neurogym_apps.train._evaluate import evaluate

__all__ = ["RL_DEFAULTS", "RL_RECIPES", "RLRecipe", "rl_oracle", "rl_row"]

_STEP = 0.05  # radians a pointer turns per action (the reaching and angle tasks)
_RECURRENT_POLICY = {"lstm_hidden_size": 64, "shared_lstm": True, "enable_critic_lstm": False}


@dataclasses.dataclass(frozen=True)
class RLRecipe:
    """How a task is trained with RL in the learnability table.

    Attributes:
        algorithm: ``"PPO"`` (stable-baselines3, ``MlpPolicy``) or ``"RecurrentPPO"``
            (sb3-contrib, ``MlpLstmPolicy`` with one LSTM shared by actor and critic).
        steps: Environment steps of training (summed over the parallel envs).
        env_kwargs: Task arguments other than the defaults.
        wrappers: Wrappers, e.g. ``("PassReward", "PassAction")`` for meta-RL.
        carry_state: Evaluate with the recurrent state carried across trials (as trained
            in one long episode).
        why: Why the task needs this recipe (shown in the docs).
        settings: The algorithm's arguments that differ from the table's defaults
            (:data:`RL_DEFAULTS`), e.g. ``{"gamma": 0.9}``.
    """

    algorithm: str
    steps: int
    env_kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    wrappers: tuple[str, ...] = ()
    carry_state: bool = False
    why: str = ""
    settings: Mapping[str, Any] = dataclasses.field(default_factory=dict)


_META = ("PassReward", "PassAction")

#: The algorithm arguments every RL row starts from (a recipe's ``settings`` override them).
RL_DEFAULTS: Mapping[str, Any] = {
    "n_steps": 128, "learning_rate": 1e-3, "ent_coef": 0.01, "device": "cpu",
}  # fmt: skip

#: The RL recipe of each task the table trains with reinforcement learning.
RL_RECIPES: dict[str, RLRecipe] = {
    "Bandit": RLRecipe(
        "PPO",
        50_000,
        {"p": (0.2, 0.8)},
        why="the default arms pay alike (p 0.5, 0.5): there is no better arm to learn; the "
        "better arm is 1, so the always-0 baseline is not the optimum",
    ),
    "MatchingPenny": RLRecipe(
        "PPO",
        200_000,
        wrappers=_META,
        why="the opponent plays the target the agent chose less often (a moving average of "
        "its choices): an agent that sees its own previous choice (PassAction) can play the "
        "other one every trial, which that average then always matches (0.999 in simulation; "
        "a memoryless PPO learns it in 30,000 steps). RecurrentPPO, scored from episode "
        "starts before closed loops ran streams, stayed at 0.512 after 1M steps",
    ),
    "DawTwoStep": RLRecipe(
        "RecurrentPPO",
        1_000_000,
        wrappers=_META,
        carry_state=True,
        why="which state pays drifts across trials: it is learned from rewards "
        "(0.642 after 300k steps)",
    ),
    "Reaching1D": RLRecipe(
        "PPO",
        1_000_000,
        settings={"gamma": 0.9},
        why="target and pointer are both visible; gamma 0.9 keeps the returns to the trial's "
        "10 steps (the episode runs on across trials, whose rewards are noise to this one's "
        "credit): 0.214 after 300k steps against 0.201 after 1M with gamma 0.99",
    ),
    "Reaching1DWithSelfDistraction": RLRecipe(
        "PPO",
        1_000_000,
        settings={"gamma": 0.9},
        why="target and pointer are both visible, on one ring; gamma 0.9 as Reaching1D",
    ),
    "AngleReproduction": RLRecipe(
        "RecurrentPPO",
        2_000_000,
        why="the two angles must be remembered until the go periods (0.326 after 300k steps)",
    ),
    "perceptualdecisionmaking.roitman02": RLRecipe(
        "RecurrentPPO",
        2_000_000,
        {"abort": True, "trials_per_episode": 1},
        why="the stimulus stays on until the answer, which an LSTM can integrate; each trial "
        "is an episode, so the LSTM starts every trial from zero in training as in the "
        "evaluation (with one endless episode it learned from states carried across trials "
        "and scored 0.796 from zero, no better than a memoryless PPO's 0.81); a fixation "
        "break ends the trial, as for a monkey: with upstream's default (abort=False, the "
        "trial goes on for a -0.1 penalty) PPO broke fixation on every trial",
    ),
}


def _turn_towards(pointer: float, target: float) -> int:
    """The pointer action (0 stay, 1 +step, 2 -step) that brings ``pointer`` nearest ``target``."""
    gap = (target - pointer + np.pi) % (2 * np.pi) - np.pi
    if abs(gap) < _STEP / 2:
        return 0
    return 1 if gap > 0 else 2


def _pointer(task: Any) -> float:
    """The pointer's angle before this step (reaching calls it ``state``)."""
    if task.t_ind == 0:
        return float(np.pi)  # restarts with every trial
    return float(task.pointer if hasattr(task, "pointer") else task.state)


def _reach(task: Any) -> int:
    """Turn towards the target while it is shown (the reach period); else stay."""
    if not task.in_period("reach"):
        return 0
    return _turn_towards(_pointer(task), float(task.trial["ground_truth"]))


def _reproduce(task: Any) -> int:
    """Turn towards angle 1 once it was shown (stim1 on), towards angle 2 in go2."""
    if task.in_period("fixation"):
        return 0
    which = "ground_truth2" if task.in_period("go2") else "ground_truth1"
    return _turn_towards(_pointer(task), float(task.trial[which]))


def _best_arm(task: Any) -> int:
    """Pull the arm with the highest expected reward (the oracle knows the probabilities)."""
    return int(np.argmax(np.asarray(task.p) * np.asarray(task.arm_rewards)))


def _opponent(task: Any) -> int:
    """Play the opponent's choice of this trial.

    Reachable: the ``mean_action`` opponent plays the target the agent chose less often (a
    moving average of the agent's own choices), so an agent that remembers its choices can
    predict it.
    """
    return int(task.trial["opponent_action"])


class _DawLearner:
    """An ideal learner of DawTwoStep: a Bayesian belief that state 1 pays more.

    After each trial it updates the belief with the second-stage state it reached and whether
    it was paid (0.9 against 0.1), then lets the belief drift by the switch probability; at
    stage 1 it takes the action whose common transition leads to the likelier high state. It
    sees only what an agent sees (the reached state and the reward), so its score is
    reachable: the bound of an agent that learns from rewards.
    """

    def __init__(self) -> None:
        self.beliefs: dict[int, tuple[float, int, Any]] = {}  # id -> (P(state 1 high), a, trial)

    def __call__(self, task: Any) -> int:
        if task.t_ind > 0:
            return 0  # stage 2: hold
        switch = task.p_switch
        belief, action, last = self.beliefs.get(id(task), (1.0, 0, None))  # starts in state 1
        if last is not None and action:
            reached = int(last["transition"][action])
            paid = bool(last["reward"][reached - 1] > 0)
            high, low = task.high_reward_p, task.low_reward_p
            if_one = high if reached == 1 else low  # P(paid | state 1 is high)
            if_two = low if reached == 1 else high
            one, two = (
                belief * (if_one if paid else 1 - if_one),
                (1 - belief) * (if_two if paid else 1 - if_two),
            )
            belief = one / (one + two)
        belief = belief * (1 - switch) + (1 - belief) * switch  # the trial's possible switch
        action = 1 if belief >= 0.5 else 2
        self.beliefs[id(task)] = (belief, action, task.trial)
        return action


def _ground_truth(task: Any) -> int:
    return int(task.gt_now)


def _stateless(play: Callable[[Any], int]) -> Callable[[], Callable[[Any], int]]:
    return lambda: play


#: Per task: a factory of the scripted agent (a function of the unwrapped task; a fresh one
#: per closed-loop run) and what it knows.
_ORACLES: dict[str, tuple[Callable[[], Callable[[Any], int]], str]] = {
    "Bandit": (_stateless(_best_arm), "pulls the best arm (knows the probabilities)"),
    "MatchingPenny": (
        _stateless(_opponent),
        "matches the opponent, predictable from its own choices",
    ),
    "DawTwoStep": (_DawLearner, "a Bayesian learner of the paying state from rewards"),
    "Reaching1D": (_stateless(_reach), "turns towards the target while it is shown"),
    "Reaching1DWithSelfDistraction": (
        _stateless(_reach),
        "turns towards the target while it is shown",
    ),
    "AngleReproduction": (_stateless(_reproduce), "turns towards each angle once shown"),
    "perceptualdecisionmaking.roitman02": (_stateless(_ground_truth), "plays the ground truth"),
}


def rl_oracle(name: str, trials: int = 500, seed: int = 1) -> tuple[float, str]:
    """Strict closed-loop score of the scripted agent of RL task ``name``, and what it knows.

    Scored on the trials the agent is evaluated on (the same count and seed, so the same
    targets where they do not depend on the actions): a paired comparison. Reaching1D's gap
    from chance to the oracle is 0.045 while one trial's score varies by 0.34 (SD), so on
    200 trials the oracle alone moved by 0.024 (SE): 0.228 there, 0.213 on 2,000 and 0.214
    on 5,000 (2026-11-29).

    Raises:
        KeyError: The task has no declared oracle.
    """
    recipe, (player, knows) = RL_RECIPES[name], _ORACLES[name]
    play = player()  # a fresh agent: DawTwoStep's keeps a belief per env
    kwargs = dict(recipe.env_kwargs)
    return scripted_score(name, lambda env: play(env.unwrapped), trials, seed, kwargs), knows


def _learn(name: str, recipe: RLRecipe, seed: int = 0, progress: bool = True) -> Any:
    """The trained stable-baselines3 model (on the caller's torch threads)."""
    from neurogym_apps.rl import LearnProgress, as_sb3_vec_env

    env = as_sb3_vec_env(
        name, 16, seed=seed, wrappers=list(recipe.wrappers), **dict(recipe.env_kwargs)
    )
    settings: dict[str, Any] = {**RL_DEFAULTS, "seed": seed, **dict(recipe.settings)}
    model: Any
    if recipe.algorithm == "PPO":
        from stable_baselines3 import PPO

        model = PPO("MlpPolicy", env, batch_size=256, **settings)
    else:
        from sb3_contrib import RecurrentPPO

        model = RecurrentPPO(
            "MlpLstmPolicy", env, batch_size=512, n_epochs=4,
            policy_kwargs=_RECURRENT_POLICY, **settings,
        )  # fmt: skip
    model.learn(recipe.steps, callback=LearnProgress(name) if progress else None)
    return model


def _unwrapped_ideal(name: str, recipe: RLRecipe, trials: int = 20_000) -> float | None:
    """The ideal observer of the task's trials without its step-level wrappers, if any.

    For roitman02 that is PerceptualDecisionMaking's observer over the whole stimulus: an
    upper bound for an agent that may answer before the stimulus ends.
    """
    task: Any = neurogym.make(name, **dict(recipe.env_kwargs)).unwrapped
    if not getattr(task, "has_groundtruth", True):
        return None
    return observed_ceiling(task, trials, seed=0)


def rl_row(name: str, eval_trials: int, progress: bool = True) -> dict[str, Any]:
    """Train task ``name`` with its RL recipe and score it like a supervised row.

    With ``progress``, the training's progress goes to stderr (:class:`LearnProgress`).
    """
    recipe = RL_RECIPES[name]
    start = time.perf_counter()
    model = _learn(name, recipe, progress=progress)
    trained = time.perf_counter() - start
    result = evaluate(model, eval_trials, seed=1, carry_state=recipe.carry_state)
    oracle, knows = rl_oracle(name, eval_trials)  # on the agent's trials: paired
    ideal = _unwrapped_ideal(name, recipe)
    return {
        "accuracy": result.accuracy,
        "performance": result.performance,
        "fixation_breaks": result.fixation_breaks,
        "chance": result.chance_level,
        "oracle": oracle,
        "oracle_knows": knows,
        "ideal": ideal,
        "ceiling": row_ceiling(oracle, ideal),
        "steps": recipe.steps,
        "trained": trained,
        "rl": f"{recipe.algorithm}, {recipe.steps:,} steps"
        + (f", {'+'.join(recipe.wrappers)}" if recipe.wrappers else "")
        + "".join(f", {key}={value}" for key, value in recipe.settings.items()),
    }
