"""The SAS baseline: Kim et al.'s Eq. 1 refitted on this corpus's cells (SPEC §5, SAS.md).

The published form (arXiv:2512.08296 v2/v3, Eq. 1) regresses a cell's success on 19
z-scored columns built from nine system-level variables:

    I−Ī, (I−Ī)², log(1+T), log(1+n_a), log(1+O%), c, R, E_c, log(1+A_e), P_SA,
    Ic·E_c, A_e·P_SA, O%·T, R·n_a, c·Ic, E_c·T, P_SA·log(1+n_a), Ic·log(1+T), A_e·T

Interactions are built from raw values, then every column is z-scored with the training
cells' mean and population SD (ddof 0). We regress the failure rate E = 1 − S instead of
S (R² is the same; signs flip) and fit plain OLS (the official code's model) after an
explicit rank check: zero-variance columns are dropped, then columns are added in the
order above and kept only when they raise the SVD rank (tolerance 1e-10·s_max), at most
n_cells − 2 of them. Predictions are clipped to [0, 1]. The published coefficients are
not transferred (SAS.md §3.1): only the form is.

How each variable is computed from traces (SAS.md §3.2; what traces cannot give is
named in the result's notes):

- I: the Intelligence Index is not in traces. We use ACI_train (Kim v3's alternative):
  the model's mean success with the reference harness on the training runs.
- T: header ``tools_available`` when the log has it, else distinct tool names used
  (max over the cell's runs).
- n_a, c, R: header ``n_agents``, ``agent_messages`` (÷ turns), ``redundancy`` when
  present; otherwise a single-agent run: n_a = 1, c = 0, R = 0.
- O%: 100·(turns / turns_ref − 1), turns = distinct steps, turns_ref = median turns of
  the reference harness's training runs with the same task family and model, clipped at
  −99. A harness can take fewer turns than the reference (O% < 0, which the paper never
  meets); log(1+O%) is then undefined, so the log column is sign(O%)·log(1+|O%|), equal
  to log(1+O%) on the paper's range O% ≥ 0 (our decision).
- E_c: the harness-level training mean success ÷ mean(turns/turns_ref) (an
  architecture constant, as in the paper); for a harness with no training runs,
  P_SA / (turns/turns_ref).
- A_e: (overhead tokens + 1) / (reference overhead tokens + 1), overhead tokens being
  tokens of turns after a failing verdict, repeated actions, re-plans and errors (v3's
  trace-level definition; the outcome-based E_MAS/E_SAS would leak).
- P_SA: success of the reference harness on the training runs with the same task family
  and model; for the reference harness's own runs, its task-family mean (code convention).

The reference harness is the simplest single-agent configuration: ``H0`` when present,
else the harness with the lowest median raw cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from efc_tui.fitting.table import MISSING, RunTable

#: Eq. 1's columns in the order the rank check keeps them
TERMS: tuple[str, ...] = (
    "Ic",
    "Ic2",
    "log1p_T",
    "log1p_na",
    "log1p_O",
    "c",
    "R",
    "E_c",
    "log1p_Ae",
    "P_SA",
    "Ic_x_Ec",
    "Ae_x_PSA",
    "O_x_T",
    "R_x_na",
    "c_x_Ic",
    "Ec_x_T",
    "PSA_x_log1p_na",
    "Ic_x_log1p_T",
    "Ae_x_T",
)
TERM_LABELS: dict[str, str] = {
    "Ic": "I−Ī",
    "Ic2": "(I−Ī)²",
    "log1p_T": "log(1+T)",
    "log1p_na": "log(1+n_a)",
    "log1p_O": "log(1+O%)",
    "c": "c",
    "R": "R",
    "E_c": "E_c",
    "log1p_Ae": "log(1+A_e)",
    "P_SA": "P_SA",
    "Ic_x_Ec": "I×E_c",
    "Ae_x_PSA": "A_e×P_SA",
    "O_x_T": "O%×T",
    "R_x_na": "R×n_a",
    "c_x_Ic": "c×I",
    "Ec_x_T": "E_c×T",
    "PSA_x_log1p_na": "P_SA×log(1+n_a)",
    "Ic_x_log1p_T": "I×log(1+T)",
    "Ae_x_T": "A_e×T",
}
#: the terms that survive v3/NMI's robustness checks, plus capability (SAS.md §3.3)
CORE_TERMS: tuple[str, ...] = ("P_SA", "PSA_x_log1p_na", "log1p_T", "Ec_x_T", "Ae_x_PSA", "Ic")
#: below this many training cells SAS-full (20 parameters) overfits: use SAS-core
FULL_MIN_CELLS = 40
RANK_TOL = 1e-10


def pick_reference(table: RunTable, requested: str | None = None) -> str | None:
    """The reference (simplest single-agent) harness: ``requested``, else H0, else the
    harness with the lowest median C_raw. None when the corpus names no harness."""
    harnesses = sorted(set(table.labels["harness"]) - {MISSING})
    if requested is not None:
        return requested
    if not harnesses:
        return None
    if "H0" in harnesses:
        return "H0"
    c = table.floats["c_raw"]
    lab = np.asarray(table.labels["harness"], dtype=object)
    med = {
        h: float(np.nanmedian(c[lab == h])) if np.isfinite(c[lab == h]).any() else np.inf
        for h in harnesses
    }
    return min(harnesses, key=lambda h: (med[h], h))


@dataclass(slots=True)
class SasModel:
    """A fitted SAS regression: which columns, their scaling and coefficients."""

    variant: str  # "full" or "core"
    terms: tuple[str, ...]
    mean: np.ndarray
    sd: np.ndarray
    beta: np.ndarray  # intercept first
    dropped: dict[str, str]
    n_train: int

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Ê (clipped to [0, 1]) for raw column matrix X (cells × len(TERMS))."""
        idx = [TERMS.index(t) for t in self.terms]
        Z = (X[:, idx] - self.mean) / self.sd if idx else np.zeros((X.shape[0], 0))
        return np.clip(self.beta[0] + Z @ self.beta[1:], 0.0, 1.0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "n_train_cells": self.n_train,
            "parameters": 1 + len(self.terms),
            "intercept": float(self.beta[0]),
            "coefficients": {t: float(b) for t, b in zip(self.terms, self.beta[1:], strict=True)},
            "column_mean": {t: float(m) for t, m in zip(self.terms, self.mean, strict=True)},
            "column_sd": {t: float(s) for t, s in zip(self.terms, self.sd, strict=True)},
            "dropped": dict(self.dropped),
        }


