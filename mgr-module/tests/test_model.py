import json
from typing import Any, Dict

import pytest
from conftest import GiB, doc, drive, hybrid, osd_counters, status

from smrstore.model import (OsdReading, SOURCE_OSD, SOURCE_SERVICE, merge, parse_osd_counters,
                            parse_service_status, service_daemon_names)
from smrstore.stats import StatsError


def test_service_status_parses(good_status: Dict[str, str]) -> None:
    d = parse_service_status("demo-a", good_status)
    assert d.source == SOURCE_SERVICE
    assert d.doc.schema_ == "smrstore.stats/1"
    assert [dr.index for dr in d.doc.drives] == [0, 1]
    assert d.zonemaps[0] == good_status["zonemap.0"]
    assert d.streams[1] == good_status["streams.1"]
    assert d.doc.io.lifetime_user_bytes == 10 * GiB
    assert d.doc.drives[0].hybrid is not None and d.doc.drives[0].hybrid.state == "none"


def test_unknown_extra_fields_are_ignored() -> None:
    d = doc()
    d["io"]["future_counter"] = 7
    d["brand_new_block"] = {"x": 1}
    assert parse_service_status("demo-a", status(d)).doc.io.txns_committed == 100


def test_maps_inside_stats_are_tolerated() -> None:
    st = status(doc())
    raw = json.loads(st["stats"])
    raw["drives"][0]["zonemap"] = "junk"
    st["stats"] = json.dumps(raw)
    assert parse_service_status("demo-a", st).zonemaps[0] == st["zonemap.0"]


@pytest.mark.parametrize("mutate,message", [
    (lambda s: s.pop("schema"), "no 'schema' key"),
    (lambda s: s.update(schema="smrstore.stats/2"), "unsupported schema 'smrstore.stats/2'"),
    (lambda s: s.pop("stats"), "no 'stats' JSON"),
    (lambda s: s.update(stats="{not json"), "'stats' is not valid JSON"),
    (lambda s: s.update(stats="[1, 2]"), "expected a JSON object, got list"),
    (lambda s: s.pop("zonemap.1"), "drive 1 has no zonemap.1/streams.1"),
    (lambda s: s.update({"zonemap.0": "#....."}), "zonemap.0: 6 characters for 16 zones"),
    (lambda s: s.update({"zonemap.0": "#" * 15 + "Z"}), "zonemap.0: unknown character(s) 'Z'"),
    (lambda s: s.update({"streams.0": "-" * 15 + "x"}), "streams.0: unknown character(s) 'x'"),
])
def test_bad_status_maps_give_clear_errors(mutate: Any, message: str) -> None:
    st = status(doc())
    mutate(st)
    with pytest.raises(StatsError) as e:
        parse_service_status("demo-a", st)
    assert message in str(e.value)
    assert "demo-a" in str(e.value)


def _with_doc(change: Any) -> Dict[str, str]:
    d = doc()
    change(d)
    return status(d)


@pytest.mark.parametrize("change,message", [
    (lambda d: d["io"].pop("bytes_read"), "missing field(s) io.bytes_read"),
    (lambda d: d["drives"][1].pop("hybrid"), "missing field(s) drives[1].hybrid"),
    (lambda d: d.pop("store"), "missing field(s) store"),
    (lambda d: d["statfs"].update(total=-1), "statfs.total: ensure this value is greater than or equal to 0"),
    (lambda d: d["io"].update(user_bytes="lots"), "io.user_bytes: value is not a valid integer"),
    (lambda d: d["drives"][0]["hybrid"].update(state="melting"), "unknown hybrid state 'melting'"),
    (lambda d: d["drives"][0].update(index=5), "drive indexes must be 0..1 once each, got [5, 1]"),
    (lambda d: d.update(name="other"), "stats name is 'other', not the daemon name"),
    (lambda d: d.pop("gc"), "missing field(s) gc"),
])
def test_bad_documents_name_the_field(change: Any, message: str) -> None:
    with pytest.raises(StatsError) as e:
        parse_service_status("demo-a", _with_doc(change))
    assert message in str(e.value)


