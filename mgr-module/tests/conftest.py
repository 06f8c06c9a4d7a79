"""Builders of schema-correct status maps and perf-counter dumps for the tests."""

import copy
import json
import os
import sys
from typing import Any, Dict, List, Optional, Tuple

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

GiB = 1 << 30
MiB = 1 << 20


# A drive's `head` block as an emulated drive with a timing model (mbps=) reports it.
HEAD_MODEL: Dict[str, Any] = {"ios": 300, "bytes": 620_000_000, "read_ios": 240, "read_bytes": 600_000_000,
              "sequential": 120, "skips": 10, "seeks": 170, "busy_seconds": 26.3}


def drive(index: int, nr_zones: int = 16, zonemap: Optional[str] = None,
          streams: Optional[str] = None, **over: Any) -> Dict[str, Any]:
    zm = zonemap if zonemap is not None else ("#" + "." * 6 + "Ae" + "k" * (nr_zones - 9))[:nr_zones]
    st = streams if streams is not None else ("-" * 7 + "us" + "u" * (nr_zones - 9))[:nr_zones]
    d: Dict[str, Any] = {
        "index": index, "spec": f"emu:/var/tmp/d{index}.img", "kind": "emulated",
        "zone_size": 256 * MiB, "zone_capacity": 256 * MiB, "nr_zones": nr_zones,
        "conventional_zones": 0, "max_open": 128, "max_active": 0,
        "capacity_bytes": (nr_zones - 1) * 256 * MiB, "written_bytes": 3 * GiB,
        "live_bytes": 2 * GiB,
        "zones": {"free": zm.count("."), "open": sum(zm.count(c) for c in "ABCDEFGHIJK"),
                  "sealed": sum(zm.count(c) for c in "abcdefghijk"), "reserved": zm.count("#"),
                  "offline": zm.count("X"), "readonly": zm.count("!"),
                  "conventional": zm.count("="), "inactive": zm.count("_")},
        "hybrid": dict(NOT_HYBRID), "head": None,
        "zonemap": zm, "streams": st,
    }
    d.update(over)
    return d


# A drive's hybrid block as the engine writes it for a drive that is not hybrid.
NOT_HYBRID: Dict[str, Any] = {
    "supported": False, "state": "none", "cmr_bytes": 0, "smr_bytes": 0, "converting_zones": 0,
    "progress": 0.0, "latency_bound_ms": None, "realms": 0, "realms_cmr": 0, "realms_smr": 0,
    "realms_pending": 0, "realmmap": "", "quantum_bytes": 0, "quantum_ms_p99": None,
    "quantum_ms_max": None, "bound_violations": 0, "conversions": 0, "migrated_bytes": 0,
    "stall_reason": None}


def hybrid(realmmap: str = "CCcSS", state: str = "converting", progress: float = 0.4,
           zones_per_realm: Tuple[int, int] = (4, 5), realm_cmr_bytes: int = 64 * MiB,
           realm_smr_bytes: int = 80 * MiB, latency_bound_ms: float = 100.0,
           p99: Optional[float] = 12.5, qmax: Optional[float] = 40.25, violations: int = 0,
           conversions: int = 1, migrated: int = 48 * MiB, stall_reason: Optional[str] = None,
           quantum_bytes: int = 4 * MiB) -> Dict[str, Any]:
    """The hybrid block of a hybrid drive, counts derived from its realm map as the engine
    derives them (stats_document.cc): c/s/> realms are pending, each counted in its domain;
    a realm the drive is converting ('>', here CMR -> SMR) has no data zones, so no bytes
    (as observed: tests/fixtures/hybrid/service-status-converting.json)."""
    cmr_bytes = sum(realmmap.count(c) for c in "Cc") * realm_cmr_bytes
    smr_bytes = sum(realmmap.count(c) for c in "Ss") * realm_smr_bytes
    cmr = sum(realmmap.count(c) for c in "Cc>")
    smr = sum(realmmap.count(c) for c in "Ss")
    pending = sum(realmmap.count(c) for c in "cs>")
    conv_zones = (sum(realmmap.count(c) for c in "c>") * zones_per_realm[0]
                  + realmmap.count("s") * zones_per_realm[1])
    return {"supported": True, "state": state, "cmr_bytes": cmr_bytes,
            "smr_bytes": smr_bytes, "converting_zones": conv_zones,
            "progress": progress, "latency_bound_ms": latency_bound_ms,
            "realms": len(realmmap), "realms_cmr": cmr, "realms_smr": smr,
            "realms_pending": pending, "realmmap": realmmap, "quantum_bytes": quantum_bytes,
            "quantum_ms_p99": p99, "quantum_ms_max": qmax, "bound_violations": violations,
            "conversions": conversions, "migrated_bytes": migrated,
            "stall_reason": stall_reason}