def fit_sas(X: np.ndarray, y: np.ndarray, variant: str | None = None) -> SasModel:
    """OLS of y on z-scored columns of X (training cells), with the rank check."""
    n = X.shape[0]
    variant = variant or ("full" if n >= FULL_MIN_CELLS else "core")
    allowed = TERMS if variant == "full" else CORE_TERMS
    dropped: dict[str, str] = {}
    mean = X.mean(axis=0) if n else np.zeros(X.shape[1])
    sd = X.std(axis=0) if n else np.zeros(X.shape[1])
    candidates = []
    for j, t in enumerate(TERMS):
        if t not in allowed:
            dropped[t] = "not in SAS-core"
        elif not np.all(np.isfinite(X[:, j])):
            dropped[t] = "not computable"
        elif sd[j] <= 1e-12 * max(1.0, abs(mean[j])):
            dropped[t] = "constant"
        else:
            candidates.append(j)
    kept: list[int] = []
    Z = np.ones((n, 1))
    for j in candidates:
        if len(kept) + 1 > n - 2:
            dropped[TERMS[j]] = "too few cells"
            continue
        col = ((X[:, j] - mean[j]) / sd[j])[:, None]
        trial = np.hstack([Z, col])
        s = np.linalg.svd(trial, compute_uv=False)
        rank = int(np.sum(s > RANK_TOL * s[0])) if s.size else 0
        if rank == trial.shape[1]:
            kept.append(j)
            Z = trial
        else:
            dropped[TERMS[j]] = "collinear"
    beta, *_ = np.linalg.lstsq(Z, y, rcond=None) if n else (np.zeros(1),)
    return SasModel(
        variant=variant,
        terms=tuple(TERMS[j] for j in kept),
        mean=mean[kept],
        sd=sd[kept],
        beta=np.asarray(beta, dtype=float),
        dropped=dropped,
        n_train=n,
    )


