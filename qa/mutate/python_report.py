#!/usr/bin/python3
"""The report of qa/mutate/python.sh: counts and mutation score per file from
``mutmut results --all true``, then every mutant not killed as ``file:line`` with the
original and the mutated line(s).

usage: python_report.py WORK RESULTS DOC ELAPSED FILE...

WORK is the directory mutmut ran in (its ``mutants/`` holds the trampolined copies: every
mutant is a function ``x_<f>__mutmut_<n>`` / ``xǁ<Class>ǁ<f>__mutmut_<n>`` next to the
original ``..._orig``), RESULTS the output of ``mutmut results --all true``, DOC
doc/testing.md, whose section "Mutation testing: mgr module (mutmut)" lists the equivalent
mutants by name (`smrstore.x.x_f__mutmut_3`).

Score = (killed + timeout) / (tried - equivalent), as mutmut's own score counts a timeout as
a kill (the tests noticed).
"""

import ast
import difflib
import os
import re
import sys
from collections import Counter, defaultdict
from typing import Dict, List, Optional, Set, Tuple

NOT_KILLED = ("survived", "suspicious", "no tests", "not checked", "segfault", "skipped")
SECTION = "## Mutation testing: mgr module (mutmut)"


def equivalent_names(doc: str) -> Set[str]:
    try:
        text = open(doc, encoding="utf-8").read()
    except OSError:
        return set()
    start = text.find(SECTION)
    if start < 0:
        return set()
    end = text.find("\n## ", start + len(SECTION))
    body = text[start:end if end >= 0 else len(text)]
    return set(re.findall(r"`(smrstore\.[^`\s]+__mutmut_\d+)`", body))


def functions(path: str) -> Dict[str, ast.AST]:
    """Mangled name -> FunctionDef, as mutmut names them (x_f, xǁClassǁf)."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    out: Dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[f"{node.name}.{sub.name}"] = sub
                    out[sub.name] = out.get(sub.name, sub)
    return out


def where(work: str, name: str) -> Tuple[str, Optional[int], List[str], List[str]]:
    """(file, line in the original file, original lines, mutated lines) of one mutant."""
    module, _, func = name.rpartition(".")
    if "ǁ" in func:                   # xǁClassǁmethod__mutmut_N
        mangled = func.rsplit("__mutmut_", 1)[0]
        cls, meth = mangled.split("ǁ")[1:3]
        original = f"{cls}.{meth}"
    else:                             # x_func__mutmut_N
        mangled, original = func.rsplit("__mutmut_", 1)[0], func[2:].rsplit("__mutmut_", 1)[0]
    rel = module.replace(".", "/") + ".py"
    src_path, mut_path = os.path.join(work, rel), os.path.join(work, "mutants", rel)
    try:
        src = open(mut_path, encoding="utf-8").read()
        fns = functions(mut_path)
        orig_fn, mut_fn = fns.get(mangled + "__mutmut_orig"), fns.get(func)
        if orig_fn is None or mut_fn is None:
            return rel, None, [], []
        a = (ast.get_source_segment(src, orig_fn) or "").splitlines()
        b = (ast.get_source_segment(src, mut_fn) or "").splitlines()
        first = functions(src_path).get(original)
        base = first.lineno if first is not None else None    # type: ignore[attr-defined]
    except (OSError, SyntaxError):
        return rel, None, [], []
    if b:      # the def line differs by the function's name only
        b[0] = b[0].replace(func, mangled + "__mutmut_orig", 1)
    old: List[str] = []
    new: List[str] = []
    line: Optional[int] = None
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if line is None and base is not None:
            line = base + i1          # a[0] is the def line, at base
        plain = original.rpartition(".")[2]
        old += [x.strip().replace(mangled + "__mutmut_orig", plain, 1) for x in a[i1:i2]]
        new += [x.strip().replace(mangled + "__mutmut_orig", plain, 1) for x in b[j1:j2]]
    return rel, line, old, new


def main() -> int:
    work, results, doc, elapsed = sys.argv[1:5]
    files = sys.argv[5:]
    equivalent = equivalent_names(doc)
    by_file: Dict[str, Counter] = defaultdict(Counter)
    not_killed: List[Tuple[str, str]] = []
    for raw in open(results, encoding="utf-8"):
        raw = raw.strip()
        if ": " not in raw:
            continue
        name, status = raw.rsplit(": ", 1)
        rel = name.rpartition(".")[0].replace(".", "/") + ".py"
        if status == "survived" and name in equivalent:
            status = "equivalent"
        if status == "caught by type check":
            status = "killed"
        by_file[rel if rel in files else "(other)"][status] += 1
        if status in NOT_KILLED:
            not_killed.append((name, status))

    cols = ["tried", "killed", "timeout", "survived", "equivalent", "suspicious", "no tests",
            "other", "score"]
    print(f"mutmut on mgr-module ({elapsed} s); score = (killed + timeout) / (tried - equivalent)")
    print(f"{'file':26}" + "".join(f"{c:>11}" for c in cols))

    def row(label: str, c: Counter) -> None:
        tried = sum(c.values())
        named = ("killed", "timeout", "survived", "equivalent", "suspicious", "no tests")
        other = tried - sum(c[k] for k in named)
        denom = tried - c["equivalent"]
        score = f"{100.0 * (c['killed'] + c['timeout']) / denom:.1f}%" if denom else "-"
        vals = [tried, c["killed"], c["timeout"], c["survived"], c["equivalent"],
                c["suspicious"], c["no tests"], other, score]
        print(f"{label:26}" + "".join(f"{v:>11}" for v in vals))

    total: Counter = Counter()
    for f in files + (["(other)"] if "(other)" in by_file else []):
        row(f, by_file[f])
        total.update(by_file[f])
    row("overall", total)
    print()
    print(f"{len(not_killed)} mutants not killed (and not listed as equivalent in {doc}):")
    for name, status in not_killed:
        rel, line, old, new = where(work, name)
        print(f"  {rel}:{line if line is not None else '?'}  {name}: {status}")
        for x in old:
            print(f"      - {x}")
        for x in new:
            print(f"      + {x}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
