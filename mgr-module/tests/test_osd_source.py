"""The OSD source on shapes recorded from real smrstore OSDs (Debian's ceph-osd 16.2.15 with
libsmrstore_osd.so, 2 OSDs, pool size 2, rados_churn.py), fixtures/osd/:

* capture-osd.{0,1}.json  `ceph smrstore osd capture N` (what ceph-mgr returns to the module:
  osd_metadata, osd_map entry, perf schema, get_latest_counter, the raw answer of the
  mgr-sent `smrstore stats`) at rest after a churn run with GC;
* capture-gc-{1,2}.json   the same for osd.0, 6 s apart, while the churn ran and GC relocated;
* tell-osd.0.json         `ceph tell osd.0 smrstore stats` right after capture-osd.0;
* perf-dump-osd.0.json, perf-schema-osd.0.json  `ceph daemon osd.0 perf dump|schema` (the
  smrstore loggers) at the same rest.

The recording build predates the fields and counters added since (store options, pack
records, reads, GC failures, quarantine, pinned zones and read-ahead, statfs.reclaimable,
zones.inactive, the hybrid block's realms and quanta): the format being unreleased, every
field is required, so mgr-module/tools/fill_fixtures.py filled those in (counters and counts
0, the options' defaults, a non-hybrid drive's hybrid block: what the engine writes for such a
store now); rerun it after adding a field or a counter.  The one field the schema does not
require, statfs.writable (and its counter smrstore_statfs_writable), is left out: no value
would be true for these stores, and they stand for OSDs from before it (the health check's
fallback).
"""

import copy
import json
import os
import threading
from typing import Any, Dict, List, Optional

import pytest

from smrstore.health import Thresholds, evaluate
from smrstore.history import History
from smrstore.model import SOURCE_OSD, OsdReading, merge, parse_osd, parse_osd_counters
from smrstore.osd_source import (STATS_COMMAND, OsdSource, capture_osd, smrstore_osds,
                                 up_osds)
from smrstore.stats import PERF_COUNTERS, STATS_SCHEMA, StatsError
from smrstore import views

FIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "osd")


def load(name: str) -> Any:
    with open(os.path.join(FIX, name)) as f:
        return json.load(f)


class FakeMgr:
    """ceph-mgr as the module sees it, replaying `ceph smrstore osd capture` records."""

    def __init__(self, captures: List[Dict[str, Any]], answer: str = "now") -> None:
        self.caps = {c["osd_id"]: c for c in captures}
        self.answer = answer           # now | never | error
        self.sent: List[str] = []
        self.pending: List[Any] = []
        self.metadata: Dict[str, Any] = {}
        self.osds: List[Any] = []
        for c in captures:
            self.metadata.update(c["osd_metadata"])
            self.osds.extend(c["osd_map"]["osds"])

    def get(self, data_name: str) -> Any:
        if data_name == "osd_metadata":
            return self.metadata
        if data_name == "osd_map":
            return {"epoch": 9, "osds": self.osds}
        raise KeyError(data_name)

    def get_perf_schema(self, svc_type: str, svc_name: str) -> Any:
        c = self.caps.get(int(svc_name))
        return c["perf_schema"] if c else {}

    def get_latest_counter(self, svc_type: str, svc_name: str, path: str) -> Any:
        return {path: self.caps[int(svc_name)]["latest_counter"].get(path) or []}

    def send_command(self, result: Any, svc_type: str, svc_id: str, command: str, tag: str,
                     inbuf: Optional[str] = None) -> None:
        assert svc_type == "osd"
        assert json.loads(command)["prefix"] == STATS_COMMAND
        self.sent.append(svc_id)
        cmd = self.caps[int(svc_id)]["stats_command"]
        if self.answer == "now":
            result.complete(cmd["r"], cmd["outb"], cmd["outs"])
        elif self.answer == "error":
            result.complete(-22, "", "unrecognized command! [{prefix=smrstore stats}]")
        elif self.answer == "later":
            threading.Timer(0.05, result.complete, (cmd["r"], cmd["outb"], cmd["outs"])).start()
        else:
            self.pending.append(result)


