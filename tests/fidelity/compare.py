"""Two-sample comparison of the summaries that ``collect.py`` writes, for the fidelity check.

Every recorded statistic is compared between two sides (upstream 2.3.1 and ours, or upstream
at two seeds for the calibration):

* exact facts (spaces, named dims, ``dt``, trial-dict keys) must be equal;
* a per-trial statistic (``n``, ``mean``, ``var`` of per-trial values) by a two-sample z test on
  the means; a statistic constant on both sides (variance 0) must have equal values;
* a categorical variable (durations, trial length, period order, answers, discrete trial
  variables) by a two-proportion z test per category.

The p-values of all tests of one comparison (every configuration together) are corrected with
Holm's step-down method at a family-wise error rate ``FWER`` (default 0.001): across the whole
check, the probability that any test flags a difference between two samples of the *same*
task is at most 0.1 %, so the check does not flake, while a systematic change (a fixation cue,
a shifted period, a reward) moves a statistic by tens to thousands of standard errors at 2,000
trials and is still found (the planted-fault tests show it). With about 24,000 tests the
threshold is near |z| = 5.5: a shift of a mean by 0.25 standard deviations of the per-trial
values is found with high probability at 2,000 trials a side, one by 0.1 is not. Tests with
fewer than ``MIN_N`` trials on a side are skipped (the normal approximation does not hold
there). Per-trial values of tasks that carry state across trials are serially correlated:
``collect.py`` records each sample's variance inflation from its lag-1 autocorrelation, and
the standard errors here use it. Calibration (``nox -s fidelity``): upstream at seed 1 against
upstream at seed 2 gives no finding, and fewer small p-values than a uniform distribution would
(20 below 0.001 of 23,891 tests, 24 expected), so the tests are valid, if slightly conservative.

A *finding* is ``"<config label>|<statistic key>"``, e.g. ``"yang19.dm1|ob:stimulus:0:sq"``
(statistic keys are documented in ``collect.py``). Declared differences excuse findings by
``fnmatch`` patterns (``neurogym.testing.differences``).
"""

from __future__ import annotations

import gzip
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FWER = 0.001
MIN_N = 30
EXACT_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Finding:
    """One statistic that differs: its key, how, and the p-value (0 for exact differences)."""

    key: str
    detail: str
    p: float = 0.0


@dataclass
class Report:
    """The findings of one comparison and how many tests it ran."""

    findings: list[Finding] = field(default_factory=list)
    tests: int = 0
    skipped: int = 0
    configs: list[str] = field(default_factory=list)
    pvalues: list[float] = field(default_factory=list)  # every test's p, for calibration

    def keys(self) -> list[str]:
        """The keys of every finding, sorted."""
        return sorted(f.key for f in self.findings)

    def by_config(self) -> dict[str, list[Finding]]:
        """Findings grouped by configuration label."""
        out: dict[str, list[Finding]] = {label: [] for label in self.configs}
        for finding in self.findings:
            out.setdefault(finding.key.split("|", 1)[0], []).append(finding)
        return out


