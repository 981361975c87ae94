"""The 20 Yang et al. 2019 tasks: structure, what the inputs encode, targets, rewards."""

from __future__ import annotations

import numpy as np
import pytest

import neurogym
from neurogym.testing import check_task
from neurogym.testing.trials import correct, period_mask, respond, run_trial
from neurogym_multitask._plugin import YANG19_IDS
from neurogym_multitask.tasks._ring import gaussian_bump, indices_of

N = 16  # ring units per modality
MOD1, MOD2 = slice(1, 1 + N), slice(1 + N, 1 + 2 * N)


def make(name, **kwargs):
    return neurogym.make(f"neurogym/yang19.{name}-v0", **kwargs)


def batch(name, n=400, seed=0, **kwargs):
    return make(name, **kwargs).new_trials(n) if not seed else _seeded_batch(name, n, seed, kwargs)


def _seeded_batch(name, n, seed, kwargs):
    env = make(name, **kwargs)
    env.reset(seed=seed)
    return env.new_trials(n)


def in_period(trials, period, dims):
    """(B, dims) observation of each trial's first step of ``period``."""
    start = trials.periods[period][0]
    return trials.ob[np.arange(trials.ob.shape[0]), start][:, dims]


@pytest.mark.parametrize("task_id", YANG19_IDS)
def test_check_task(task_id):
    check_task(task_id)


@pytest.mark.parametrize("task_id", YANG19_IDS)
def test_shared_spaces_with_names_for_the_whole_space(task_id):
    env = neurogym.make(task_id)
    assert env.observation_space.shape == (33,)
    assert env.action_space.n == 17
    names = env.observation_space.name
    covered = sorted([names["fixation"], *names["stimulus_mod1"], *names["stimulus_mod2"]])
    assert covered == list(range(33))  # upstream named only modality 0's dims
    assert list(names["stimulus_mod2"]) == list(range(17, 33))
    assert list(env.action_space.name["choice"]) == list(range(1, 17))


@pytest.mark.parametrize(
    ("name", "lengths"),
    [
        ("go", {15}),
        ("anti", {15}),
        ("rtgo", {10}),
        ("rtanti", {10}),
        ("dlygo", {20}),
        ("dlyanti", {20}),
        ("dm1", set(range(6, 13))),
        ("dm2", {9, 10, 11}),
        ("ctxdm1", {9, 10, 11}),
        ("multidm", {9, 10, 11}),
        ("dlydm1", {24, 25, 26}),
        ("ctxdlydm2", {24, 25, 26}),
        ("dms", {32}),
        ("dnmc", {32}),
    ],
)
def test_trial_lengths_match_upstream(name, lengths):
    trials = batch(name, 600, seed=1)
    assert set(trials.lengths.tolist()) == lengths


@pytest.mark.parametrize("name", ["go", "anti", "dm2", "ctxdlydm1", "dms", "dnmc"])
def test_scripted_agent_answering_the_ground_truth_is_rewarded(name):
    env = make(name)
    env.reset(seed=2)
    for _ in range(30):
        if env.trial.get("ground_truth") is not None and name in ("dms", "dnmc"):
            go = int(env.gt[-1]) != 0
        else:
            go = True
        rewards, info, _ = run_trial(env, respond(correct))
        if go:
            assert (rewards[-1], info["performance"]) == (1.0, 1)
        else:  # no-go trial: the correct answer is to keep fixating (reward 0, as upstream)
            assert rewards[-1] == 0.0


# ----------------------------------------------------------------------------- reach family


