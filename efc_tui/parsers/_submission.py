"""The SWE-bench ``experiments`` repository's ``metadata.yaml``: the submission's name and
models, read by a small line reader (the two shapes the repository uses), not a YAML parser,
so reading an outcome needs no YAML dependency. Used by ``sidecars``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

_YAML_LINE = re.compile(
    r"^(?P<indent>\s*)(?:-\s+)?(?P<key>[A-Za-z_][\w-]*)\s*:\s*(?P<value>.*?)\s*$"
)
_YAML_ITEM = re.compile(r"^(?P<indent>\s*)-\s+(?P<value>[^:#]+?)\s*$")


def read_submission_yaml(path: Path) -> dict[str, Any]:
    """``name`` and ``tags.model`` of a SWE-bench ``experiments`` ``metadata.yaml``: a small
    line reader for the two shapes the repository uses, not a YAML parser."""
    try:
        if not path.is_file() or path.stat().st_size > 1 << 20:
            return {}
        text = path.read_text(errors="replace")
    except OSError:
        return {}
    out: dict[str, Any] = {}
    section: list[tuple[int, str]] = []
    models: list[str] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = _YAML_ITEM.match(line)
        if item and section and section[-1][1] == "model":
            models.append(item.group("value").strip("'\""))
            continue
        m = _YAML_LINE.match(line)
        if not m:
            continue
        indent = len(m.group("indent"))
        while section and section[-1][0] >= indent:
            section.pop()
        key, value = m.group("key"), m.group("value").strip().strip("'\"")
        path_keys = [k for _, k in section]
        if key == "name" and path_keys in ([], ["info"]) and value:
            out["name"] = value
        if key == "model" and path_keys == ["tags"] and value and not value.startswith("["):
            models.append(value)
        if key == "model" and path_keys == ["tags"] and value.startswith("["):
            models += [v.strip().strip("'\"") for v in value.strip("[]").split(",") if v.strip()]
        section.append((indent, key))
    if models:
        out["models"] = models
    return out
