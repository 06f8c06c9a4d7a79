"""Prometheus text exposition (format 0.0.4) of the model: metrics ``smrstore_*`` labelled
``daemon`` (and ``drive`` for per-drive metrics)."""

from typing import Dict, Iterable, List, Optional, Tuple

from .model import Snapshot
from .stats import HYBRID_STATES, ZONE_STATES

Labels = Tuple[Tuple[str, str], ...]

# name -> (type, help)
_META: Dict[str, Tuple[str, str]] = {
    "smrstore_up": ("gauge", "1 if the daemon's stats are fresh, 0 if stale"),
    "smrstore_last_update_seconds": ("gauge", "Time of the daemon's last stats snapshot (unix seconds)"),
    "smrstore_statfs_total_bytes": ("gauge", "Store capacity"),
    "smrstore_statfs_available_bytes": ("gauge", "Space available for new data"),
    "smrstore_statfs_stored_bytes": ("gauge", "Bytes of object data stored"),
    "smrstore_user_bytes_total": ("counter", "User bytes written (lifetime)"),
    "smrstore_device_bytes_total": ("counter", "Device bytes written (lifetime)"),
    "smrstore_gc_bytes_total": ("counter", "Bytes written by GC relocation (lifetime)"),
    "smrstore_write_amplification": ("gauge", "Device bytes / user bytes since mount"),
    "smrstore_lifetime_write_amplification": ("gauge", "Device bytes / user bytes, lifetime"),
    "smrstore_gc_runs_total": ("counter", "GC runs"),
    "smrstore_gc_zones_reset_total": ("counter", "Zones reclaimed by GC"),
    "smrstore_gc_live_moved_total": ("counter", "Live bytes relocated by GC"),
    "smrstore_gc_throttle_seconds_total": ("counter", "Time GC was throttled"),
    "smrstore_gc_auto": ("gauge", "1 if background GC is on"),
    "smrstore_gc_failures_total": ("counter", "GC cleanings that failed and were rolled back"),
    "smrstore_gc_quarantined_zones": ("gauge", "Zones GC has quarantined after a failed cleaning"),
    "smrstore_gc_pinned_zones": (
        "gauge", "Data zones pinned by metadata-journal records until the next checkpoint"),
    # Idle GC's read-ahead of its victims (gc.read_ahead_*; optional within v1).
    "smrstore_gc_read_ahead_bytes_total": (
        "counter", "Victim bytes idle GC read ahead of the slices that moved them since mount"),
    "smrstore_gc_read_ahead_yields_total": (
        "counter", "GC read-aheads a foreground arrival stopped since mount"),
    "smrstore_txns_total": ("counter", "Transactions committed"),
    # Small writes packed into shared records (io.pack_*, since mount; optional within v1).
    "smrstore_pack_records_total": ("counter", "Pack records written since mount (user and GC)"),
    "smrstore_pack_entries_total": ("counter", "Small writes packed into pack records since mount"),
    "smrstore_pack_payload_bytes_total": ("counter", "Payload bytes of the packed writes since mount"),
    "smrstore_pack_record_bytes_total": (
        "counter", "Zone bytes of the pack records (header block + padded payload) since mount"),
    # Device reads of object data and the records they covered (io.data_*; optional within v1).
    "smrstore_data_reads_total": ("counter", "Device reads of object data since mount"),
    "smrstore_data_read_records_total": (
        "counter", "Data records those reads covered since mount (more than reads: gathered)"),
    "smrstore_crc_errors_total": ("counter", "Checksum errors on read"),
    "smrstore_drive_capacity_bytes": ("gauge", "Drive capacity for data"),
    "smrstore_drive_written_bytes": ("gauge", "Bytes below the drive's write pointers"),
    "smrstore_drive_live_bytes": ("gauge", "Live bytes on the drive"),
    "smrstore_drive_zones": ("gauge", "Zones by state"),
    "smrstore_drive_conversion_progress": ("gauge", "Hybrid conversion progress (0..1)"),
    # Hybrid drives only (hybrid.supported): the realms and the migration quanta.
    "smrstore_drive_conversion_state": ("gauge", "1 for the hybrid drive's conversion state "
                                        "(idle, converting, stalled), 0 for the others"),
    "smrstore_drive_cmr_bytes": ("gauge", "Capacity of the hybrid drive's CMR realms"),
    "smrstore_drive_smr_bytes": ("gauge", "Capacity of the hybrid drive's SMR realms"),
    "smrstore_drive_realms": ("gauge", "Realms of the hybrid drive by active domain"),
    "smrstore_drive_realms_pending": ("gauge", "Realms being emptied or converted now"),
    "smrstore_drive_conversion_latency_bound_ms": (
        "gauge", "Bound on the foreground latency one migration quantum adds (ms)"),
    "smrstore_drive_conversion_quantum_bytes": (
        "gauge", "Live bytes the next migration quantum may move"),
    "smrstore_drive_conversion_quantum_ms_p99": (
        "gauge", "p99 duration of the store's recent migration quanta (ms; absent: none ran)"),
    "smrstore_drive_conversion_quantum_ms_max": (
        "gauge", "Longest migration quantum since mount (ms; absent: none ran)"),
    "smrstore_drive_conversion_bound_violations_total": (
        "counter", "Migration quanta since mount that took longer than the latency bound"),
    "smrstore_drive_conversions_total": ("counter", "Realm conversions the drive completed"),
    "smrstore_drive_conversion_migrated_bytes_total": (
        "counter", "Live bytes moved out of converting realms since mount (store-wide)"),
}


