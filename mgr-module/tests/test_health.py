import json
from typing import Dict, List, Optional, Tuple

import pytest
from conftest import NOT_HYBRID, GiB, doc, drive, hybrid, status

from smrstore.health import HealthCheck, Thresholds, evaluate, osd_refusals, to_mgr_checks
from smrstore.history import History
from smrstore.model import SOURCE_OSD, DaemonError, DaemonState, Snapshot, parse_service_status
from smrstore.stats import StatsDoc


def snap_of(now: float, *docs: Dict) -> Snapshot:
    ds = {d["name"]: parse_service_status(d["name"], status(d)) for d in docs}
    return Snapshot(time=now, daemons=ds, errors=[])


def counters_view(d: Dict) -> DaemonState:
    """Document d as an OSD seen through its perf counters alone can have it: the fields the
    counters do not carry (a drive's hybrid block, its progress, its bound violations) may be
    None, which no complete document has."""
    raw = json.loads(status(d)["stats"])
    return DaemonState(name=d["name"], source=SOURCE_OSD, doc=StatsDoc.parse_obj(raw))


def names(checks: List) -> List[str]:
    return [c.name for c in checks]


def test_healthy_cluster_has_no_checks() -> None:
    s = snap_of(1001.0, doc())
    assert evaluate(s, History(), Thresholds()) == []


def test_space_low_follows_threshold() -> None:
    s = snap_of(1001.0, doc(total=100 * GiB, available=9 * GiB))
    checks = evaluate(s, History(), Thresholds())
    assert names(checks) == ["SMRSTORE_SPACE_LOW"]
    assert "9.0% available" in checks[0].detail[0] and "limit 10.0%" in checks[0].detail[0]
    assert evaluate(s, History(), Thresholds(space_low_ratio=0.05)) == []


def test_space_low_counts_only_what_gc_can_really_give_back() -> None:
    # The make-demo case: 1.37 GB live in 3.71 GB, only 8.3 % in free zones, 2.03 GB of dead
    # records. When GC can give most of them back (statfs writable 2.2 GB), not low on space.
    total, free, dead = 3_710_000_000, 308_000_000, 2_030_000_000
    s = snap_of(1001.0, doc(total=total, available=free, reclaimable=dead,
                            writable=2_200_000_000))
    assert evaluate(s, History(), Thresholds()) == []
    # When the dead bytes are mostly what GC cannot give back (live records' headers,
    # journal-pinned zones, GC's open zones, zone tails), writable is 7.5 %: low on space,
    # although (available + reclaimable) / total, the old formula, is 63 %.
    s = snap_of(1001.0, doc(total=total, available=free, reclaimable=dead, writable=278_250_000))
    checks = evaluate(s, History(), Thresholds())
    assert names(checks) == ["SMRSTORE_SPACE_LOW"]
    assert checks[0].detail == [
        "demo-a: 7.5% available (278250000 writable of 3710000000 bytes; limit 10.0%)"]
    # The same store as a daemon from before statfs.writable reports it: the old formula
    # counts every dead byte as free, and does not see it.
    s = snap_of(1001.0, doc(total=total, available=free, reclaimable=dead, with_writable=False))
    assert s.daemons["demo-a"].doc.statfs.writable is None
    assert evaluate(s, History(), Thresholds()) == []


def test_space_low_falls_back_for_a_daemon_without_writable() -> None:
    # A mixed-version cluster during an upgrade: a document without statfs.writable is read
    # (no SMRSTORE_STATUS_INVALID) and judged by (available + reclaimable) / total, which the
    # detail says.
    total, free = 3_710_000_000, 308_000_000
    s = snap_of(1001.0, doc(total=total, available=free, reclaimable=0, with_writable=False))
    checks = evaluate(s, History(), Thresholds())
    assert names(checks) == ["SMRSTORE_SPACE_LOW"]
    assert checks[0].detail == [
        "demo-a: 8.3% available (308000000 free + 0 reclaimable of 3710000000 bytes; limit "
        "10.0%; the daemon reports no statfs writable (older version): every dead byte counted "
        "as free)"]
    s = snap_of(1001.0, doc(total=total, available=free, reclaimable=100_000_000,
                            with_writable=False))
    assert evaluate(s, History(), Thresholds()) == []     # 11.0 %