def real() -> FakeMgr:
    return FakeMgr([load("capture-osd.0.json"), load("capture-osd.1.json")])


def optional_counters(logger: str) -> List[str]:
    """The counters of a logger of x-perf-counters that carry a field the schema does not
    require (statfs.writable): an OSD from before the field lacks them."""
    out = []
    for e in PERF_COUNTERS[logger]:
        node: Any = STATS_SCHEMA if logger == "smrstore" else STATS_SCHEMA["$defs"]["drive"]
        *parents, key = e.get("path", "/").strip("/").split("/")
        for p in parents:
            node = node["properties"][p]
        if e.get("path") and key not in node.get("required", []):
            out.append(e["name"])
    return out


def test_recorded_captures_are_real_osds() -> None:
    c = load("capture-osd.0.json")
    meta = c["osd_metadata"]["0"]
    assert meta["osd_objectstore"] == "smrstore" and meta["ceph_version"].startswith(
        "ceph version 16.2.15")
    assert c["stats_command"]["answered"] and c["stats_command"]["r"] == 0
    # Every smrstore counter reaches the mgr: priority >= PRIO_USEFUL (mgr_stats_threshold).
    schema = c["perf_schema"]["osd.0"]
    smr = [p for p in schema if p.startswith("smrstore")]
    # (all but those of fields a document may lack: recorded before statfs.writable)
    assert optional_counters("smrstore") == ["smrstore_statfs_writable"]
    assert optional_counters("smrstore-drive.<i>") == []
    assert not any(p.endswith(".smrstore_statfs_writable") for p in smr)
    assert len(smr) == len(PERF_COUNTERS["smrstore"]) - 1 + 2 * len(PERF_COUNTERS["smrstore-drive.<i>"])
    assert all(schema[p]["priority"] >= 5 for p in smr)
    assert all(c["latest_counter"][p] for p in smr)


def test_collect_and_parse_real_osds() -> None:
    mgr = real()
    readings = OsdSource(command_timeout=1.0).collect(mgr)
    assert sorted(readings) == ["osd.0", "osd.1"] and sorted(mgr.sent) == ["0", "1"]
    # Only smrstore counters are taken (the capture holds osd.op_w / osd.op_r too).
    assert all(p.startswith("smrstore") for r in readings.values() for p in r.counters)
    snap = merge(1795548960.0, {}, readings)
    assert snap.errors == [] and sorted(snap.daemons) == ["osd.0", "osd.1"]
    d = snap.daemons["osd.0"]
    assert d.source == SOURCE_OSD and d.doc.name == "osd.0" and d.zonemap_error is None
    raw = json.loads(load("capture-osd.0.json")["stats_command"]["outb"])
    lc = load("capture-osd.0.json")["latest_counter"]
    # Numbers from the counters ...
    assert d.doc.io.user_bytes == lc["smrstore.smrstore_user_bytes"][1]
    assert d.doc.time == lc["smrstore.smrstore_user_bytes"][0]
    assert d.doc.gc.runs == lc["smrstore.smrstore_gc_runs"][1] > 1000
    assert d.doc.drives[1].zones.free == lc["smrstore-drive.1.smrstore_zones_free"][1]
    # ... which at rest equal the document's; maps, geometry, store, lifetime from it.
    assert d.doc.io.user_bytes == raw["io"]["user_bytes"]
    assert d.doc.io.device_bytes == raw["io"]["device_bytes"]
    assert d.doc.io.write_amplification == pytest.approx(raw["io"]["write_amplification"],
                                                         abs=1e-4)
    assert d.doc.io.write_amplification > 1.2
    assert d.doc.io.lifetime_gc_bytes == raw["io"]["lifetime_gc_bytes"]
    assert d.doc.gc.dict() == raw["gc"]
    assert d.doc.store is not None and d.doc.store.uuid == raw["store"]["uuid"]
    # (an OSD from before statfs.writable: neither its counters nor its document have it)
    assert "writable" not in raw["statfs"] and d.doc.statfs.writable is None
    assert d.doc.statfs.dict(exclude={"writable"}) == raw["statfs"]
    for i, dr in enumerate(raw["drives"]):
        assert d.zonemaps[i] == dr["zonemap"] and d.streams[i] == dr["streams"]
        got = d.doc.drives[i]
        assert got.nr_zones == dr["nr_zones"] == 24 and got.spec == dr["spec"]
        assert got.zones.dict() == dr["zones"]
        assert got.zones.inactive == dr["zones"]["inactive"] == 0   # from the document
        assert (got.capacity_bytes, got.written_bytes, got.live_bytes) == (
            dr["capacity_bytes"], dr["written_bytes"], dr["live_bytes"])
    assert d.zonemap_time == raw["time"]


