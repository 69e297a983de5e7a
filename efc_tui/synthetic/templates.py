"""Templates of the three synthetic families (SPEC §7): a factorial design of task demand.

Twelve templates, four per family. Each template sets the five demand knobs of
``tasks.py`` (facts L, plausible tools P, state-loss hazard h, confirmations N_obs, exposed
share V_ver) and the number of irrelevant distractor tools at a low or a high level. The
levels follow the first six columns of the 12-run Plackett–Burman design, so across the
twelve templates every knob is high in six and low in six and no two knobs move together
(orthogonal columns): the fitted demand exponents are identifiable. Instances jitter L, h
and V_ver around their template's level.

| knob | low | high |
|---|---|---|
| L (facts) | 3–4 | 7–8 |
| P (plausible tools; H_tool = (P+1)/2) | 1 (1.0) | 3 (2.0) |
| h (state-loss hazard; S_state = 1/(1−h)) | 0 (1.0) | 0.4 (1.67) |
| N_obs (extra confirmations) | 0 | 1 |
| V_ver (exposed share) | 0 | 0.5 |
| distractor tools | 0–1 | 2–4 |

Calibration holds out whole templates (``DEFAULT_HOLDOUT``, one per family, chosen so the
held-out three still show every knob at both levels) and a share of task seeds; see
``efc_tui.scoring.calibrate``.
"""

from __future__ import annotations

from efc_tui.errors import InputError
from efc_tui.synthetic.families import FAMILIES, FAMILY_NAMES, NEEDLE, RULE, STATE, Family
from efc_tui.synthetic.tasks import Template

__all__ = [
    "DEFAULT_HOLDOUT",
    "FAMILIES",
    "FAMILY_NAMES",
    "PLACKETT_BURMAN",
    "TEMPLATES",
    "get_template",
    "templates_of",
]

#: the first six columns of the 12-run Plackett–Burman design (rows are templates)
PLACKETT_BURMAN: tuple[str, ...] = (
    "++-+++",
    "-++-++",
    "+-++-+",
    "-+-++-",
    "--+-++",
    "---+-+",
    "+---+-",
    "++---+",
    "+++---",
    "-+++--",
    "+-+++-",
    "------",
)

#: (low, high) level of every knob
FACTS = ((3, 4), (7, 8))
PLAUSIBLE = (1, 3)
HAZARD = (0.0, 0.4)
CONFIRM = (0, 1)
EXPOSED = (0.0, 0.5)
DISTRACTORS = ((0, 1), (2, 4))


def _template(family: Family, slot: int, row: str, intent: str) -> Template:
    hi = [int(c == "+") for c in row]
    return Template(
        name=f"{family.name.split('_')[0]}/{slot}",
        family=family.name,
        facts=FACTS[hi[0]],
        plausible=PLAUSIBLE[hi[1]],
        hazard=HAZARD[hi[2]],
        confirm=CONFIRM[hi[3]],
        exposed=EXPOSED[hi[4]],
        distractors=DISTRACTORS[hi[5]],
        intent=intent,
    )


def _describe(row: str) -> str:
    names = (
        "many facts",
        "ambiguous tools",
        "volatile state",
        "ambiguous readings",
        "an exposing checker",
        "many distractors",
    )
    high = [n for n, c in zip(names, row, strict=False) if c == "+"]
    return ", ".join(high) if high else "every knob low"


TEMPLATES: tuple[Template, ...] = tuple(
    _template(fam, slot, PLACKETT_BURMAN[4 * f + slot], _describe(PLACKETT_BURMAN[4 * f + slot]))
    for f, fam in enumerate((NEEDLE, STATE, RULE))
    for slot in range(4)
)
TEMPLATE_BY_NAME: dict[str, Template] = {t.name: t for t in TEMPLATES}

#: held-out templates of the default calibration split: one per family, together showing
#: every knob at both levels
DEFAULT_HOLDOUT: tuple[str, ...] = ("needle/1", "state/2", "rule/1")


def templates_of(family: str) -> tuple[Template, ...]:
    return tuple(t for t in TEMPLATES if t.family == family)


def get_template(name: str) -> Template:
    try:
        return TEMPLATE_BY_NAME[name]
    except KeyError:
        raise InputError(
            f"unknown template {name!r}; known: {', '.join(TEMPLATE_BY_NAME)}"
        ) from None
