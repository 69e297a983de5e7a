"""Every constant of the scoring equations, with the SPEC's name and section.

Where the paper and SPEC disagree the paper wins; where SPEC decides, it says so here.
"""

from __future__ import annotations

from efc_tui.model import EventKind, Status

#: EFC_t = KAPPA * I * V * R * M (SPEC §3, paper eq. 3-4)
KAPPA = 10.0

#: Q, status quality (SPEC §3.5); events with status none get 1.
Q_STATUS: dict[Status, float] = {
    Status.PASSED: 1.00,
    Status.ASSERTION_ERROR: 0.42,
    Status.RUNTIME_ERROR: 0.12,
    Status.TIMEOUT: 0.06,
    Status.STATIC_REJECT: 0.04,
    Status.API_ERROR: 0.00,
    Status.OTHER: 0.25,
    Status.NONE: 1.00,
}

#: progress gate rows (G, G_nr), SPEC §3.5; checked top to bottom, first match wins
G_FIRST = (1.00, 1.00)  # A_t = 0
G_NEWLY_PASSED = (1.35, 1.35)  # s_t = passed and s_{t-1} != passed
G_ROSE = (1.15, 1.15)  # sev(s_t) > sev(s_{t-1})
G_SAME_FAIL = (0.62, 0.16)  # sev(s_t) = sev(s_{t-1}) and s_t != passed
G_FELL = (0.45, 0.10)  # sev(s_t) < sev(s_{t-1})
G_OTHER = (1.00, 1.00)  # otherwise, incl. status none

#: loop gate rows (Lambda, Lambda_nr), SPEC §3.5
L_REPAIR = (0.95, 0.45)
L_GEN_PASSED = (0.92, 0.92)
L_GEN_OTHER = (0.85, 0.85)
L_OTHER = (1.00, 1.00)

#: the ambiguity (attempt) penalty 1 / (1 + ALPHA_A * A_t) of NRS-EFC (paper eq. 10)
ALPHA_A = 0.35

#: C_raw = W_TOK * N_tok / 1000 + W_TOOL * N_tool + W_WALL * T_wall + W_OP * N_op (SPEC §4)
W_TOK = 1.0
W_TOOL = 0.35
W_WALL = 0.10
W_OP = 0.04

#: D_task floor (SPEC §4; the value is ours, the paper leaves it open)
EPS_D = 0.05

#: task-demand components assumed for a task whose metadata does not give them (ours):
#: a middling task of six steps, mild tool ambiguity, state and noise, checker on 60%
D_PRIOR: dict[str, float] = {"L": 6.0, "H_tool": 1.6, "S_state": 2.0, "N_obs": 0.1, "V_ver": 0.6}

#: trace position rho_t = t / (t + RHO_SCALE) (SPEC §3.2)
RHO_SCALE = 10.0

#: phi feature order (paper eq. 6); theta files list weights in this order
FEATURES: tuple[str, ...] = ("c", "h", "z", "p", "m", "a", "q", "delta", "rho")

#: number of event kinds, for the normalized kind entropy E_explore
N_KINDS = len(EventKind)

#: share of task seeds `efc-tui calibrate` holds out by default (SPEC §3.4; ours)
DEFAULT_SEED_FRACTION = 0.2

#: novelty below this marks an observation redundant (SPEC §6 waste split)
REDUNDANT_NOVELTY = 0.2

#: how `calibrate` fits θ: Poisson pseudo-ML on 1 + y (default) or the paper's least squares
#: on log1p(y) (docs/equations.md)
THETA_METHODS: tuple[str, ...] = ("poisson", "lsq")
