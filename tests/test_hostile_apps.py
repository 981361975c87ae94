"""Issue #47, round three: hostile and careless files and folders of the applications.

Monitor logs are pickle-free and read without pickle (a crafted ``trial_<n>.npz`` runs no
code); a run folder or a Monitor's ``save_dir`` is not overwritten without being told to; a
damaged or edited model folder gets a ValueError naming the file and the problem.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

import neurogym
from neurogym.wrappers import Monitor

torch = pytest.importorskip("torch", reason="neurogym_apps.train needs the torch extra")

from neurogym.cli import main as cli  # noqa: E402
from neurogym_apps import plot  # noqa: E402
from neurogym_apps.train import (  # noqa: E402
    TrainConfig,
    TrainedModel,
    _report,
    train,
    train_and_report,
)

PDM = "PerceptualDecisionMaking"


class Payload:
    """Unpickling it creates ``marker``: the proof that a file ran code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (open, (str(self.marker), "w"))


def _objects(*values) -> np.ndarray:  # type: ignore[no-untyped-def]
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _run_monitor(monitor: Monitor, trials: int) -> None:
    monitor.reset(seed=0)
    while monitor.num_tr < trials:
        monitor.step(monitor.action_space.sample())


# --------------------------------------------------------------------- 1. logs without pickle
def test_plot_training_refuses_a_log_whose_rewards_need_pickle_and_runs_no_code(tmp_path):
    marker = tmp_path / "ran"
    log = tmp_path / "log"
    log.mkdir()
    np.savez(log / "trial_3.npz", reward=_objects(Payload(marker), 1.0, 0.0),
             performance=np.ones(3))  # fmt: skip
    with pytest.raises(ValueError, match=r"trial_3\.npz': 'reward' is a pickled object array"):
        plot.plot_training(log)
    assert not marker.exists()


def test_an_older_log_with_pickled_trial_dicts_still_plots_without_unpickling(tmp_path):
    marker = tmp_path / "ran"
    np.savez(tmp_path / "trial_2.npz", reward=np.array([1.0, 0.0]),
             performance=np.array([1.0, 0.0]), trial=_objects(Payload(marker), {}))  # fmt: skip
    fig = plot.plot_training(tmp_path, window=1)
    np.testing.assert_array_equal(fig.axes[0].get_lines()[0].get_ydata(), [1.0, 0.0])
    with pytest.raises(ValueError, match=r"trial_2\.npz': 'trial' is a pickled object array.*"
                       r"allow_pickle=True\) only if you trust"):  # fmt: skip
        Monitor.load(tmp_path / "trial_2.npz")
    assert Monitor.load(tmp_path / "trial_2.npz", ["reward"])["reward"].tolist() == [1.0, 0.0]
    assert not marker.exists()


def test_the_legacy_training_history_refuses_pickled_rewards(tmp_path):
    from neurogym_apps.plot import _legacy as legacy

    marker = tmp_path / "ran"
    np.savez(tmp_path / "trial_2.npz", reward=_objects(Payload(marker), 1.0),
             cum_reward=np.ones(2), performance=np.ones(2))  # fmt: skip
    with pytest.raises(ValueError, match=r"'reward' is a pickled object array"):
        legacy.plot_training_history(tmp_path, save_fig=False)
    assert not marker.exists()


