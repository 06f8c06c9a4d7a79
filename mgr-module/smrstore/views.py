"""What the REST API and the CLI answer: typed views built from a Snapshot, the History
and the health checks.  Plain functions, so tests build them from plain data."""

from typing import Dict, List, Optional

from pydantic import BaseModel, Field

from .health import HealthCheck
from .history import History
from .model import SOURCE_OSD, DaemonState, Snapshot
from .stats import Drive, Hybrid, StatsDoc, ZoneCounts, zonemap_counts


class _Out(BaseModel):
    class Config:
        allow_mutation = False


class HealthCheckOut(_Out):
    name: str = Field(..., description="e.g. SMRSTORE_SPACE_LOW")
    severity: str = Field(..., description="warning or error")
    summary: str
    count: int
    detail: List[str]


class DaemonErrorOut(_Out):
    name: str
    source: str
    message: str


class Summary(_Out):
    time: float = Field(..., description="when the module took this snapshot (unix seconds)")
    daemons: int
    stale_daemons: int
    drives: int
    capacity_bytes: int = Field(..., description="sum of statfs.total")
    stored_bytes: int = Field(..., description="sum of statfs.stored")
    available_bytes: int = Field(..., description="sum of statfs.available")
    user_bytes: int = Field(..., description="sum of io.lifetime_user_bytes")
    device_bytes: int = Field(..., description="sum of io.lifetime_device_bytes")
    gc_bytes: int = Field(..., description="sum of io.lifetime_gc_bytes")
    write_amplification: Optional[float] = Field(
        None, description="cluster lifetime device / user bytes; null before any user write")
    health: List[HealthCheckOut]
    errors: List[DaemonErrorOut] = Field(..., description="daemons whose status is unreadable")


class DaemonSummary(_Out):
    name: str = Field(..., description="service daemon name, or osd.N for an OSD on smrstore")
    source: str = Field(..., description="service (a store run by smrstore-tool, librados "
                        "service daemon) or osd (an OSD whose objectstore is smrstore)")
    last_update: float
    age_seconds: float
    stale: bool
    drives: int
    capacity: int
    stored: int
    available: int
    user_bytes: int = Field(..., description="user bytes written since mount")
    device_bytes: int = Field(..., description="device bytes written since mount")
    free_zones: int = Field(..., description="free zones over all drives")
    write_amplification: float
    lifetime_write_amplification: float
    gc_auto: bool
    gc_runs: int = Field(..., description="victim zones cleaned since mount")
    gc_failures: Optional[int] = Field(
        None, description="GC cleanings since mount that failed and were rolled back; null "
                          "when the daemon does not report it")
    gc_quarantined_zones: Optional[int] = Field(
        None, description="zones GC has quarantined now (SMRSTORE_GC_QUARANTINE); null when "
                          "the daemon does not report it")


class DaemonDetail(StatsDoc):
    """The daemon's stats document (doc/stats-schema.md) without the zone maps."""
    source: str
    age_seconds: float
    stale: bool
    zonemap_time: Optional[float] = Field(
        None, description="OSD: when its zone maps were taken (its smrstore stats answer)")
    zonemap_error: Optional[str] = Field(
        None, description="OSD: why its zone maps are missing or old (smrstore stats failed)")


class ZoneMapCounts(_Out):
    reserved: int
    free: int
    open: int
    sealed: int
    offline: int
    readonly: int
    conventional: int
    inactive: int = Field(..., description="hybrid drives: zones of a realm's inactive "
                          "domain ('_')")


