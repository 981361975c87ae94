"""neurogym_apps.analysis against answers known by construction, and ``neurogym analyze``.

* task variance and clusters: synthetic activity whose units vary, by construction, in one
  group of tasks each is clustered back into those groups; a randomly initialised network's
  clusters score a silhouette near that of shuffled data (Yang et al. 2019's null);
* fixed points: a linear map and a two-attractor map whose fixed points and Jacobian
  eigenvalues are known analytically;
* activity: shapes, alignment with the batch it ran on, padding, the tidy table, the memory
  refusal;
* the command end to end on a run trained for a few steps (hidden size 8) and saved.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from sklearn.metrics import adjusted_rand_score

import neurogym
from neurogym.cli import main
from neurogym_apps.analysis import (
    Activity,
    cluster_units,
    find_fixed_points,
    fractional_task_variance,
    record_activity,
    shuffled_silhouette,
    task_variance,
)
from neurogym_apps.train import RecurrentNetwork, TrainConfig, TrainedModel, train

torch.set_num_threads(1)
PDM = "neurogym/PerceptualDecisionMaking-v0"
YANG = "neurogym/yang19.all-v0"


# ------------------------------------------------------------------ task variance, clusters
def synthetic_activity(groups: int = 3, per_group: int = 8, seed: int = 0) -> Activity:
    """Two tasks per group; a group's units follow the trial's stimulus only in its tasks."""
    rng = np.random.default_rng(seed)
    steps, trials, units = 6, 30, groups * per_group
    group_of_unit = np.repeat(np.arange(groups), per_group)
    unit_gain = rng.uniform(0.5, 1.5, size=(1, 1, units))
    parts = []
    for task in range(2 * groups):
        stimulus = rng.normal(size=(1, trials, 1))
        gain = unit_gain * (group_of_unit == task // 2)
        hidden = gain * stimulus + 0.01 * rng.normal(size=(steps, trials, units))
        parts.append((f"t{task}", hidden))
    return Activity(
        hidden=np.concatenate([h for _, h in parts], axis=1).astype(np.float32),
        inputs=np.zeros((steps, trials * len(parts), 1), np.float32),
        valid=np.ones((steps, trials * len(parts)), bool),
        task=np.repeat([name for name, _ in parts], trials).astype(object),
        trial={},
        periods={},
        dt=100.0,
    )


def test_units_selective_to_task_groups_are_clustered_back_into_those_groups():
    activity = synthetic_activity()
    variance = task_variance(activity)
    assert variance.normalized.shape == (24, 6)
    clusters = cluster_units(variance.normalized, k_range=range(2, 9))
    assert clusters.n_clusters == 3
    truth = np.repeat(np.arange(3), 8)
    assert adjusted_rand_score(truth, clusters.labels) == 1.0
    # clusters are numbered by the task they prefer: group 0 (tasks t0, t1) first
    np.testing.assert_array_equal(clusters.labels, truth)
    assert (
        clusters.silhouette > shuffled_silhouette(variance.normalized, k_range=range(2, 9)) + 0.3
    )
    # a group-0 unit varies only in t0 and t1: FTV t0 vs t2 is +1 for it, -1 for group 1
    ftv = fractional_task_variance(variance, "t0", "t2")
    assert np.allclose(ftv[:8], 1, atol=5e-3)
    assert np.allclose(ftv[8:16], -1, atol=5e-3)


def test_a_random_network_clusters_no_better_than_shuffled_data():
    torch.manual_seed(0)
    n_in = neurogym.make(YANG).observation_space.shape[0]
    network = RecurrentNetwork(n_in, 17, 32, "gru").eval()
    model = TrainedModel(network, YANG, {}, TrainConfig(hidden_size=32), False)
    tasks = ["go", "anti", "dm1", "dm2", "ctxdm1", "ctxdm2", "dms", "dmc"]
    variance = task_variance(record_activity(model, 24, tasks=tasks))
    ks = range(2, 9)
    random = cluster_units(variance.normalized, k_range=ks).silhouette
    shuffled = shuffled_silhouette(variance.normalized, k_range=ks)
    assert abs(random - shuffled) < 0.15, (random, shuffled)


def test_task_variance_refuses_a_task_with_one_trial():
    activity = synthetic_activity()
    one = activity.select(np.r_[0, 30:60])  # t0 keeps a single trial
    with pytest.raises(ValueError, match="fewer than 2 trials"):
        task_variance(one)


# ------------------------------------------------------------------------- fixed points
def test_the_fixed_point_of_a_linear_map_and_its_eigenvalues():
    matrix = torch.tensor([[0.5, 0.2], [0.0, 1.5]], dtype=torch.float64)  # eigenvalues 0.5, 1.5
    offset = torch.tensor([1.0, -2.0], dtype=torch.float64)

    def step(h: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return h @ matrix.T + offset + 0 * x.sum(-1, keepdim=True)

    starts = np.random.default_rng(0).normal(size=(8, 2)) * 3
    points = find_fixed_points(step, starts, [0.0], iterations=100, unique_distance=1e-2)
    expected = np.linalg.solve(np.eye(2) - matrix.numpy(), offset.numpy())
    assert len(points) == 1
    np.testing.assert_allclose(points.points[0], expected, atol=1e-3)
    np.testing.assert_allclose(np.abs(points.eigenvalues[0]), [1.5, 0.5], atol=1e-4)
    assert points.unstable_dims.tolist() == [1]
    assert not points.stable[0]
    assert points.slowest == points.speeds[0] < 1e-9
    none = find_fixed_points(step, starts, [0.0], iterations=1, unique_distance=1e-2)
    assert len(none) == 0  # one iteration gets nowhere near: the search says how far it got
    assert 1e-6 < none.slowest < np.inf
    assert "slowest=" in repr(none)


def test_a_two_attractor_map_has_two_stable_points_and_a_saddle_between():
    weights = torch.tensor(
        [2.0, 0.5], dtype=torch.float64
    )  # h' = tanh(w * h): attractors at (+-a, 0), a saddle at 0

    def step(h: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(h * weights + 0 * x.sum(-1, keepdim=True))

    grid = np.stack(np.meshgrid(np.linspace(-1, 1, 7), np.linspace(-1, 1, 3)), -1).reshape(-1, 2)
    points = find_fixed_points(step, grid, [0.0], unique_distance=1e-2, max_speed=1e-9)
    a = 0.957504  # a = tanh(2a)
    order = np.argsort(points.points[:, 0])
    np.testing.assert_allclose(points.points[order], [[-a, 0], [0, 0], [a, 0]], atol=1e-3)
    assert points.stable[order].tolist() == [True, False, True]
    slope = 2 * (1 - a**2)  # d tanh(2h)/dh at the attractors
    np.testing.assert_allclose(np.abs(points.eigenvalues[order]),
                               [[0.5, slope], [2.0, 0.5], [0.5, slope]], atol=1e-3)  # fmt: skip


def test_an_lstm_without_recurrent_weights_has_its_analytic_fixed_point():
    """Input and recurrent weights 0, biases b: ``c' = s(b_f) c + s(b_i) tanh(b_g)`` and
    ``h' = s(b_o) tanh(c')``, so ``c* = s(b_i) tanh(b_g) / (1 - s(b_f))``,
    ``h* = s(b_o) tanh(c*)``; the Jacobian has eigenvalues ``s(b_f)`` (the c rows) and 0 (h'
    does not depend on h)."""
    units, (b_i, b_f, b_g, b_o) = 3, (0.5, 1.0, 0.8, -0.3)
    network = RecurrentNetwork(2, 3, units, "lstm")
    with torch.no_grad():
        for parameter in network.recurrent.parameters():
            parameter.zero_()
        network.recurrent.bias_ih_l0.copy_(torch.tensor([b_i, b_f, b_g, b_o]).repeat_interleave(3))
    sigmoid = torch.sigmoid(torch.tensor([b_i, b_f, b_o], dtype=torch.float64)).numpy()
    c_star = sigmoid[0] * np.tanh(b_g) / (1 - sigmoid[1])
    h_star = sigmoid[2] * np.tanh(c_star)
    starts = np.random.default_rng(0).normal(size=(6, 2 * units))
    points = find_fixed_points(network, starts, [0.3, -0.2], iterations=100, unique_distance=1e-2)
    assert len(points) == 1
    np.testing.assert_allclose(points.points[0], [h_star] * units + [c_star] * units, atol=1e-5)
    moduli = np.abs(points.eigenvalues[0])
    np.testing.assert_allclose(moduli, [sigmoid[1]] * units + [0.0] * units, atol=1e-6)
    assert points.stable.tolist() == [True]


def test_fixed_point_options_are_checked():
    with pytest.raises(ValueError, match="method"):
        find_fixed_points(lambda h, x: h, np.zeros((1, 2)), [0.0], method="newton")
    with pytest.raises(ValueError, match=r"initial must be \(K, S\)"):
        find_fixed_points(lambda h, x: h, np.zeros(2), [0.0])


# ----------------------------------------------------------------------------- activity
def random_model(task: str = PDM, hidden: int = 8, cell: str = "gru") -> TrainedModel:
    torch.manual_seed(0)
    env = neurogym.make(task)
    network = RecurrentNetwork(env.observation_space.shape[0], env.action_space.n, hidden, cell)
    config = TrainConfig(hidden_size=hidden, model=cell)
    return TrainedModel(network.eval(), task, {}, config, False)


def test_activity_is_the_network_run_on_the_seeded_batch_aligned_with_its_trials():
    model = random_model()
    activity = record_activity(model, 6, seed=3)
    data = neurogym.batch(PDM, 6, seed=3)
    steps = data.inputs.shape[1]
    assert activity.hidden.shape == (steps, 6, 8)
    assert activity.valid.shape == (steps, 6)
    with torch.no_grad():
        expected, _ = model.network.recurrent(torch.as_tensor(data.inputs, dtype=torch.float32))
    np.testing.assert_allclose(activity.hidden, expected.numpy().swapaxes(0, 1), atol=1e-6)
    np.testing.assert_array_equal(activity.trial["coh"], data.trial["coh"])
    assert activity.tasks == (PDM,)
    table = activity.table()
    assert table["value"].size == activity.valid.sum() * 8
    row = 8 * 5 + 3  # trial 0, step 5, unit 3 (rows run unit-fastest over valid steps)
    assert (table["trial"][row], table["step"][row], table["unit"][row]) == (0, 5, 3)
    assert table["value"][row] == activity.hidden[5, 0, 3]
    assert table["period"][0] == "fixation"
    assert table["time_ms"][row] == 500.0


def test_an_lstm_s_cell_state_is_recorded_step_by_step():
    model = random_model(cell="lstm")
    activity = record_activity(model, 6, seed=3)
    data = neurogym.batch(PDM, 6, seed=3)
    x = torch.as_tensor(data.inputs, dtype=torch.float32)
    with torch.no_grad():
        expected, _ = model.network.recurrent(x)
        _, (_, c_at_5) = model.network.recurrent(x[:, :6])  # c after step 5, from the layer
    np.testing.assert_allclose(activity.hidden, expected.numpy().swapaxes(0, 1), atol=1e-6)
    assert activity.cell is not None
    assert activity.cell.shape == activity.hidden.shape
    np.testing.assert_allclose(activity.cell[5], c_at_5[0].numpy(), atol=1e-6)
    assert np.isnan(activity.cell[~activity.valid]).all()
    assert activity.states.shape[2] == 16  # h and c side by side, the map's state
    assert activity.select([0, 2]).cell.shape[1] == 2
    assert record_activity(random_model(), 2).cell is None  # a GRU's state is h alone


def test_a_task_set_is_recorded_task_by_task_and_padded_with_nan():
    activity = record_activity(random_model(YANG), 4, tasks=["dm1", "dms"])
    assert activity.tasks == ("dm1", "dms")
    assert activity.hidden.shape[1] == 8
    assert np.isnan(activity.hidden[~activity.valid]).all()
    assert np.isfinite(activity.hidden[activity.valid]).all()
    assert activity.of_task("dms").hidden.shape[1] == 4
    with pytest.raises(ValueError, match="task must be one of"):
        record_activity(random_model(YANG), 4, tasks=["dm3"])


def test_activity_above_the_memory_limit_is_refused_before_the_network_runs():
    with pytest.raises(ValueError, match=r"would need .* MiB, more than max_bytes=1,000"):
        record_activity(random_model(), 100, max_bytes=1000)
    activity = record_activity(random_model(), 4)
    with pytest.raises(ValueError, match="a table of"):
        activity.table(max_bytes=100)


# ------------------------------------------------------------------------------ command
def test_neurogym_analyze_writes_figures_and_strict_json_and_keeps_an_earlier_analysis(
    tmp_path, capsys
):
    run = tmp_path / "run"
    train(PDM, steps=5, hidden_size=8, progress=False).save(run)
    assert main(["analyze", str(run), "--trials", "16"]) == 0
    out = run / "analysis"
    names = {path.name for path in out.iterdir()}
    assert names == {"analysis.json", "fixed_points.png", "pca_PerceptualDecisionMaking.png"}
    err = capsys.readouterr().err
    assert "analyze [" in err
    assert "fixed points:" in err

    def refuse(constant: str) -> None:
        raise AssertionError(f"non-strict JSON constant {constant}")

    result = json.loads((out / "analysis.json").read_text(), parse_constant=refuse)
    assert result["fixed_points"]["starts"] > 0
    explained = result["pca"][PDM]["explained"]
    assert len(explained) == 3
    assert all(share > 0 for share in explained)
    assert sum(explained) <= 1
    assert main(["analyze", str(run), "--what", "pca"]) == 1
    assert "--overwrite" in capsys.readouterr().err
    assert main(["analyze", str(run), "--what", "variance"]) == 1  # one task: refused
    assert "task set" in capsys.readouterr().err
    assert main(["analyze", str(run), "--what", "pca", "--overwrite"]) == 0
    assert {path.name for path in out.iterdir()} == {
        "analysis.json",
        "pca_PerceptualDecisionMaking.png",
    }


def test_neurogym_analyze_finds_an_lstm_s_fixed_points_in_h_and_c(tmp_path):
    run = tmp_path / "run"
    train(PDM, steps=5, hidden_size=8, model="lstm", progress=False).save(run)
    assert main(["analyze", str(run), "--what", "fixed-points", "--trials", "8"]) == 0
    result = json.loads((run / "analysis" / "analysis.json").read_text())
    assert result["fixed_points"]["starts"] > 0
    assert result["fixed_points"]["bound"] >= 2.0  # c has no (-1, 1) box
    for period in result["fixed_points"]["by_period"].values():
        assert period["slowest_speed"] >= 0
    assert (run / "analysis" / "fixed_points.png").is_file()


def test_neurogym_analyze_clusters_a_task_set_run(tmp_path):
    run = tmp_path / "run"
    train(YANG, steps=2, hidden_size=8, progress=False).save(run)
    assert main(["analyze", str(run), "--what", "variance", "--trials", "8"]) == 0
    names = {path.name for path in (run / "analysis").iterdir()}
    assert names == {"analysis.json", "variance_map.png", "silhouette.png", "ftv.png"}
    result = json.loads((run / "analysis" / "analysis.json").read_text())
    variance = result["variance"]
    assert len(variance["tasks"]) == 20
    assert len(variance["task_variance"]) == 8
    assert set(variance["ftv"]) == {"dm1 vs dm2", "ctxdm1 vs ctxdm2", "dms vs dmc"}
