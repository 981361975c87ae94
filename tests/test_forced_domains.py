"""#47 item 6: a forced coherence below 0 is refused (the ground truth carries the direction).

Every trial variable named ``coh...``: a coherence (``coh``, ``coh_1``, ``coh_2``), a yang19
stimulus strength (``coh1_mod1``, ...) or MultiSensoryIntegration's share ``coh_prop``. 3bb1caa
accepted ``coh=-50`` in 7 tasks (a stimulus that favours the other choice than the ground
truth), and a negative strength or share in the yang19 tasks and MultiSensoryIntegration.
"""

from __future__ import annotations

import warnings

import pytest

import neurogym
from neurogym import TrialEnv


def _coherence_tasks() -> list[tuple[str, str]]:
    cases = []
    for spec in neurogym.tasks():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env = neurogym.make(spec.id).unwrapped
        if not isinstance(env, TrialEnv) or not env.batch_native:
            continue
        env.reset(seed=0)
        cases += [(spec.id, key) for key in env.trial if key.startswith("coh")]
    return cases


CASES = _coherence_tasks()


def test_there_are_coherence_tasks_to_check():
    assert len(CASES) >= 40


@pytest.mark.parametrize(("task_id", "name"), CASES)
def test_a_negative_forced_coherence_is_refused(task_id, name):
    env = neurogym.make(task_id).unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError, match=rf"{name}"):
        env.new_trial(**{name: -50.0})
    if "roitman02" not in task_id:  # (ReactionTime: batches refuse it, by design)
        with pytest.raises(ValueError, match=rf"{name}"):
            neurogym.batch(task_id, 4, **{name: -50.0})
