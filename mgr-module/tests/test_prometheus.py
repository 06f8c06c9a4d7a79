import re
from typing import Any, Dict, Tuple

from conftest import (PACK, PINNED, READ_AHEAD, READS, GiB, doc, drive, hybrid, osd_counters,
                      status)
from prometheus_client.parser import text_string_to_metric_families

from smrstore.model import OsdReading, merge
from smrstore.prometheus import METRICS, _fmt, render
from smrstore.stats import Drive, StatsDoc


def parse(text: str) -> Dict[Tuple[str, Tuple[Tuple[str, str], ...]], float]:
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_exposition_parses_back() -> None:
    d = doc(name='we"ird\\name', t=990.0, throttle_ns=1_500_000_000)
    snap = merge(1000.0, {"demo-a": status(doc(t=999.0)), d["name"]: status(d)},
                 {"osd.4": OsdReading(osd_counters())})
    text = render(snap, stale_seconds=5.0)
    m = parse(text)
    a = (("daemon", "demo-a"),)
    assert m[("smrstore_up", a)] == 1
    assert m[("smrstore_up", (("daemon", 'we"ird\\name'),))] == 0
    assert m[("smrstore_user_bytes_total", a)] == 10 * GiB
    assert m[("smrstore_statfs_total_bytes", a)] == 30 * GiB
    assert m[("smrstore_gc_throttle_seconds_total", (("daemon", 'we"ird\\name'),))] == 1.5
    assert m[("smrstore_drive_zones", (("daemon", "demo-a"), ("drive", "1"), ("state", "free")))] == 6
    assert m[("smrstore_drive_live_bytes", (("daemon", "osd.4"), ("drive", "0")))] == 10 * GiB
    assert ("smrstore_lifetime_write_amplification", (("daemon", "osd.4"),)) in m
    assert all(name.startswith("smrstore_") for name, _ in m)
    for line in text.splitlines():
        assert line.startswith("# ") or line.startswith("smrstore_")
    assert text.count("# TYPE smrstore_drive_zones gauge") == 1


def test_conversion_progress_only_for_hybrid_drives() -> None:
    d = drive(0)
    d["hybrid"] = hybrid("CC>S", progress=0.25, latency_bound_ms=5.0)
    snap = merge(1000.0, {"demo-a": status(doc(drives=[d, drive(1)]))}, {})
    m = parse(render(snap, 30.0))
    key = ("smrstore_drive_conversion_progress", (("daemon", "demo-a"), ("drive", "0")))
    assert m[key] == 0.25
    assert ("smrstore_drive_conversion_progress", (("daemon", "demo-a"), ("drive", "1"))) in m


def test_empty_cluster() -> None:
    assert render(merge(1.0, {}, {}), 30.0) == ""


def test_every_zone_state_is_a_label_with_its_count() -> None:
    # Distinct counts per state: 1 reserved, 2 free, 3 open, 4 sealed, 5 offline, 6 read-only,
    # 7 conventional, 8 inactive (a hybrid drive's other domain).
    zm = "#" + ".." + "ABC" + "abck" + "XXXXX" + "!!!!!!" + "=" * 7 + "_" * 8
    snap = merge(1000.0, {"demo-a": status(doc(drives=[drive(0, nr_zones=len(zm), zonemap=zm),
                                                       drive(1)]))}, {})
    text = render(snap, 30.0)
    zones = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            if s.name == "smrstore_drive_zones" and s.labels["drive"] == "0":
                zones[s.labels["state"]] = s.value
    assert zones == {"reserved": 1, "free": 2, "open": 3, "sealed": 4, "offline": 5,
                     "readonly": 6, "conventional": 7, "inactive": 8}
    assert 'smrstore_drive_zones{daemon="demo-a",drive="0",state="offline"} 5\n' in text
    assert 'smrstore_drive_zones{daemon="demo-a",drive="0",state="inactive"} 8\n' in text


def test_zone_states_a_daemon_does_not_report_have_no_sample() -> None:
    # An OSD seen through its counters only (no inactive-zone counter; its document not
    # answered yet): no inactive sample, not a made-up 0.
    snap = merge(1000.0, {}, {"osd.1": OsdReading(osd_counters())})
    m = parse(render(snap, 30.0))
    for daemon in ("osd.1",):
        states = {dict(lab)["state"] for (n, lab), _ in m.items()
                  if n == "smrstore_drive_zones" and dict(lab)["daemon"] == daemon}
        assert states == {"reserved", "free", "open", "sealed", "offline", "readonly",
                          "conventional"}, daemon