class DriveZones(_Out):
    daemon: str
    index: int
    nr_zones: Optional[int]
    zone_size: Optional[int]
    zone_capacity: Optional[int]
    conventional_zones: Optional[int]
    available: bool = Field(..., description="false when there is no zone map (an OSD that "
                            "has not answered smrstore stats): zonemap and streams are then "
                            "empty")
    source: str = Field(..., description="service or osd, as in DaemonSummary")
    zonemap_time: Optional[float] = Field(
        None, description="when the zone map was taken (unix seconds)")
    zonemap_error: Optional[str] = Field(
        None, description="OSD: why the zone map is missing or old")
    zonemap: str = Field(..., description="one character per zone, doc/stats-schema.md")
    streams: str = Field(..., description="one character per zone, doc/stats-schema.md")
    counts: Optional[ZoneMapCounts] = Field(None, description="counted from zonemap")
    reported: ZoneCounts = Field(..., description="the drive's own zone counts")
    stream_counts: Dict[str, int] = Field(..., description="zones per stream character")


class HistoryPoint(_Out):
    t: float
    write_amplification: Optional[float] = Field(
        None, description="device / user bytes written since the previous point")
    lifetime_write_amplification: float
    user_bytes: int = Field(..., description="lifetime user bytes")
    device_bytes: int = Field(..., description="lifetime device bytes")
    gc_bytes: int = Field(..., description="lifetime GC bytes")
    zones_reset: int
    gc_runs: int
    throttle_ns: int


class HistorySeries(_Out):
    daemon: str
    points: List[HistoryPoint]


class HistoryOut(_Out):
    time: float
    window: int
    series: List[HistorySeries]


class GcRates(_Out):
    window: float = Field(..., description="seconds between the samples the rates span")
    runs_per_s: float
    zones_reset_per_s: float
    gc_bytes_per_s: float
    user_bytes_per_s: float
    throttle_fraction: float = Field(..., description="GC throttle time / wall time")


class GcDaemon(_Out):
    daemon: str
    auto: bool
    runs: int
    zones_reset: int
    live_moved: int
    bytes_written: Optional[int]
    throttle_ns: int
    lifetime_gc_bytes: int
    failures: Optional[int] = Field(
        None, description="cleanings since mount that failed and were rolled back; null when "
                          "the daemon does not report it (an older OSD library)")
    quarantined_zones: Optional[int] = Field(
        None, description="zones GC leaves out of its victims now because their cleaning "
                          "failed (SMRSTORE_GC_QUARANTINE); null when not reported")
    free_zones: int = Field(..., description="free zones over all drives")
    rates: Optional[GcRates] = Field(None, description="null until two samples are in the window")


class GcOut(_Out):
    time: float
    window: int
    daemons: List[GcDaemon]


class ConversionDrive(_Out):
    daemon: str
    drive: int
    supported: bool
    state: str = Field(..., description="none (not hybrid), idle, converting or stalled")
    cmr_bytes: Optional[int] = Field(None, description="capacity of the drive's CMR realms")
    smr_bytes: Optional[int] = Field(None, description="capacity of the drive's SMR realms")
    converting_zones: Optional[int] = Field(
        None, description="zones of the realm(s) being emptied or converted")
    progress: Optional[float] = Field(
        None, description="progress of the conversion in progress on this drive, 0..1")
    latency_bound_ms: Optional[float] = Field(
        None, description="bound on the foreground latency one migration quantum adds, ms")
    realms: Optional[int] = Field(None, description="realms of the drive; null: not reported")
    realms_cmr: Optional[int] = Field(None, description="realms active in the CMR domain")
    realms_smr: Optional[int] = Field(None, description="realms active in the SMR domain")
    realms_pending: Optional[int] = Field(
        None, description="realms being emptied or converted now")
    realmmap: Optional[str] = Field(
        None, description="one character per realm (x-realmmap-codes of the stats schema: C "
                          "CMR, S SMR, c CMR emptying, s SMR emptying, > converting)")
    quantum_bytes: Optional[int] = Field(
        None, description="live bytes the next migration quantum may move")
    quantum_ms_p99: Optional[float] = Field(
        None, description="p99 duration of the store's recent migration quanta, ms (null: "
                          "none ran)")
    quantum_ms_max: Optional[float] = Field(
        None, description="longest migration quantum since mount, ms (null: none ran)")
    bound_violations: Optional[int] = Field(
        None, description="migration quanta since mount that took longer than the latency "
                          "bound")
    bound_exceeded: Optional[bool] = Field(
        None, description="quantum_ms_p99 > latency_bound_ms (SMRSTORE_CONVERSION_BOUND_"
                          "VIOLATED); null when either is unknown")
    conversions: Optional[int] = Field(
        None, description="realm conversions the drive completed since mount")
    migrated_bytes: Optional[int] = Field(
        None, description="live bytes moved out of converting realms since mount (store-wide)")
    stall_reason: Optional[str] = Field(
        None, description="why the drive's last conversion stalled (null: it did not)")


