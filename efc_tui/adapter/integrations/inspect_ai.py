"""Inspect AI: a ``Hooks`` subclass that ends a sample when the EFC-Adapter acts
(docs/live.md).

    # in a module your eval imports (or an entry point of type inspect_ai):
    from efc_tui.adapter.integrations.inspect_ai import register
    register(max_usd=2.0)                  # @hooks(name="efc_adapter", ...) on EfcHooks

``on_sample_event`` sees every completed event of a sample (``SampleEvent.event``; pending
model and tool events are not sent until complete). Each one is appended to the sample's
events, which are read as efc-tui's Inspect reader reads a sample of a saved log, and the
new events are decided by a ``live.Monitor``. A verdict that acts ends the sample the way
Inspect's own limits do: ``LimitExceededError("custom", value=…, limit=…, message=reason)``
given to the active sample (``sample_active().limit_exceeded``); the sample is still
scored. Inspect runs hooks inside a try/except that logs and swallows what they raise, so
raising the error from the hook would not end anything; ``sample_active`` is private API
(``inspect_ai.log._samples``), the path other published hooks use too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

HOOK_NAME = "efc_adapter"


def _event_dict(event: Any) -> dict[str, Any]:
    if isinstance(event, dict):
        return event
    dump = getattr(event, "model_dump", None)
    if dump is None:
        raise TypeError(f"not an Inspect event: {type(event).__name__}")
    return dump(mode="json", exclude_none=True)


def monitored_hooks(
    base: type,
    limit_exceeded_error: Any,
    sample_active: Callable[[], Any],
    **options: Any,
) -> type:
    """A subclass of Inspect's ``Hooks`` (``base``) that ends a sample when a verdict acts.
    ``options``: ``Monitor`` options and the budgets ``max_usd``, ``max_tokens``,
    ``max_steps``."""

    class EfcHooks(base):
        """Inspect hooks running the EFC-Adapter live on every sample."""

        def __init__(self) -> None:
            super().__init__()
            self.samples: dict[tuple[Any, ...], tuple[list[dict[str, Any]], Any]] = {}
            #: every verdict, per sample key (eval_id, sample_id)
            self.verdicts: dict[tuple[Any, ...], list[Any]] = {}

        def _monitor(self) -> Any:
            from efc_tui.adapter.live import Budgets, Monitor

            opts = dict(options)
            budgets = Budgets(
                opts.pop("max_usd", None), opts.pop("max_tokens", None), opts.pop("max_steps", None)
            )
            return Monitor(budgets=budgets, **opts)

        async def on_sample_event(self, data: Any) -> None:
            from efc_tui.adapter.live import complete_events
            from efc_tui.parsers.inspect_ai import _sample_run

            key = (getattr(data, "eval_id", None), getattr(data, "sample_id", None))
            events, mon = self.samples.get(key) or ([], None)
            if mon is None:
                mon = self._monitor()
                self.samples[key] = (events, mon)
            events.append(_event_dict(data.event))
            header = {"eval": {"run_id": getattr(data, "run_id", None)}}
            run = _sample_run(header, {"id": key[1], "events": events}, Path("live.json"))
            upto = complete_events(run, hold_last=False, wait_for_usage=False)
            verdicts = mon.sync(run, upto)
            self.verdicts.setdefault(key, []).extend(verdicts)
            for v in verdicts:
                if v.act and mon.stopped is v:
                    self._end_sample(v)

        async def on_sample_end(self, data: Any) -> None:
            key = (getattr(data, "eval_id", None), getattr(data, "sample_id", None))
            self.samples.pop(key, None)

        def _end_sample(self, verdict: Any) -> None:
            error = limit_exceeded_error(
                "custom", value=verdict.index + 1, limit=verdict.index + 1, message=verdict.reason
            )
            active = sample_active()
            if active is None or not hasattr(active, "limit_exceeded"):
                raise error  # logged by Inspect; nothing else can end the sample here
            active.limit_exceeded(error)

    return EfcHooks


def register(**options: Any) -> type:
    """Build ``EfcHooks`` on the installed Inspect AI and register it as a hook."""
    from inspect_ai.hooks import Hooks, hooks
    from inspect_ai.log._samples import sample_active
    from inspect_ai.util import LimitExceededError

    cls = monitored_hooks(Hooks, LimitExceededError, sample_active, **options)
    return hooks(name=HOOK_NAME, description="EFC-Adapter: stop low-value loops live")(cls)
