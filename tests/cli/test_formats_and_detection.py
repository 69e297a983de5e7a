"""The Inspect / ATIF / OpenHands / OpenAI / Anthropic / OpenTelemetry / Gemini readers
through the CLI (`score`, `validate`, `formats`), and content-based detection of every
real sample file in ../shared/fixtures/real (all folders, other readers' too)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from efc_tui.cli import app
from efc_tui.parsers import READERS, detect, expand_paths
from tests.conftest import FIXTURES

runner = CliRunner()
MORE = FIXTURES / "more"

#: one real file per format of ours
ONE_PER_FORMAT = {
    "inspect-ai": "inspect-ai/log_message_deduplication.eval",
    "atif": "atif-harbor/terminus-2_hello-world-invalid-json.trajectory.json",
    "openhands": "openhands/harbor-rfc_openhands_trajectory.json",
    "openai-chat": "openai-chat/test_open_ai_function_calls_tools_streaming.response.sse.txt",
    "anthropic-messages": "anthropic-messages/test_anthropic_tools_history_legacy.request.json",
    "otel-genai": "otel-genai/vercel-ai-v6_ai-generateText-doGenerate.span.json",
    "gemini-cli": "gemini-cli/harbor-rfc_gemini-cli-session.json",
}

#: fixture folder -> the reader that must detect its files
FOLDER_FORMAT = {
    "inspect-ai": "inspect-ai",
    "atif-harbor": "atif",
    "openhands": "openhands",
    "openai-chat": "openai-chat",
    "anthropic-messages": "anthropic-messages",
    "otel-genai": "otel-genai",
    "gemini-cli": "gemini-cli",
    "mini-swe-agent": "mini-swe-agent",
    "swe-agent": "swe-agent",
    "claude-code": "claude-code",
    "codex-rollout": "codex",
}
#: files in the corpus that are not agent logs (a SWE-bench harness report)
NOT_A_TRACE = ("swebench_report.",)


@pytest.mark.parametrize("fmt", sorted(ONE_PER_FORMAT))
def test_score_and_validate_real_file(fmt: str, real_fixtures: Path) -> None:
    path = real_fixtures / ONE_PER_FORMAT[fmt]
    r = runner.invoke(app, ["score", str(path)])
    assert r.exit_code == 0, r.output
    assert fmt in r.stdout
    r = runner.invoke(app, ["score", "--json", str(path)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["validate", str(path)])
    assert r.exit_code == 0, r.output
    assert f"ok: {fmt}," in r.stdout


def test_validate_own_fixtures_and_bad_files() -> None:
    good = [
        p
        for p in expand_paths([MORE])
        if p.name not in ("empty.json", "garbled.eval", "result.json")
    ]
    r = runner.invoke(app, ["validate", *map(str, good)])
    assert r.exit_code == 0, r.output
    assert r.stdout.count(": ok: ") == len(good)
    for bad in ("empty.json", "garbled.eval"):
        r = runner.invoke(app, ["score", str(MORE / bad)])
        assert r.exit_code == 2
        assert bad in r.output


def test_formats_lists_our_readers() -> None:
    r = runner.invoke(app, ["formats"])
    assert r.exit_code == 0
    for name in ONE_PER_FORMAT:
        assert name in r.stdout


def test_every_real_file_is_detected_as_its_format(real_fixtures: Path) -> None:
    registered = {r.name for r in READERS}
    checked = 0
    for path in expand_paths([real_fixtures]):
        if path.name.startswith(NOT_A_TRACE):
            continue
        folder = path.relative_to(real_fixtures).parts[0]
        expected = FOLDER_FORMAT[folder]
        if expected not in registered:
            continue  # that reader is not written yet
        assert detect(path).name == expected, path
        checked += 1
    assert checked >= 21  # our 21 files at least
