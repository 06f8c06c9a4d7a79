#!/usr/bin/env python3
"""Clang's thread-safety analysis over the engine's sources, as errors.

The engine marks shared fields SMR_GUARDED_BY(mu) and lock-holding functions SMR_REQUIRES(mu)
(src/os/smrstore/common/thread_annotations.h). GCC, which builds the engine, ignores those
annotations; this check has Debian's clang++ (installed by scripts/install-deps.sh build)
parse every engine source with the exact flags of the build's compile_commands.json and
-Wthread-safety -Werror=thread-safety: a guarded field touched without its lock (a lock
removed by a refactor, a new counter bumped outside it) fails `make test`.

    qa/static/thread_safety.py BUILD_DIR [SOURCE_SUBSTRING ...]

Only syntax and analysis, no code generation (~30 s for the engine on 2 cores). With
substrings, only the sources whose path contains one of them are checked (qa/mutate uses
that for one mutated file). Exit status: 0 clean, 1 a thread-safety diagnostic (printed),
2 could not run (no compile_commands.json, no clang++).
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Sequence, Tuple

ENGINE = "/src/os/smrstore/"
FLAGS = ["-fsyntax-only", "-Wthread-safety", "-Werror=thread-safety"]


def clang_command(entry: dict, clang: str) -> List[str]:
    """The build's compile command for one source, turned into a clang syntax-only check."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out: List[str] = []
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a in ("-c", entry["file"]):
            continue
        out.append(a)
    return [clang, *FLAGS, *out, entry["file"]]


def engine_sources(entries: Sequence[dict], only: Sequence[str]) -> List[dict]:
    seen = set()
    chosen = []
    for e in entries:
        f = e["file"]
        if ENGINE not in f or f.endswith("_test.cc") or "/testing/" in f or "/fuzz/" in f:
            continue
        if only and not any(s in f for s in only):
            continue
        if f in seen:  # a source compiled into two targets: one check is enough
            continue
        seen.add(f)
        chosen.append(e)
    return chosen


def check(entry: dict, clang: str) -> Tuple[str, int, str]:
    r = subprocess.run(clang_command(entry, clang), cwd=entry["directory"],
                       capture_output=True, text=True)
    lines = [l for l in r.stderr.splitlines() if "thread-safety" in l]
    return entry["file"], r.returncode, "\n".join(lines) if lines else r.stderr


def main(argv: Sequence[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    db = Path(argv[1]) / "compile_commands.json"
    if not db.is_file():
        print(f"thread-safety: {db} not found (configure the build first)", file=sys.stderr)
        return 2
    clang = shutil.which("clang++")
    if not clang:
        print("thread-safety: clang++ not found (scripts/install-deps.sh build installs it)",
              file=sys.stderr)
        return 2
    sources = engine_sources(json.loads(db.read_text()), argv[2:])
    if not sources:
        print(f"thread-safety: no engine source matches {list(argv[2:])}", file=sys.stderr)
        return 2
    failed = 0
    jobs = int(os.environ.get("JOBS", "2"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for path, rc, diag in pool.map(lambda e: check(e, clang), sources):
            if rc != 0:
                failed += 1
                print(f"thread-safety: FAIL {path}\n{diag}")
    print(f"thread-safety: {len(sources)} engine sources checked, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