def health_out(checks: List[HealthCheck]) -> List[HealthCheckOut]:
    return [HealthCheckOut(name=c.name, severity=c.severity, summary=c.summary, count=c.count,
                           detail=c.detail) for c in checks]


def summary(snap: Snapshot, checks: List[HealthCheck], stale_seconds: float) -> Summary:
    ds = list(snap.daemons.values())
    user = sum(d.doc.io.lifetime_user_bytes for d in ds)
    device = sum(d.doc.io.lifetime_device_bytes for d in ds)
    return Summary(
        time=snap.time, daemons=len(ds),
        stale_daemons=sum(1 for d in ds if d.age(snap.time) > stale_seconds),
        drives=sum(len(d.doc.drives) for d in ds),
        capacity_bytes=sum(d.doc.statfs.total for d in ds),
        stored_bytes=sum(d.doc.statfs.stored for d in ds),
        available_bytes=sum(d.doc.statfs.available for d in ds),
        user_bytes=user, device_bytes=device,
        gc_bytes=sum(d.doc.io.lifetime_gc_bytes for d in ds),
        write_amplification=(device / user) if user > 0 else None,
        health=health_out(checks),
        errors=[DaemonErrorOut(name=e.name, source=e.source, message=e.message)
                for e in snap.errors])


def daemon_summary(d: DaemonState, now: float, stale_seconds: float) -> DaemonSummary:
    doc = d.doc
    age = d.age(now)
    return DaemonSummary(
        name=d.name, source=d.source, last_update=doc.time, age_seconds=age,
        stale=age > stale_seconds, drives=len(doc.drives), capacity=doc.statfs.total,
        stored=doc.statfs.stored, available=doc.statfs.available,
        user_bytes=doc.io.user_bytes, device_bytes=doc.io.device_bytes,
        free_zones=sum(dr.zones.free for dr in doc.drives),
        write_amplification=doc.io.write_amplification,
        lifetime_write_amplification=doc.io.lifetime_write_amplification, gc_auto=doc.gc.auto,
        gc_runs=doc.gc.runs, gc_failures=doc.gc.failures,
        gc_quarantined_zones=doc.gc.quarantined_zones)


def daemons(snap: Snapshot, stale_seconds: float) -> List[DaemonSummary]:
    return [daemon_summary(d, snap.time, stale_seconds)
            for _, d in sorted(snap.daemons.items())]


def daemon_detail(d: DaemonState, now: float, stale_seconds: float) -> DaemonDetail:
    age = d.age(now)
    data = d.doc.dict(by_alias=True)
    return DaemonDetail(**data, source=d.source, age_seconds=age, stale=age > stale_seconds,
                        zonemap_time=d.zonemap_time, zonemap_error=d.zonemap_error)


_STREAM_NAMES = {"-": "none", "u": "user", "s": "small", "g": "gc", "G": "gc_cold",
                 "h": "user_hot"}


