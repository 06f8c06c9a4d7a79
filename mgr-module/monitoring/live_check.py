#!/usr/bin/python3
"""The Prometheus side of live_check.sh: talks to a running Prometheus over its HTTP API.

    live_check.py wait-data   --prom URL --timeout S [--scrapes N] [--require EXPR ...]
    live_check.py evaluate    --prom URL --dashboard smrstore.json --alerts alerts.yml
    live_check.py wait-alert  --prom URL --alert NAME --daemon D --timeout S

wait-data: until the scrape target is up with at least N samples of smrstore_up in the last
  minute and every --require expression returns series.
evaluate: every target expression of every dashboard panel and both template variables'
  queries ($daemon, $drive -> .*, $__rate_interval -> 1m, the datasource ignored), then every
  alerting rule Prometheus loaded from alerts.yml: its health and last evaluation
  (/api/v1/rules), its expression evaluated now, and each metric selector in it. Prints a
  table; exits 1 if a panel expression returns no series (or only NaN), a per-daemon one
  lacks a series of an OSD of --osds (of the --hybrid daemon for expressions of hybrid-only
  metrics), a template query no value, a rule is not healthy or never evaluated, or a
  metric selector of a rule returns no series (or lacks a daemon likewise). An alert's
  own expression may be empty (its condition is false on a healthy cluster): that is
  printed as such, not counted as a failure.
wait-alert: polls /api/v1/alerts until alert NAME with label daemon=D is firing; prints its
  pending and firing times, labels, annotations and value; exits 1 on timeout.
"""

import argparse
import json
import math
import re
import sys
import time
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, List, Optional, Tuple

import yaml  # type: ignore[import]  # Debian python3-yaml, no stubs

SUBST: Tuple[Tuple[str, str], ...] = (
    ("${daemon}", ".*"), ("$daemon", ".*"),
    ("${drive}", ".*"), ("$drive", ".*"),
    ("${__rate_interval}", "1m"), ("$__rate_interval", "1m"),
)
SELECTOR = re.compile(r"\bsmrstore_[a-z0-9_]+(?:\{[^}]*\})?")
METRIC = re.compile(r"\bsmrstore_[a-z0-9_]+")
# Rendered for hybrid drives only (prometheus.py: `h.supported`); no OSD here has one, so
# expressions made only of these need series of the hybrid service daemon (--hybrid), every
# other per-daemon expression needs series of every OSD (--osds), not just of that daemon.
HYBRID_ONLY = frozenset(f"smrstore_drive_{m}" for m in (
    "conversion_state", "cmr_bytes", "smr_bytes", "realms", "realms_pending",
    "conversion_latency_bound_ms", "conversion_quantum_bytes", "conversion_quantum_ms_p99",
    "conversion_quantum_ms_max", "conversion_bound_violations_total", "conversions_total",
    "conversion_migrated_bytes_total"))


class PromError(Exception):
    pass


def api(prom: str, path: str, params: Optional[Dict[str, str]] = None) -> Any:
    url = prom.rstrip("/") + path
    if params:
        url += "?" + urllib.parse.urlencode(params)
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            body = json.load(r)
    except urllib.error.HTTPError as e:
        body = json.load(e)
    except (OSError, ValueError) as e:
        raise PromError(f"{path}: {e}") from e
    if body.get("status") != "success":
        raise PromError(f"{path} {params}: {body.get('errorType')}: {body.get('error')}")
    return body["data"]


def query(prom: str, expr: str) -> List[Dict[str, Any]]:
    data = api(prom, "/api/v1/query", {"query": expr})
    if data["resultType"] == "scalar":
        return [{"metric": {}, "value": data["result"]}]
    if data["resultType"] != "vector":
        raise PromError(f"{expr}: result type {data['resultType']}")
    return list(data["result"])


def substitute(expr: str) -> str:
    for k, v in SUBST:
        expr = expr.replace(k, v)
    if "$" in expr:
        raise PromError(f"unsubstituted variable in {expr}")
    return expr


def short(s: str, n: int = 76) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3] + "..."


def daemons(series: List[Dict[str, Any]]) -> str:
    if not series:
        return "-"
    names = sorted({s["metric"].get("daemon", "") for s in series} - {""})
    return ",".join(names) if names else "(aggregate: no daemon label)"


def nan_count(series: List[Dict[str, Any]]) -> int:
    return sum(1 for s in series if math.isnan(float(s["value"][1])))