def test_stale_daemon() -> None:
    s = snap_of(1100.0, doc(t=1000.0))
    checks = evaluate(s, History(), Thresholds(stale_seconds=30))
    assert names(checks) == ["SMRSTORE_DAEMON_STALE"]
    assert "last update 100 s ago" in checks[0].detail[0]
    assert evaluate(s, History(), Thresholds(stale_seconds=200)) == []


def test_offline_and_readonly_zones() -> None:
    d0 = drive(0, zonemap="#..X!" + "k" * 11)
    s = snap_of(1001.0, doc(drives=[d0, drive(1)]))
    checks = {c.name: c for c in evaluate(s, History(), Thresholds())}
    assert set(checks) == {"SMRSTORE_ZONE_OFFLINE", "SMRSTORE_ZONE_READONLY"}
    assert checks["SMRSTORE_ZONE_OFFLINE"].severity == "error"
    assert checks["SMRSTORE_ZONE_OFFLINE"].detail == ["demo-a drive 0: 1 offline zone"]
    mgr = to_mgr_checks(list(checks.values()))
    assert mgr["SMRSTORE_ZONE_READONLY"]["count"] == 1
    assert mgr["SMRSTORE_ZONE_READONLY"]["severity"] == "warning"


def _gc_history(runs: List[int], throttle: List[int], free_map: str) -> Tuple[Snapshot, History]:
    h = History()
    last = None
    for i, (r, th) in enumerate(zip(runs, throttle)):
        last = doc(t=1000.0 + 10 * i, runs=r, throttle_ns=th,
                   drives=[drive(0, zonemap=free_map), drive(1)])
        h.add({"demo-a": parse_service_status("demo-a", status(last))}, now=1000.0 + 10 * i)
    assert last is not None
    return snap_of(last["time"], last), h


def test_gc_behind_when_free_zones_low_and_gc_running() -> None:
    s, h = _gc_history([1, 3, 6], [0, 0, 0], "#." + "k" * 14)    # 1 free zone on drive 0
    checks = evaluate(s, h, Thresholds(gc_free_zones_min=4))
    assert names(checks) == ["SMRSTORE_GC_BEHIND"]
    assert checks[0].detail == ["demo-a drive 0: 1 free zone (limit 4), GC running"]
    # GC idle in the window: few free zones alone are not "behind".
    s, h = _gc_history([6, 6, 6], [0, 0, 0], "#." + "k" * 14)
    assert evaluate(s, h, Thresholds(gc_free_zones_min=4)) == []
    # Enough free zones: not behind.
    s, h = _gc_history([1, 3, 6], [0, 0, 0], "#." + "k" * 14)
    assert evaluate(s, h, Thresholds(gc_free_zones_min=1)) == []


def test_gc_behind_when_throttle_grows() -> None:
    # 15 s of throttle in 20 s of wall time = 75 %.
    s, h = _gc_history([5, 5, 5], [0, 5_000_000_000, 15_000_000_000], "#" + "." * 15)
    checks = evaluate(s, h, Thresholds(gc_throttle_ratio=0.5))
    assert names(checks) == ["SMRSTORE_GC_BEHIND"]
    assert "GC throttled 75% of the last 20 s (limit 50%)" in checks[0].detail[0]
    assert evaluate(s, h, Thresholds(gc_throttle_ratio=0.8)) == []


def _conv_drive(state: str, progress: Optional[float]) -> Dict:
    d = drive(0)
    d["hybrid"] = dict(NOT_HYBRID, supported=True, state=state, cmr_bytes=GiB,
                       smr_bytes=3 * GiB, converting_zones=2, progress=progress,
                       latency_bound_ms=20.0)
    return d


def test_conversion_stalled_reported_and_detected() -> None:
    s = snap_of(1001.0, doc(drives=[_conv_drive("stalled", 0.4), drive(1)]))
    assert names(evaluate(s, History(), Thresholds())) == ["SMRSTORE_CONVERSION_STALLED"]

    h = History()
    progress = [0.1, 0.2, 0.3, 0.3, 0.3, 0.3]
    for i, p in enumerate(progress):
        d = doc(t=1000.0 + 100 * i, drives=[_conv_drive("converting", p), drive(1)])
        h.add({"demo-a": parse_service_status("demo-a", status(d))}, now=d["time"])
    s = snap_of(1500.0, d)
    checks = evaluate(s, h, Thresholds(conversion_stall_seconds=300, stale_seconds=1e6))
    assert names(checks) == ["SMRSTORE_CONVERSION_STALLED"]
    assert "no conversion progress for 300 s" in checks[0].detail[0]
    assert evaluate(s, h, Thresholds(conversion_stall_seconds=301, stale_seconds=1e6)) == []


