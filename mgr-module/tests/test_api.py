import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest
from conftest import GiB, doc, drive, hybrid, osd_counters, status
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from smrstore.api import create_app
from smrstore.auth import TokenStore
from smrstore.health import HealthCheck, Thresholds, evaluate
from smrstore.history import History
from smrstore.model import OsdReading, Snapshot, merge

TOKEN = "t0ken-for-tests"
HERE = Path(__file__).resolve().parent


class Provider:
    def __init__(self, snap: Snapshot, hist: History, th: Thresholds,
                 tokens: Optional[TokenStore] = None) -> None:
        self.snap, self.hist, self.th, self.tokens = snap, hist, th, tokens
        self.checks = evaluate(snap, hist, th)

    def snapshot(self) -> Snapshot:
        return self.snap

    def history(self) -> History:
        return self.hist

    def health_checks(self) -> List[HealthCheck]:
        return self.checks

    def thresholds(self) -> Thresholds:
        return self.th

    def verify_token(self, token: Optional[str]) -> Optional[str]:
        if self.tokens is not None:      # the module's real token store
            return self.tokens.verify(token)
        return "tests" if token == TOKEN else None


def build(web_root: Optional[str] = None, tokens: Optional[TokenStore] = None) -> TestClient:
    hist = History()
    statuses: Dict[str, Dict[str, str]] = {}
    for i in range(3):
        t = 1000.0 + 10 * i
        da = doc(t=t, user=(10 + i) * GiB, device=(12 + 2 * i) * GiB, runs=3 + i,
                 zones_reset=5 + 2 * i, gc_bytes=(2 + i) * GiB, gc_failures=3,
                 quarantined_zones=2)
        statuses = {"demo-a": status(da),
                    "demo-b": status(doc(name="demo-b", t=t, total=10 * GiB,
                                         available=GiB // 2))}
        hist.add(merge(t, statuses, {}).daemons, now=t)
    bad = status(doc(name="broken"))
    bad["stats"] = "{"
    statuses["broken"] = bad
    snap = merge(1021.0, statuses, {"osd.5": OsdReading(osd_counters())})
    hist.add(snap.daemons, now=1021.0)
    app = create_app(Provider(snap, hist, Thresholds(stale_seconds=1e6), tokens), web_root)
    return TestClient(app)


AUTH = {"Authorization": f"Bearer {TOKEN}"}
ROUTES = ["/api/v1/summary", "/api/v1/daemons", "/api/v1/daemons/demo-a",
          "/api/v1/daemons/demo-a/drives/0/zones", "/api/v1/history", "/api/v1/gc",
          "/api/v1/conversion", "/api/v1/health", "/metrics", "/api/v1/openapi.json",
          "/api/v1/no-such-route"]


@pytest.mark.parametrize("path", ROUTES)
def test_every_route_needs_a_token(path: str) -> None:
    c = build()
    r = c.get(path)
    assert r.status_code == 401 and "Bearer" in r.json()["detail"]
    assert r.headers["www-authenticate"] == "Bearer"
    r = c.get(path, headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 401 and r.json()["detail"] == "invalid or revoked token"
    r = c.get(path, headers={"Authorization": f"Basic {TOKEN}"})
    assert r.status_code == 401


def test_summary() -> None:
    s = build().get("/api/v1/summary", headers=AUTH).json()
    assert s["daemons"] == 3 and s["drives"] == 6
    assert s["capacity_bytes"] == 30 * GiB + 10 * GiB + 64 * GiB
    assert s["user_bytes"] == 12 * GiB + 10 * GiB + 4 * GiB
    assert s["write_amplification"] == pytest.approx((16 + 12 + 5) / (12 + 10 + 4))
    assert [e["name"] for e in s["errors"]] == ["broken"]
    assert {h["name"] for h in s["health"]} == {"SMRSTORE_SPACE_LOW", "SMRSTORE_STATUS_INVALID",
                                                "SMRSTORE_GC_QUARANTINE"}


def test_daemons_and_detail() -> None:
    c = build()
    ds = c.get("/api/v1/daemons", headers=AUTH).json()
    assert [(d["name"], d["source"]) for d in ds] == [("demo-a", "service"),
                                                      ("demo-b", "service"), ("osd.5", "osd")]
    assert ds[0]["drives"] == 2 and ds[0]["stale"] is False and ds[0]["last_update"] == 1020.0
    assert [(d["gc_failures"], d["gc_quarantined_zones"]) for d in ds] == [
        (3, 2), (0, 0), (0, 0)]
    d = c.get("/api/v1/daemons/demo-a", headers=AUTH).json()
    assert d["schema"] == "smrstore.stats/1" and d["source"] == "service"
    assert d["io"]["lifetime_gc_bytes"] == 4 * GiB and d["store"]["gc_policy"] == "lifetime"
    assert "zonemap" not in d["drives"][0] and d["drives"][1]["zones"]["free"] == 6
    assert d["gc"]["failures"] == 3 and d["gc"]["quarantined_zones"] == 2
    assert (d["io"]["pack_records"], d["io"]["pack_entries"], d["io"]["pack_payload_bytes"],
            d["io"]["pack_record_bytes"], d["store"]["pack_max"]) == (2, 120, 360_000, 372_736,
                                                                      32768)
    assert (d["io"]["data_reads"], d["io"]["data_read_records"], d["gc"]["pinned_zones"]) == (
        40, 100, 3)
    assert (d["store"]["gc_read_ahead"], d["gc"]["read_ahead_bytes"],
            d["gc"]["read_ahead_yields"]) == (True, 24 * 2 ** 20, 5)
    assert (d["store"]["gc_start_free"], d["store"]["gc_stop_free"],
            d["store"]["gc_free_zones_max"]) == (0.03, 0.05, 64)
    # osd.5: counters only (its document not answered yet): what they do not carry is null.
    o = c.get("/api/v1/daemons/osd.5", headers=AUTH).json()
    assert o["store"] is None and o["drives"][0]["nr_zones"] is None
    assert o["gc"]["failures"] == 0 and o["drives"][0]["zones"]["inactive"] is None
    r = c.get("/api/v1/daemons/nobody", headers=AUTH)
    assert r.status_code == 404 and "no smrstore daemon named 'nobody'" in r.json()["detail"]
    r = c.get("/api/v1/daemons/bad%20name", headers=AUTH)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["path", "name"]


def test_zones() -> None:
    c = build()
    z = c.get("/api/v1/daemons/demo-a/drives/1/zones", headers=AUTH).json()
    assert z["available"] is True and len(z["zonemap"]) == z["nr_zones"] == 16
    assert z["counts"] == {"reserved": 1, "free": 6, "open": 1, "sealed": 8, "offline": 0,
                           "readonly": 0, "conventional": 0, "inactive": 0}
    assert z["stream_counts"]["user"] == 8 and z["stream_counts"]["small"] == 1
    assert z["reported"]["sealed"] == 8
    o = c.get("/api/v1/daemons/osd.5/drives/0/zones", headers=AUTH).json()
    assert o["available"] is False and o["zonemap"] == "" and o["counts"] is None
    r = c.get("/api/v1/daemons/demo-a/drives/2/zones", headers=AUTH)
    assert r.status_code == 404 and r.json()["detail"] == "daemon 'demo-a' has no drive 2 (drives 0..1)"
    for bad in ("-1", "x", "99999"):
        r = c.get(f"/api/v1/daemons/demo-a/drives/{bad}/zones", headers=AUTH)
        assert r.status_code == 422, bad
        assert r.json()["detail"][0]["loc"] == ["path", "index"]


def test_zones_for_many_zones() -> None:
    zm = "#" + "k" * 29000 + "." * 999
    st = "-" + "u" * 29000 + "-" * 999
    snap = merge(5.0, {"big": status(doc(name="big", t=5.0, drives=[drive(0, nr_zones=30000, zonemap=zm, streams=st)]))}, {})
    c = TestClient(create_app(Provider(snap, History(), Thresholds())))
    z = c.get("/api/v1/daemons/big/drives/0/zones", headers=AUTH).json()
    assert z["zonemap"] == zm and z["counts"]["sealed"] == 29000


def test_history() -> None:
    c = build()
    h = c.get("/api/v1/history", headers=AUTH, params={"window": 600}).json()
    assert [s["daemon"] for s in h["series"]] == ["demo-a", "demo-b", "osd.5"]
    pts = h["series"][0]["points"]
    assert [p["t"] for p in pts] == [1000.0, 1010.0, 1020.0]
    assert pts[0]["write_amplification"] is None
    assert pts[1]["write_amplification"] == pytest.approx(2.0)
    assert pts[2]["user_bytes"] == 12 * GiB and pts[2]["zones_reset"] == 9
    one = c.get("/api/v1/history", headers=AUTH, params={"daemon": "demo-a", "window": 15}).json()
    assert [p["t"] for p in one["series"][0]["points"]] == [1010.0, 1020.0]
    bad: List[Tuple[Dict[str, Any], str]] = [({"window": 5}, "window"), ({"window": 10 ** 9}, "window"),
                        ({"window": "abc"}, "window"), ({"daemon": "a b"}, "daemon")]
    for params, loc in bad:
        r = c.get("/api/v1/history", headers=AUTH, params=params)
        assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["query", loc]
    r = c.get("/api/v1/history", headers=AUTH, params={"daemon": "ghost"})
    assert r.status_code == 404 and "ghost" in r.json()["detail"]


def test_gc() -> None:
    g = build().get("/api/v1/gc", headers=AUTH, params={"window": 60}).json()
    a = g["daemons"][0]
    assert a["daemon"] == "demo-a" and a["runs"] == 5 and a["free_zones"] == 12
    assert a["rates"]["window"] == 20.0
    assert a["rates"]["zones_reset_per_s"] == pytest.approx(0.2)
    assert a["rates"]["gc_bytes_per_s"] == pytest.approx(2 * GiB / 20)
    assert g["daemons"][2]["rates"] is None          # osd.5: one sample only
    # Failed cleanings and quarantined zones (osd.5: from its counters).
    assert [(d["daemon"], d["failures"], d["quarantined_zones"]) for d in g["daemons"]] == [
        ("demo-a", 3, 2), ("demo-b", 0, 0), ("osd.5", 0, 0)]


def test_conversion_and_health() -> None:
    c = build()
    cs = c.get("/api/v1/conversion", headers=AUTH).json()
    assert len(cs) == 6 and cs[0] == {"daemon": "demo-a", "drive": 0, "supported": False,
                                      "state": "none", "cmr_bytes": 0, "smr_bytes": 0,
                                      "converting_zones": 0, "progress": 0.0,
                                      "latency_bound_ms": None, "realms": 0, "realms_cmr": 0,
                                      "realms_smr": 0, "realms_pending": 0, "realmmap": "",
                                      "quantum_bytes": 0, "quantum_ms_p99": None,
                                      "quantum_ms_max": None, "bound_violations": 0,
                                      "bound_exceeded": None, "conversions": 0,
                                      "migrated_bytes": 0, "stall_reason": None}
    # osd.5: counters only (its document not answered yet): the hybrid details are null.
    assert cs[2]["daemon"] == "demo-b" and cs[2]["realms"] == 0 and cs[2]["realmmap"] == ""
    assert cs[4]["daemon"] == "osd.5" and cs[4]["cmr_bytes"] is None
    h = c.get("/api/v1/health", headers=AUTH).json()
    low = next(x for x in h if x["name"] == "SMRSTORE_SPACE_LOW")
    assert low["count"] == 1 and low["detail"][0].startswith("demo-b: 5.0% available")


def test_conversion_of_a_hybrid_drive() -> None:
    # A hybrid drive converting realm 3 (drained) while realm 1 waits: every field of the
    # document's hybrid block, and whether the quanta's p99 is over the bound.
    d0 = drive(0, nr_zones=8, zonemap="##A.b___", streams="--uu----",
               hybrid=hybrid("CcS>", violations=2, p99=150.0, qmax=400.0))
    stalled = hybrid("CS", state="stalled", progress=0.0, p99=10.0,
                     stall_reason="no room for realm 0's live data")
    snap = merge(1001.0, {"h": status(doc(name="h", drives=[d0, drive(1, hybrid=stalled)]))},
                 {})
    c = TestClient(create_app(Provider(snap, History(), Thresholds(stale_seconds=1e6))))
    cs = c.get("/api/v1/conversion", headers=AUTH).json()
    assert [(x["drive"], x["state"], x["realmmap"]) for x in cs] == [
        (0, "converting", "CcS>"), (1, "stalled", "CS")]
    a = cs[0]
    assert (a["realms"], a["realms_cmr"], a["realms_smr"], a["realms_pending"]) == (4, 3, 1, 2)
    assert (a["quantum_bytes"], a["quantum_ms_p99"], a["quantum_ms_max"]) == (4 << 20, 150.0,
                                                                             400.0)
    assert (a["latency_bound_ms"], a["bound_violations"], a["bound_exceeded"]) == (100.0, 2, True)
    assert (a["conversions"], a["migrated_bytes"], a["progress"]) == (1, 48 << 20, 0.4)
    assert a["converting_zones"] == 2 * 4 and a["stall_reason"] is None
    assert cs[1]["bound_exceeded"] is False
    assert cs[1]["stall_reason"] == "no room for realm 0's live data"
    h = {x["name"]: x for x in c.get("/api/v1/health", headers=AUTH).json()}
    assert h["SMRSTORE_CONVERSION_STALLED"]["detail"] == ["h drive 1: conversion reported stalled"]
    assert h["SMRSTORE_CONVERSION_BOUND_VIOLATED"]["detail"] == [
        "h drive 0: migration quanta p99 150 ms > latency bound 100 ms (max 400 ms)"]
    z = c.get("/api/v1/daemons/h/drives/0/zones", headers=AUTH).json()
    assert z["counts"]["inactive"] == 3 and z["reported"]["inactive"] == 3


def test_metrics() -> None:
    r = build().get("/metrics", headers=AUTH)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain; version=0.0.4")
    fams = {f.name: f for f in text_string_to_metric_families(r.text)}
    daemons = {s.labels["daemon"] for s in fams["smrstore_up"].samples}
    assert daemons == {"demo-a", "demo-b", "osd.5"}


def test_unknown_api_route_and_method() -> None:
    c = build()
    r = c.get("/api/v1/nothing", headers=AUTH)
    assert r.status_code == 404 and r.json()["detail"] == "no API route GET /api/v1/nothing"
    for path in ("/api/v1/summary", "/api/v1/nothing", "/metrics"):
        assert c.post(path, headers=AUTH).status_code == 405
        assert c.delete(path, headers=AUTH).status_code == 405


def test_openapi_behind_auth_and_committed_copy_current() -> None:
    spec = build().get("/api/v1/openapi.json", headers=AUTH).json()
    assert "/api/v1/daemons/{name}/drives/{index}/zones" in spec["paths"]
    out = subprocess.run([sys.executable, str(HERE.parent / "tools" / "export_openapi.py")],
                         check=True, capture_output=True, text=True).stdout
    committed = (HERE.parent / "openapi.json").read_text()
    assert json.loads(out) == json.loads(committed), \
        "mgr-module/openapi.json is out of date: run mgr-module/tools/export_openapi.py mgr-module/openapi.json"
    assert json.loads(out) == json.loads(json.dumps(spec))


def test_static_web_app_is_public(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<html>console</html>")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "app.js").write_text("console.log(1)")
    c = build(str(tmp_path))
    assert c.get("/").text == "<html>console</html>"
    assert c.get("/assets/app.js").text == "console.log(1)"
    assert c.get("/api/v1/summary").status_code == 401
    assert c.get("/api/v1/summary", headers=AUTH).status_code == 200
    assert c.get("/metrics").status_code == 401


def test_no_web_root() -> None:
    r = build(os.path.join("/nonexistent", "dist")).get("/")
    assert r.status_code == 404 and "web console is not built" in r.json()["detail"]


def test_history_filter_returns_only_that_daemon() -> None:
    # Three daemons told apart by their user bytes; "gone" has history but has left the
    # snapshot.  Asking for the one that sorts last, one in the middle or one only in the
    # history returns that daemon's series and nothing of the others.
    user = {"alpha": 1, "gone": 2, "mid": 3, "zulu": 4}
    hist = History()
    for i in range(3):
        t = 1000.0 + 10 * i
        names = ["alpha", "mid", "zulu"] + (["gone"] if i < 2 else [])
        st = {n: status(doc(name=n, t=t, user=user[n] * GiB + i, device=5 * GiB + i))
              for n in names}
        hist.add(merge(t, st, {}).daemons, now=t)
    snap = merge(1020.0, st, {})
    c = TestClient(create_app(Provider(snap, hist, Thresholds(stale_seconds=1e6))))
    every = c.get("/api/v1/history", headers=AUTH, params={"window": 600}).json()
    assert [s["daemon"] for s in every["series"]] == ["alpha", "gone", "mid", "zulu"]
    for name, npoints in (("zulu", 3), ("mid", 3), ("gone", 2), ("alpha", 3)):
        h = c.get("/api/v1/history", headers=AUTH,
                  params={"daemon": name, "window": 600}).json()
        assert [s["daemon"] for s in h["series"]] == [name], name
        pts = h["series"][0]["points"]
        assert [p["user_bytes"] for p in pts] == [user[name] * GiB + i for i in range(npoints)]
        assert pts == next(s for s in every["series"] if s["daemon"] == name)["points"]
