"""Reinforcement learning with stable-baselines3 (extra ``neurogym[rl]``).

``import neurogym`` never imports this package, stable-baselines3 or torch;
``import neurogym_apps.rl`` does.

* :func:`as_sb3_vec_env`: ``N`` envs of a task as a stable-baselines3 ``VecEnv``. A task the
  native vector env can step (``gymnasium.make_vec``, docs/architecture.md §9.4) is served by
  :class:`TrialSB3VecEnv`, which steps all ``N`` envs in one numpy call; any other task (wrapped,
  custom ``step``) by stable-baselines3's ``DummyVecEnv`` over the same single envs. Both equal
  ``DummyVecEnv`` of ``N`` single envs seeded ``s, s+1, ...``: same observations, rewards,
  dones, ``terminal_observation`` and ``TimeLimit.truncated``.
* :class:`LearnProgress`: a stable-baselines3 callback that shows the progress of
  ``model.learn`` (a bar on a terminal, plain lines in a log) with the training trials'
  performance.

Trained models are scored with :func:`neurogym_apps.train.evaluate` (closed loop, per trial) and
drawn with :mod:`neurogym_apps.plot`. See docs/rl.md.
"""

from __future__ import annotations

try:
    import stable_baselines3  # noqa: F401  (checked here so the error says how to install it)
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "neurogym_apps.rl needs stable-baselines3, which comes with the rl extra: pip install "
        '"neurogym[rl]" (with any torch>=2.3,<3 you have)'
    ) from exc

from neurogym_apps.rl._progress import LearnProgress
from neurogym_apps.rl._vecenv import TrialSB3VecEnv, as_sb3_vec_env

__all__ = ["LearnProgress", "TrialSB3VecEnv", "as_sb3_vec_env"]
