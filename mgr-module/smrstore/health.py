"""Health checks raised from the model, the history and the thresholds (module options).

| check                               | raised when                                                    |
|-------------------------------------|----------------------------------------------------------------|
| SMRSTORE_SPACE_LOW                  | statfs writable / total < space_low_ratio (writable: what      |
|                                     | users can still write, counting only what GC can really give   |
|                                     | back: Ceph's statfs available in an OSD). A daemon from before |
|                                     | statfs.writable: (available + reclaimable) / total, which      |
|                                     | counts every dead byte (see _space_low)                        |
| SMRSTORE_GC_BEHIND                  | a drive's free zones < gc_free_zones_min while GC ran in the   |
|                                     | last gc_window s, or GC throttle time grew by more than        |
|                                     | gc_throttle_ratio of the wall time in that window              |
| SMRSTORE_ZONE_OFFLINE               | a drive reports offline zones (error)                          |
| SMRSTORE_ZONE_READONLY              | a drive reports read-only zones                                |
| SMRSTORE_CONVERSION_STALLED         | a drive's hybrid state is "stalled", or it is "converting"     |
|                                     | with no progress for conversion_stall_seconds                  |
| SMRSTORE_CONVERSION_BOUND_VIOLATED  | a hybrid drive's bound_violations (migration quanta longer     |
|                                     | than latency_bound_ms) grew since the daemon's previous        |
|                                     | sample, or its quantum_ms_p99 > latency_bound_ms: conversion   |
|                                     | adds more foreground latency than its bound (one-off overruns  |
|                                     | show for one sample; a p99 over the bound stays until it       |
|                                     | falls). The engine's quantum figures are store-wide: every     |
|                                     | hybrid drive of the store reports the same ones                |
| SMRSTORE_GC_QUARANTINE              | a daemon reports gc.quarantined_zones > 0: a GC cleaning       |
|                                     | failed (read/crc/write error) and was rolled back; the zone    |
|                                     | is left out of GC's victims for a while: look at the media     |
| SMRSTORE_DAEMON_STALE               | a daemon's last update is older than stale_seconds             |
| SMRSTORE_STATUS_INVALID             | a daemon publishes a status the module cannot read             |
| SMRSTORE_OSD_REFUSED                | `ceph-volume smrstore check-ceph --osd-id N` (the OSD unit's   |
|                                     | ExecStartPre) refused to let osd.N start on this host's        |
|                                     | ceph-osd build and recorded why (osd_refusals below); gone     |
|                                     | when a later check passes or the OSD came up after it          |
"""
import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from .history import History
from .model import SOURCE_OSD, Snapshot
from .stats import Hybrid, Statfs