@pytest.mark.parametrize(("name", "shift"), [("go", 0), ("anti", N // 2), ("dlyanti", N // 2)])
def test_reach_stimulus_is_at_the_target_or_opposite_it(name, shift):
    trials = batch(name, seed=3)
    gt = trials.trial["ground_truth"]
    stim = in_period(trials, "stimulus", slice(1, 33))
    modality = trials.trial["modality"]
    peak = stim.argmax(axis=1) - N * modality
    np.testing.assert_array_equal(peak, (gt + shift) % N)
    decision = trials.periods["decision"][0]
    np.testing.assert_array_equal(trials.gt[np.arange(len(gt)), decision], gt + 1)


@pytest.mark.parametrize("name", ["rtgo", "rtanti"])
def test_reaction_time_variants_show_the_stimulus_in_the_decision_period(name):
    trials = batch(name, seed=4)
    assert set(trials.periods) == {"fixation", "decision"}
    fix = period_mask(trials, "fixation")
    dec = period_mask(trials, "decision")
    stim = np.abs(trials.ob[..., 1:]).sum(-1)
    assert np.all(stim[fix] == 0)
    assert np.all(stim[dec] > 0)
    assert np.all(trials.ob[..., 0][fix] == 1)
    assert np.all(trials.ob[..., 0][dec] == 0)
    shift = N // 2 if name == "rtanti" else 0
    peak = in_period(trials, "decision", slice(1, 33)).argmax(1) - N * trials.trial["modality"]
    np.testing.assert_array_equal(peak, (trials.trial["ground_truth"] + shift) % N)


def test_delayed_reach_holds_fixation_without_stimulus_through_the_delay():
    trials = batch("dlygo", seed=5)
    delay = period_mask(trials, "delay")
    assert delay.sum(1).tolist() == [5] * 400
    assert np.all(trials.ob[..., 0][delay] == 1)
    assert np.all(trials.ob[..., 1:][delay] == 0)
    assert not trials.mask[delay].any()  # no target before the decision period


def test_stimulus_goes_to_the_trial_modality_only():
    trials = batch("go", seed=6)
    stim = in_period(trials, "stimulus", slice(None))
    on_mod1 = np.abs(stim[:, MOD1]).sum(1) > 0
    on_mod2 = np.abs(stim[:, MOD2]).sum(1) > 0
    np.testing.assert_array_equal(on_mod1, trials.trial["modality"] == 0)
    np.testing.assert_array_equal(on_mod2, trials.trial["modality"] == 1)


@pytest.mark.parametrize("name", ["go", "dms"])
def test_modality_is_drawn_independently_per_trial(name):
    # Upstream's RandomSchedule never repeated the previous index: 0, 1, 0, 1, ...
    env = make(name)
    env.reset(seed=7)
    modalities = []
    for _ in range(400):
        modalities.append(int(env.trial["modality"]))
        env.new_trial()
    m = np.array(modalities)
    repeats = np.mean(m[1:] == m[:-1])
    assert 0.4 < m.mean() < 0.6
    assert 0.4 < repeats < 0.6  # independent draws repeat half the time; upstream: never


def test_forced_reach_variables_are_honoured_and_checked():
    env = make("anti")
    env.reset(seed=0)
    trial = env.new_trial(ground_truth=3, modality=1)
    assert (trial["ground_truth"], trial["modality"]) == (3, 1)
    assert np.argmax(env.ob[5, MOD2]) == (3 + N // 2) % N
    with pytest.raises(ValueError, match=r"ground_truth must hold ints in \[0, 15\]"):
        env.new_trial(ground_truth=16)
    with pytest.raises(ValueError, match=r"modality must hold ints in \[0, 1\]"):
        env.new_trial(modality=2)


# -------------------------------------------------------------------------- decision family


def _evidence(trials, mods, weights):
    total1 = sum(w * trials.trial[f"coh1_mod{m}"] for m, w in zip(mods, weights, strict=True))
    total2 = sum(w * trials.trial[f"coh2_mod{m}"] for m, w in zip(mods, weights, strict=True))
    return total1, total2


@pytest.mark.parametrize(
    ("name", "weights"),
    [("ctxdm1", (1, 0)), ("ctxdm2", (0, 1)), ("multidm", (1, 1)), ("ctxdlydm2", (0, 1))],
)
def test_context_tasks_follow_the_attended_modality(name, weights):
    trials = batch(name, seed=8)
    i1 = np.rint(trials.trial["theta1"] / (2 * np.pi / N)).astype(int)
    i2 = np.rint(trials.trial["theta2"] / (2 * np.pi / N)).astype(int)
    e1, e2 = _evidence(trials, (1, 2), weights)
    clear = np.abs(e1 - e2) > 1e-9  # ties (multidm: opposite evidence) go to the jitter
    assert clear.mean() > 0.8
    target = trials.trial["ground_truth"]
    np.testing.assert_array_equal(target[clear], np.where(e1 > e2, i1, i2)[clear])
    assert np.all((target == i1) | (target == i2))
    decision = trials.periods["decision"][0]
    np.testing.assert_array_equal(
        trials.gt[np.arange(400), decision], trials.trial["ground_truth"] + 1
    )
    # the ignored modality points the other way in a good share of trials
    ignored = (0, 1) if weights == (1, 0) else (1, 0)
    if weights != (1, 1):
        f1, f2 = _evidence(trials, (1, 2), ignored)
        assert np.mean((f1 > f2) != (e1 > e2)) > 0.3


@pytest.mark.parametrize(("name", "shown"), [("dm1", MOD1), ("dm2", MOD2), ("dlydm1", MOD1)])
def test_single_modality_tasks_show_one_modality(name, shown):
    trials = batch(name, seed=9, sigma=0.0)
    other = MOD2 if shown == MOD1 else MOD1
    assert np.all(trials.ob[..., other] == 0)
    assert np.abs(trials.ob[..., shown]).sum() > 0
    assert not any(k.endswith("_mod2" if shown == MOD1 else "_mod1") for k in trials.trial)


def test_dm1_stimulus_lasts_200_400_or_600_ms():
    trials = batch("dm1", 600, seed=10)
    start, end = trials.periods["stimulus"]
    assert set((end - start).tolist()) == {2, 4, 6}


def test_non_delayed_strengths_are_symmetric_around_one_half():
    trials = batch("dm2", seed=11)
    c1, c2 = trials.trial["coh1_mod2"], trials.trial["coh2_mod2"]
    np.testing.assert_allclose(c1 + c2, 1.0)
    assert set(np.round(np.abs(c1 - c2), 6).tolist()) == {0.08, 0.16, 0.32, 0.64}


def test_delayed_decision_shows_each_stimulus_in_its_own_period_and_holds_fixation():
    trials = batch("dlydm2", seed=12, sigma=0.0)
    rows = np.arange(400)
    s1 = in_period(trials, "stim1", MOD2)
    s2 = in_period(trials, "stim2", MOD2)
    step = 2 * np.pi / N
    np.testing.assert_array_equal(s1.argmax(1), np.rint(trials.trial["theta1"] / step))
    np.testing.assert_array_equal(s2.argmax(1), np.rint(trials.trial["theta2"] / step))
    assert np.all(trials.trial["coh1_mod2"] != trials.trial["coh2_mod2"])
    delay = period_mask(trials, "delay")
    assert np.all(trials.ob[..., 1:][delay] == 0)
    assert np.all(trials.ob[..., 0][delay] == 1)
    assert np.all(trials.ob[rows, trials.periods["decision"][0]] == 0)


@pytest.mark.parametrize("name", ["dm1", "ctxdm2", "dlydm1", "multidlydm"])
def test_decision_noise_is_on_both_rings_during_the_stimuli_and_fixation_is_clean(name):
    # upstream 2.3.1 adds noise of std sigma/sqrt(dt) to both stimulus rings (shown or not)
    # during the stimuli, never to the fixation input; the fixation input is 1 until the
    # decision (the authors' fix_in rule, a declared difference); tests/test_fidelity.py
    # checks both against upstream's own trials
    trials = batch(name, seed=13)
    delayed = name.startswith(("dly", "ctxdly", "multidly"))
    stimulus = ("stim1", "stim2") if delayed else ("stimulus",)
    clean = batch(name, seed=13, sigma=0.0)
    before = [p for p in trials.periods if p != "decision"]
    for period in before:
        assert np.all(trials.ob[..., 0][period_mask(trials, period)] == 1), period
    for period in stimulus:
        mask = period_mask(trials, period)
        for ring in (MOD1, MOD2):
            noise = trials.ob[..., ring][mask] - clean.ob[..., ring][mask]
            assert noise.std() == pytest.approx(1 / np.sqrt(100), rel=0.1)
    silent = [p for p in before if p not in stimulus]
    for period in silent:
        assert np.all(trials.ob[..., 1:][period_mask(trials, period)] == 0), period


def test_decision_tasks_without_delay_record_the_stimulus_duration():
    trials = batch("dm1", seed=14)
    start, end = trials.periods["stimulus"]
    np.testing.assert_array_equal(trials.trial["stim_period"], (end - start) * 100)
    assert set(np.unique(trials.trial["stim_period"]).tolist()) == {200, 400, 600}
    assert "stim_period" not in batch("dlydm1", n=2, seed=14).trial


def test_decision_family_has_metadata_and_tags():
    # upstream's _DMFamily had no metadata: no paper, no tags
    for name in ("dm1", "ctxdm2", "multidlydm"):
        env = make(name)
        assert env.metadata["paper_link"].endswith("s41593-018-0310-2")
        assert "perceptual" in env.metadata["tags"]
    assert "context dependent" in neurogym.spec("yang19.ctxdm1").tags
    assert "delayed response" in neurogym.spec("yang19.dlydm1").tags


def test_decision_forced_variables():
    env = make("ctxdm1")
    env.reset(seed=0)
    trial = env.new_trial(theta1=0.0, theta2=np.pi, coh1_mod1=0.9, coh2_mod1=0.1)
    assert trial["ground_truth"] == 0
    with pytest.raises(ValueError, match="ground_truth cannot be forced"):
        env.new_trial(ground_truth=3)
    with pytest.raises(ValueError, match="theta1 and theta2 must differ"):
        env.new_trial(theta1=0.0, theta2=0.0)
    with pytest.raises(ValueError, match="stim_mod must show at least one modality"):
        make("dm1", stim_mod=(False, False))
    with pytest.raises(ValueError, match="w_mod must be a pair"):
        make("dm1", w_mod=(1, 1, 1))


# ----------------------------------------------------------------------------- match family


@pytest.mark.parametrize(("name", "matchgo"), [("dms", True), ("dnms", False)])
def test_match_to_sample(name, matchgo):
    trials = batch(name, seed=14)
    step = 2 * np.pi / N
    sample = np.rint(trials.trial["sample_theta"] / step).astype(int)
    test = np.rint(trials.trial["test_theta"] / step).astype(int)
    match = trials.trial["ground_truth"] == 1
    np.testing.assert_array_equal(test, np.where(match, sample, (sample + N // 2) % N))
    go = match == matchgo
    gt = trials.gt[np.arange(400), trials.periods["decision"][0]]
    np.testing.assert_array_equal(gt, np.where(go, test + 1, 0))
    assert np.all(trials.gt[~period_mask(trials, "decision")] == 0)
    peak = in_period(trials, "test", slice(1, 33)).argmax(1) - N * trials.trial["modality"]
    # noisy input: the bump still peaks at the test direction in most trials
    assert np.mean(peak == test) > 0.5


@pytest.mark.parametrize(("name", "matchgo"), [("dmc", True), ("dnmc", False)])
def test_match_to_category(name, matchgo):
    trials = batch(name, seed=15)
    step = 2 * np.pi / N
    sample = np.rint(trials.trial["sample_theta"] / step).astype(int)
    test = np.rint(trials.trial["test_theta"] / step).astype(int)
    match = trials.trial["ground_truth"] == 1
    same_category = (test >= N // 2) == (sample >= N // 2)
    np.testing.assert_array_equal(same_category, match)
    gt = trials.gt[np.arange(400), trials.periods["decision"][0]]
    np.testing.assert_array_equal(gt, np.where(match == matchgo, test + 1, 0))


def test_category_boundary_puts_pi_in_category_one():
    # upstream: sample_category = i_sample > half_ring, so a sample at pi was category 0 and its
    # "match" test lay in [0, pi), while a test at pi counts as category 1
    env = make("dmc")
    env.reset(seed=16)
    trials = env.new_trials(200, sample_theta=np.pi, ground_truth=1)
    assert np.all(trials.trial["test_theta"] >= np.pi)
    trials = env.new_trials(200, sample_theta=np.pi - 2 * np.pi / N, ground_truth=1)
    assert np.all(trials.trial["test_theta"] < np.pi)


def test_match_delay_holds_and_noise_is_on_the_trial_modality_only():
    trials = batch("dnms", seed=17)
    delay = period_mask(trials, "delay")
    assert np.all(trials.ob[..., 1:][delay] == 0)
    assert np.all(trials.ob[..., 0][delay] == 1)
    sample = period_mask(trials, "sample")
    for m, dims in ((0, MOD2), (1, MOD1)):  # the other modality stays silent
        rows = trials.trial["modality"] == m
        assert np.all(trials.ob[rows][sample[rows]][:, dims] == 0)


def test_match_forced_variables_are_checked():
    env = make("dms")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="test_theta cannot be forced"):
        env.new_trial(test_theta=0.0)
    with pytest.raises(ValueError, match=r"ground_truth must hold ints in \[1, 2\]"):
        env.new_trial(ground_truth=0)
    with pytest.raises(ValueError, match="dim_ring must be an even int"):
        make("dms", dim_ring=15)


def test_delayed_reach_timing_updates_the_delay_default():
    # upstream's dlygo(timing=...) replaced the user's timing by {"delay": 500}
    env = make("dlygo", timing={"fixation": 300})
    env.reset(seed=0)
    assert env.timing["delay"] == 500
    assert (env.end_ind["fixation"], env.ob.shape[0]) == (3, 18)
    assert make("dlyanti", timing={"delay": 200}).timing["delay"] == 200


@pytest.mark.parametrize(
    ("name", "variable"), [("dm1", "theta1"), ("dlydm2", "theta2"), ("dmc", "sample_theta")]
)
def test_forced_directions_must_be_preferred_directions_of_the_ring(name, variable):
    env = make(name)
    env.reset(seed=0)
    trial = env.new_trial(**{variable: 3 * 2 * np.pi / N})
    assert trial[variable] == pytest.approx(3 * 2 * np.pi / N)
    for bad in (0.1, "x"):
        with pytest.raises(ValueError, match=f"{variable} must be preferred directions 2 pi k"):
            env.new_trial(**{variable: bad})


@pytest.mark.parametrize(("name", "no_go"), [("dms", 2), ("dnms", 1), ("dmc", 2), ("dnmc", 1)])
def test_a_withheld_no_go_trial_is_correct_and_a_response_to_it_is_wrong(name, no_go):
    # GoNoGoDecision: upstream scored a withheld no-go trial 0 (a declared difference)
    env = make(name)
    env.reset(seed=3)
    env.new_trial(ground_truth=no_go)
    rewards, info, steps = run_trial(env, lambda e: 0)
    assert (steps, sum(rewards), info["performance"]) == (32, 0.0, 1)
    env.new_trial(ground_truth=no_go)
    rewards, info, _ = run_trial(env, respond(lambda e: 1))
    assert (rewards[-1], info["performance"]) == (0.0, 0)  # "fail" is 0 in these tasks
    env.new_trial(ground_truth=3 - no_go)  # a go trial that is never answered
    rewards, info, _ = run_trial(env, lambda e: 0)
    assert (sum(rewards), info["performance"]) == (0.0, 0)


@pytest.mark.parametrize("name", ["dm1", "ctxdm2", "dlydm1", "multidm", "multidlydm"])
def test_the_ideal_observer_is_perfect_without_noise_except_on_exact_ties(name):
    # the answer is the stronger weighted evidence; an exact tie is broken by a jitter of
    # 1e-6 that no input shows, so an observer is right on half of the tied trials
    env = neurogym.make(f"yang19.{name}", sigma=0.0)
    data = neurogym.batch(env, 4000, seed=0)
    task = env.unwrapped
    evidence = np.zeros((2, 4000))
    for m, shown in enumerate(task.stim_mod):
        if shown:
            for which in (1, 2):
                evidence[which - 1] += task.w_mod[m] * data.trial[f"coh{which}_mod{m + 1}"]
    tied = np.isclose(evidence[0], evidence[1])
    correct = task.ideal_observer(data)
    assert correct[~tied].all()
    if name.startswith("multi"):  # two modalities: opposite coherences of equal size tie
        assert 0.05 < tied.mean() < 0.3
        assert correct[tied].mean() == pytest.approx(0.5, abs=0.06)
    else:
        assert not tied.any()


def test_the_dm1_ideal_observer_is_noise_limited_at_the_lowest_coherence():
    env = neurogym.make("yang19.dm1")
    data = neurogym.batch(env, 8000, seed=0)
    correct = env.unwrapped.ideal_observer(data)
    gap = np.abs(data.trial["coh1_mod1"] - data.trial["coh2_mod1"])
    lowest = gap == gap.min()
    assert 0.7 < correct[lowest].mean() < 0.95  # the weakest coherence is noise-limited
    assert correct[gap == gap.max()].mean() > 0.995


@pytest.mark.parametrize(
    ("name", "sigma"), [("dm1", 2.0), ("multidm", 2.0), ("dlydm2", 6.0), ("multidlydm", 4.0)]
)
def test_the_ideal_observers_posterior_predicts_its_own_accuracy(name, sigma):
    # calibration: on trials drawn independently of it, the observer is right as often as
    # its posterior expects (the chosen side's mass, plus half the mass on a tie); a wrong
    # noise model or prior moves the two apart (a variance 1.5 times too large: by 10-19 SE);
    # sigma raised so that each task is noise-limited (0.86-0.88 correct)
    env = neurogym.make(f"yang19.{name}", sigma=sigma)
    data = neurogym.batch(env, 20000, seed=3)
    first, second = env.unwrapped.stronger_posterior(data)
    assert np.all((first >= 0) & (second >= 0) & (first + second <= 1 + 1e-9))
    expected = np.maximum(first, second) + (1 - first - second) / 2
    correct = env.unwrapped.ideal_observer(data)
    assert 0.8 < correct.mean() < 0.92
    se = correct.std() / np.sqrt(correct.size)
    assert correct.mean() == pytest.approx(expected.mean(), abs=3 * se)


def test_the_multidlydm_observer_beats_summing_the_modalities_estimates():
    # with two modalities and a delay, the sum of each stimulus's per-modality estimate
    # (a matched filter) is not the Bayes rule: the prior of two different strengths per
    # modality matters; on the same trials the posterior's answer is right more often
    env = neurogym.make("yang19.multidlydm")
    task = env.unwrapped
    data = neurogym.batch(env, 20000, seed=3)
    n = task.dim_ring
    margin = np.zeros(20000)
    for which, period in ((1, "stim1"), (2, "stim2")):
        curve = gaussian_bump(data.trial[f"theta{which}"], task.theta)
        for m in range(2):
            summed = data.period_sum(period, slice(1 + m * n, 1 + (m + 1) * n))
            margin += (-1) ** (which - 1) * (summed * curve).sum(1)
    chosen = np.where(margin > 0, data.trial["theta1"], data.trial["theta2"])
    summing = indices_of(chosen, n) == data.trial["ground_truth"]
    bayes = task.ideal_observer(data)
    assert bayes.mean() - summing.mean() > 0.006  # 0.0128 measured with seed 0


@pytest.mark.parametrize("bad", ["x", None, True])
def test_a_forced_coherence_that_is_not_a_number_is_refused_by_name(bad):
    env = make("dm1")
    env.reset(seed=0)
    with pytest.raises(
        ValueError, match=r"forced coh1_mod1 must be a number \(or one per trial\)"
    ):
        env.new_trial(coh1_mod1=bad)
