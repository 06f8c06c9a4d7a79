from typing import Dict, Tuple

from conftest import GiB, doc, drive, osd_counters, status
from prometheus_client.parser import text_string_to_metric_families

from smrstore.model import OsdReading, merge
from smrstore.prometheus import render


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
    d["hybrid"] = {"supported": True, "state": "converting", "cmr_bytes": 1, "smr_bytes": 2,
                   "converting_zones": 1, "progress": 0.25, "latency_bound_ms": 5.0}
    snap = merge(1000.0, {"demo-a": status(doc(drives=[d, drive(1)]))}, {})
    m = parse(render(snap, 30.0))
    key = ("smrstore_drive_conversion_progress", (("daemon", "demo-a"), ("drive", "0")))
    assert m[key] == 0.25
    assert ("smrstore_drive_conversion_progress", (("daemon", "demo-a"), ("drive", "1"))) in m


def test_empty_cluster() -> None:
    assert render(merge(1.0, {}, {}), 30.0) == ""


def test_every_zone_state_is_a_label_with_its_count() -> None:
    # Distinct counts per state: 1 reserved, 2 free, 3 open, 4 sealed, 5 offline, 6 read-only.
    zm = "#" + ".." + "ABC" + "abck" + "XXXXX" + "!!!!!!"
    snap = merge(1000.0, {"demo-a": status(doc(drives=[drive(0, nr_zones=len(zm), zonemap=zm),
                                                       drive(1)]))}, {})
    text = render(snap, 30.0)
    zones = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            if s.name == "smrstore_drive_zones" and s.labels["drive"] == "0":
                zones[s.labels["state"]] = s.value
    assert zones == {"reserved": 1, "free": 2, "open": 3, "sealed": 4, "offline": 5,
                     "readonly": 6}
    assert 'smrstore_drive_zones{daemon="demo-a",drive="0",state="offline"} 5\n' in text
