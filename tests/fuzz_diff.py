"""Differential fuzzing of the compiled path (efc_tui/_speedups.c, and the native reader's
schema path) against the pure-Python path (and the native reader's dict path): mutated real and generated logs go through both, and anything but the same result
(the same runs to the last bit, or the same one-line error) is a finding, as is any
exception that is not the project's own (a crash).

Two depths, per input:

- ``native``: the native reader only (``native.read``: the schema path, msgspec Structs,
  against orjson's dicts and ``step_to_event``), comparing ``repr`` of the runs read: every
  field of every event, warnings and flags. Cheap: the volume run.
- ``full``: any reader (the seed's), then scoring and the adapter (the C feature, gate,
  cost, streak and decide passes), comparing every figure, column and decision
  (``tests.reference_ledgers.snapshot``).

Used briefly by tests/compiled/test_fuzz_diff.py and at length by bench/fuzz_bench.py. Seeds: the
repository's fixtures and samples, ../shared/fixtures/real and ../shared/repro when present,
and traces from tests/tracegen.py.
"""

from __future__ import annotations

import os
import random
import re
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from efc_tui import _fast
from efc_tui.errors import EfcError
from efc_tui.parsers import detect, get_reader
from efc_tui.parsers.base import ReadOptions
from tests.conftest import FIXTURES, REPO, SHARED
from tests.helpers import dict_path

#: seeds larger than this are left out (a mutation of a large file mostly re-reads the same)
SEED_BYTES = 256 * 1024

INTERESTING_NUMBERS = [
    "0",
    "-1",
    "-0.0",
    "1e-320",
    "0.5",
    "4294967296",
    "9007199254740991",
    "9007199254740992",
    "9007199254740993",
    "9007199254740992.0",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "123456789012345678901234567890",
    "1e18",
    "9.0e18",
    "1e300",
    "1.7976931348623157e308",
    "1e309",
    "-9223372036854775808",
    "4503599627370496.5",
]
INTERESTING_TEXT = [
    '"\\u0000"',
    '"\\ud800"',
    '"\\udc00\\ud800"',
    '"\\u2028\\u0085\\u001c"',
    '"\\u001b[2J"',
    '"1 passed, 9007199254740993 failed in 1s"',
    '"Ran 99999999999999999999 tests\\n\\nFAILED (failures=3)"',
    '"Traceback (most recent call last):\\nValueError: x"',
    '"=== 3 failed, 2 passed in 0.1s ==="',
    '""',
    "true",
    "false",
    "null",
    "[]",
    "{}",
    '{"passed": 1, "failed": 9007199254740992, "total": 2}',
    '"' + "a" * 5000 + '"',
]
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _deep(levels: int, rng: random.Random) -> str:
    opener, closer = rng.choice([("[", "]"), ('{"k":', "}")])
    return opener * levels + "0" + closer * levels


@dataclass(slots=True)
class Seed:
    name: str
    data: bytes
    reader: str
    suffix: str


@dataclass(slots=True)
class Finding:
    kind: str  # "crash" or "difference"
    seed: str
    reader: str
    data: bytes
    detail: str


@dataclass(slots=True)
class Tally:
    inputs: int = 0
    by_reader: dict[str, int] = field(default_factory=dict)
    crashes: list[Finding] = field(default_factory=list)
    differences: list[Finding] = field(default_factory=list)
    errors: int = 0  # inputs both paths rejected with the same error (fine)
    slowest: float = 0.0
    slowest_seed: str = ""


def seeds(*, shared: bool = True, generated: int = 6) -> list[Seed]:
    """Every readable trace file of the repository (and ../shared when ``shared``), with
    the reader that detects it, plus ``generated`` tracegen traces."""
    from efc_tui.parsers import expand_paths
    from tests import tracegen

    roots = [FIXTURES, REPO / "sample_traces", REPO / "tests" / "repro"]
    if shared:
        roots += [SHARED / "fixtures" / "real", SHARED / "repro"]
    out: list[Seed] = []
    seen: set[bytes] = set()
    for root in roots:
        if not root.is_dir():
            continue
        paths = expand_paths([root]) + sorted(root.glob("*.jsonl")) + sorted(root.glob("*.traj"))
        for p in paths:
            if "reference" in p.parts or p.name.endswith(".gz") or not p.is_file():
                continue
            data = p.read_bytes()
            if len(data) > SEED_BYTES or data in seen:
                continue
            try:
                reader = detect(p).name
            except EfcError:
                continue
            seen.add(data)
            out.append(Seed(str(p.relative_to(root.parent)), data, reader, _suffix(p)))
    for k in range(generated):
        steps = tracegen.steps(30 + 20 * k, seed=100 + k)
        header = {"type": "run", "schema": "efc-trace/1", "run_id": f"gen{k}"}
        data = b"".join(orjson.dumps(x) + b"\n" for x in [header, *steps])
        out.append(Seed(f"tracegen-{k}", data, "native", ".jsonl"))
    return out