@dataclass(frozen=True)
class Thresholds:
    space_low_ratio: float = 0.10
    gc_free_zones_min: int = 4
    gc_throttle_ratio: float = 0.5
    gc_window: float = 60.0
    conversion_stall_seconds: float = 300.0
    stale_seconds: float = 30.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.space_low_ratio <= 1.0:
            raise ValueError(f"space_low_ratio {self.space_low_ratio} not in [0, 1]")
        if self.gc_free_zones_min < 0:
            raise ValueError(f"gc_free_zones_min {self.gc_free_zones_min} < 0")
        if not 0.0 < self.gc_throttle_ratio <= 1.0:
            raise ValueError(f"gc_throttle_ratio {self.gc_throttle_ratio} not in (0, 1]")
        for name in ("gc_window", "conversion_stall_seconds", "stale_seconds"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")


@dataclass
class HealthCheck:
    name: str
    severity: str                      # "warning" or "error"
    summary: str
    detail: List[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.detail)

    def to_mgr(self) -> Dict[str, Any]:
        return {"severity": self.severity, "summary": self.summary, "count": self.count,
                "detail": list(self.detail)}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def evaluate(snap: Snapshot, history: History, th: Thresholds) -> List[HealthCheck]:
    now = snap.time
    space: List[str] = []
    gc_behind: List[str] = []
    offline: List[str] = []
    readonly: List[str] = []
    stalled: List[str] = []
    bound: List[str] = []
    stale: List[str] = []
    quarantined: List[Tuple[str, int]] = []
    quarantine: List[str] = []
    for name, d in sorted(snap.daemons.items()):
        doc = d.doc
        age = d.age(now)
        q = doc.gc.quarantined_zones or 0      # None: not reported (an older daemon)
        if q > 0:
            quarantined.append((name, q))
            failures = ("" if doc.gc.failures is None
                        else f" ({_plural(doc.gc.failures, 'failed cleaning')} since mount)")
            quarantine.append(f"{name}: {_plural(q, 'zone')} quarantined by GC{failures}; "
                              f"{_quarantine_fix(name, d.source)}")
        if age > th.stale_seconds:
            stale.append(f"{name}: last update {age:.0f} s ago (limit {th.stale_seconds:.0f} s)")
        low = _space_low(name, doc.statfs, th.space_low_ratio)
        if low is not None:
            space.append(low)
        rates = history.rates(name, th.gc_window, now)
        throttled = rates is not None and rates.throttle_fraction > th.gc_throttle_ratio
        gc_ran = rates is not None and rates.gc_runs_per_s > 0
        for dr in doc.drives:
            z = dr.zones
            if (gc_ran or throttled) and z.free < th.gc_free_zones_min:
                why = (f"GC throttled {rates.throttle_fraction * 100:.0f}% of the time"
                       if throttled and rates is not None else "GC running")
                gc_behind.append(f"{name} drive {dr.index}: {_plural(z.free, 'free zone')} "
                                 f"(limit {th.gc_free_zones_min}), {why}")
            elif throttled and rates is not None and dr.index == 0:
                gc_behind.append(f"{name}: GC throttled {rates.throttle_fraction * 100:.0f}% "
                                 f"of the last {rates.window:.0f} s "
                                 f"(limit {th.gc_throttle_ratio * 100:.0f}%)")
            if z.offline:
                offline.append(f"{name} drive {dr.index}: {_plural(z.offline, 'offline zone')}")
            if z.readonly:
                readonly.append(f"{name} drive {dr.index}: {_plural(z.readonly, 'read-only zone')}")
            h = dr.hybrid
            if h is None:
                continue
            over = _bound_violated(history, name, doc.time, dr.index, h)
            if over is not None:
                bound.append(f"{name} drive {dr.index}: {over}")
            if h.state == "stalled":
                stalled.append(f"{name} drive {dr.index}: conversion reported stalled")
            elif h.state == "converting":
                since = _converting_without_progress(history, name, dr.index, now)
                if since is not None and since >= th.conversion_stall_seconds:
                    stalled.append(f"{name} drive {dr.index}: no conversion progress for "
                                   f"{since:.0f} s (limit {th.conversion_stall_seconds:.0f} s)")
    checks: List[HealthCheck] = []

    def add(name: str, severity: str, what: str, detail: List[str]) -> None:
        if detail:
            checks.append(HealthCheck(name, severity, what.format(n=len(detail)), detail))

    add("SMRSTORE_SPACE_LOW", "warning", "{n} smrstore daemon(s) low on space", space)
    add("SMRSTORE_GC_BEHIND", "warning", "smrstore GC falling behind on {n} drive(s)", gc_behind)
    add("SMRSTORE_ZONE_OFFLINE", "error", "{n} smrstore drive(s) have offline zones", offline)
    add("SMRSTORE_ZONE_READONLY", "warning", "{n} smrstore drive(s) have read-only zones", readonly)
    add("SMRSTORE_CONVERSION_STALLED", "warning", "{n} smrstore drive conversion(s) stalled", stalled)
    add("SMRSTORE_CONVERSION_BOUND_VIOLATED", "warning",
        "{n} smrstore drive conversion(s) over their latency bound", bound)
    if quarantine:
        zones = sum(q for _, q in quarantined)
        checks.append(HealthCheck(
            "SMRSTORE_GC_QUARANTINE", "warning",
            f"{_plural(zones, 'smrstore zone')} quarantined after failed GC cleanings on "
            f"{', '.join(n for n, _ in quarantined)}", quarantine))
    add("SMRSTORE_DAEMON_STALE", "warning", "{n} smrstore daemon(s) not reporting", stale)
    add("SMRSTORE_STATUS_INVALID", "warning", "{n} smrstore daemon(s) publish an unreadable status",
        [f"{e.name}: {e.message}" for e in snap.errors])
    return checks


def _space_low(name: str, st: Statfs, limit: float) -> Optional[str]:
    """SMRSTORE_SPACE_LOW's detail line for one daemon, or None when it is not low.

    The free ratio is statfs ``writable`` / ``total``: what users can still write, counting
    only the dead bytes GC can really give back (not the live records' headers, zone tails,
    journal-pinned zones or GC zones still open), as Store::Statfs counts it and an OSD
    reports it to Ceph's full ratios.  A daemon from before that field (a mixed-version
    cluster during an upgrade: its document, or its OSD's perf counters, lack it) is judged
    by the old formula, (available + reclaimable) / total, which counts every dead byte as
    free and so can miss a store that is nearly full; its detail line says so."""
    if st.total <= 0:
        return None
    lim = f"limit {limit * 100:.1f}%"
    if st.writable is not None:
        ratio = st.writable / st.total
        if ratio >= limit:
            return None
        return (f"{name}: {ratio * 100:.1f}% available ({st.writable} writable of {st.total} "
                f"bytes; {lim})")
    reclaimable = st.reclaimable or 0
    ratio = (st.available + reclaimable) / st.total
    if ratio >= limit:
        return None
    return (f"{name}: {ratio * 100:.1f}% available ({st.available} free + {reclaimable} "
            f"reclaimable of {st.total} bytes; {lim}; the daemon reports no statfs writable "
            f"(older version): every dead byte counted as free)")


def _quarantine_fix(name: str, source: str) -> str:
    """What to do about a daemon's quarantined zones (doc/operations.md, health checks)."""
    if source == SOURCE_OSD:
        check = (f"check the drives (OSD log 'smrstore:' lines), 'ceph osd deep-scrub {name}', "
                 "and with the OSD stopped 'ceph-objectstore-tool --op fsck' (with the "
                 "smrstore preload)")
    else:
        check = "check the drives and, with the store stopped, 'smrstore-tool fsck STORE --deep'"
    return f"{check}; GC retries a quarantined zone later"


def _converting_without_progress(history: History, name: str, drive: int,
                                 now: float) -> Optional[float]:
    """Seconds since this drive's conversion progress last changed, counted over the
    history's samples while it was converting; None if unknown (progress not reported)."""
    samples = history.samples(name)
    if not samples:
        return None
    last_progress = None
    since = None
    for s in samples:
        entry = next((c for c in s.conversion if c[0] == drive), None)
        if entry is None or entry[1] != "converting" or entry[2] is None:
            last_progress, since = None, None
            continue
        if last_progress is None or entry[2] != last_progress:
            last_progress, since = entry[2], s.t
    return None if since is None else now - since


def _ms(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:g} ms"


def _bound_violated(history: History, name: str, t: float, drive: int,
                    h: Hybrid) -> Optional[str]:
    """Why a hybrid drive's conversion is over its latency bound, or None: its
    bound_violations grew since the daemon's previous sample (the newest one older than this
    document), or the p99 of its recent migration quanta is above the bound."""
    why: List[str] = []
    prev = next((s for s in reversed(history.samples(name)) if s.t < t), None)
    if prev is not None and h.bound_violations is not None:
        entry = next((c for c in prev.conversion if c[0] == drive), None)
        before = entry[3] if entry is not None else None
        if before is not None and h.bound_violations > before:
            n = h.bound_violations - before
            why.append(f"{n} migration quant{'um' if n == 1 else 'a'} over the "
                       f"{_ms(h.latency_bound_ms)} latency bound since the previous sample "
                       f"({h.bound_violations} since mount)")
    if h.quantum_ms_p99 is not None and h.latency_bound_ms is not None \
            and h.quantum_ms_p99 > h.latency_bound_ms:
        why.append(f"migration quanta p99 {_ms(h.quantum_ms_p99)} > latency bound "
                   f"{_ms(h.latency_bound_ms)}")
    if not why:
        return None
    return "; ".join(why) + f" (max {_ms(h.quantum_ms_max)})"


# Where check-ceph records a refusal: the only config-keys an OSD's own key (`profile osd`)
# may write, daemon-private/osd.N/..., which the mgr (`profile mgr`) can read.
REFUSAL_PREFIX = "daemon-private/"
_REFUSAL_KEY = re.compile(r"^daemon-private/osd\.(\d+)/smrstore/check-ceph$")


def osd_refusals(keys: Dict[str, str], osd_map: Dict[str, Any]) -> Optional[HealthCheck]:
    """SMRSTORE_OSD_REFUSED from `config-key dump daemon-private/` and the OSD map.

    An entry is {"state": "refused", "line": ..., "osdmap_epoch": E, ...} (check_ceph.py;
    "passed" once a later check passed: the OSD's key may overwrite but not delete it). It is
    shown unless the OSD is up with up_from > E (it started after the refusal: started some
    other way, or the binary changed back) or the OSD no longer exists. An OSD still marked
    up from before the refusal (stopped but not yet marked down) is shown."""
    osds = {int(o["osd"]): o for o in osd_map.get("osds", []) if "osd" in o}
    detail: List[str] = []
    for key in sorted(keys, key=lambda k: (len(k), k)):
        m = _REFUSAL_KEY.match(key)
        if not m:
            continue
        osd_id = int(m.group(1))
        try:
            rec = json.loads(keys[key])
        except ValueError:
            continue
        if not isinstance(rec, dict) or rec.get("state") != "refused" or osd_id not in osds:
            continue
        o = osds[osd_id]
        epoch = rec.get("osdmap_epoch")
        if o.get("up") and (not isinstance(epoch, int) or int(o.get("up_from", 0)) > epoch):
            continue
        line = str(rec.get("line") or "check-ceph refused it (no reason recorded)")
        detail.append(f"osd.{osd_id}: not started: {line}")
    if not detail:
        return None
    return HealthCheck("SMRSTORE_OSD_REFUSED", "warning",
                       f"{_plural(len(detail), 'smrstore OSD')} not started: check-ceph "
                       f"refused the host's ceph-osd build", detail)


def to_mgr_checks(checks: List[HealthCheck]) -> Dict[str, Dict[str, Any]]:
    return {c.name: c.to_mgr() for c in checks}