def hybrid_snapshot() -> Dict[Tuple[str, Tuple[Tuple[str, str], ...]], float]:
    d0 = drive(0, hybrid=hybrid("CcSS>", violations=5, p99=42.5, qmax=180.25,
                                conversions=3, migrated=96 << 20, quantum_bytes=2 << 20))
    snap = merge(1000.0, {"demo-a": status(doc(drives=[d0, drive(1)]))}, {})
    return parse(render(snap, 30.0))


def test_hybrid_drive_metrics() -> None:
    m = hybrid_snapshot()
    dl = (("daemon", "demo-a"), ("drive", "0"))

    def at(name: str, *extra: Tuple[str, str]) -> float:
        return m[(name, tuple(sorted(dl + extra)))]
    assert at("smrstore_drive_cmr_bytes") == 2 * 64 * 2 ** 20      # C and c ('>': no data zones)
    assert at("smrstore_drive_smr_bytes") == 2 * 80 * 2 ** 20
    assert at("smrstore_drive_realms", ("domain", "cmr")) == 3
    assert at("smrstore_drive_realms", ("domain", "smr")) == 2
    assert at("smrstore_drive_realms_pending") == 2
    assert at("smrstore_drive_conversion_latency_bound_ms") == 100.0
    assert at("smrstore_drive_conversion_quantum_bytes") == 2 << 20
    assert at("smrstore_drive_conversion_quantum_ms_p99") == 42.5
    assert at("smrstore_drive_conversion_quantum_ms_max") == 180.25
    assert at("smrstore_drive_conversion_bound_violations_total") == 5
    assert at("smrstore_drive_conversions_total") == 3
    assert at("smrstore_drive_conversion_migrated_bytes_total") == 96 << 20
    assert at("smrstore_drive_conversion_progress") == 0.4
    assert {s: at("smrstore_drive_conversion_state", ("state", s))
            for s in ("idle", "converting", "stalled")} == {"idle": 0, "converting": 1,
                                                            "stalled": 0}


def test_hybrid_metrics_only_for_hybrid_drives() -> None:
    m = hybrid_snapshot()
    hybrid_only = {n for n, _ in m if n.startswith("smrstore_drive_") and (
        "realm" in n or "quantum" in n or "cmr" in n or "smr_bytes" in n or "violations" in n
        or n in ("smrstore_drive_conversion_state", "smrstore_drive_conversions_total",
                 "smrstore_drive_conversion_migrated_bytes_total",
                 "smrstore_drive_conversion_latency_bound_ms"))}
    assert len(hybrid_only) == 12
    for n, lab in m:
        if n in hybrid_only:
            assert dict(lab)["drive"] == "0", (n, lab)      # drive 1 is not hybrid
    # No quantum ran yet (p99/max null): no sample, the counters are 0.
    d0 = drive(0, hybrid=hybrid("CCCC", state="idle", progress=0.0, p99=None, qmax=None))
    m = parse(render(merge(1000.0, {"demo-a": status(doc(drives=[d0]))}, {}), 30.0))
    names = {n for n, _ in m}
    assert "smrstore_drive_conversion_quantum_ms_p99" not in names
    assert "smrstore_drive_conversion_quantum_ms_max" not in names
    assert "smrstore_drive_conversion_bound_violations_total" in names


def test_hybrid_types_are_prometheus_conventions() -> None:
    d0 = drive(0, hybrid=hybrid())
    text = render(merge(1000.0, {"demo-a": status(doc(drives=[d0]))}, {}), 30.0)
    types = dict(line.split()[2:4] for line in text.splitlines() if line.startswith("# TYPE"))
    for name, typ in types.items():
        assert (typ == "counter") == name.endswith("_total"), (name, typ)
    assert types["smrstore_drive_conversion_bound_violations_total"] == "counter"
    assert types["smrstore_drive_conversion_quantum_ms_p99"] == "gauge"