def test_no_status_yet() -> None:
    with pytest.raises(StatsError, match="no status published yet"):
        parse_service_status("demo-a", None)


def test_service_daemon_names_skip_summary_and_other_types() -> None:
    sm = {"epoch": 3, "services": {
        "smrstore": {"daemons": {"summary": "", "b": {"gid": 2}, "a": {"gid": 1}}},
        "rgw": {"daemons": {"summary": "", "x": {}}}}}
    assert service_daemon_names(sm) == ["a", "b"]
    assert service_daemon_names({"services": {}}) == []
    assert service_daemon_names({}) == []
    assert service_daemon_names(None) == []
    assert service_daemon_names({"services": {"smrstore": "junk"}}) == []


def test_osd_counters_parse() -> None:
    d = parse_osd_counters("osd.3", osd_counters(), now=50.0)
    assert d is not None and d.source == SOURCE_OSD
    doc_ = d.doc
    assert doc_.name == "osd.3" and doc_.time == 50.0 and doc_.store is None
    assert doc_.io.user_bytes == 4 * GiB and doc_.io.write_amplification == 1.25
    assert doc_.gc.throttle_ns == 2_000_000_000 and doc_.gc.auto is True
    assert doc_.statfs.total == 64 * GiB and doc_.statfs.allocated is None
    assert [dr.index for dr in doc_.drives] == [0, 1]
    assert doc_.drives[1].zones.sealed == 50 and doc_.drives[1].nr_zones is None
    assert doc_.drives[0].hybrid is None
    assert d.zonemaps == {}


def test_osd_counters_latest_counter_shape_and_time() -> None:
    raw = {p: (100.0 + i, v["value"]) for i, (p, v) in enumerate(osd_counters().items())}
    d = parse_osd_counters("osd.0", raw, now=5.0)
    assert d is not None and d.doc.time == 100.0 + len(raw) - 1


def test_osd_conversion_state() -> None:
    d = parse_osd_counters("osd.0", osd_counters(conv=3), now=1.0)
    assert d is not None
    h = d.doc.drives[0].hybrid
    assert h is not None and h.state == "stalled" and h.progress is None
    with pytest.raises(StatsError, match="smrstore_conversion_state 9 unknown"):
        parse_osd_counters("osd.0", osd_counters(conv=9), now=1.0)


def test_osd_without_smrstore_counters() -> None:
    assert parse_osd_counters("osd.1", {"osd.op_w": {"value": 3}}, now=1.0) is None


def test_osd_missing_counter() -> None:
    c = osd_counters()
    del c["smrstore-drive.1.smrstore_zones_free"]
    with pytest.raises(StatsError, match=r"counter smrstore-drive.1.smrstore_zones_free missing"):
        parse_osd_counters("osd.2", c, now=1.0)
    c = osd_counters()
    c["smrstore.smrstore_txns"] = {"value": "x"}
    with pytest.raises(StatsError, match="smrstore.smrstore_txns has no numeric value"):
        parse_osd_counters("osd.2", c, now=1.0)


def test_osd_drive_gap() -> None:
    c = {k: v for k, v in osd_counters(drives=3).items() if not k.startswith("smrstore-drive.1.")}
    with pytest.raises(StatsError, match=r"drive loggers \[0, 2\] are not 0..1"):
        parse_osd_counters("osd.2", c, now=1.0)


def test_merge_collects_errors_and_prefers_service() -> None:
    svc_osd = status(doc(name="osd.7"))
    bad = status(doc(name="broken"))
    bad["stats"] = "{"
    snap = merge(10.0, {"demo-a": status(doc()), "broken": bad, "osd.7": svc_osd,
                        "silent": None},
                 {"osd.7": OsdReading(osd_counters()), "osd.8": OsdReading(osd_counters()),
                  "osd.9": OsdReading({"smrstore.smrstore_user_bytes": {"value": 1}})})
    assert sorted(snap.daemons) == ["demo-a", "osd.7", "osd.8"]
    assert snap.daemons["osd.7"].source == SOURCE_SERVICE
    assert snap.daemons["osd.8"].source == SOURCE_OSD
    assert sorted(e.name for e in snap.errors) == ["broken", "osd.9", "silent"]
    assert all(e.message for e in snap.errors)


