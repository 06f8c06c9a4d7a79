#!/bin/bash
# Checks the Prometheus alert rules (alerts.yml) with Debian's promtool, in a few seconds:
#   1. every smrstore_* metric the rules and their tests name is one the mgr module renders
#      on /metrics (the names of mgr-module/smrstore/prometheus.py);
#   2. every alert has a unit test case where it fires and one where it does not;
#   3. promtool check rules alerts.yml (syntax, PromQL, templates);
#   4. promtool test rules alerts_test.yml (synthetic series, expected alerts, labels and
#      annotations at given times).
# Needs promtool (Debian package prometheus: scripts/install-deps.sh ceph). `make test-alerts`;
# part of `make test`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

if ! command -v promtool >/dev/null 2>&1; then
  echo "mgr-module/monitoring/check.sh: promtool missing; run scripts/install-deps.sh ceph" \
       "(Debian package prometheus)" >&2
  exit 1
fi
echo "== promtool: $(promtool --version 2>&1 | head -n1)"

echo "== metric names in alerts.yml and alerts_test.yml against mgr-module/smrstore/prometheus.py"
echo "== every alert has a firing and a non-firing test case"
PYTHONPATH="$here/.." /usr/bin/python3 - <<'EOF'
import re
import sys

import yaml

from smrstore.prometheus import _META   # the names render() can emit

rendered = set(_META)
bad = 0
for path in ("alerts.yml", "alerts_test.yml"):
    # Metric names only: smrstore_* words that are not inside a template ({{ ... }}).
    text = re.sub(r"\{\{.*?\}\}", "", open(path).read())
    used = set(re.findall(r"\bsmrstore_[a-z0-9_]+", text))
    unknown = sorted(used - rendered)
    for name in unknown:
        print(f"  {path}: {name} is not a metric of smrstore/prometheus.py", file=sys.stderr)
    bad += len(unknown)
    print(f"  {path}: {len(used)} metric names, all rendered" if not unknown else
          f"  {path}: {len(unknown)} unknown metric name(s)")

rules = yaml.safe_load(open("alerts.yml"))
alerts = [r["alert"] for g in rules["groups"] for r in g["rules"] if "alert" in r]
tests = yaml.safe_load(open("alerts_test.yml"))["tests"]
fires = set()
quiet = set()
for t in tests:
    for a in t.get("alert_rule_test", []):
        (fires if a.get("exp_alerts") else quiet).add(a["alertname"])
for name in alerts:
    missing = [what for what, s in (("firing", fires), ("non-firing", quiet)) if name not in s]
    if missing:
        print(f"  {name}: no {' and no '.join(missing)} test case", file=sys.stderr)
        bad += 1
unknown = sorted((fires | quiet) - set(alerts))
for name in unknown:
    print(f"  alerts_test.yml tests {name}, which alerts.yml does not define", file=sys.stderr)
bad += len(unknown)
print(f"  {len(alerts)} alerts, each with a firing and a non-firing case" if not bad else
      "  FAILED")
sys.exit(1 if bad else 0)
EOF

echo "== promtool check rules alerts.yml"
promtool check rules alerts.yml
echo "== promtool test rules alerts_test.yml"
promtool test rules alerts_test.yml
echo "== alert rules: OK"
