"""When a numeric reward is a success: one rule for the sidecars, the labels file and
``--success-threshold`` (``outcomes.Outcomes``). A leaf: the light ``outcomes`` and the
sidecars machinery both read it, and neither imports the other to do so."""

from __future__ import annotations

#: a numeric reward is a success when it reaches this (``--success-threshold``)
DEFAULT_SUCCESS_THRESHOLD = 1.0


def reward_success(reward: float | None, threshold: float) -> bool | None:
    """Success of a numeric reward: it reaches the threshold (None for no reward)."""
    return None if reward is None else reward >= threshold


__all__ = ["DEFAULT_SUCCESS_THRESHOLD", "reward_success"]
