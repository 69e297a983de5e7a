"""The live EFC-Adapter in existing harnesses (docs/live.md).

- ``hook``: the command-hook contract of Claude Code and Codex CLI (``efc-tui hook``);
- ``settings``: writing and removing that hook in their settings files;
- ``inspect_ai``: an Inspect AI ``Hooks`` subclass that ends a looping sample;
- ``mini_swe_agent``: a mini-swe-agent ``DefaultAgent`` subclass that ends a looping run.

The last two import their harness only when used.
"""