def test_drive_lookup() -> None:
    d = parse_service_status("x", status(doc(name="x", drives=[drive(0, nr_zones=4)])))
    assert d.drive(0) is not None and d.drive(1) is None
    assert d.age(d.doc.time + 12.5) == 12.5 and d.age(0.0) == 0.0


def test_osd_gc_failure_counters_read_when_present() -> None:
    d = parse_osd_counters("osd.3", osd_counters(gc_failures=7, quarantined_zones=2), now=1.0)
    assert d is not None
    assert (d.doc.gc.failures, d.doc.gc.quarantined_zones) == (7, 2)
    # Zero is a value, not "absent".
    d = parse_osd_counters("osd.3", osd_counters(gc_failures=0, quarantined_zones=0), now=1.0)
    assert d is not None and (d.doc.gc.failures, d.doc.gc.quarantined_zones) == (0, 0)
    # Every counter of the schema's x-perf-counters is required: one missing is an error.
    with pytest.raises(StatsError, match=r"counter smrstore\.smrstore_gc_failures missing"):
        parse_osd_counters("osd.3", osd_counters(without=("smrstore_gc_failures",)), now=1.0)


def test_osd_pack_counters_read_when_present() -> None:
    d = parse_osd_counters("osd.3", osd_counters(pack=(5, 300, 900_000, 942_080)), now=1.0)
    assert d is not None
    io = d.doc.io
    assert (io.pack_records, io.pack_entries, io.pack_payload_bytes, io.pack_record_bytes) == (
        5, 300, 900_000, 942_080)
    d = parse_osd_counters("osd.3", osd_counters(pack=(0, 0, 0, 0)), now=1.0)
    assert d is not None and d.doc.io.pack_entries == 0
    with pytest.raises(StatsError, match=r"counter smrstore\.smrstore_pack_entries missing"):
        parse_osd_counters("osd.3", osd_counters(without=("smrstore_pack_entries",)), now=1.0)


def test_a_service_daemons_pack_fields_and_pack_max() -> None:
    st = parse_service_status("demo-a", status(doc(pack=(2, 120, 360_000, 372_736))))
    io = st.doc.io
    assert (io.pack_records, io.pack_entries, io.pack_payload_bytes, io.pack_record_bytes) == (
        2, 120, 360_000, 372_736)
    assert st.doc.store is not None and st.doc.store.pack_max == 32768
    bad = doc()
    del bad["store"]["pack_max"]
    with pytest.raises(StatsError, match=r"missing field\(s\) store\.pack_max"):
        parse_service_status("demo-a", status(bad))


def test_osd_read_and_pinned_zone_counters_read_when_present() -> None:
    d = parse_osd_counters("osd.3", osd_counters(reads=(12, 60), pinned_zones=4), now=1.0)
    assert d is not None
    assert (d.doc.io.data_reads, d.doc.io.data_read_records, d.doc.gc.pinned_zones) == (12, 60, 4)
    # Zero is a value, not "absent".
    d = parse_osd_counters("osd.3", osd_counters(reads=(0, 0), pinned_zones=0), now=1.0)
    assert d is not None
    assert (d.doc.io.data_reads, d.doc.io.data_read_records, d.doc.gc.pinned_zones) == (0, 0, 0)


def test_a_service_daemons_reads_and_pinned_zones() -> None:
    st = parse_service_status("demo-a", status(doc(reads=(40, 100), pinned_zones=3)))
    assert (st.doc.io.data_reads, st.doc.io.data_read_records, st.doc.gc.pinned_zones) == (
        40, 100, 3)
    bad = doc()
    del bad["io"]["data_reads"], bad["gc"]["pinned_zones"]
    with pytest.raises(StatsError, match=r"missing field\(s\) io\.data_reads, gc\.pinned_zones"):
        parse_service_status("demo-a", status(bad))


