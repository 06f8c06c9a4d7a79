#!/usr/bin/env python3
"""The engine's longest functions: every function definition's length in lines.

    qa/static/function_lengths.py [--max N] [--root DIR]

Lists each function of the engine (src/os/smrstore, without tests, */testing/ and the Ceph
compatibility headers) longer than N lines (default 0: all), longest first, as
`LINES FILE:LINE NAME`. A function's length runs from the first line of its signature to its
closing brace; a lambda counts in the function that holds it. The reader is a brace matcher
over the source with comments and string literals blanked, not a C++ parser: it is meant for
code formatted as this tree is (clang-format, Google style).

Exit status: 0 none longer than N, 1 some (listed), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import List, Tuple, Union

SKIP_PARTS = ("/testing/", "/ceph_compat/")


def blank(src: str) -> str:
    """`src` with comments and string/char literals replaced by blanks, newlines kept."""
    keep_lines = lambda m: "\n" * m.group(0).count("\n")  # noqa: E731
    src = re.sub(r"//[^\n]*", "", src)
    src = re.sub(r"/\*.*?\*/", keep_lines, src, flags=re.S)
    src = re.sub(r'R"(\w*)\((.*?)\)\1"', lambda m: '""' + keep_lines(m), src, flags=re.S)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    src = re.sub(r"'(\\.|[^'\\\n])*'", "''", src)
    return src


Frame = Union[str, Tuple[str, int, str]]


def functions(path: Path) -> List[Tuple[int, int, str]]:
    """(length, first line, name) of each function defined at namespace scope in `path`."""
    s = blank(path.read_text())
    out: List[Tuple[int, int, str]] = []
    stack: List[Frame] = []
    stmt_start = 0
    line = 1
    for i, ch in enumerate(s):
        if ch == "\n":
            line += 1
        elif ch == "{":
            head = s[stmt_start:i]
            at_namespace_scope = all(f == "ns" for f in stack)
            if at_namespace_scope and re.search(r"\b(namespace|extern)\b", head):
                stack.append("ns")
            elif (at_namespace_scope and "(" in head
                  and not re.search(r"\b(struct|class|enum|union)\b[^(]*$", head)
                  and not head.rstrip().endswith("=")):
                names = re.findall(r"([A-Za-z_~][\w:~]*)\s*\(", head)
                first = stmt_start + len(head) - len(head.lstrip())
                stack.append(("fn", s.count("\n", 0, first) + 1, names[0] if names else "?"))
            else:
                stack.append("blk")
            stmt_start = i + 1
        elif ch == "}":
            frame = stack.pop() if stack else "blk"
            if isinstance(frame, tuple):
                out.append((line - frame[1] + 1, frame[1], frame[2]))
            stmt_start = i + 1
        elif ch == ";":
            stmt_start = i + 1
    return out


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max", type=int, default=0, help="list functions longer than this")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[2] / "src/os/smrstore"))
    args = ap.parse_args(argv)
    root = Path(args.root)
    if not root.is_dir():
        print(f"function_lengths: no such directory: {root}", file=sys.stderr)
        return 2
    found = []
    for p in sorted(root.rglob("*.cc")):
        if p.name.endswith("_test.cc") or any(part in str(p) for part in SKIP_PARTS):
            continue
        for length, first, name in functions(p):
            if length > args.max:
                found.append((length, f"{p.relative_to(root)}:{first}", name))
    for length, where, name in sorted(found, reverse=True):
        print(f"{length:5d} {where} {name}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
