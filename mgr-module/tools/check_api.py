#!/usr/bin/python3
"""Checks a running smrstore mgr module's REST API against what the daemon published.

Usage: check_api.py BASE_URL TOKEN DAEMON SERVICE_STATUS_JSON
  BASE_URL             e.g. http://127.0.0.1:8765
  SERVICE_STATUS_JSON  file with `ceph service status -f json` taken just before

Checks: no token / a wrong token -> 401 with a JSON detail on every route; with the token
every route answers and the daemon's document matches the service status (store uuid, drive
geometry, zone maps of nr_zones characters, counters no older than the dump); malformed
requests -> 422/404 with a message; /metrics parses as Prometheus text and has smrstore_*
samples for the daemon.  Prints one line per check; exit status 0 only if all pass.
"""

import json
import time
import sys
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

from prometheus_client.parser import text_string_to_metric_families

failures: List[str] = []


def check(ok: bool, what: str) -> None:
    print(("ok:   " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def get(base: str, path: str, token: Optional[str]) -> Tuple[int, str, Dict[str, str]]:
    req = urllib.request.Request(base + path)
    if token is not None:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, r.read().decode(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), dict(e.headers)


def get_json(base: str, path: str, token: str) -> Any:
    code, body, _ = get(base, path, token)
    if code != 200:
        raise SystemExit(f"FAIL: GET {path} -> {code}: {body}")
    return json.loads(body)


def main(argv: List[str]) -> int:
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    base, token, daemon, dump_file = argv[1].rstrip("/"), argv[2], argv[3], argv[4]
    with open(dump_file) as f:
        svc = json.load(f)
    published = svc["smrstore"][daemon]["status"]
    pub_doc = json.loads(published["stats"])

    routes = ["/api/v1/summary", "/api/v1/daemons", f"/api/v1/daemons/{daemon}",
              f"/api/v1/daemons/{daemon}/drives/0/zones", "/api/v1/history", "/api/v1/gc",
              "/api/v1/conversion", "/api/v1/health", "/api/v1/openapi.json", "/metrics"]
    for path in routes:
        code, body, hdr = get(base, path, None)
        detail = json.loads(body).get("detail", "") if code == 401 else ""
        check(code == 401 and "Bearer" in detail, f"no token: GET {path} -> {code} {detail!r}")
        code, body, _ = get(base, path, "not-a-valid-token")
        check(code == 401, f"wrong token: GET {path} -> {code}")
        code, body, _ = get(base, path, token)
        check(code == 200, f"token: GET {path} -> {code}")

    daemons = get_json(base, "/api/v1/daemons", token)
    mine = [d for d in daemons if d["name"] == daemon]
    check(len(mine) == 1 and mine[0]["source"] == "service",
          f"/api/v1/daemons lists {daemon} as a service daemon: {[d['name'] for d in daemons]}")
    # The module samples the mgr's daemon status every few seconds, so its view may lag
    # the status dumped just before: wait (bounded) until it has caught up.
    deadline = time.monotonic() + 30
    doc = get_json(base, f"/api/v1/daemons/{daemon}", token)
    while doc["time"] < pub_doc["time"] and time.monotonic() < deadline:
        time.sleep(1)
        doc = get_json(base, f"/api/v1/daemons/{daemon}", token)
    check(doc["schema"] == published["schema"] == "smrstore.stats/1", "schema matches")
    check(doc["store"]["uuid"] == pub_doc["store"]["uuid"],
          f"store uuid matches the service status ({doc['store']['uuid']})")
    check(len(doc["drives"]) == len(pub_doc["drives"]), f"{len(doc['drives'])} drives")
    check(doc["time"] >= pub_doc["time"], "the API's document is not older than the dump")
    check(doc["io"]["lifetime_user_bytes"] >= pub_doc["io"]["lifetime_user_bytes"] > 0,
          f"user bytes {doc['io']['lifetime_user_bytes']} >= dumped "
          f"{pub_doc['io']['lifetime_user_bytes']} > 0")
    for dr, pdr in zip(doc["drives"], pub_doc["drives"]):
        same = all(dr[k] == pdr[k] for k in ("index", "spec", "nr_zones", "zone_size",
                                              "zone_capacity", "capacity_bytes"))
        check(same, f"drive {dr['index']} geometry matches ({dr['nr_zones']} zones of "
                    f"{dr['zone_size']} bytes, {dr['spec']})")
        z = get_json(base, f"/api/v1/daemons/{daemon}/drives/{dr['index']}/zones", token)
        check(z["available"] and len(z["zonemap"]) == len(z["streams"]) == dr["nr_zones"],
              f"drive {dr['index']} zone map: {len(z['zonemap'])} cells for {dr['nr_zones']} zones")
        check(len(published[f"zonemap.{dr['index']}"]) == len(z["zonemap"]),
              f"drive {dr['index']} zone map as long as the published one")

    summary = get_json(base, "/api/v1/summary", token)
    check(summary["daemons"] >= 1 and summary["capacity_bytes"] >= doc["statfs"]["total"] > 0,
          f"summary: {summary['daemons']} daemon(s), capacity {summary['capacity_bytes']}")
    hist = get_json(base, f"/api/v1/history?daemon={daemon}&window=600", token)
    pts = hist["series"][0]["points"]
    check(len(pts) >= 2 and pts[-1]["user_bytes"] >= pts[0]["user_bytes"],
          f"history has {len(pts)} points for {daemon}")

    for path, code_ok, words in (
            ("/api/v1/history?window=abc", 422, "integer"),
            ("/api/v1/history?window=1", 422, "greater than or equal to 10"),
            (f"/api/v1/daemons/{daemon}/drives/-1/zones", 422, "greater than or equal to 0"),
            (f"/api/v1/daemons/{daemon}/drives/99/zones", 404, "has no drive 99"),
            ("/api/v1/daemons/no-such-daemon", 404, "no smrstore daemon named"),
            ("/api/v1/nothing-here", 404, "no API route")):
        code, body, _ = get(base, path, token)
        check(code == code_ok and words in body, f"malformed: GET {path} -> {code} {body[:120]}")

    code, text, hdr = get(base, "/metrics", token)
    samples = [s for fam in text_string_to_metric_families(text) for s in fam.samples]
    mine_s = [s for s in samples if s.labels.get("daemon") == daemon]
    check(bool(mine_s) and all(s.name.startswith("smrstore_") for s in samples),
          f"/metrics parses: {len(samples)} samples, {len(mine_s)} for {daemon}")
    up = [s.value for s in mine_s if s.name == "smrstore_up"]
    check(up == [1.0], f"smrstore_up{{daemon={daemon!r}}} = {up}")
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