def test_invalid_status_is_a_check() -> None:
    s = Snapshot(time=1.0, daemons={}, errors=[DaemonError("bad", "service", "bad: no stats")])
    checks = evaluate(s, History(), Thresholds())
    assert names(checks) == ["SMRSTORE_STATUS_INVALID"] and checks[0].detail == ["bad: bad: no stats"]


@pytest.mark.parametrize("kw", [dict(space_low_ratio=1.5), dict(gc_free_zones_min=-1),
                                dict(gc_throttle_ratio=0.0), dict(stale_seconds=0)])
def test_thresholds_validated(kw: Dict) -> None:
    with pytest.raises(ValueError):
        Thresholds(**kw)


@pytest.mark.parametrize("available,reclaimable", [(0, 0), (GiB, 0), (5 * GiB, 5 * GiB)])
def test_space_low_boundary_is_exclusive(available: int, reclaimable: int) -> None:
    # health.py raises SMRSTORE_SPACE_LOW when statfs writable / total < ratio, whatever
    # available and reclaimable say: one byte under the limit raises, exactly at the limit
    # and one byte over do not. 1 GiB / 10 GiB is exactly the double 0.1, the default
    # space_low_ratio.
    total = 10 * GiB

    def low(delta: int) -> List[str]:
        s = snap_of(1001.0, doc(total=total, available=available, reclaimable=reclaimable,
                                writable=GiB + delta))
        return names(evaluate(s, History(), Thresholds(space_low_ratio=0.10)))

    assert low(-1) == ["SMRSTORE_SPACE_LOW"]
    assert low(0) == []
    assert low(+1) == []


