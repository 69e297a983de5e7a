"""Does θ fitted on real outcomes make the EFC sum (or rate) rank runs of one task? (issue 29;
docs/calibration.md, "Why θ is not fitted to outcomes")

    python bench/theta_outcomes.py [DIR]      # default ../shared/real-runs-grouped

Per-event ÊFC_nr_t(θ) = expm1(θ0 + θ·φ_t)⁺ × the NRS gates (SPEC §3.4–3.5; φ and the gates
as ``score_run`` computes them), the run's NRS-EFC(θ) = Σ_t, and its rate NRS-EFC(θ) / T.
θ is fitted, per fold held out by harness (model), on the training runs through the
collapse curve's likelihood with the task's demand as the training runs' geometric mean
of the task (a logistic in log NRS-EFC(θ) − log D_τ: the saturating curve with E_inf = 0,
E_0 = 1 and z_0 = 1; curve slope and offset fitted with θ; a ridge of ½‖θ − θ_base‖²).
The held-out runs are scored with the fold's θ and ranked within each task (AUC within
task: D_τ cancels there). Prints the base θ's figure beside the held-out refits.
Under a minute; reads ../shared.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from efc_tui.api import load_all  # noqa: E402
from efc_tui.fitting.crossfit import within_auc  # noqa: E402
from efc_tui.scoring import score_run  # noqa: E402
from efc_tui.scoring.demand import task_key  # noqa: E402


def main() -> int:
    folder = (
        Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "real-runs-grouped"
    )
    if not folder.is_dir():
        print(f"no {folder}: nothing to report", file=sys.stderr)
        return 2
    runs = [r for r in load_all(str(folder)) if r.success is not None]
    phis, gates = [], []
    base = None
    for r in runs:
        led = score_run(r)
        g = led.gates
        phis.append(led.features.matrix())
        gates.append(g.Q * g.G_nr * g.L_nr * g.ambiguity)
        base = led.estimator.full
    assert base is not None
    theta_base = np.array([base.theta0, *base.theta])
    run_of = np.concatenate([np.full(len(p), i) for i, p in enumerate(phis)])
    phi, gate = np.vstack(phis), np.concatenate(gates)
    n = len(runs)
    y = np.array([float(bool(r.success)) for r in runs])
    tasks = [task_key(r) or r.run_id for r in runs]
    _, ti = np.unique(tasks, return_inverse=True)
    length = np.array([max(1, len(r.events)) for r in runs], dtype=float)

    def score(theta: np.ndarray, rate: bool) -> np.ndarray:
        e = np.maximum(0.0, np.expm1(np.minimum(theta[0] + phi @ theta[1:], 50.0)))
        s = np.bincount(run_of, weights=e * gate, minlength=n)
        return np.log(np.maximum(s / (length if rate else 1.0), 1e-6))

    def fit(idx: np.ndarray, rate: bool) -> np.ndarray:
        cnt = np.maximum(1, np.bincount(ti[idx], minlength=ti.max() + 1))

        def nll(p: np.ndarray) -> float:
            s = score(p[2:], rate)
            log_d = np.bincount(ti[idx], weights=s[idx], minlength=ti.max() + 1) / cnt
            z = np.clip(p[0] + p[1] * (s[idx] - log_d[ti[idx]]), -40, 40)
            q = 1 / (1 + np.exp(-z))
            ll = y[idx] * np.log(q + 1e-12) + (1 - y[idx]) * np.log(1 - q + 1e-12)
            return float(-ll.sum() + 0.5 * np.sum((p[2:] - theta_base) ** 2))

        res = minimize(
            nll, np.r_[0.0, 1.0, theta_base], method="L-BFGS-B", options={"maxiter": 200}
        )
        return np.asarray(res.x[2:])

    print(f"{n} labeled runs, {len(set(tasks))} tasks from {folder}")
    for rate in (False, True):
        name = "NRS-EFC(θ) / T" if rate else "NRS-EFC(θ)"
        print(
            f"{name:16s} base θ: AUC within task {within_auc(y, score(theta_base, rate), tasks):.2f}"
        )
        for axis in ("harness", "model"):
            vals = np.array([getattr(r, axis) or "?" for r in runs])
            pred = np.full(n, np.nan)
            for v in sorted(set(vals.tolist())):
                train, test = np.flatnonzero(vals != v), np.flatnonzero(vals == v)
                pred[test] = score(fit(train, rate), rate)[test]
            print(
                f"{'':16s} θ refitted, held out by {axis:7s}: AUC within task {within_auc(y, pred, tasks):.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