def test_every_metric_of_a_service_daemon() -> None:
    d = doc(t=990.0, user=10 * GiB, device=12 * GiB, gc_bytes=2 * GiB, runs=3, zones_reset=5,
            throttle_ns=2_500_000_000, total=30 * GiB, available=20 * GiB, gc_failures=4,
            quarantined_zones=1)
    d["gc"]["auto"] = False
    d["io"]["crc_errors"] = 2
    m = parse(render(merge(1000.0, {"demo-a": status(d)}, {}), stale_seconds=30.0))
    a = (("daemon", "demo-a"),)
    want = {
        "smrstore_up": 1, "smrstore_last_update_seconds": 990.0,
        "smrstore_statfs_total_bytes": 30 * GiB, "smrstore_statfs_available_bytes": 20 * GiB,
        "smrstore_statfs_writable_bytes": 20 * GiB, "smrstore_statfs_stored_bytes": 8 * GiB, "smrstore_user_bytes_total": 10 * GiB,
        "smrstore_device_bytes_total": 12 * GiB, "smrstore_gc_bytes_total": 2 * GiB,
        "smrstore_write_amplification": 1.2, "smrstore_lifetime_write_amplification": 1.2,
        "smrstore_gc_runs_total": 3, "smrstore_gc_zones_reset_total": 5,
        "smrstore_gc_live_moved_total": 2 * GiB, "smrstore_gc_throttle_seconds_total": 2.5,
        "smrstore_gc_auto": 0, "smrstore_txns_total": 100, "smrstore_crc_errors_total": 2,
        "smrstore_gc_failures_total": 4, "smrstore_gc_quarantined_zones": 1,
        "smrstore_pack_records_total": PACK[0], "smrstore_pack_entries_total": PACK[1],
        "smrstore_pack_payload_bytes_total": PACK[2], "smrstore_pack_record_bytes_total": PACK[3],
        "smrstore_data_reads_total": READS[0], "smrstore_data_read_records_total": READS[1],
        "smrstore_gc_pinned_zones": PINNED,
        "smrstore_gc_read_ahead_bytes_total": READ_AHEAD[0],
        "smrstore_gc_read_ahead_yields_total": READ_AHEAD[1],
    }
    got = {name: v for (name, labels), v in m.items() if labels == a}
    assert got == want
    dl = a + (("drive", "1"),)
    assert m[("smrstore_drive_capacity_bytes", dl)] == 15 * 256 * 2 ** 20
    assert m[("smrstore_drive_written_bytes", dl)] == 3 * GiB
    assert m[("smrstore_drive_live_bytes", dl)] == 2 * GiB
    assert m[("smrstore_drive_conversion_progress", dl)] == 0.0
    d["gc"]["auto"] = True
    m = parse(render(merge(1000.0, {"demo-a": status(d)}, {}), stale_seconds=30.0))
    assert m[("smrstore_gc_auto", a)] == 1


def test_up_until_older_than_stale_seconds() -> None:
    snap = merge(1000.0, {"demo-a": status(doc(t=990.0))}, {})
    up = ("smrstore_up", (("daemon", "demo-a"),))
    assert parse(render(snap, stale_seconds=10.0))[up] == 1      # exactly 10 s old: fresh
    assert parse(render(snap, stale_seconds=9.5))[up] == 0


def test_label_values_escaped() -> None:
    name = 'a\nb"c\\d'
    text = render(merge(1000.0, {name: status(doc(name=name))}, {}), 30.0)
    assert 'smrstore_up{daemon="a\\nb\\"c\\\\d"} 1\n' in text
    assert parse(text)[("smrstore_up", (("daemon", name),))] == 1


def test_sample_values_formatted() -> None:
    assert (_fmt(True), _fmt(False), _fmt(7), _fmt(0.25), _fmt(3.0)) == ("1", "0", "7", "0.25",
                                                                          "3.0")


def test_gc_failures_and_quarantine() -> None:
    # An OSD with the counters (0 is reported as 0) and a service daemon.
    new = doc(name="new", gc_failures=2, quarantined_zones=3)
    snap = merge(1000.0, {"new": status(new)},
                 {"osd.2": OsdReading(osd_counters(gc_failures=0, quarantined_zones=0))})
    text = render(snap, 30.0)
    m = parse(text)
    fail = {dict(lab)["daemon"]: v for (n, lab), v in m.items()
            if n == "smrstore_gc_failures_total"}
    quar = {dict(lab)["daemon"]: v for (n, lab), v in m.items()
            if n == "smrstore_gc_quarantined_zones"}
    assert fail == {"new": 2, "osd.2": 0}
    assert quar == {"new": 3, "osd.2": 0}
    assert "# TYPE smrstore_gc_failures_total counter\n" in text
    assert "# TYPE smrstore_gc_quarantined_zones gauge\n" in text