def _escape(v: str) -> str:
    return v.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _fmt(v: float) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    return repr(float(v))


def render(snap: Snapshot, stale_seconds: float) -> str:
    rows: Dict[str, List[Tuple[Labels, float]]] = {k: [] for k in _META}

    def put(name: str, labels: Labels, value: Optional[float]) -> None:
        if value is not None:
            rows[name].append((labels, value))

    for name, d in sorted(snap.daemons.items()):
        doc = d.doc
        lab: Labels = (("daemon", name),)
        put("smrstore_up", lab, 0 if d.age(snap.time) > stale_seconds else 1)
        put("smrstore_last_update_seconds", lab, doc.time)
        put("smrstore_statfs_total_bytes", lab, doc.statfs.total)
        put("smrstore_statfs_available_bytes", lab, doc.statfs.available)
        put("smrstore_statfs_stored_bytes", lab, doc.statfs.stored)
        put("smrstore_user_bytes_total", lab, doc.io.lifetime_user_bytes)
        put("smrstore_device_bytes_total", lab, doc.io.lifetime_device_bytes)
        put("smrstore_gc_bytes_total", lab, doc.io.lifetime_gc_bytes)
        put("smrstore_write_amplification", lab, doc.io.write_amplification)
        put("smrstore_lifetime_write_amplification", lab, doc.io.lifetime_write_amplification)
        put("smrstore_gc_runs_total", lab, doc.gc.runs)
        put("smrstore_gc_zones_reset_total", lab, doc.gc.zones_reset)
        put("smrstore_gc_live_moved_total", lab, doc.gc.live_moved)
        put("smrstore_gc_throttle_seconds_total", lab, doc.gc.throttle_ns / 1e9)
        put("smrstore_gc_auto", lab, 1 if doc.gc.auto else 0)
        # Optional within schema v1: only daemons that report them (put skips None).
        put("smrstore_gc_failures_total", lab, doc.gc.failures)
        put("smrstore_gc_quarantined_zones", lab, doc.gc.quarantined_zones)
        put("smrstore_gc_pinned_zones", lab, doc.gc.pinned_zones)
        put("smrstore_gc_read_ahead_bytes_total", lab, doc.gc.read_ahead_bytes)
        put("smrstore_gc_read_ahead_yields_total", lab, doc.gc.read_ahead_yields)
        put("smrstore_txns_total", lab, doc.io.txns_committed)
        put("smrstore_pack_records_total", lab, doc.io.pack_records)
        put("smrstore_pack_entries_total", lab, doc.io.pack_entries)
        put("smrstore_pack_payload_bytes_total", lab, doc.io.pack_payload_bytes)
        put("smrstore_pack_record_bytes_total", lab, doc.io.pack_record_bytes)
        put("smrstore_data_reads_total", lab, doc.io.data_reads)
        put("smrstore_data_read_records_total", lab, doc.io.data_read_records)
        put("smrstore_crc_errors_total", lab, doc.io.crc_errors)
        for dr in doc.drives:
            dl: Labels = lab + (("drive", str(dr.index)),)
            put("smrstore_drive_capacity_bytes", dl, dr.capacity_bytes)
            put("smrstore_drive_written_bytes", dl, dr.written_bytes)
            put("smrstore_drive_live_bytes", dl, dr.live_bytes)
            # Every zone state of the schema (x-zonemap-states) the daemon reports (put skips
            # None: conventional / inactive from a daemon that predates them).
            for state in ZONE_STATES:
                put("smrstore_drive_zones", dl + (("state", state),), getattr(dr.zones, state))
            h = dr.hybrid
            if h is not None:
                put("smrstore_drive_conversion_progress", dl, h.progress)
            if h is not None and h.supported:
                for st in (x for x in HYBRID_STATES if x != "none"):   # the drive is hybrid
                    put("smrstore_drive_conversion_state", dl + (("state", st),),
                        1 if h.state == st else 0)
                put("smrstore_drive_cmr_bytes", dl, h.cmr_bytes)
                put("smrstore_drive_smr_bytes", dl, h.smr_bytes)
                put("smrstore_drive_realms", dl + (("domain", "cmr"),), h.realms_cmr)
                put("smrstore_drive_realms", dl + (("domain", "smr"),), h.realms_smr)
                put("smrstore_drive_realms_pending", dl, h.realms_pending)
                put("smrstore_drive_conversion_latency_bound_ms", dl, h.latency_bound_ms)
                put("smrstore_drive_conversion_quantum_bytes", dl, h.quantum_bytes)
                put("smrstore_drive_conversion_quantum_ms_p99", dl, h.quantum_ms_p99)
                put("smrstore_drive_conversion_quantum_ms_max", dl, h.quantum_ms_max)
                put("smrstore_drive_conversion_bound_violations_total", dl, h.bound_violations)
                put("smrstore_drive_conversions_total", dl, h.conversions)
                put("smrstore_drive_conversion_migrated_bytes_total", dl, h.migrated_bytes)
    return "".join(_lines(rows))


def _lines(rows: Dict[str, List[Tuple[Labels, float]]]) -> Iterable[str]:
    for name, (typ, help_) in _META.items():
        if not rows[name]:
            continue
        yield f"# HELP {name} {help_}\n"
        yield f"# TYPE {name} {typ}\n"
        for labels, value in rows[name]:
            lab = ",".join(f'{k}="{_escape(v)}"' for k, v in labels)
            yield f"{name}{{{lab}}} {_fmt(value)}\n"