def drive_zones(d: DaemonState, index: int) -> Optional[DriveZones]:
    dr = d.drive(index)
    if dr is None:
        return None
    zm = d.zonemaps.get(index)
    st = d.streams.get(index, "")
    counts = None
    if zm is not None:
        r, f, o, s, off, ro, c, ina = zonemap_counts(zm)
        counts = ZoneMapCounts(reserved=r, free=f, open=o, sealed=s, offline=off, readonly=ro,
                               conventional=c, inactive=ina)
    stream_counts = {name: st.count(ch) for ch, name in _STREAM_NAMES.items()}
    return DriveZones(daemon=d.name, index=index, nr_zones=dr.nr_zones, zone_size=dr.zone_size,
                      zone_capacity=dr.zone_capacity, conventional_zones=dr.conventional_zones,
                      available=zm is not None, source=d.source,
                      zonemap_time=d.zonemap_time if d.source == SOURCE_OSD else d.doc.time,
                      zonemap_error=d.zonemap_error, zonemap=zm or "", streams=st, counts=counts,
                      reported=dr.zones, stream_counts=stream_counts)


def history(hist: History, names: List[str], window: int, now: float) -> HistoryOut:
    series = []
    for name in names:
        pts = [HistoryPoint(t=p.t, write_amplification=p.wa_interval,
                            lifetime_write_amplification=p.wa_lifetime,
                            user_bytes=p.user_bytes, device_bytes=p.device_bytes,
                            gc_bytes=p.gc_bytes, zones_reset=p.zones_reset, gc_runs=p.gc_runs,
                            throttle_ns=p.throttle_ns)
               for p in hist.points(name, since=now - window)]
        series.append(HistorySeries(daemon=name, points=pts))
    return HistoryOut(time=now, window=window, series=series)


def gc(snap: Snapshot, hist: History, window: int) -> GcOut:
    out = []
    for name, d in sorted(snap.daemons.items()):
        g = d.doc.gc
        r = hist.rates(name, window, snap.time)
        rates = None if r is None else GcRates(
            window=r.window, runs_per_s=r.gc_runs_per_s, zones_reset_per_s=r.zones_reset_per_s,
            gc_bytes_per_s=r.gc_bytes_per_s, user_bytes_per_s=r.user_bytes_per_s,
            throttle_fraction=r.throttle_fraction)
        out.append(GcDaemon(daemon=name, auto=g.auto, runs=g.runs, zones_reset=g.zones_reset,
                            live_moved=g.live_moved, bytes_written=g.bytes_written,
                            throttle_ns=g.throttle_ns,
                            lifetime_gc_bytes=d.doc.io.lifetime_gc_bytes,
                            failures=g.failures, quarantined_zones=g.quarantined_zones,
                            free_zones=sum(dr.zones.free for dr in d.doc.drives), rates=rates))
    return GcOut(time=snap.time, window=window, daemons=out)


def bound_exceeded(h: Hybrid) -> Optional[bool]:
    """Whether the recent migration quanta's p99 is over the latency bound (None: unknown)."""
    if h.quantum_ms_p99 is None or h.latency_bound_ms is None:
        return None
    return h.quantum_ms_p99 > h.latency_bound_ms


def conversion_drive(name: str, dr: Drive) -> ConversionDrive:
    h = dr.hybrid
    if h is None:
        return ConversionDrive(daemon=name, drive=dr.index, supported=False, state="none")
    return ConversionDrive(
        daemon=name, drive=dr.index, supported=h.supported, state=h.state,
        cmr_bytes=h.cmr_bytes, smr_bytes=h.smr_bytes, converting_zones=h.converting_zones,
        progress=h.progress, latency_bound_ms=h.latency_bound_ms, realms=h.realms,
        realms_cmr=h.realms_cmr, realms_smr=h.realms_smr, realms_pending=h.realms_pending,
        realmmap=h.realmmap, quantum_bytes=h.quantum_bytes, quantum_ms_p99=h.quantum_ms_p99,
        quantum_ms_max=h.quantum_ms_max, bound_violations=h.bound_violations,
        bound_exceeded=bound_exceeded(h), conversions=h.conversions,
        migrated_bytes=h.migrated_bytes, stall_reason=h.stall_reason)


def conversion(snap: Snapshot) -> List[ConversionDrive]:
    return [conversion_drive(name, dr)
            for name, d in sorted(snap.daemons.items()) for dr in d.doc.drives]