def test_read_ahead_from_osd_counters_and_from_a_service_daemon() -> None:
    d = parse_osd_counters("osd.3", osd_counters(read_ahead=(8 << 20, 2)), now=1.0)
    assert d is not None
    assert (d.doc.gc.read_ahead_bytes, d.doc.gc.read_ahead_yields) == (8 << 20, 2)
    d = parse_osd_counters("osd.3", osd_counters(read_ahead=(0, 0)), now=1.0)
    assert d is not None and (d.doc.gc.read_ahead_bytes, d.doc.gc.read_ahead_yields) == (0, 0)
    st = parse_service_status("demo-a", status(doc(read_ahead=(3 << 20, 1))))
    assert st.doc.store is not None and st.doc.store.gc_read_ahead is True
    assert (st.doc.gc.read_ahead_bytes, st.doc.gc.read_ahead_yields) == (3 << 20, 1)


def test_a_hybrid_drive_parses_with_its_realms_and_quanta() -> None:
    d0 = drive(0, nr_zones=8, zonemap="##A.b___", streams="--uu-" + "---",
               hybrid=hybrid("CcS>", violations=3, p99=120.0, qmax=300.5,
                             stall_reason=None))
    st = parse_service_status("demo-a", status(doc(drives=[d0, drive(1)])))
    h = st.doc.drives[0].hybrid
    assert h is not None and h.supported and h.state == "converting"
    assert (h.realms, h.realms_cmr, h.realms_smr, h.realms_pending) == (4, 3, 1, 2)
    assert (h.realmmap, h.bound_violations, h.quantum_ms_p99, h.quantum_ms_max) == (
        "CcS>", 3, 120.0, 300.5)
    assert st.doc.drives[0].zones.inactive == 3 and st.zonemaps[0] == "##A.b___"


def test_a_hybrid_block_without_its_realms_is_an_unreadable_status() -> None:
    # The format is unreleased: every field of the hybrid block is required.
    d = doc(drives=[drive(0, hybrid=hybrid())])
    del d["drives"][0]["hybrid"]["realmmap"], d["drives"][0]["zones"]["inactive"]
    with pytest.raises(StatsError, match=r"missing field\(s\) drives\[0\]\.zones\.inactive, "
                                         r"drives\[0\]\.hybrid\.realmmap"):
        parse_service_status("demo-a", status(d))


def test_a_bad_realm_map_is_an_unreadable_status() -> None:
    h = hybrid("CCSS")
    h["realmmap"] = "CCSZ"
    with pytest.raises(StatsError, match=r"demo-a.*drives\.0\.hybrid\.realmmap: unknown "
                                         r"realm-map character\(s\) 'Z'"):
        parse_service_status("demo-a", status(doc(drives=[drive(0, hybrid=h)])))


def test_an_osd_keeps_its_documents_inactive_zones_and_hybrid_block() -> None:
    # The perf counters have no inactive-zone count nor realms: the document gives them.
    raw = doc(name="smrstore", drives=[
        drive(0, nr_zones=8, zonemap="##A.b___", streams="--uu----", hybrid=hybrid("CS")),
        drive(1)])
    st = merge(10.0, {}, {"osd.4": OsdReading(osd_counters(conv=1), document=raw)})
    d = st.daemons["osd.4"]
    assert st.errors == []
    dr = d.doc.drives[0]
    assert dr.zones.free == 10 and dr.zones.inactive == 3      # counters, then the document
    assert dr.hybrid is not None and dr.hybrid.realmmap == "CS" and dr.hybrid.state == "converting"
    # Counters only (no document yet): the conversion state on every drive, nothing else.
    c = merge(10.0, {}, {"osd.4": OsdReading(osd_counters(conv=3))}).daemons["osd.4"]
    hc = c.doc.drives[1].hybrid
    assert hc is not None and hc.state == "stalled" and hc.realmmap is None
    assert c.doc.drives[1].zones.inactive is None