def test_what_the_api_shows_equals_ceph_tell() -> None:
    """The API's view of osd.0 against `ceph tell osd.0 smrstore stats` taken just after
    (the cluster at rest, so they are equal)."""
    snap = merge(1795548960.0, {}, OsdSource().collect(real()))
    tell = load("tell-osd.0.json")
    d = snap.daemons["osd.0"]
    s = views.daemon_summary(d, snap.time, 30.0)
    assert s.name == "osd.0" and s.source == "osd"
    assert s.user_bytes == tell["io"]["user_bytes"] and s.device_bytes == tell["io"]["device_bytes"]
    assert round(s.write_amplification, 4) == tell["io"]["write_amplification"]
    assert s.free_zones == sum(dr["zones"]["free"] for dr in tell["drives"])
    assert s.gc_runs == tell["gc"]["runs"]
    for i, dr in enumerate(tell["drives"]):
        z = views.drive_zones(d, i)
        assert z is not None and z.available and z.source == "osd"
        assert z.zonemap == dr["zonemap"] and z.streams == dr["streams"]
        assert z.counts is not None and z.counts.free == dr["zones"]["free"]
        assert z.reported.sealed == dr["zones"]["sealed"]


def test_asok_perf_dump_names_match_the_model() -> None:
    """`ceph daemon osd.0 perf dump` (the OSD's own view) parses to the same numbers."""
    dump = load("perf-dump-osd.0.json")
    flat = {f"{logger}.{name}": {"value": v}
            for logger, cs in dump.items() for name, v in cs.items()}
    schema = load("perf-schema-osd.0.json")
    assert all(v["priority"] >= 5 for cs in schema.values() for v in cs.values())
    d = parse_osd_counters("osd.0", flat, now=7.0)
    assert d is not None and d.doc.time == 7.0
    tell = load("tell-osd.0.json")
    assert d.doc.io.user_bytes == tell["io"]["user_bytes"]
    assert d.doc.gc.throttle_ns == tell["gc"]["throttle_ns"]
    assert [dr.zones.conventional for dr in d.doc.drives] == [0, 0]
    assert d.doc.drives[0].live_bytes == tell["drives"][0]["live_bytes"]


def test_health_fires_for_real_osd_gc() -> None:
    """Two captures 6 s apart during churn: GC ran with 2-3 free zones per drive."""
    h = History()
    th = Thresholds()
    snap = None
    for name in ("capture-gc-1.json", "capture-gc-2.json"):
        readings = OsdSource().collect(FakeMgr([load(name)]))
        snap = merge(readings["osd.0"].counters["smrstore.smrstore_gc_runs"][0] + 1, {},
                     readings)
        h.add(snap.daemons, snap.time)
    assert snap is not None
    checks = {c.name: c for c in evaluate(snap, h, th)}
    assert "SMRSTORE_GC_BEHIND" in checks
    assert any(line.startswith("osd.0 drive ") and "GC running" in line
               for line in checks["SMRSTORE_GC_BEHIND"].detail)
    rates = h.rates("osd.0", th.gc_window, snap.time)
    assert rates is not None and rates.gc_runs_per_s > 0
    # Space: osd.0 is about 22 % free; a 0.5 threshold trips SMRSTORE_SPACE_LOW.
    low = {c.name for c in evaluate(snap, h, Thresholds(space_low_ratio=0.5))}
    assert "SMRSTORE_SPACE_LOW" in low
    # A minute later without news: SMRSTORE_DAEMON_STALE.
    later = merge(snap.time + 60, {}, {"osd.0": OsdReading(
        counters=OsdSource().collect(FakeMgr([load("capture-gc-2.json")]))["osd.0"].counters)})
    stale = {c.name: c for c in evaluate(later, h, th)}
    assert "osd.0" in stale["SMRSTORE_DAEMON_STALE"].detail[0]


