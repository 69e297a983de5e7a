"""The seven harness presets H0–H6 and the simulated models (SPEC §7; paper appendix
"Harness Details").

Each preset is one row of parameters. Raw budget (steps, tool calls, tokens) says how much
the harness may spend; routing, verification, memory, noise and state pressure say how
well that spending turns into feedback. None of them changes what a task needs
(``tasks.py``): they move harness efficiency η = EFC / C_raw. A budget level multiplies
``steps`` and ``tools``.

| field      | meaning |
|------------|---------|
| steps      | model turns at budget 1 |
| tools      | tool/checker calls at budget 1 |
| tok_out    | tokens the model writes per turn |
| context    | transcript tokens kept in each prompt |
| route      | routing quality: with distractor tools on offer, a call goes to an irrelevant one with probability (1 − route)·min(1, distractors/2) |
| verify     | verifier strength: chance a lookup runs verified (catching a corrupted reading at once), and chance of a progress check after a fact is established |
| memory     | memory fidelity: chance new progress is written to memory at once |
| noise      | the harness channel's chance of corrupting a reading into the other candidate value |
| pressure   | state pressure π: how fast unsaved progress is lost to context compaction |
| redundancy | chance a turn re-issues an earlier query instead of a new one |
| reflect    | chance a turn is reflection without external feedback |

A **model** (``MODELS``) scales how much of a turn is wasted: malformed tool calls
(rejected by the harness), extra reflection and repeated queries. A stronger model
converts the same budget into more feedback; like the harness, it moves η, not D_task, so
the model axis can be held out.
"""

from __future__ import annotations

from dataclasses import dataclass

from efc_tui.errors import InputError


@dataclass(frozen=True, slots=True)
class HarnessPreset:
    name: str
    title: str
    intent: str
    steps: int
    tools: int
    tok_out: int
    context: int
    route: float
    verify: float
    memory: float
    noise: float
    pressure: float
    redundancy: float
    reflect: float


_P = HarnessPreset

#: name, title, intent, steps, tools, tok_out, context, route, verify, memory, noise,
#: pressure, redundancy, reflect
PRESETS: dict[str, HarnessPreset] = {
    p.name: p
    for p in (
        _P(
            "H0",
            "Direct Answer",
            "one pass, no tools, no verification or memory: the low-feedback reference",
            2,
            0,
            700,
            3000,
            0.50,
            0.00,
            0.00,
            0.00,
            0.50,
            0.00,
            0.60,
        ),
        _P(
            "H1",
            "Checklist Verify",
            "a few unrouted lookups, each checked against a checklist; little memory",
            10,
            9,
            500,
            4000,
            0.45,
            0.80,
            0.25,
            0.05,
            0.50,
            0.10,
            0.20,
        ),
        _P(
            "H2",
            "Routed Tools",
            "routes to relevant tools; only moderate validation and retention",
            16,
            15,
            400,
            5000,
            0.90,
            0.25,
            0.35,
            0.06,
            0.40,
            0.08,
            0.08,
        ),
        _P(
            "H3",
            "Stateful Memory",
            "keeps compact memory of verified facts and failures; routing is average",
            16,
            15,
            400,
            4000,
            0.62,
            0.35,
            0.90,
            0.05,
            0.15,
            0.05,
            0.08,
        ),
        _P(
            "H4",
            "High Budget Noisy",
            "spends far more raw budget with weak routing, checks and memory and a noisy channel",
            40,
            36,
            1100,
            20000,
            0.40,
            0.25,
            0.30,
            0.10,
            0.45,
            0.35,
            0.20,
        ),
        _P(
            "H5",
            "Closed Loop",
            "routing, verification and structured memory in an iterative loop",
            22,
            20,
            350,
            6000,
            0.85,
            0.80,
            0.85,
            0.04,
            0.15,
            0.05,
            0.05,
        ),
        _P(
            "H6",
            "Deep Closed Loop",
            "a deeper closed loop with stronger checks, routing and memory and less noise",
            34,
            32,
            380,
            7000,
            0.93,
            0.92,
            0.95,
            0.02,
            0.08,
            0.03,
            0.04,
        ),
    )
}

HARNESS_NAMES: tuple[str, ...] = tuple(PRESETS)


@dataclass(frozen=True, slots=True)
class ModelPreset:
    """A simulated model: how much of each turn it wastes."""

    name: str
    intent: str
    #: chance a tool call is malformed (rejected by the harness, no feedback)
    malformed: float
    #: multiplies the harness's reflection chance
    reflect: float
    #: multiplies the harness's redundancy chance
    redundancy: float
    #: multiplies tokens written per turn
    verbosity: float


MODELS: dict[str, ModelPreset] = {
    m.name: m
    for m in (
        ModelPreset(
            "sim-small",
            "a weak model: frequent malformed calls, loops and musing",
            0.25,
            2.0,
            2.5,
            1.4,
        ),
        ModelPreset("sim-base", "a middling model", 0.06, 1.0, 1.0, 1.0),
        ModelPreset(
            "sim-large",
            "a strong model: rare malformed calls, little repetition",
            0.01,
            0.6,
            0.5,
            0.9,
        ),
    )
}
MODEL_NAMES: tuple[str, ...] = tuple(MODELS)
#: the model of a corpus when none is asked for (one model keeps corpora small)
DEFAULT_MODEL = "sim-base"


def get_harness(name: str) -> HarnessPreset:
    try:
        return PRESETS[name.upper()]
    except KeyError:
        raise InputError(f"unknown harness {name!r}; presets: {', '.join(PRESETS)}") from None


def get_model(name: str) -> ModelPreset:
    try:
        return MODELS[name]
    except KeyError:
        raise InputError(f"unknown model {name!r}; models: {', '.join(MODELS)}") from None