# io.pack_*: 120 writes of 3000 bytes in two packs (100 + 20 entries; a header block each,
# payloads padded to 4 KiB blocks: 4096 + 303104 + 4096 + 61440).
PACK: Tuple[int, int, int, int] = (2, 120, 360_000, 372_736)
# io.data_reads, io.data_read_records: 40 device reads covered 100 records (gathered reads).
READS: Tuple[int, int] = (40, 100)
# gc.pinned_zones: data zones pinned by journal records until the next checkpoint.
PINNED = 3
# gc.read_ahead_bytes, gc.read_ahead_yields: idle GC read 24 MiB ahead; arrivals stopped 5
# read-aheads (store.gc_read_ahead true).
READ_AHEAD: Tuple[int, int] = (24 * MiB, 5)


def doc(name: str = "demo-a", t: float = 1000.0, drives: Optional[List[Dict[str, Any]]] = None,
        user: int = 10 * GiB, device: int = 12 * GiB, gc_bytes: int = 2 * GiB,
        runs: int = 3, zones_reset: int = 5, throttle_ns: int = 0,
        total: int = 30 * GiB, available: int = 20 * GiB,
        reclaimable: int = 0, gc_failures: int = 0, quarantined_zones: int = 0,
        pack: Tuple[int, int, int, int] = PACK, reads: Tuple[int, int] = READS,
        pinned_zones: int = PINNED, read_ahead: Tuple[int, int] = READ_AHEAD,
        writable: Optional[int] = None, with_writable: bool = True) -> Dict[str, Any]:
    """A complete document (every field the schema requires).  ``pack`` is io's
    (pack_records, pack_entries, pack_payload_bytes, pack_record_bytes), ``reads`` io's
    (data_reads, data_read_records), ``read_ahead`` gc's (read_ahead_bytes,
    read_ahead_yields) with store.gc_read_ahead true.  statfs.writable is ``writable``, by
    default available + reclaimable (at most total: a store whose dead bytes GC can all give
    back); ``with_writable=False`` leaves it out, as a daemon from before it does."""
    drs = drives if drives is not None else [drive(0), drive(1)]
    statfs: Dict[str, Any] = {"total": total, "available": available, "allocated": 9 * GiB,
                              "stored": 8 * GiB, "meta_bytes": 1 * MiB,
                              "reclaimable": reclaimable}
    if with_writable:
        statfs["writable"] = (min(total, available + reclaimable) if writable is None
                              else writable)
    return {
        "schema": "smrstore.stats/1", "name": name, "time": t,
        "store": {"uuid": "u-1", "dir": "/var/tmp/st", "mount_count": 2,
                  "gc_policy": "lifetime", "gc_auto": True, "pack_max": 32768,
                  "gc_read_ahead": True, "gc_start_free": 0.03, "gc_urgent_free": 0.01,
                  "gc_stop_free": 0.05, "gc_free_zones_max": 64},
        "statfs": statfs,
        "io": {"user_bytes": user, "device_bytes": device, "inline_bytes": 0,
               "bytes_read": 0, "txns_committed": 100, "txns_failed": 0, "crc_errors": 0,
               "write_amplification": device / user if user else 0.0,
               "lifetime_user_bytes": user, "lifetime_device_bytes": device,
               "lifetime_gc_bytes": gc_bytes,
               "lifetime_write_amplification": device / user if user else 0.0,
               **dict(zip(("pack_records", "pack_entries", "pack_payload_bytes",
                           "pack_record_bytes"), pack)),
               **dict(zip(("data_reads", "data_read_records"), reads)),
               "commit_groups": 90, "commit_queue_ns": 7_000_000, "commit_plan_ns": 1_000_000,
               "commit_write_ns": 4_000_000, "commit_flush_ns": 2_000_000,
               "commit_meta_ns": 3_000_000, "commit_sync_ns": 2_500_000,
               "commit_callback_ns": 100_000},
        "gc": {"runs": runs, "zones_reset": zones_reset, "live_moved": gc_bytes,
               "bytes_written": gc_bytes, "throttle_ns": throttle_ns, "auto": True,
               "failures": gc_failures, "quarantined_zones": quarantined_zones,
               "pinned_zones": pinned_zones,
               **dict(zip(("read_ahead_bytes", "read_ahead_yields"), read_ahead))},
        "drives": drs,
    }