def _suffix(p: Path) -> str:
    name = p.name
    for suf in (".traj.json", ".jsonl", ".json", ".traj", ".txt", ".log"):
        if name.endswith(suf):
            return suf
    return p.suffix or ".jsonl"


# -- mutations --------------------------------------------------------------------------------


def _json_mutation(data: bytes, rng: random.Random) -> bytes:
    """Replace a value inside one JSON line (or the whole document) with an interesting one."""
    lines = data.split(b"\n")
    k = rng.randrange(len(lines))
    try:
        obj = orjson.loads(lines[k])
    except orjson.JSONDecodeError:
        return data
    if not isinstance(obj, dict | list):
        return data
    parent: Any = obj
    for _ in range(rng.randrange(1, 6)):
        keys = list(parent) if isinstance(parent, dict) else list(range(len(parent)))
        if not keys:
            break
        key = rng.choice(keys)
        child = parent[key]
        if isinstance(child, dict | list) and child and rng.random() < 0.7:
            parent = child
            continue
        break
    else:
        key = None
    keys = list(parent) if isinstance(parent, dict) else list(range(len(parent)))
    if not keys:
        return data
    key = rng.choice(keys)
    choice = rng.random()
    if choice < 0.45:
        new = rng.choice(INTERESTING_NUMBERS).encode()
    elif choice < 0.8:
        new = rng.choice(INTERESTING_TEXT).encode()
    else:
        new = _deep(rng.choice([3, 200, 238, 239, 240, 241, 300, 1000]), rng).encode()
    marker = "\x00FUZZ\x00"
    parent[key] = marker
    try:
        text = orjson.dumps(obj).replace(orjson.dumps(marker), new)
    except TypeError:  # nested past what orjson writes (an earlier mutation): leave it
        return data
    lines[k] = text
    return b"\n".join(lines)


def window(seed: Seed, rng: random.Random, lines: int = 12) -> bytes:
    """A JSONL seed's first line (the header) and a random run of ``lines`` lines: a large
    log costs its size at every input, and its lines are alike."""
    if seed.suffix != ".jsonl" or len(seed.data) <= 8 * 1024:
        return seed.data
    all_lines = seed.data.split(b"\n")
    k = rng.randrange(1, max(2, len(all_lines) - lines))
    return b"\n".join([all_lines[0], *all_lines[k : k + lines]]) + b"\n"


def mutate(data: bytes, rng: random.Random, others: list[Seed]) -> bytes:
    """One to three random mutations of ``data``."""
    for _ in range(rng.randint(1, 3)):
        if not data:
            data = b"{}\n"
        op = rng.random()
        n = len(data)
        i = rng.randrange(n)
        if op < 0.3:
            data = _json_mutation(data, rng)
        elif op < 0.45:  # a number replaced (the first after a random place)
            m = _NUMBER.search(data, i) or _NUMBER.search(data)
            if m:
                data = (
                    data[: m.start()] + rng.choice(INTERESTING_NUMBERS).encode() + data[m.end() :]
                )
        elif op < 0.55:  # bytes flipped
            b = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(n)] = rng.choice(b'{}[]",:\\\n \x00\xff\xc3u0123456789')
            data = bytes(b)
        elif op < 0.62:  # a span deleted
            data = data[:i] + data[i + rng.randint(1, 64) :]
        elif op < 0.7:  # a line duplicated or dropped
            lines = data.split(b"\n")
            k = rng.randrange(len(lines))
            if rng.random() < 0.5:
                lines.insert(k, lines[k])
            else:
                del lines[k]
            data = b"\n".join(lines)
        elif op < 0.78:  # lines of another seed spliced in
            other = rng.choice(others).data.split(b"\n")
            j = rng.randrange(len(other))
            piece = b"\n".join(other[j : j + rng.randint(1, 4)])
            cut = data.rfind(b"\n", 0, i) + 1
            data = data[:cut] + piece + b"\n" + data[cut:]
        elif op < 0.86:  # an interesting token at a random place
            token = rng.choice(INTERESTING_NUMBERS + INTERESTING_TEXT).encode()
            data = data[:i] + token + data[i:]
        elif op < 0.92:  # cut short
            data = data[:i]
        else:  # a long line
            data = data[:i] + b"x" * rng.choice([1, 4095, 4096, 65536]) + data[i:]
    return data