def test_only_smrstore_osds_and_up_ones_are_asked() -> None:
    mgr = real()
    mgr.metadata["2"] = dict(mgr.metadata["0"], osd_objectstore="bluestore")
    mgr.osds[1] = dict(mgr.osds[1], up=0)
    assert smrstore_osds(mgr.metadata) == [0, 1]
    assert up_osds({"osds": mgr.osds}) == {0} and up_osds({}) is None
    r = OsdSource().collect(mgr)
    assert mgr.sent == ["0"] and sorted(r) == ["osd.0", "osd.1"]
    assert r["osd.1"].document is None and r["osd.1"].document_error == "the OSD is down"
    d = parse_osd("osd.1", r["osd.1"], 0.0)   # still shown, from the counters it sent
    assert d.zonemaps == {} and d.zonemap_error == "the OSD is down"
    z = views.drive_zones(d, 0)
    assert z is not None and not z.available and z.zonemap == ""


def test_a_down_osd_keeps_its_last_zone_maps() -> None:
    mgr = real()
    src = OsdSource()
    src.collect(mgr)
    mgr.osds[0] = dict(mgr.osds[0], up=0)
    r = src.collect(mgr)
    assert mgr.sent.count("0") == 1
    d = parse_osd("osd.0", r["osd.0"], 0.0)
    assert d.zonemaps and d.zonemap_error == "the OSD is down"


def test_command_error_still_shows_the_osd() -> None:
    mgr = FakeMgr([load("capture-osd.0.json")], answer="error")
    snap = merge(1.0, {}, OsdSource().collect(mgr))
    d = snap.daemons["osd.0"]
    assert d.zonemaps == {}
    assert d.zonemap_error == ("smrstore stats answered -22: unrecognized command! "
                               "[{prefix=smrstore stats}]")
    assert d.doc.store is None and d.doc.drives[0].nr_zones is None
    assert d.doc.io.user_bytes > 0 and snap.errors == []


def test_unanswered_command_is_not_resent_then_abandoned() -> None:
    t = [100.0]
    mgr = FakeMgr([load("capture-osd.0.json")], answer="never")
    src = OsdSource(command_timeout=0.01, abandon_after=30.0, clock=lambda: t[0])
    r = src.collect(mgr)
    assert r["osd.0"].document is None
    assert r["osd.0"].document_error == "smrstore stats has not answered for 0 s"
    t[0] += 10
    src.collect(mgr)
    assert mgr.sent == ["0"]                       # still outstanding: not asked again
    # A late answer is used at the next sample.
    cmd = load("capture-osd.0.json")["stats_command"]
    mgr.pending[0].complete(0, cmd["outb"], "")
    r = src.collect(mgr)
    assert r["osd.0"].document == cmd["outb"] and mgr.sent == ["0", "0"]
    t[0] += 31
    r = src.collect(mgr)
    assert mgr.sent == ["0", "0", "0"]
    assert "did not answer in 30 s; asked again" in (r["osd.0"].document_error or "")
    assert r["osd.0"].document == cmd["outb"]      # the last good one is kept


def test_answers_arriving_from_another_thread_are_waited_for() -> None:
    mgr = FakeMgr([load("capture-osd.0.json"), load("capture-osd.1.json")], answer="later")
    r = OsdSource(command_timeout=5.0).collect(mgr)
    assert all(x.document is not None and x.document_error is None for x in r.values())