def test_pack_counters() -> None:
    # A service daemon with io.pack_* and an OSD with the perf counters.
    new = doc(name="new")
    snap = merge(1000.0, {"new": status(new)},
                 {"osd.1": OsdReading(osd_counters(pack=(1, 3, 12000, 16384)))})
    text = render(snap, 30.0)
    m = parse(text)

    def by_daemon(metric: str) -> Dict[str, float]:
        return {dict(lab)["daemon"]: v for (n, lab), v in m.items() if n == metric}

    assert by_daemon("smrstore_pack_records_total") == {"new": PACK[0], "osd.1": 1}
    assert by_daemon("smrstore_pack_entries_total") == {"new": PACK[1], "osd.1": 3}
    assert by_daemon("smrstore_pack_payload_bytes_total") == {"new": PACK[2], "osd.1": 12000}
    assert by_daemon("smrstore_pack_record_bytes_total") == {"new": PACK[3], "osd.1": 16384}
    assert "# TYPE smrstore_pack_record_bytes_total counter\n" in text


def test_read_counters_and_pinned_zones() -> None:
    # A service daemon with io.data_* and gc.pinned_zones and an OSD with the perf counters
    # (0 is reported as 0).
    new = doc(name="new")
    snap = merge(1000.0, {"new": status(new)},
                 {"osd.1": OsdReading(osd_counters(reads=(7, 21), pinned_zones=0))})
    text = render(snap, 30.0)
    m = parse(text)

    def by_daemon(metric: str) -> Dict[str, float]:
        return {dict(lab)["daemon"]: v for (n, lab), v in m.items() if n == metric}

    assert by_daemon("smrstore_data_reads_total") == {"new": READS[0], "osd.1": 7}
    assert by_daemon("smrstore_data_read_records_total") == {"new": READS[1], "osd.1": 21}
    assert by_daemon("smrstore_gc_pinned_zones") == {"new": PINNED, "osd.1": 0}
    assert "# TYPE smrstore_data_reads_total counter\n" in text
    assert "# TYPE smrstore_data_read_records_total counter\n" in text
    assert "# TYPE smrstore_gc_pinned_zones gauge\n" in text


def test_read_ahead_counters() -> None:
    # A service daemon with gc.read_ahead_* and an OSD with the perf counters (0 is reported
    # as 0).
    new = doc(name="new")
    snap = merge(1000.0, {"new": status(new)},
                 {"osd.1": OsdReading(osd_counters(read_ahead=(0, 0)))})
    text = render(snap, 30.0)
    m = parse(text)

    def by_daemon(metric: str) -> Dict[str, float]:
        return {dict(lab)["daemon"]: v for (n, lab), v in m.items() if n == metric}

    assert by_daemon("smrstore_gc_read_ahead_bytes_total") == {"new": READ_AHEAD[0], "osd.1": 0}
    assert by_daemon("smrstore_gc_read_ahead_yields_total") == {"new": READ_AHEAD[1], "osd.1": 0}
    assert "# TYPE smrstore_gc_read_ahead_bytes_total counter\n" in text
    assert "# TYPE smrstore_gc_read_ahead_yields_total counter\n" in text


# --- survivors of the 2026-12-07 mutmut run -----------------------------------------------

def test_conversion_state_has_no_none_sample() -> None:
    # "none" is the state of a drive that is not hybrid, which has no such metric at all; a
    # hybrid drive has exactly the three states of a conversion.
    m = hybrid_snapshot()
    assert sorted(dict(lab)["state"] for n, lab in m
                  if n == "smrstore_drive_conversion_state") == ["converting", "idle", "stalled"]


def test_every_metric_path_names_fields_of_the_models() -> None:
    """The document fields the metrics carry (x-prometheus paths) are fields of the models,
    each path part a lower-case name: a metric reads None only when the daemon does not
    report the field, never because its path is wrong."""
    for m in METRICS:
        if "path" not in m:
            continue
        scope = m.get("scope")
        model: Any = StatsDoc if scope == "daemon" else Drive
        assert re.fullmatch(r"(/[a-z][a-z0-9_]*)+", m["path"]), m["name"]
        for part in m["path"].strip("/").split("/"):
            assert part in model.__fields__, (m["name"], part)
            model = model.__fields__[part].type_


def test_writable_only_from_a_daemon_that_reports_it() -> None:
    new = doc(name="new", available=2 * GiB, writable=9 * GiB)
    old = doc(name="old", available=2 * GiB, with_writable=False)
    m = parse(render(merge(1000.0, {"new": status(new), "old": status(old)}, {}), 30.0))
    assert m[("smrstore_statfs_writable_bytes", (("daemon", "new"),))] == 9 * GiB
    assert ("smrstore_statfs_writable_bytes", (("daemon", "old"),)) not in m
    assert m[("smrstore_statfs_available_bytes", (("daemon", "old"),))] == 2 * GiB
