"""The shortcuts of the chat-message walk, the kind rules and the drafts' last pass give the
same messages and events.

``chat_message`` returns a message of a role and a text alone without looking for its other
fields, ``finalize`` builds each Event from positional values (``_drafts.EVENT_FIELDS``),
and ``infer_kind`` keeps the kind of a tool and command it has seen
(``_commands._kind_of``): these tests hold each to what it stands for.
"""

from __future__ import annotations

import msgspec

from efc_tui.model import Event, EventKind, Status
from efc_tui.parsers._commands import _kind_of, infer_kind
from efc_tui.parsers._drafts import EVENT_FIELDS, Draft, finalize
from efc_tui.parsers._msg import Msg, chat_message


def test_event_fields_are_in_the_order_finalize_passes_them() -> None:
    assert Event.__struct_fields__ == EVENT_FIELDS


def test_each_draft_value_lands_in_its_event_field() -> None:
    drafts = [
        Draft(
            tool="bash",
            action="sed -i s/a/b/ f.py",
            observation="done",
            is_error=True,
            step=3,
            is_call=True,
            has_result=True,
            model_call=True,
            t_start=10.0,
            t_end=12.5,
            tokens_in=100,
            tokens_out=7,
            plan=None,
            truncated=True,
            extra={"tool_call_id": "c1"},
        ),
        Draft(
            kind=EventKind.MESSAGE,
            observation="thanks",
            step=4,
            t_start=13.0,
            t_end=13.0,
            idle=True,
            extra={"role": "user"},
        ),
    ]
    events = finalize(drafts).events
    first, second = (msgspec.structs.asdict(e) for e in events)
    assert first == {
        "index": 0,
        "step": 3,
        "kind": EventKind.GENERATION,
        "tool": "bash",
        "status": Status.RUNTIME_ERROR,
        "action_text": "sed -i s/a/b/ f.py",
        "observation_text": "done",
        "tokens_in": 100,
        "tokens_out": 7,
        "tool_calls": 1,
        "wall_s": 2.5,
        "ops": 2,
        "refs": (),
        "checks": None,
        "memory_write": None,
        "plan": None,
        "truncated": True,
        "timestamp": 10.0,
        "oracle": None,
        "flags": ("kind", "status"),
        "extra": {"tool_call_id": "c1"},
    }
    assert second["index"] == 1 and second["kind"] is EventKind.MESSAGE
    assert second["observation_text"] == "thanks" and second["timestamp"] == 13.0
    assert second["tool_calls"] == 0 and second["ops"] == 0 and second["wall_s"] == 0.0
    assert second["extra"] == {"role": "user"} and second["flags"] == ()


def test_a_kept_kind_depends_on_the_failure_before_it() -> None:
    _kind_of.cache_clear()
    assert infer_kind("str_replace_editor", '{"command": "create"}') is EventKind.GENERATION
    # the same call after a failure is a repair: the flag is part of what is kept
    assert (
        infer_kind("str_replace_editor", '{"command": "create"}', after_failure=True)
        is EventKind.REPAIR
    )
    assert infer_kind("str_replace_editor", '{"command": "create"}') is EventKind.GENERATION
    assert _kind_of.cache_info().hits == 1


def test_a_kept_kind_reads_only_the_first_4000_characters() -> None:
    head = "ls " + "x" * 3997
    assert infer_kind("bash", head) is EventKind.TOOL
    # past the 4,000th character a write does not make the call an edit, kept or not
    assert infer_kind("bash", head + " && sed -i s/a/b/ f") is EventKind.TOOL
    assert infer_kind("bash", "sed -i s/a/b/ f && " + head) is EventKind.GENERATION


def test_a_bare_message_reads_as_the_full_walk_would() -> None:
    # a role and a text alone: the message's text, nothing else
    assert chat_message({"role": "user", "content": "hi"}) == Msg("user", "hi")
    # ... except a tool's answer, which is a result even with nothing else beside it
    tool = chat_message({"role": "tool", "content": "42"})
    assert tool is not None and tool.text == "" and [r.text for r in tool.results] == ["42"]
    fn = chat_message({"role": "function", "content": "ok"})
    assert fn is not None and fn.text == "" and [r.text for r in fn.results] == ["ok"]
    # a third field is read: an id, reasoning
    assert chat_message({"role": "assistant", "content": "a", "id": 7}) == Msg(
        "assistant", "a", id="7"
    )
    reasoned = chat_message({"role": "assistant", "content": "a", "reasoning": "r"})
    assert reasoned is not None and reasoned.reasoning == "r"
    # a role given as "type" is not a bare message's
    typed = chat_message({"type": "tool", "content": "x"})
    assert typed is not None and typed.role == "tool" and typed.results[0].text == "x"