def missing_daemons(expr: str, series: List[Dict[str, Any]], osds: List[str],
                    hybrid: str) -> List[str]:
    """The daemons expected in an expression's result that are not there (none expected when
    the result has no daemon label: an aggregate)."""
    if not series or not any("daemon" in s["metric"] for s in series):
        return []
    want = [hybrid] if set(METRIC.findall(expr)) <= HYBRID_ONLY else osds
    have = {s["metric"].get("daemon") for s in series}
    return [d for d in want if d not in have]


def walk_panels(panels: List[Dict[str, Any]]) -> Iterator[Dict[str, Any]]:
    for p in panels:
        if p.get("type") == "row":
            yield from walk_panels(p.get("panels", []))
        else:
            yield p


def cmd_wait_data(a: argparse.Namespace) -> int:
    t0 = time.time()
    last = ""
    while True:
        try:
            targets = api(a.prom, "/api/v1/targets")["activeTargets"]
            up = [t for t in targets if t["health"] == "up"]
            n = query(a.prom, "min(count_over_time(smrstore_up[1m]))")
            scrapes = int(float(n[0]["value"][1])) if n else 0
            missing = [e for e in a.require if not query(a.prom, e)]
            last = (f"targets up {len(up)}/{len(targets)}, samples of smrstore_up per daemon "
                    f"in the last minute >= {scrapes}, still empty: {missing or 'none'}")
            if targets and len(up) == len(targets) and scrapes >= a.scrapes and not missing:
                print(f"ok: {last} ({time.time() - t0:.0f}s)")
                return 0
        except PromError as e:
            last = str(e)
        if time.time() - t0 > a.timeout:
            print(f"FAIL: timed out after {a.timeout}s waiting for data: {last}", file=sys.stderr)
            return 1
        time.sleep(2)


def cmd_evaluate(a: argparse.Namespace) -> int:
    board = json.load(open(a.dashboard))
    failures: List[str] = []
    rows: List[Tuple[str, str, str, str]] = []

    # Template variables: label_values(SELECTOR, LABEL) through /api/v1/label/LABEL/values.
    for v in board["templating"]["list"]:
        if v["type"] != "query":
            continue
        q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
        m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", q)
        if not m:
            failures.append(f"${v['name']}: query {q} is not label_values(SELECTOR, LABEL)")
            continue
        vals = api(a.prom, f"/api/v1/label/{m.group(2)}/values",
                   {"match[]": substitute(m.group(1))})
        rows.append((f"var ${v['name']}", short(q), str(len(vals)), ",".join(vals)))
        if not vals:
            failures.append(f"template variable ${v['name']}: {q} has no value")

    npanels = ntargets = 0
    for p in walk_panels(board["panels"]):
        npanels += 1
        if not p.get("targets"):
            failures.append(f"panel {p['title']!r} has no target")
        for t in p.get("targets", []):
            ntargets += 1
            expr = substitute(t["expr"])
            where = f"{p['title']} [{t['refId']}]"
            try:
                res = query(a.prom, expr)
            except PromError as e:
                rows.append((where, short(expr), "ERROR", str(e)))
                failures.append(f"{where}: {e}")
                continue
            nans = nan_count(res)
            miss = missing_daemons(expr, res, a.osds.split(","), a.hybrid)
            rows.append((where, short(expr), str(len(res)) + (f" ({nans} NaN)" if nans else ""),
                         daemons(res) + (f"  MISSING {','.join(miss)}" if miss else "")))
            if not res:
                failures.append(f"panel {where}: {expr} returned no series")
            elif nans == len(res):
                failures.append(f"panel {where}: {expr} returned only NaN")
            if miss:
                failures.append(f"panel {where}: {expr} has no series of {', '.join(miss)}")

    # Alerting rules as Prometheus loaded them from alerts.yml.
    want = [r["alert"] for g in yaml.safe_load(open(a.alerts))["groups"] for r in g["rules"]
            if "alert" in r]
    loaded = [r for g in api(a.prom, "/api/v1/rules")["groups"] for r in g["rules"]
              if r["type"] == "alerting"]
    if sorted(r["name"] for r in loaded) != sorted(want):
        failures.append(f"Prometheus loaded alerts {sorted(r['name'] for r in loaded)}, "
                        f"alerts.yml has {sorted(want)}")
    nsel = 0
    for r in loaded:
        name = r["name"]
        if r.get("health") != "ok" or r.get("lastError"):
            failures.append(f"alert {name}: health {r.get('health')} {r.get('lastError', '')}")
        if str(r.get("lastEvaluation", "")).startswith("0001-"):
            failures.append(f"alert {name}: never evaluated")
        res = query(a.prom, r["query"])
        state = r.get("state", "?")
        rows.append((f"alert {name}", short(r["query"]),
                     str(len(res)) + (" (condition true)" if res else " (condition false: OK)"),
                     f"rule health {r.get('health')}, state {state}"))
        for sel in sorted(set(SELECTOR.findall(r["query"]))):
            nsel += 1
            sres = query(a.prom, sel)
            miss = missing_daemons(sel, sres, a.osds.split(","), a.hybrid)
            rows.append((f"  {name} selector", short(sel), str(len(sres)),
                         daemons(sres) + (f"  MISSING {','.join(miss)}" if miss else "")))
            if not sres:
                failures.append(f"alert {name}: its selector {sel} returned no series")
            if miss:
                failures.append(f"alert {name}: its selector {sel} has no series of "
                                f"{', '.join(miss)}")

    w = [max(len(x[i]) for x in rows) for i in range(3)]
    hdr = ("panel / variable / alert", "expression (variables substituted)", "series")
    print(f"{hdr[0]:<{w[0]}}  {hdr[1]:<{w[1]}}  {hdr[2]:<{w[2]}}  daemons / note")
    for row in rows:
        print(f"{row[0]:<{w[0]}}  {row[1]:<{w[1]}}  {row[2]:<{w[2]}}  {row[3]}")
    print(f"{npanels} panels, {ntargets} panel expressions, "
          f"{sum(1 for v in board['templating']['list'] if v['type'] == 'query')} template "
          f"queries, {len(loaded)} alert rules with {nsel} metric selectors evaluated")
    for f in failures:
        print(f"FAIL: {f}", file=sys.stderr)
    return 1 if failures else 0