def test_document_only_and_nothing() -> None:
    cmd = load("capture-osd.0.json")["stats_command"]
    d = parse_osd("osd.0", OsdReading(counters={}, document=cmd["outb"]), 5.0)
    raw = json.loads(cmd["outb"])
    assert d.doc.time == raw["time"] and d.doc.io.user_bytes == raw["io"]["user_bytes"]
    assert d.zonemaps[0] == raw["drives"][0]["zonemap"]
    with pytest.raises(StatsError, match=r"osd.0: osd_objectstore is smrstore but the mgr has "
                       r"no smrstore_\* perf counters of it; smrstore stats: down"):
        parse_osd("osd.0", OsdReading(counters={}, document_error="down"), 5.0)
    snap = merge(5.0, {}, {"osd.0": OsdReading(counters={}, document_error="down")})
    assert snap.daemons == {} and snap.errors[0].source == "osd"
    assert "SMRSTORE_STATUS_INVALID" in {c.name for c in evaluate(snap, History(), Thresholds())}


@pytest.mark.parametrize("change,message", [
    (lambda d: d["drives"][0].update(zonemap="##"), "drives[0].zonemap: 2 characters for 24 zones"),
    (lambda d: d["drives"][1].pop("streams"), "drive 1 has no zonemap/streams strings"),
    (lambda d: d["io"].pop("user_bytes"), "missing field(s) io.user_bytes"),
    (lambda d: d.update(schema="smrstore.stats/9"), "unsupported schema"),
])
def test_bad_documents_name_the_problem(change: Any, message: str) -> None:
    c = load("capture-osd.0.json")
    raw = json.loads(c["stats_command"]["outb"])
    change(raw)
    counters = {p: v for p, v in c["latest_counter"].items() if p.startswith("smrstore")}
    d = parse_osd("osd.0", OsdReading(counters=counters, document=json.dumps(raw)), 1.0)
    assert d.zonemaps == {} and d.zonemap_error is not None
    assert d.zonemap_error.startswith("smrstore stats of osd.0") and message in d.zonemap_error
    snap = merge(1.0, {}, {"osd.0": OsdReading(counters=counters, document=json.dumps(raw))})
    assert "osd.0" in snap.daemons and [e.message for e in snap.errors] == [d.zonemap_error]
    with pytest.raises(StatsError, match="not valid JSON"):
        parse_osd("osd.0", OsdReading(counters={}, document="{oops"), 1.0)


def test_drive_count_mismatch_is_an_error() -> None:
    c = load("capture-osd.0.json")
    counters = {p: v for p, v in c["latest_counter"].items()
                if p.startswith("smrstore") and not p.startswith("smrstore-drive.1.")}
    with pytest.raises(StatsError, match="1 drive loggers but smrstore stats lists 2 drives"):
        parse_osd("osd.0", OsdReading(counters=counters, document=c["stats_command"]["outb"]), 1.0)


def test_capture_records_what_the_module_reads() -> None:
    mgr = real()
    cap = capture_osd(mgr, 0, timeout=1.0)
    again = copy.deepcopy(load("capture-osd.0.json"))
    assert cap == again
    with pytest.raises(KeyError, match="no metadata of osd.7"):
        capture_osd(mgr, 7)


def _capture_osd0() -> Any:
    c = load("capture-osd.0.json")
    counters = {p: v for p, v in c["latest_counter"].items() if p.startswith("smrstore")}
    return counters, json.loads(c["stats_command"]["outb"])