def test_monitor_writes_logs_that_load_without_pickle(tmp_path):
    monitor = Monitor(neurogym.make(PDM), interval=20, save_dir=tmp_path, verbose=False)
    monitor.action_space.seed(0)
    trials = []
    monitor.reset(seed=0)
    while monitor.num_tr < 20:
        _, _, _, _, info = monitor.step(monitor.action_space.sample())
        if info["new_trial"]:
            trials.append({k: float(v) for k, v in info["trial"].items()})
    with np.load(tmp_path / "trial_20.npz", allow_pickle=False) as file:
        arrays = {key: file[key] for key in file.files}  # no key needs pickle
    assert arrays["__json__"].tolist() == ["trial"]
    assert arrays["reward"].shape == (20,)
    log = Monitor.load(tmp_path / "trial_20.npz")
    assert log["trial"] == trials
    assert set(log) == {"action", "reward", "cum_reward", "performance", "new_trial", "gt"} | {
        "trial"
    }
    (tmp_path / "broken.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match=r"broken\.npz' is not a Monitor log"):
        Monitor.load(tmp_path / "broken.npz")


# --------------------------------------------------------------------- 2. no silent overwrite
def test_monitor_refuses_a_save_dir_holding_an_earlier_run_unless_told(tmp_path):
    _run_monitor(Monitor(neurogym.make(PDM), interval=5, save_dir=tmp_path, verbose=False), 10)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trial_10.npz", "trial_5.npz"]
    before = (tmp_path / "trial_5.npz").read_bytes()
    with pytest.raises(ValueError, match=r"already holds 2 log file\(s\) of an earlier run "
                       r"\(trial_10\.npz, trial_5\.npz\).*overwrite=True"):  # fmt: skip
        Monitor(neurogym.make(PDM), interval=5, save_dir=tmp_path)
    assert (tmp_path / "trial_5.npz").read_bytes() == before
    (tmp_path / "notes.txt").write_text("mine")
    again = Monitor(neurogym.make(PDM), interval=3, save_dir=tmp_path, overwrite=True,
                    verbose=False)  # fmt: skip
    assert (tmp_path / "trial_10.npz").exists()  # nothing happens at construction
    _run_monitor(again, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "trial_3.npz"]


def test_monitor_checks_again_at_its_first_write(tmp_path):
    late = Monitor(neurogym.make(PDM), interval=2, save_dir=tmp_path, verbose=False)
    _run_monitor(Monitor(neurogym.make(PDM), interval=2, save_dir=tmp_path, verbose=False), 2)
    with pytest.raises(ValueError, match="log file"):
        _run_monitor(late, 2)


def test_save_refuses_a_folder_holding_a_model_unless_told(tmp_path):
    model = train(PDM, steps=1, hidden_size=8, progress=False)
    model.save(tmp_path)
    with pytest.raises(ValueError, match=r"already holds a saved model \(config\.json, model"):
        model.save(tmp_path)
    model.save(tmp_path, overwrite=True)
    assert TrainedModel.load(tmp_path).config == model.config


def test_train_and_report_refuses_a_run_folder_before_training(tmp_path, monkeypatch):
    (tmp_path / "loss.png").write_bytes(b"")

    def no_training(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("trained before checking the output folder")

    monkeypatch.setattr(_report, "train", no_training)
    with pytest.raises(ValueError, match=r"already holds a run \(loss\.png\).*overwrite=True"):
        train_and_report(PDM, tmp_path, steps=1)


def test_cli_refuses_an_earlier_run_and_overwrite_clears_its_figures(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    run = ["train", PDM, "--steps", "2", "--hidden", "8", "--eval-trials", "10"]
    assert cli(run) == 0  # the default folder, runs/<task>
    out = tmp_path / "runs" / PDM
    metrics = (out / "metrics.json").read_text()
    assert (out / "psychometric.png").is_file()
    capsys.readouterr()
    assert cli([*run, "--steps", "3"]) == 1
    err = capsys.readouterr().err
    assert f"'{out.relative_to(tmp_path)}' already holds a run (model.pt, config.json" in err
    assert "--overwrite" in err
    assert (out / "metrics.json").read_text() == metrics
    assert cli([*run, "--steps", "3", "--no-figures", "--overwrite"]) == 0
    assert json.loads((out / "metrics.json").read_text())["steps"] == 3
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "metrics.json", "model.pt"]


def test_train_help_names_overwrite(capsys):
    with pytest.raises(SystemExit):
        cli(["train", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--overwrite replace a run already in the output folder" in help_text
    assert "refused if it holds a run, unless --overwrite" in help_text


# --------------------------------------------------------------------- 7. model folders
@pytest.fixture(scope="module")
def small_model():
    return train(PDM, TrainConfig(steps=1, hidden_size=8), progress=False)


def _edit_config(folder: Path, edit) -> None:  # type: ignore[no-untyped-def]
    path = folder / "config.json"
    record = json.loads(path.read_text())
    edit(record)
    path.write_text(json.dumps(record))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r.update(task="GoNogo"), r"config\.json': n_in 3, n_out 3, continuous False do "
         r"not match its task 'GoNogo' \(n_in 3, n_out 2, continuous False\)"),
        (lambda r: r.update(task="NoSuchTask"), r"config\.json': cannot make its task "
         r"'NoSuchTask'.*unknown task"),
        (lambda r: r["config"].update(hidden=8), r"config\.json': config has unknown entries "
         r"\['hidden'\]"),
        (lambda r: r["config"].update(hidden_size="8"), r"config\.json': config is not a valid "
         r"TrainConfig: hidden_size"),
    ],
)  # fmt: skip
def test_load_names_config_json_and_the_problem(small_model, tmp_path, edit, message):
    small_model.save(tmp_path)
    _edit_config(tmp_path, edit)
    with pytest.raises(ValueError, match=message):
        TrainedModel.load(tmp_path)


def _not_torch_zip(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("hello.txt", "not torch")


@pytest.mark.parametrize(
    ("write", "message"),
    [
        (lambda p: p.write_bytes(b""), "is not a zip archive"),
        (lambda p: p.write_bytes(b"PK\x03\x04 truncated"), "is not a zip archive"),
        (lambda p: p.write_bytes(p.read_bytes()[:-200]), "is not a zip archive"),
        (_not_torch_zip, "cannot be read as torch weights"),
        (lambda p: torch.save([1, 2], p), r"does not hold a state dict"),
    ],
)
def test_load_names_a_model_pt_that_is_not_weights(small_model, tmp_path, write, message):
    small_model.save(tmp_path)
    write(tmp_path / "model.pt")
    with pytest.raises(ValueError, match=rf"model\.pt' {message}"):
        TrainedModel.load(tmp_path)