# -- the differential check --------------------------------------------------------------------


def _result(path: Path, reader: str, full: bool, lenient: bool) -> str:
    try:
        runs = list(get_reader(reader).read(path, ReadOptions(lenient=lenient)))
        if not full:
            return repr(runs)
        from efc_tui.adapter import score_and_decide
        from tests.reference_ledgers import snapshot

        return repr([snapshot(score_and_decide(run)) for run in runs])
    except EfcError as exc:
        return f"error: {exc}"
    except RecursionError:
        return "CRASH: RecursionError\n" + traceback.format_exc(limit=-4)
    except Exception:
        return "CRASH: " + traceback.format_exc(limit=-6)


def check(
    data: bytes, reader: str, suffix: str, folder: Path, *, full: bool, lenient: bool = False
) -> tuple[str | None, str]:
    """Both paths on one input: (None or "crash"/"difference", detail)."""
    path = folder / f"input{suffix}"
    path.write_bytes(data)
    compiled = _result(path, reader, full, lenient)
    with _fast.pure_python(), dict_path():
        pure = _result(path, reader, full, lenient)
    if compiled.startswith("CRASH") or pure.startswith("CRASH"):
        return "crash", compiled if compiled.startswith("CRASH") else pure
    if compiled != pure:
        k = next((i for i, (a, b) in enumerate(zip(compiled, pure, strict=False)) if a != b), 0)
        return (
            "difference",
            f"compiled …{compiled[max(0, k - 80) : k + 80]}… pure …{pure[max(0, k - 80) : k + 80]}…",
        )
    return None, compiled


def run(
    seed_list: list[Seed],
    *,
    inputs: int | None = None,
    seconds: float | None = None,
    full_every: int = 10,
    rng_seed: int = 0,
    on_finding: Callable[[Finding], None] | None = None,
    progress: Callable[[Tally], None] | None = None,
) -> Tally:
    """Mutate seeds and check both paths until ``inputs`` inputs or ``seconds`` seconds.
    Native seeds go through the native-only check, and every ``full_every``-th input (of
    any reader) through the full one."""
    rng = random.Random(rng_seed)
    tally = Tally()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="efc-fuzz-", dir=_scratch()) as tmp:
        folder = Path(tmp)
        while True:
            if inputs is not None and tally.inputs >= inputs:
                break
            if seconds is not None and time.monotonic() - start >= seconds:
                break
            seed = rng.choice(seed_list)
            data = mutate(window(seed, rng), rng, seed_list)
            full = seed.reader != "native" or tally.inputs % full_every == 0
            depth = "full" if full else "native"
            t0 = time.monotonic()
            kind, detail = check(
                data, seed.reader, seed.suffix, folder, full=full, lenient=rng.random() < 0.3
            )
            took = time.monotonic() - t0
            if took > tally.slowest:
                tally.slowest, tally.slowest_seed = took, seed.name
            tally.inputs += 1
            key = f"{seed.reader}/{depth}"
            tally.by_reader[key] = tally.by_reader.get(key, 0) + 1
            if kind is None:
                tally.errors += detail.startswith("error: ")
                if progress is not None and tally.inputs % 1000 == 0:
                    progress(tally)
                continue
            finding = Finding(kind, seed.name, seed.reader, data, detail)
            (tally.crashes if kind == "crash" else tally.differences).append(finding)
            if on_finding is not None:
                on_finding(finding)
    return tally


def _scratch() -> str | None:
    """A RAM-backed folder for the inputs when there is one."""
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def findings_of(tally: Tally) -> Iterator[Finding]:
    yield from tally.crashes
    yield from tally.differences
