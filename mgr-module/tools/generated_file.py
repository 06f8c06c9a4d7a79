"""The write-or---check entry point the generators in this folder share.

    write_or_check(argv, out, want, usage, generator) -> exit status

No arguments: writes `want` to `out` (0). `--check`: 0 when `out` holds exactly `want`,
else prints the diff and which generator to run (1). Anything else: prints `usage` (2).
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path
from typing import List


def write_or_check(argv: List[str], out: Path, want: str, usage: str, generator: str) -> int:
    if argv[1:] == ["--check"]:
        have = out.read_text(encoding="utf-8") if out.is_file() else ""
        if have == want:
            return 0
        sys.stdout.writelines(difflib.unified_diff(
            have.splitlines(True), want.splitlines(True), str(out), "generated"))
        print(f"{out} is stale: run {generator}", file=sys.stderr)
        return 1
    if argv[1:]:
        print(usage, file=sys.stderr)
        return 2
    out.write_text(want, encoding="utf-8")
    return 0