@pytest.mark.parametrize("counters_of,fields", [
    ({"gc_failures": 5, "gc_quarantined_zones": 2}, {"gc.failures": 5, "gc.quarantined_zones": 2}),
    ({"pack_records": 7, "pack_entries": 500, "pack_payload_bytes": 1_500_000,
      "pack_record_bytes": 1_556_480},
     {"io.pack_records": 7, "io.pack_entries": 500, "io.pack_payload_bytes": 1_500_000,
      "io.pack_record_bytes": 1_556_480}),
    ({"data_reads": 30, "data_read_records": 90, "gc_pinned_zones": 5},
     {"io.data_reads": 30, "io.data_read_records": 90, "gc.pinned_zones": 5}),
    ({"gc_read_ahead_bytes": 6 << 20, "gc_read_ahead_yields": 4},
     {"gc.read_ahead_bytes": 6 << 20, "gc.read_ahead_yields": 4}),
])
def test_counters_win_over_the_document_and_are_required(counters_of: Dict[str, int],
                                                         fields: Dict[str, int]) -> None:
    """The numbers come from the perf counters (newer than the document); every counter of
    the schema's x-perf-counters is required (the perf table is generated from the same
    schema, so an OSD library has them all); the store options come from the document."""
    counters, raw = _capture_osd0()
    t = counters["smrstore.smrstore_gc_runs"][0]
    with_counters = dict(counters)
    for k, v in counters_of.items():
        with_counters[f"smrstore.smrstore_{k}"] = [t, v]
    newer = dict(raw, store=dict(raw["store"], pack_max=4096, gc_read_ahead=True))

    def got(d: Any) -> Dict[str, int]:
        return {f: getattr(getattr(d.doc, f.split(".")[0]), f.split(".")[1]) for f in fields}

    d = parse_osd("osd.0", OsdReading(counters=with_counters, document=json.dumps(newer)), 1.0)
    assert got(d) == fields
    assert d.doc.store is not None and (d.doc.store.pack_max, d.doc.store.gc_read_ahead) == (
        4096, True)
    # Counters only (no document yet): the numbers, no store block.
    d = parse_osd("osd.0", OsdReading(counters=with_counters), 1.0)
    assert got(d) == fields and d.doc.store is None
    # A counter missing: an error naming it.
    first = next(iter(counters_of))
    without = {k: v for k, v in with_counters.items() if k != f"smrstore.smrstore_{first}"}
    with pytest.raises(StatsError, match=f"counter smrstore.smrstore_{first} missing"):
        parse_osd("osd.0", OsdReading(counters=without, document=json.dumps(newer)), 1.0)


def test_space_low_of_a_real_osd_follows_its_writable_counter() -> None:
    """osd.0 as recorded (no statfs.writable: an OSD from before it) is judged by
    (available + reclaimable) / total; given the counter smrstore_statfs_writable (and the
    field in its document, as an OSD of this version answers), by writable / total."""
    counters, raw = _capture_osd0()
    t = counters["smrstore.smrstore_gc_runs"][0]
    total = counters["smrstore.smrstore_statfs_total"][1]
    available = counters["smrstore.smrstore_statfs_available"][1]
    assert available / total > 0.2

    def space(counters: Dict[str, Any], raw: Dict[str, Any]) -> List[str]:
        snap = merge(t + 1, {}, {"osd.0": OsdReading(counters=counters,
                                                      document=json.dumps(raw))})
        return [line for c in evaluate(snap, History(), Thresholds())
                if c.name == "SMRSTORE_SPACE_LOW" for line in c.detail]

    assert space(counters, raw) == []
    # GC could give back half the store by the old count, but only 5 % is writable.
    writable = total // 20
    newer = dict(counters)
    newer["smrstore.smrstore_statfs_reclaimable"] = [t, total // 2]
    newer["smrstore.smrstore_statfs_writable"] = [t, writable]
    doc = dict(raw, statfs=dict(raw["statfs"], reclaimable=total // 2, writable=writable))
    assert space(newer, doc) == [f"osd.0: 5.0% available ({writable} writable of {total} "
                                 f"bytes; limit 10.0%)"]
    d = parse_osd("osd.0", OsdReading(counters=newer), 1.0)     # counters only
    assert d.doc.statfs.writable == writable


def test_health_names_a_real_osd_with_quarantined_zones() -> None:
    counters, raw = _capture_osd0()
    t = counters["smrstore.smrstore_gc_runs"][0]
    counters["smrstore.smrstore_gc_failures"] = [t, 3]
    counters["smrstore.smrstore_gc_quarantined_zones"] = [t, 1]
    snap = merge(t + 1, {}, {"osd.0": OsdReading(counters=counters, document=json.dumps(raw))})
    checks = {c.name: c for c in evaluate(snap, History(), Thresholds())}
    assert checks["SMRSTORE_GC_QUARANTINE"].detail == [
        "osd.0: 1 zone quarantined by GC (3 failed cleanings since mount); check the drives "
        "(OSD log 'smrstore:' lines), 'ceph osd deep-scrub osd.0', and with the OSD stopped "
        "'ceph-objectstore-tool --op fsck' (with the smrstore preload); GC retries a "
        "quarantined zone later"]
