#!/usr/bin/env python3
"""Every ctest entry carries exactly one tier label (qa/run.sh's tiers).

qa/run.sh runs ctest by label (`ctest -L '^unit$'` in the unit tier, `-L '^smoke$'` in the
smoke tier), so a test with no tier label, a misspelt one or two of them would silently run
in no tier or in two. This check lists every test of the build (`ctest --show-only=json-v1`,
which also runs the GoogleTest binaries' PRE_TEST discovery) and fails on any such test.

    qa/static/ctest_labels.py BUILD_DIR

Prints the count per tier. Exit status: 0 every test has one tier label, 1 some do not
(each named with its labels), 2 could not list the tests.
"""

from __future__ import annotations

import collections
import json
import subprocess
import sys

TIERS = ("unit", "smoke", "crash", "cluster", "vm", "long")


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: qa/static/ctest_labels.py BUILD_DIR", file=sys.stderr)
        return 2
    build = sys.argv[1]
    try:
        out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"ctest labels: cannot list the tests of {build}: {e}", file=sys.stderr)
        return 2
    tests = json.loads(out).get("tests", [])
    if not tests:
        print(f"ctest labels: no tests in {build} (configured with SMRSTORE_BUILD_TESTS=ON?)",
              file=sys.stderr)
        return 2
    per_tier: collections.Counter[str] = collections.Counter()
    bad = []
    for t in tests:
        labels: list[str] = []
        for p in t.get("properties", []):
            if p.get("name") == "LABELS":
                labels = list(p.get("value", []))
        tiers = [label for label in labels if label in TIERS]
        if len(tiers) != 1 or len(labels) != 1:
            bad.append((t["name"], labels))
        else:
            per_tier[tiers[0]] += 1
    for name, labels in bad:
        if name.endswith("_NOT_BUILT"):  # a GoogleTest binary not built: its tests are unknown
            print(f"ctest labels: {name[:-len('_NOT_BUILT')]} is not built, so its tests and "
                  "their labels are unknown (build first)")
            continue
        print(f"ctest labels: {name}: labels {labels or 'none'}; "
              f"needs exactly one of {', '.join(TIERS)}")
    print("ctest labels: " + ", ".join(f"{tier} {per_tier[tier]}" for tier in TIERS if per_tier[tier])
          + f"; {len(tests)} tests, {len(bad)} without exactly one tier label")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