def cmd_wait_alert(a: argparse.Namespace) -> int:
    t0 = time.time()
    seen_pending: Optional[float] = None
    while True:
        alerts = api(a.prom, "/api/v1/alerts")["alerts"]
        mine = [x for x in alerts if x["labels"].get("alertname") == a.alert
                and x["labels"].get("daemon") == a.daemon]
        others = sorted({(x["labels"]["alertname"], x["labels"].get("daemon", ""), x["state"])
                         for x in alerts} - {(a.alert, a.daemon, s) for s in ("pending", "firing")})
        for x in mine:
            if x["state"] == "pending" and seen_pending is None:
                seen_pending = time.time()
                print(f"  {a.alert} {a.daemon} pending after {seen_pending - t0:.0f}s "
                      f"(activeAt {x['activeAt']})")
            if x["state"] == "firing":
                print(f"ok: {a.alert} {a.daemon} firing after {time.time() - t0:.0f}s")
                print(json.dumps({k: x[k] for k in ("labels", "annotations", "state",
                                                    "activeAt", "value")}, indent=2))
                if others:
                    print(f"  other alerts now: {others}")
                return 0
        if time.time() - t0 > a.timeout:
            print(f"FAIL: {a.alert} for {a.daemon} not firing after {a.timeout}s; alerts: "
                  f"{[(x['labels'], x['state']) for x in alerts]}", file=sys.stderr)
            return 1
        time.sleep(2)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("wait-data")
    w.add_argument("--prom", required=True)
    w.add_argument("--timeout", type=float, default=120)
    w.add_argument("--scrapes", type=int, default=10)
    w.add_argument("--require", action="append", default=[])
    e = sub.add_parser("evaluate")
    e.add_argument("--prom", required=True)
    e.add_argument("--dashboard", required=True)
    e.add_argument("--alerts", required=True)
    e.add_argument("--osds", required=True, help="comma-separated: osd.0,osd.1")
    e.add_argument("--hybrid", required=True, help="the daemon with a hybrid drive")
    f = sub.add_parser("wait-alert")
    f.add_argument("--prom", required=True)
    f.add_argument("--alert", required=True)
    f.add_argument("--daemon", required=True)
    f.add_argument("--timeout", type=float, default=150)
    a = ap.parse_args()
    try:
        return {"wait-data": cmd_wait_data, "evaluate": cmd_evaluate,
                "wait-alert": cmd_wait_alert}[a.cmd](a)
    except PromError as ex:
        print(f"FAIL: {ex}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