def _wmedian_batch(values: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Row-wise weighted median of ``values`` (sorted ascending) under weights W (b × n);
    NaN for rows whose weights are all zero."""
    if values.size == 0:
        return np.full(W.shape[0], np.nan)
    cum = np.cumsum(W, axis=1)
    tot = cum[:, -1]
    pos = np.argmax(cum >= 0.5 * tot[:, None], axis=1)
    return np.where(tot > 0, values[pos], np.nan)


def _indicator(keys: np.ndarray, size: int) -> Any:
    """The sparse (size × n_runs) matrix with a 1 at (key of run, run)."""
    from scipy import sparse

    n = len(keys)
    return sparse.csr_matrix((np.ones(n), (keys, np.arange(n))), shape=(size, n))


@dataclass(slots=True)
class SasInputs:
    """Per-run arrays SAS needs, prepared once. ``cells_batch`` builds the cell matrix
    for a batch of run weightings at once (bootstrap multiplicities, training masks)."""

    codes: np.ndarray  # group index of each run
    n_groups: int
    success: np.ndarray
    turns: np.ndarray
    tools_cell: np.ndarray  # T per cell: max over the cell's runs (a configuration property)
    n_agents: np.ndarray
    msg_rate: np.ndarray
    redundancy: np.ndarray
    overhead: np.ndarray
    fm: np.ndarray  # (task_family, model) code
    fam: np.ndarray
    model: np.ndarray
    harness: np.ndarray
    is_ref: np.ndarray
    reference: str | None
    notes: list[str] = field(default_factory=list)
    #: reference runs per (family, model) key, sorted by turns and by overhead
    _ref_sorted: list[tuple[int, np.ndarray, np.ndarray]] = field(default_factory=list)
    _ref_all: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.int64), np.zeros(0, np.int64))
    _ind: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def build(
        cls, table: RunTable, codes: np.ndarray, n_groups: int, reference: str | None
    ) -> SasInputs:
        f = table.floats
        turns = np.maximum(np.nan_to_num(f["turns"], nan=1.0), 1.0)
        avail = f["tools_available"]
        tools = np.where(np.isfinite(avail), avail, np.nan_to_num(f["tools_used"], nan=0.0))
        tools_cell = np.zeros(n_groups)
        if len(codes):
            np.maximum.at(tools_cell, codes, tools)
        n_agents = np.where(np.isfinite(f["n_agents"]), f["n_agents"], 1.0)
        msgs = np.nan_to_num(f["agent_messages"], nan=0.0)
        red = np.nan_to_num(f["redundancy"], nan=0.0)
        notes = [
            "I: Intelligence Index not in traces; ACI_train = model's mean success with the "
            "reference harness on training runs",
        ]
        if not np.isfinite(avail).any():
            notes.append("T: tools available not in traces; distinct tools used (max per cell)")
        if not np.isfinite(f["n_agents"]).any():
            notes.append("n_a = 1, c = 0, R = 0: single-agent traces (no agent ids in the logs)")
        fam_c, _ = table.codes("task_family")
        model_c, _ = table.codes("model")
        harness_c, harnesses = table.codes("harness")
        n_model = int(model_c.max()) + 1 if len(model_c) else 1
        fm = fam_c * n_model + model_c
        ref_idx = harnesses.index(reference) if reference in harnesses else -1
        is_ref = harness_c == ref_idx
        if reference is None or ref_idx < 0:
            notes.append(
                "no reference harness in the corpus: O%, A_e, P_SA, E_c and I are constant"
            )
        else:
            notes.append(f"reference (single-agent baseline) harness: {reference}")
        overhead = np.nan_to_num(f["overhead_tokens"], nan=0.0)
        inp = cls(
            codes=codes,
            n_groups=n_groups,
            success=f["success"],
            turns=turns,
            tools_cell=tools_cell,
            n_agents=n_agents,
            msg_rate=msgs / turns,
            redundancy=red,
            overhead=overhead,
            fm=fm,
            fam=fam_c,
            model=model_c,
            harness=harness_c,
            is_ref=is_ref,
            reference=reference,
            notes=notes,
        )

        def by_value(idx: np.ndarray, v: np.ndarray) -> np.ndarray:
            return idx[np.argsort(v[idx], kind="stable")]

        ref_runs = np.flatnonzero(is_ref)
        inp._ref_all = (by_value(ref_runs, turns), by_value(ref_runs, overhead))
        for key in np.unique(fm[is_ref]):
            idx = np.flatnonzero(is_ref & (fm == key))
            inp._ref_sorted.append((int(key), by_value(idx, turns), by_value(idx, overhead)))
        size = {
            "fm": int(fm.max()) + 1 if len(fm) else 1,
            "fam": int(fam_c.max()) + 1 if len(fam_c) else 1,
            "model": n_model,
            "harness": int(harness_c.max()) + 1 if len(harness_c) else 1,
            "cell": n_groups,
        }
        keys = {"fm": fm, "fam": fam_c, "model": model_c, "harness": harness_c, "cell": codes}
        inp._ind = {k: _indicator(keys[k], size[k]) for k in keys}
        return inp

    def _mean_by(self, key: str, values: np.ndarray, W: np.ndarray) -> np.ndarray:
        """Weighted mean of per-run ``values`` (n or b × n) by key: (b × n_keys), NaN when
        a key has no weight."""
        K = self._ind[key]
        num = np.asarray(K @ (W * values).T).T
        den = np.asarray(K @ W.T).T
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)

    def _ref_medians(self, Wt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-run turns_ref and overhead_ref (b × n): weighted medians over training
        reference runs with the same (task family, model); the overall reference median
        as fallback; 1 turn / 0 tokens when there is no reference run at all."""
        by_t, by_o = self._ref_all
        t_all = _wmedian_batch(self.turns[by_t], Wt[:, by_t])
        o_all = _wmedian_batch(self.overhead[by_o], Wt[:, by_o])
        t_all = np.where(np.isnan(t_all), 1.0, t_all)
        o_all = np.where(np.isnan(o_all), 0.0, o_all)
        n_fm = self._ind["fm"].shape[0]
        t_key = np.repeat(t_all[:, None], n_fm, axis=1)
        o_key = np.repeat(o_all[:, None], n_fm, axis=1)
        for key, st, so in self._ref_sorted:
            tm = _wmedian_batch(self.turns[st], Wt[:, st])
            om = _wmedian_batch(self.overhead[so], Wt[:, so])
            t_key[:, key] = np.where(np.isnan(tm), t_all, tm)
            o_key[:, key] = np.where(np.isnan(om), o_all, om)
        return np.maximum(t_key[:, self.fm], 1.0), o_key[:, self.fm]

    def i_bar(self, I: np.ndarray, wsum: np.ndarray, Wt: np.ndarray) -> np.ndarray:
        """Ī (b,): the mean I (b × G) over the cells that have training runs and weight."""
        train_w = np.asarray(self._ind["cell"] @ Wt.T).T
        train_cells = (train_w > 0) & (wsum > 0)
        with np.errstate(invalid="ignore"):
            return np.where(
                train_cells.any(axis=1),
                np.nansum(np.where(train_cells, I, 0.0), axis=1)
                / np.maximum(train_cells.sum(axis=1), 1),
                0.0,
            )

    def cells(
        self, w_cell: np.ndarray, w_train: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One weighting: (X raw columns (G × 19), observed failure Ē (G,), cell weight (G,))."""
        X, fail, wsum = self.cells_batch(w_cell[None, :], w_train[None, :])
        return X[0], fail[0], wsum[0]

    def cells_batch(
        self, Wc: np.ndarray, Wt: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(X (b × G × 19), Ē (b × G), cell weight (b × G)) for b weightings of the runs.

        ``Wc`` weights runs into cell means (bootstrap multiplicity); ``Wt`` marks what
        training-fold aggregates (P_SA, E_c, ACI, reference turns) may use.
        """
        X, fail, wsum, _ = self._matrix(Wc, self._aggregates(Wt), Wt, None)
        return X, fail, wsum

    def split_cells(
        self, Wtrain: np.ndarray, Wtest: np.ndarray
    ) -> tuple[
        tuple[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]
    ]:
        """Training cells (from the training runs) and held-out cells (from the held-out
        runs) of b splits: ((X, Ē, weight) of training cells, the same of held-out cells).
        Every aggregate comes from the training runs, and the held-out cells are centred with
        the training cells' Ī, so they sit in the model's own coordinates."""
        agg = self._aggregates(Wtrain)
        Xt, ft, wt, i_bar = self._matrix(Wtrain, agg, Wtrain, None)
        Xe, fe, we, _ = self._matrix(Wtest, agg, Wtrain, i_bar)
        return (Xt, ft, wt), (Xe, fe, we)

    def _aggregates(self, Wt: np.ndarray) -> dict[str, np.ndarray]:
        """Per-run quantities (b × n) from the training weighting Wt: the reference turns and
        overhead, ACI, P_SA and E_c."""
        s = self.success
        t_ref, o_ref = self._ref_medians(Wt)
        rel_turns = self.turns / t_ref
        Wr = Wt * self.is_ref
        tot_r = Wr.sum(axis=1)
        has_ref = tot_r > 0
        overall = np.where(has_ref, (Wr * s).sum(axis=1) / np.where(has_ref, tot_r, 1.0), 0.0)[
            :, None
        ]
        p_fm = np.take_along_axis(self._mean_by("fm", s, Wr), np.broadcast_to(self.fm, Wt.shape), 1)
        p_fam = np.take_along_axis(
            self._mean_by("fam", s, Wr), np.broadcast_to(self.fam, Wt.shape), 1
        )
        aci = np.take_along_axis(
            self._mean_by("model", s, Wr), np.broadcast_to(self.model, Wt.shape), 1
        )
        p_sa = np.where(np.isnan(p_fm), overall, p_fm)
        p_sa = np.where(self.is_ref, np.where(np.isnan(p_fam), overall, p_fam), p_sa)
        aci = np.where(np.isnan(aci), overall, aci)
        hidx = np.broadcast_to(self.harness, Wt.shape)
        s_h = np.take_along_axis(self._mean_by("harness", s, Wt), hidx, 1)
        rt_h = np.take_along_axis(self._mean_by("harness", rel_turns, Wt), hidx, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            e_c = s_h / rt_h
        e_c = np.where(np.isfinite(e_c), e_c, p_sa / rel_turns)
        return {"t_ref": t_ref, "o_ref": o_ref, "aci": aci, "p_sa": p_sa, "e_c": e_c}

    def _matrix(
        self, Wc: np.ndarray, agg: dict[str, np.ndarray], Wt: np.ndarray, i_bar: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The cell matrix of the runs weighted by Wc, with the training aggregates ``agg``;
        Ī from the cells with training runs (Wt) unless given. Returns (X, Ē, weight, Ī)."""

        def cell(values: np.ndarray) -> np.ndarray:
            return self._mean_by("cell", values, Wc)

        wsum = np.asarray(self._ind["cell"] @ Wc.T).T
        I = cell(agg["aci"])
        T = np.broadcast_to(self.tools_cell, I.shape)
        na = cell(self.n_agents)
        O = np.maximum(100.0 * (cell(self.turns) / cell(agg["t_ref"]) - 1.0), -99.0)
        c = cell(self.msg_rate)
        R = cell(self.redundancy)
        Ec = cell(agg["e_c"])
        Ae = (cell(self.overhead) + 1.0) / (cell(agg["o_ref"]) + 1.0)
        Psa = cell(agg["p_sa"])
        fail = 1.0 - cell(self.success)
        if i_bar is None:
            i_bar = self.i_bar(I, wsum, Wt)
        Ic = I - i_bar[:, None]
        logO = np.sign(O) * np.log1p(np.abs(O))
        X = np.stack(
            [
                Ic,
                Ic * Ic,
                np.log1p(T),
                np.log1p(na),
                logO,
                c,
                R,
                Ec,
                np.log1p(Ae),
                Psa,
                Ic * Ec,
                Ae * Psa,
                O * T,
                R * na,
                c * Ic,
                Ec * T,
                Psa * np.log1p(na),
                Ic * np.log1p(T),
                Ae * T,
            ],
            axis=2,
        )
        return X, fail, wsum, i_bar


def refit_batch(model: SasModel, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Refit the columns ``model`` kept on b data sets at once (X: b × G × 19, y, w: b × G;
    w = 0 leaves a cell out) and return the clipped predictions (b × G).

    Min-norm OLS through a batched pseudo-inverse, so a resample that makes a kept column
    constant or collinear still has a (min-norm) solution instead of failing.
    """
    idx = [TERMS.index(t) for t in model.terms]
    b, G = y.shape
    m = (w > 0).astype(float)
    n = np.maximum(m.sum(axis=1), 1.0)
    Xs = X[:, :, idx] if idx else np.zeros((b, G, 0))
    Xs = np.where(m[:, :, None] > 0, np.nan_to_num(Xs), 0.0)
    mean = Xs.sum(axis=1) / n[:, None]
    sd = np.sqrt(
        np.maximum((m[:, :, None] * (Xs - mean[:, None, :]) ** 2).sum(axis=1) / n[:, None], 0.0)
    )
    sd = np.where(sd > 1e-12, sd, 1.0)
    Z = (Xs - mean[:, None, :]) / sd[:, None, :]
    D = np.concatenate([np.ones((b, G, 1)), Z], axis=2) * m[:, :, None]
    beta = np.linalg.pinv(D, rcond=RANK_TOL) @ (np.where(m > 0, y, 0.0))[:, :, None]
    full = np.concatenate([np.ones((b, G, 1)), Z], axis=2)
    return np.clip((full @ beta)[:, :, 0], 0.0, 1.0)