def load(path: str | Path) -> dict[str, Any]:
    """A summary file written by ``collect.py`` (``.json`` or ``.json.gz``)."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


def _z_p(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2.0))


def _compare_sample(a: dict[str, float], b: dict[str, float]) -> tuple[str, float] | None:
    """('exact' | 'test', p) for two per-trial samples, or None when not testable."""
    if a["n"] < MIN_N or b["n"] < MIN_N:
        return None
    se = math.sqrt(
        a["var"] * a.get("inflation", 1.0) / a["n"] + b["var"] * b.get("inflation", 1.0) / b["n"]
    )
    gap = a["mean"] - b["mean"]
    if se == 0.0:
        scale = max(1.0, abs(a["mean"]), abs(b["mean"]))
        return ("exact", 0.0 if abs(gap) > EXACT_TOLERANCE * scale else 1.0)
    return ("test", _z_p(gap / se))


def _zeros(n: int) -> dict[str, float]:
    """A sample of ``n`` zeros: a ground-truth value never seen on one side."""
    return {"n": n, "mean": 0.0, "var": 0.0, "inflation": 1.0}


def _period_trials(config: dict[str, Any], key: str) -> int:
    """Trials in which the period of a ``gt:<period>:=<value>`` key has steps."""
    period = key.split(":")[1]
    counts = config["counts"].get(f"duration:{period}", {}).get("counts", {})
    return sum(c for d, c in counts.items() if int(d) > 0)


def _compare_counts(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, str, float]]:
    """(category, detail, p) per category of two categorical samples."""
    na, nb = a["n"], b["n"]
    if na < MIN_N or nb < MIN_N:
        return []
    out = []
    for category in sorted(set(a["counts"]) | set(b["counts"])):
        ka, kb = a["counts"].get(category, 0), b["counts"].get(category, 0)
        pa, pb = ka / na, kb / nb
        pooled = (ka + kb) / (na + nb)
        if pooled in (0.0, 1.0):
            continue
        inflate_a, inflate_b = a.get("inflation", 1.0), b.get("inflation", 1.0)
        se = math.sqrt(pooled * (1 - pooled) * (inflate_a / na + inflate_b / nb))
        out.append((category, f"{pa:.4f} vs {pb:.4f}", _z_p((pa - pb) / se)))
    return out


def compare(reference: dict[str, Any], other: dict[str, Any], fwer: float = FWER) -> Report:
    """Compare ``other`` with ``reference`` over the configurations both hold."""
    report = Report()
    pending: list[tuple[float, Finding]] = []
    ref_configs, other_configs = reference["configs"], other["configs"]
    for label in sorted(set(ref_configs) & set(other_configs)):
        report.configs.append(label)
        a, b = ref_configs[label], other_configs[label]
        for key in sorted(set(a["exact"]) | set(b["exact"])):
            if key == "agent_trials":
                continue
            if a["exact"].get(key) != b["exact"].get(key):
                detail = f"{a['exact'].get(key)!r} vs {b['exact'].get(key)!r}"
                report.findings.append(Finding(f"{label}|exact:{key}", detail))
        for key in sorted(set(a["samples"]) | set(b["samples"])):
            sa, sb = a["samples"].get(key), b["samples"].get(key)
            if sa is None or sb is None:
                if key.startswith("joint:"):  # an answer never seen on one side: the
                    report.skipped += 1  # answer's own distribution is tested in "answer"
                    continue
                if key.startswith("gt:") and ":=" in key:  # a value never seen on one side
                    sa = sa or _zeros(_period_trials(a, key))
                    sb = sb or _zeros(_period_trials(b, key))
                else:
                    side = "reference" if sa is None else "other"
                    report.findings.append(Finding(f"{label}|{key}", f"absent on the {side} side"))
                    continue
            result = _compare_sample(sa, sb)
            if result is None:
                report.skipped += 1
                continue
            kind, p = result
            detail = f"mean {sa['mean']:.6g} vs {sb['mean']:.6g} (n {sa['n']} vs {sb['n']})"
            if kind == "exact":
                if p == 0.0:
                    report.findings.append(Finding(f"{label}|{key}", f"constant {detail}"))
                continue
            report.tests += 1
            pending.append((p, Finding(f"{label}|{key}", detail, p)))
        for key in sorted(set(a["counts"]) | set(b["counts"])):
            ca, cb = a["counts"].get(key), b["counts"].get(key)
            if ca is None or cb is None:
                side = "reference" if ca is None else "other"
                report.findings.append(Finding(f"{label}|{key}", f"absent on the {side} side"))
                continue
            rows = _compare_counts(ca, cb)
            if not rows:
                report.skipped += 1
            for category, detail, p in rows:
                report.tests += 1
                pending.append((p, Finding(f"{label}|{key}={category}", detail, p)))
    report.pvalues = sorted(p for p, _ in pending)
    report.findings.extend(_holm(pending, fwer))
    report.findings.sort(key=lambda f: f.key)
    return report


def _holm(pending: list[tuple[float, Finding]], fwer: float) -> list[Finding]:
    """The findings rejected by Holm's step-down procedure at family-wise error ``fwer``."""
    m = len(pending)
    rejected = []
    for rank, (p, finding) in enumerate(sorted(pending, key=lambda item: item[0])):
        if p > fwer / (m - rank):
            break
        rejected.append(finding)
    return rejected


def main(argv: list[str] | None = None) -> int:
    """``python tests/fidelity/compare.py REFERENCE OTHER``: print the findings."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    report = compare(load(args[0]), load(args[1]))
    for finding in report.findings:
        print(f"{finding.key}: {finding.detail}" + (f" (p={finding.p:.2g})" if finding.p else ""))
    print(f"{len(report.findings)} findings, {report.tests} tests, {report.skipped} skipped")
    return 1 if report.findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
