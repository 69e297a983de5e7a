"""mini-swe-agent: a ``DefaultAgent`` that stops a loop the EFC-Adapter names (docs/live.md).

    from minisweagent.agents.default import DefaultAgent
    from efc_tui.adapter.integrations.mini_swe_agent import monitored

    Agent = monitored(DefaultAgent)          # or: from ... import EfcAgent (imports mini)
    agent = Agent(model, env, **config, efc_options={"max_usd": 2.0})
    agent.run(task)   # ends with exit_status "EfcAdapterStop" when a rule acts

After each step (the model's response and the observations of its actions) the agent's
messages are read as the mini-swe-agent reader reads a saved trajectory, the new events are
decided by a ``live.Monitor``, and a verdict that acts raises mini-swe-agent's own
``LimitsExceeded`` with an ``exit`` message: the agent's ``run`` loop records it and ends,
the trajectory is saved as usual. The interface is mini-swe-agent 2.x's (``step`` /
``query`` / ``execute_actions``, ``LimitsExceeded(*messages)``, messages with ``extra``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: the ``exit_status`` of a run the adapter ended
EXIT_STATUS = "EfcAdapterStop"


def monitored(base: type, limits_exceeded: type[Exception] | None = None) -> type:
    """A subclass of mini-swe-agent's ``base`` agent class that stops when the EFC-Adapter
    acts. ``limits_exceeded``: the exception class to raise (default: mini-swe-agent's)."""
    if limits_exceeded is None:
        from minisweagent.exceptions import LimitsExceeded

        limits_exceeded = LimitsExceeded
    stop_class: Any = limits_exceeded

    class EfcMonitored(base):
        """``base`` with the EFC-Adapter's live stop (efc_tui.adapter.integrations)."""

        def __init__(self, *args: Any, efc_options: dict[str, Any] | None = None, **kwargs: Any):
            super().__init__(*args, **kwargs)
            from efc_tui.adapter.live import Budgets, Monitor

            opts = dict(efc_options or {})
            budgets = Budgets(
                opts.pop("max_usd", None), opts.pop("max_tokens", None), opts.pop("max_steps", None)
            )
            self.efc_monitor = Monitor(budgets=budgets, **opts)
            self.efc_verdicts: list[Any] = []

        def step(self) -> Any:
            out = super().step()
            self.efc_check()
            return out

        def efc_check(self) -> None:
            """Decide the events the messages hold so far; raise on a verdict that acts."""
            from efc_tui.adapter.live import complete_events
            from efc_tui.parsers.mini_swe_agent import convert

            doc = {"messages": self.messages, "trajectory_format": "mini-swe-agent-1.1"}
            run = convert(doc, Path("live.traj.json"))
            upto = complete_events(run, hold_last=False, wait_for_usage=False)
            verdicts = self.efc_monitor.sync(run, upto)
            self.efc_verdicts.extend(verdicts)
            for v in verdicts:
                if v.act:
                    raise stop_class(
                        {
                            "role": "exit",
                            "content": v.reason,
                            "extra": {
                                "exit_status": EXIT_STATUS,
                                "submission": "",
                                "efc": v.as_dict(),
                            },
                        }
                    )

    EfcMonitored.__name__ = f"EfcMonitored{base.__name__}"
    return EfcMonitored


def __getattr__(name: str) -> Any:
    if name == "EfcAgent":  # mini-swe-agent's DefaultAgent, monitored
        from minisweagent.agents.default import DefaultAgent

        value = monitored(DefaultAgent)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