def status(d: Dict[str, Any]) -> Dict[str, str]:
    """The service-daemon status map a publisher sends for document d."""
    d = copy.deepcopy(d)
    out = {"schema": d["schema"]}
    for dr in d["drives"]:
        out[f"zonemap.{dr['index']}"] = dr.pop("zonemap")
        out[f"streams.{dr['index']}"] = dr.pop("streams")
    out["stats"] = json.dumps(d, separators=(",", ":"))
    return out


# Shape of MgrModule.get_all_perf_counters() for an OSD with the SMRStore adapter
# (type/priority/units as PerfCountersBuilder sets them; "value" added by the mgr). The
# counters are the schema's x-perf-counters (the adapter registers them from the same list);
# recorded real shapes are in fixtures/osd/ (test_osd_source.py).
def osd_counters(user: int = 4 * GiB, device: int = 5 * GiB, conv: int = 0,
                 drives: int = 2, offline: int = 0, gc_failures: int = 0,
                 quarantined_zones: int = 0, pack: Tuple[int, int, int, int] = (0, 0, 0, 0),
                 reads: Tuple[int, int] = (0, 0), pinned_zones: int = 0,
                 read_ahead: Tuple[int, int] = (0, 0), reclaimable: int = 0,
                 writable: int = 40 * GiB,
                 without: Tuple[str, ...] = ()) -> Dict[str, Dict[str, Any]]:
    """Every counter of the schema's x-perf-counters (and one of another logger), 0 unless
    given here; pack is (records, entries, payload bytes, record bytes), reads (data reads,
    data read records), read_ahead (bytes, yields), writable statfs.writable (by default
    the 40 GiB available); ``without``: counter names left out."""
    from smrstore.stats import PERF_COUNTERS
    store = {"user_bytes": user, "device_bytes": device, "gc_bytes": device - user,
             "wa_milli": device * 1000 // user, "gc_runs": 7, "gc_zones_reset": 9,
             "gc_live_moved": device - user, "gc_throttle_ns": 2_000_000_000, "gc_auto": 1,
             "txns": 1234, "statfs_total": 64 * GiB, "statfs_available": 40 * GiB,
             "statfs_stored": 20 * GiB, "conversion_state": conv, "gc_failures": gc_failures,
             "gc_quarantined_zones": quarantined_zones, "gc_pinned_zones": pinned_zones,
             "statfs_reclaimable": reclaimable, "statfs_writable": writable,
             "data_reads": reads[0],
             "data_read_records": reads[1], "gc_read_ahead_bytes": read_ahead[0],
             "gc_read_ahead_yields": read_ahead[1],
             **{f"pack_{k}": v for k, v in zip(("records", "entries", "payload_bytes",
                                                 "record_bytes"), pack)}}
    per_drive = {"zones_free": 10, "zones_open": 2, "zones_sealed": 50, "zones_reserved": 1,
                 "zones_offline": offline, "capacity_bytes": 32 * GiB, "live_bytes": 10 * GiB,
                 "written_bytes": 13 * GiB}

    def c(e: Dict[str, Any], v: int) -> Dict[str, Any]:
        return {"description": e["description"], "nick": e.get("nick", ""),
                "type": 10 if e["type"] == "counter" else 2, "priority": 5,
                "units": 1 if e.get("unit") == "bytes" else 0, "value": v}

    out = {f"smrstore.{e['name']}": c(e, store.get(e["name"][len("smrstore_"):], 0))
           for e in PERF_COUNTERS["smrstore"]}
    out["osd.op_w"] = {"description": "", "nick": "", "type": 10, "priority": 5, "units": 0,
                       "value": 99}
    for i in range(drives):
        for e in PERF_COUNTERS["smrstore-drive.<i>"]:
            out[f"smrstore-drive.{i}.{e['name']}"] = c(e, per_drive.get(e["name"][len("smrstore_"):], 0))
    return {k: v for k, v in out.items() if k.rsplit(".", 1)[1] not in without}


@pytest.fixture
def good_status() -> Dict[str, str]:
    return status(doc())