@pytest.mark.parametrize("available,reclaimable", [(GiB, 0), (0, GiB), (GiB // 4, 3 * GiB // 4)])
def test_space_low_fallback_boundary_is_exclusive(available: int, reclaimable: int) -> None:
    # Without statfs.writable (an older daemon): (available + reclaimable) / total < ratio.
    total = 10 * GiB

    def low(delta: int) -> List[str]:
        a, r = (available + delta, reclaimable) if available else (0, reclaimable + delta)
        s = snap_of(1001.0, doc(total=total, available=a, reclaimable=r, with_writable=False))
        return names(evaluate(s, History(), Thresholds(space_low_ratio=0.10)))

    assert low(-1) == ["SMRSTORE_SPACE_LOW"]
    assert low(0) == []
    assert low(+1) == []


def test_space_low_boundary_follows_the_configured_ratio() -> None:
    total = 8 * GiB      # a quarter of it is 2 GiB
    for free, raised in ((2 * GiB - 1, True), (2 * GiB, False), (2 * GiB + 1, False)):
        s = snap_of(1001.0, doc(total=total, available=free // 2, reclaimable=total // 2,
                                writable=free))
        checks = evaluate(s, History(), Thresholds(space_low_ratio=0.25))
        assert (names(checks) == ["SMRSTORE_SPACE_LOW"]) is raised, free
        if raised:
            assert checks[0].detail == [
                f"demo-a: 25.0% available ({free} writable of {total} bytes; limit 25.0%)"]


def test_threshold_limits_are_inclusive_where_documented() -> None:
    for kw in (dict(space_low_ratio=0.0), dict(space_low_ratio=1.0), dict(gc_free_zones_min=0),
               dict(gc_throttle_ratio=1.0), dict(stale_seconds=0.5), dict(gc_window=0.5),
               dict(conversion_stall_seconds=0.5)):
        Thresholds(**kw)      # type: ignore[arg-type]
    for kw, msg in ((dict(space_low_ratio=-0.1), r"space_low_ratio -0.1 not in \[0, 1\]"),
                    (dict(space_low_ratio=1.1), r"space_low_ratio 1.1 not in \[0, 1\]"),
                    (dict(gc_free_zones_min=-1), r"gc_free_zones_min -1 < 0"),
                    (dict(gc_throttle_ratio=1.5), r"gc_throttle_ratio 1.5 not in \(0, 1\]"),
                    (dict(gc_window=0), r"gc_window must be positive"),
                    (dict(conversion_stall_seconds=-1), r"conversion_stall_seconds must be positive")):
        with pytest.raises(ValueError, match=msg):
            Thresholds(**kw)      # type: ignore[arg-type]


def test_to_mgr_shape() -> None:
    c = HealthCheck("SMRSTORE_X", "warning", "2 things", ["a", "b"])
    assert c.to_mgr() == {"severity": "warning", "summary": "2 things", "count": 2,
                          "detail": ["a", "b"]}


def test_every_check_severity_and_summary() -> None:
    # One cluster raising all nine checks: names, severities and summaries as ceph shows them.
    low = doc(name="low", total=100 * GiB, available=GiB)
    zones = doc(name="zones", drives=[drive(0, zonemap="#..XX!!" + "k" * 9),
                                      drive(1, zonemap="#..X" + "k" * 12)])
    stalled = doc(name="stall", drives=[drive(0), _conv_drive("stalled", 0.5) | {"index": 1}])
    old = doc(name="old", t=900.0)
    quar = doc(name="quar", gc_failures=2, quarantined_zones=2)
    slow = doc(name="slow", drives=[drive(0, hybrid=hybrid("CS>", p99=250.0, qmax=900.0))])
    s = snap_of(1001.0, low, zones, stalled, old, quar, slow)
    s.errors.append(DaemonError("bad", "service", "bad: no stats"))
    h = History()
    for i, r in enumerate((1, 3, 6)):
        d = doc(name="gc", t=950.0 + 10 * i, runs=r, drives=[drive(0, zonemap="#." + "k" * 14)])
        h.add({"gc": parse_service_status("gc", status(d))}, now=d["time"])
    s.daemons["gc"] = parse_service_status("gc", status(d))
    checks = evaluate(s, h, Thresholds(stale_seconds=60.0))
    assert [(c.name, c.severity, c.summary) for c in checks] == [
        ("SMRSTORE_SPACE_LOW", "warning", "1 smrstore daemon(s) low on space"),
        ("SMRSTORE_GC_BEHIND", "warning", "smrstore GC falling behind on 1 drive(s)"),
        ("SMRSTORE_ZONE_OFFLINE", "error", "2 smrstore drive(s) have offline zones"),
        ("SMRSTORE_ZONE_READONLY", "warning", "1 smrstore drive(s) have read-only zones"),
        ("SMRSTORE_CONVERSION_STALLED", "warning", "1 smrstore drive conversion(s) stalled"),
        ("SMRSTORE_CONVERSION_BOUND_VIOLATED", "warning",
         "1 smrstore drive conversion(s) over their latency bound"),
        ("SMRSTORE_GC_QUARANTINE", "warning",
         "2 smrstore zones quarantined after failed GC cleanings on quar"),
        ("SMRSTORE_DAEMON_STALE", "warning", "1 smrstore daemon(s) not reporting"),
        ("SMRSTORE_STATUS_INVALID", "warning", "1 smrstore daemon(s) publish an unreadable status"),
    ]
    by = {c.name: c.detail for c in checks}
    assert by["SMRSTORE_ZONE_OFFLINE"] == ["zones drive 0: 2 offline zones",
                                           "zones drive 1: 1 offline zone"]
    assert by["SMRSTORE_ZONE_READONLY"] == ["zones drive 0: 2 read-only zones"]
    assert by["SMRSTORE_CONVERSION_STALLED"] == ["stall drive 1: conversion reported stalled"]
    assert by["SMRSTORE_CONVERSION_BOUND_VIOLATED"] == [
        "slow drive 0: migration quanta p99 250 ms > latency bound 100 ms (max 900 ms)"]
    assert by["SMRSTORE_DAEMON_STALE"] == ["old: last update 101 s ago (limit 60 s)"]


def test_stale_only_when_older_than_the_limit() -> None:
    s = snap_of(1030.0, doc(t=1000.0))
    assert evaluate(s, History(), Thresholds(stale_seconds=30)) == []
    assert names(evaluate(s, History(), Thresholds(stale_seconds=29.5))) == ["SMRSTORE_DAEMON_STALE"]


def test_space_of_an_empty_or_tiny_store() -> None:
    # total 0 (nothing to be low on) must not divide by zero; 1 byte with 0 free is low.
    assert evaluate(snap_of(1001.0, doc(total=0, available=0)), History(), Thresholds()) == []
    checks = evaluate(snap_of(1001.0, doc(total=1, available=0)), History(), Thresholds())
    assert names(checks) == ["SMRSTORE_SPACE_LOW"]


def _throttle_history(throttle_s: List[float], drives: List[Dict]) -> Tuple[Snapshot, History]:
    h = History()
    last: Dict = {}
    for i, th in enumerate(throttle_s):
        last = doc(t=1000.0 + 10 * i, runs=5, throttle_ns=int(th * 1e9), drives=drives)
        h.add({"demo-a": parse_service_status("demo-a", status(last))}, now=last["time"])
    return snap_of(last["time"], last), h


def test_gc_throttle_limit_is_exclusive() -> None:
    # 10 s throttled in 20 s = exactly 50 %: not behind at a 50 % limit.
    s, h = _throttle_history([0, 5, 10], [drive(0), drive(1)])
    assert evaluate(s, h, Thresholds(gc_throttle_ratio=0.5)) == []
    checks = evaluate(s, h, Thresholds(gc_throttle_ratio=0.45))
    assert checks[0].detail == ["demo-a: GC throttled 50% of the last 20 s (limit 45%)"]


@pytest.mark.parametrize("ndrives", [1, 2, 3])
def test_gc_throttle_reported_once_per_daemon(ndrives: int) -> None:
    s, h = _throttle_history([0, 5, 15], [drive(i) for i in range(ndrives)])
    checks = evaluate(s, h, Thresholds(gc_throttle_ratio=0.6))
    assert [c.detail for c in checks] == [
        ["demo-a: GC throttled 75% of the last 20 s (limit 60%)"]]


def test_gc_throttled_with_few_free_zones_says_throttled() -> None:
    s, h = _throttle_history([0, 5, 15], [drive(0, zonemap="#.." + "k" * 13), drive(1)])
    checks = evaluate(s, h, Thresholds(gc_throttle_ratio=0.6, gc_free_zones_min=4))
    assert checks[0].detail == ["demo-a drive 0: 2 free zones (limit 4), GC throttled 75% of "
                                "the time"]


def test_drive_without_hybrid_block_does_not_hide_the_next() -> None:
    d0 = drive(0)
    d0["hybrid"] = None
    d = doc(drives=[d0, _conv_drive("stalled", 0.5) | {"index": 1}])
    s = Snapshot(time=1001.0, daemons={"demo-a": counters_view(d)}, errors=[])
    assert evaluate(s, History(), Thresholds())[0].detail == [
        "demo-a drive 1: conversion reported stalled"]


def _conversion(samples: List[Tuple[float, Optional[str], Optional[float]]],
                now_progress: float = 0.3) -> List[str]:
    """STALLED detail for drive 0 after history samples (t, state or None = no hybrid block,
    progress), the snapshot converting at now_progress at t=2000."""
    h = History()
    for t, st, p in samples:
        d0 = _conv_drive(st, p) if st is not None else drive(0, hybrid=None)
        d = doc(t=t, drives=[d0, drive(1)])
        h.add({"demo-a": counters_view(d)}, now=t)
    s = snap_of(2000.0, doc(t=2000.0, drives=[_conv_drive("converting", now_progress), drive(1)]))
    return [x for c in evaluate(s, h, Thresholds(conversion_stall_seconds=300, stale_seconds=1e6))
            for x in c.detail]


def test_conversion_stall_counts_only_the_current_converting_run() -> None:
    # Not converting in the history: unknown, not stalled (and no crash).
    assert _conversion([(1000.0, "idle", 0.3), (1500.0, "idle", 0.3)]) == []
    # Samples without the drive's hybrid block break the run, as does an idle one.
    assert _conversion([(1000.0, None, 0.0), (1100.0, "converting", 0.3)]) == [
        "demo-a drive 0: no conversion progress for 900 s (limit 300 s)"]
    assert _conversion([(1000.0, "converting", 0.3), (1400.0, "idle", 0.3),
                        (1800.0, "converting", 0.3)]) == []
    assert _conversion([(1000.0, "converting", 0.3), (1400.0, "idle", 0.3),
                        (1600.0, "converting", 0.3)]) == [
        "demo-a drive 0: no conversion progress for 400 s (limit 300 s)"]
    # Unknown progress breaks the run too.
    assert _conversion([(1000.0, "converting", 0.3), (1600.0, "converting", None),
                        (1800.0, "converting", 0.3)]) == []


QUARANTINE_FIX = ("check the drives and, with the store stopped, 'smrstore-tool fsck STORE "
                  "--deep'; GC retries a quarantined zone later")


@pytest.mark.parametrize("zones,raised", [(0, False), (1, True)])
def test_gc_quarantine_boundary(zones: int, raised: bool) -> None:
    s = snap_of(1001.0, doc(gc_failures=1, quarantined_zones=zones))
    checks = evaluate(s, History(), Thresholds())
    if not raised:
        assert checks == []
        return
    assert [(c.name, c.severity, c.summary, c.detail) for c in checks] == [
        ("SMRSTORE_GC_QUARANTINE", "warning",
         "1 smrstore zone quarantined after failed GC cleanings on demo-a",
         [f"demo-a: 1 zone quarantined by GC (1 failed cleaning since mount); {QUARANTINE_FIX}"])]
    assert to_mgr_checks(checks)["SMRSTORE_GC_QUARANTINE"]["count"] == 1


def test_gc_quarantine_names_every_daemon_and_sums_zones() -> None:
    s = snap_of(1001.0, doc(name="a", gc_failures=5, quarantined_zones=3),
                doc(name="b", gc_failures=0, quarantined_zones=0),
                doc(name="c", gc_failures=2, quarantined_zones=0),
                doc(name="d", gc_failures=1, quarantined_zones=1))
    checks = evaluate(s, History(), Thresholds())
    assert names(checks) == ["SMRSTORE_GC_QUARANTINE"]
    c = checks[0]
    assert c.summary == "4 smrstore zones quarantined after failed GC cleanings on a, d"
    assert c.count == 2
    assert c.detail == [
        f"a: 3 zones quarantined by GC (5 failed cleanings since mount); {QUARANTINE_FIX}",
        f"d: 1 zone quarantined by GC (1 failed cleaning since mount); {QUARANTINE_FIX}"]


def test_gc_failures_without_quarantine_raise_nothing() -> None:
    # Failed cleanings whose zones left quarantine (retried and cleaned): no warning.
    assert evaluate(snap_of(1001.0, doc(gc_failures=9, quarantined_zones=0)), History(),
                    Thresholds()) == []


# ---------------------------------------------------------------------------------------
# SMRSTORE_CONVERSION_BOUND_VIOLATED

def _bound(violations: List[Optional[int]], p99: Optional[float] = 40.0,
           bound: Optional[float] = 100.0, qmax: Optional[float] = 180.0,
           in_history: bool = True) -> List[str]:
    """The check's detail after samples of drive 0's bound_violations (None: the daemon did
    not report the field), 10 s apart; the last is the snapshot.  in_history: the module
    adds the snapshot to the history before it evaluates (module.sample); the check must
    not depend on it."""
    h = History()
    d: Dict = {}
    for i, v in enumerate(violations):
        hy = hybrid("CcS", violations=v or 0, p99=p99, qmax=qmax, latency_bound_ms=100.0)
        hy["latency_bound_ms"] = bound
        d = doc(t=1000.0 + 10 * i, drives=[drive(0, hybrid=hy), drive(1)])
        if v is None:       # an OSD's counters alone do not carry it
            d["drives"][0]["hybrid"]["bound_violations"] = None
        if i < len(violations) - 1 or in_history:
            h.add({"demo-a": counters_view(d)}, now=d["time"])
    s = Snapshot(time=d["time"], daemons={"demo-a": counters_view(d)}, errors=[])
    return [x for c in evaluate(s, h, Thresholds(stale_seconds=1e6))
            if c.name == "SMRSTORE_CONVERSION_BOUND_VIOLATED" for x in c.detail]


@pytest.mark.parametrize("in_history", [True, False])
def test_bound_violations_that_grew_since_the_previous_sample(in_history: bool) -> None:
    assert _bound([0, 0, 3], in_history=in_history) == [
        "demo-a drive 0: 3 migration quanta over the 100 ms latency bound since the previous "
        "sample (3 since mount) (max 180 ms)"]
    assert _bound([2, 3], in_history=in_history) == [
        "demo-a drive 0: 1 migration quantum over the 100 ms latency bound since the previous "
        "sample (3 since mount) (max 180 ms)"]


def test_bound_violations_that_did_not_grow_raise_nothing() -> None:
    assert _bound([3, 3, 3]) == []          # old violations: the previous sample had them
    assert _bound([7, 2]) == []             # fewer: a remount restarted the count
    assert _bound([5]) == []                # no previous sample to compare with
    assert _bound([None, 4]) == []          # the previous sample did not report the field
    assert _bound([4, None]) == []          # ... nor does this one


def test_quanta_p99_over_the_latency_bound() -> None:
    # Exclusive: a p99 exactly at the bound is within it.
    assert _bound([0, 0], p99=100.0) == []
    assert _bound([0, 0], p99=100.5) == [
        "demo-a drive 0: migration quanta p99 100.5 ms > latency bound 100 ms (max 180 ms)"]
    # Unknown p99 (no quantum ran) or bound: nothing to compare.
    assert _bound([0, 0], p99=None, qmax=None) == []
    assert _bound([0, 0], p99=500.0, bound=None) == []
    # Both at once: one line.
    assert _bound([1, 2], p99=120.0) == [
        "demo-a drive 0: 1 migration quantum over the 100 ms latency bound since the previous "
        "sample (2 since mount); migration quanta p99 120 ms > latency bound 100 ms "
        "(max 180 ms)"]


def test_bound_violated_names_each_drive_and_daemon() -> None:
    a = doc(name="a", drives=[drive(0, hybrid=hybrid("CS", p99=300.0)),
                              drive(1, hybrid=hybrid("SS", p99=300.0)), drive(2)])
    b = doc(name="b", drives=[drive(0, hybrid=hybrid("CC", p99=30.0))])
    checks = evaluate(snap_of(1001.0, a, b), History(), Thresholds())
    assert [(c.name, c.severity, c.summary, c.count) for c in checks] == [
        ("SMRSTORE_CONVERSION_BOUND_VIOLATED", "warning",
         "2 smrstore drive conversion(s) over their latency bound", 2)]
    assert [x.split(":")[0] for x in checks[0].detail] == ["a drive 0", "a drive 1"]


# --- SMRSTORE_OSD_REFUSED: what `ceph-volume smrstore check-ceph --osd-id N` recorded -------

REFUSED_LINE = ('check-ceph: /usr/bin/ceph-osd 16.2.16+ds-0+deb12u1 build-id ab12cd is not a '
                'build smrstore was verified against: smrstore OSDs must not start on it '
                '(doc/operations.md, "Upgrades")')


def refusal(state: str = "refused", epoch: Optional[int] = 40) -> str:
    return json.dumps({"state": state, "line": REFUSED_LINE, "osdmap_epoch": epoch,
                       "binary": "/usr/bin/ceph-osd", "time": 1000.0, "host": "h1"})


def osd_map(*osds: Tuple[int, int, int]) -> Dict:
    """(id, up, up_from) each, as ceph-mgr's get("osd_map") gives them."""
    return {"epoch": 50, "osds": [{"osd": i, "up": up, "in": 1, "up_from": uf} for i, up, uf in osds]}


KEY = "daemon-private/osd.%d/smrstore/check-ceph"


def test_refused_osd_is_a_health_check_with_the_line() -> None:
    keys = {KEY % 3: refusal(), "daemon-private/osd.3/other": "x",
            "daemon-private/mgr.x/smrstore/check-ceph": refusal()}
    c = osd_refusals(keys, osd_map((3, 0, 12), (4, 1, 30)))
    assert c is not None and c.name == "SMRSTORE_OSD_REFUSED" and c.severity == "warning"
    assert c.detail == ["osd.3: not started: " + REFUSED_LINE]
    assert c.summary == "1 smrstore OSD not started: check-ceph refused the host's ceph-osd build"
    assert to_mgr_checks([c])["SMRSTORE_OSD_REFUSED"]["count"] == 1


def test_refusal_clears_when_a_later_check_passed_or_the_osd_came_up_after_it() -> None:
    assert osd_refusals({KEY % 3: refusal(state="passed")}, osd_map((3, 0, 12))) is None
    # Up since epoch 41, after the refusal at 40: started some other way; not shown.
    assert osd_refusals({KEY % 3: refusal()}, osd_map((3, 1, 41))) is None
    # Still marked up from before the refusal (stopped, not yet marked down): shown.
    assert osd_refusals({KEY % 3: refusal()}, osd_map((3, 1, 12))) is not None
    # Up, and the refusal has no epoch (the OSD key could not read the map): not shown.
    assert osd_refusals({KEY % 3: refusal(epoch=None)}, osd_map((3, 1, 12))) is None
    # The OSD no longer exists (purged): not shown.
    assert osd_refusals({KEY % 3: refusal()}, osd_map((4, 0, 1))) is None


def test_refusals_of_several_osds_in_order_and_bad_entries_skipped() -> None:
    keys = {KEY % 10: refusal(), KEY % 2: refusal(), KEY % 5: "not json",
            KEY % 6: json.dumps(["refused"])}
    c = osd_refusals(keys, osd_map((2, 0, 1), (5, 0, 1), (6, 0, 1), (10, 0, 1)))
    assert c is not None and [d.split(":")[0] for d in c.detail] == ["osd.2", "osd.10"]
    assert c.summary.startswith("2 smrstore OSDs not started")


# --- survivors of the 2026-12-07 mutmut run -----------------------------------------------

def test_conversion_stall_needs_progress_not_bound_violations() -> None:
    # Samples from an OSD's counters: progress known, bound_violations not reported.  The
    # run of unchanged progress counts; the missing violation count does not break it.
    h = History()
    for t in (1000.0, 1500.0):
        d = doc(t=t, drives=[_conv_drive("converting", 0.3), drive(1)])
        d["drives"][0]["hybrid"]["bound_violations"] = None
        h.add({"demo-a": counters_view(d)}, now=t)
    s = snap_of(2000.0, doc(t=2000.0, drives=[_conv_drive("converting", 0.3), drive(1)]))
    assert [x for c in evaluate(s, h, Thresholds(conversion_stall_seconds=300,
                                                 stale_seconds=1e6)) for x in c.detail] == [
        "demo-a drive 0: no conversion progress for 1000 s (limit 300 s)"]


def test_bound_violations_with_unknown_max_and_bound_show_a_dash() -> None:
    assert _bound([0, 2], qmax=None) == [
        "demo-a drive 0: 2 migration quanta over the 100 ms latency bound since the previous "
        "sample (2 since mount) (max -)"]
    assert _bound([0, 1], p99=None, bound=None) == [
        "demo-a drive 0: 1 migration quantum over the - latency bound since the previous "
        "sample (1 since mount) (max 180 ms)"]


def test_bound_violations_when_the_previous_sample_lacks_the_drive() -> None:
    # The previous sample had no hybrid block for drive 0 (no conversion entry): nothing to
    # compare the count with, so only the p99 can raise the check (and nothing crashes).
    h = History()
    prev = doc(t=1000.0, drives=[drive(0, hybrid=None), drive(1)])
    h.add({"demo-a": counters_view(prev)}, now=1000.0)
    hy = hybrid("CcS", violations=5, p99=40.0, latency_bound_ms=100.0)
    d = doc(t=1010.0, drives=[drive(0, hybrid=hy), drive(1)])
    s = Snapshot(time=1010.0, daemons={"demo-a": counters_view(d)}, errors=[])
    assert evaluate(s, h, Thresholds(stale_seconds=1e6)) == []


def test_refusal_against_an_osd_map_without_osds_shows_nothing() -> None:
    assert osd_refusals({KEY % 3: refusal()}, {"epoch": 50}) is None


def test_refusal_shown_unless_the_osd_came_up_strictly_after_it() -> None:
    # up_from equal to the refusal's epoch: up from before the refusal took effect; shown.
    assert osd_refusals({KEY % 3: refusal(epoch=40)}, osd_map((3, 1, 40))) is not None
    # Up, no up_from in the map: taken as 0, so a refusal at epoch 0 or later is shown.
    m: Dict = {"epoch": 50, "osds": [{"osd": 3, "up": 1, "in": 1}]}
    for epoch in (0, 40):
        c = osd_refusals({KEY % 3: refusal(epoch=epoch)}, m)
        assert c is not None and c.detail == ["osd.3: not started: " + REFUSED_LINE]


def test_an_osd_up_after_its_refusal_does_not_hide_the_next_one() -> None:
    keys = {KEY % 2: refusal(epoch=40), KEY % 7: refusal(epoch=40)}
    c = osd_refusals(keys, osd_map((2, 1, 45), (7, 0, 12)))
    assert c is not None and c.detail == ["osd.7: not started: " + REFUSED_LINE]


def test_refusal_without_a_line_says_no_reason_was_recorded() -> None:
    rec = json.dumps({"state": "refused", "osdmap_epoch": 40})
    c = osd_refusals({KEY % 3: rec}, osd_map((3, 0, 12)))
    assert c is not None and c.detail == [
        "osd.3: not started: check-ceph refused it (no reason recorded)"]
