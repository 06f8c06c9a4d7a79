"""The module's model of the smrstore daemons: one DaemonState per store, whichever way it
reaches the mgr.

Two sources (doc/stats-schema.md):

* service daemons of type ``smrstore`` (``smrstore-tool serve --publish``): a status map of
  strings (``schema``, ``stats`` as compact JSON, ``zonemap.<i>``, ``streams.<i>``) ->
  ``parse_service_status``;
* OSDs running SMRStore (Debian's ceph-osd with libsmrstore_osd.so; ``osd_objectstore``
  metadata ``smrstore``): the perf counters of the loggers ``smrstore`` and
  ``smrstore-drive.<i>`` that the OSD reports to the mgr give the numbers, the OSD's own
  ``smrstore stats`` document (asked for with a command, ``osd_source.py``) the zone maps,
  the drives' geometry and the lifetime counters -> ``parse_osd``.

``merge`` joins both into one name -> DaemonState map; parse failures are kept as
``DaemonError`` records (they become a health check and show in the summary) instead of
being dropped or crashing the module.
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .stats import (PERF_COUNTERS, SCHEMA_V1, STREAM_CHARS, ZONEMAP_CHARS, Drive, GcStats,
                    Hybrid, IoStats, Statfs, StatsDoc, StatsError, ZoneCounts, check_zone_string, parse_stats)

SERVICE_TYPE = "smrstore"
SOURCE_SERVICE = "service"
SOURCE_OSD = "osd"

# doc/stats-schema.md: smrstore_conversion_state values.
CONVERSION_STATES = {0: "none", 1: "idle", 2: "converting", 3: "stalled"}


@dataclass(frozen=True)
class DaemonState:
    name: str
    source: str                       # SOURCE_SERVICE or SOURCE_OSD
    doc: StatsDoc
    zonemaps: Dict[int, str] = field(default_factory=dict)
    streams: Dict[int, str] = field(default_factory=dict)
    # OSD only: when the zone maps were taken (the `smrstore stats` document's time), and why
    # there are none (the command failed or has not answered yet).
    zonemap_time: Optional[float] = None
    zonemap_error: Optional[str] = None
    # Unreadable parts of what the daemon sent while the rest still shows (an OSD's bad
    # `smrstore stats` document): merge() reports them as DaemonErrors too.
    problems: Tuple[str, ...] = ()

    @property
    def last_update(self) -> float:
        return self.doc.time

    def age(self, now: float) -> float:
        return max(0.0, now - self.doc.time)

    def drive(self, index: int) -> Optional[Drive]:
        for d in self.doc.drives:
            if d.index == index:
                return d
        return None


@dataclass(frozen=True)
class DaemonError:
    name: str
    source: str
    message: str


def parse_service_status(name: str, status: Optional[Mapping[str, Any]]) -> DaemonState:
    """Read one service daemon's status map.  Raises StatsError naming what is wrong."""
    what = f"smrstore daemon {name!r}"
    if status is None:
        raise StatsError(f"{what}: no status published yet")
    if not isinstance(status, Mapping):
        raise StatsError(f"{what}: status is {type(status).__name__}, expected a map")
    schema = status.get("schema")
    if schema is None:
        raise StatsError(f"{what}: status has no 'schema' key (keys: {', '.join(sorted(status)) or 'none'})")
    if schema != SCHEMA_V1:
        raise StatsError(f"{what}: unsupported schema {schema!r} (this module reads {SCHEMA_V1})")
    raw = status.get("stats")
    if not isinstance(raw, str) or not raw:
        raise StatsError(f"{what}: status has no 'stats' JSON")
    try:
        decoded = json.loads(raw)
    except ValueError as e:
        raise StatsError(f"{what}: 'stats' is not valid JSON: {e}") from None
    if isinstance(decoded, dict) and isinstance(decoded.get("drives"), list):
        # A publisher may leave the maps inside the document; they live in separate keys.
        for d in decoded["drives"]:
            if isinstance(d, dict):
                d.pop("zonemap", None)
                d.pop("streams", None)
    doc = parse_stats(decoded, what=f"{what} stats", require_all_fields=True)
    if doc.name != name:
        raise StatsError(f"{what}: stats name is {doc.name!r}, not the daemon name")
    zonemaps: Dict[int, str] = {}
    streams: Dict[int, str] = {}
    for d in doc.drives:
        zm = status.get(f"zonemap.{d.index}")
        st = status.get(f"streams.{d.index}")
        if zm is None or st is None:
            raise StatsError(f"{what}: drive {d.index} has no zonemap.{d.index}/streams.{d.index}")
        zonemaps[d.index] = check_zone_string(str(zm), ZONEMAP_CHARS, d.nr_zones,
                                              f"{what} zonemap.{d.index}")
        streams[d.index] = check_zone_string(str(st), STREAM_CHARS, d.nr_zones,
                                             f"{what} streams.{d.index}")
    return DaemonState(name=name, source=SOURCE_SERVICE, doc=doc, zonemaps=zonemaps,
                       streams=streams)


def service_daemon_names(service_map: Optional[Mapping[str, Any]]) -> List[str]:
    """Names of the ``smrstore`` daemons in a service map (``self.get('service_map')``)."""
    if not service_map:
        return []
    services = service_map.get("services")
    if not isinstance(services, Mapping):
        return []
    svc = services.get(SERVICE_TYPE)
    if not isinstance(svc, Mapping):
        return []
    daemons = svc.get("daemons")
    if not isinstance(daemons, Mapping):
        return []
    # The map's "summary" entry is a string, not a daemon.
    return sorted(k for k, v in daemons.items() if isinstance(v, Mapping))


# --- OSD perf counters -------------------------------------------------------------------

_DRIVE_PATH = re.compile(r"^smrstore-drive\.(\d+)\.(smrstore_[a-z_]+)$")
_STORE_PATH = re.compile(r"^smrstore\.(smrstore_[a-z_]+)$")

PerfCounters = Mapping[str, Any]   # path -> {"value": n, "time"?: t, ...} or (t, value)


def _value(entry: Any, path: str, what: str) -> Tuple[float, Optional[float]]:
    if isinstance(entry, Mapping):
        v, t = entry.get("value"), entry.get("time")
    elif isinstance(entry, (list, tuple)) and len(entry) >= 2:   # get_latest_counter shape
        t, v = entry[0], entry[1]
    else:
        v, t = entry, None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise StatsError(f"{what}: counter {path} has no numeric value ({entry!r})")
    if v < 0:
        raise StatsError(f"{what}: counter {path} is negative ({v})")
    return v, (float(t) if isinstance(t, (int, float)) else None)


def _optional_int(src: Mapping[str, float], key: str) -> Optional[int]:
    v = src.get(key)
    return None if v is None else int(v)


def parse_osd_counters(osd: str, counters: PerfCounters, now: float) -> Optional[DaemonState]:
    """Build a DaemonState from one OSD's smrstore_* perf counters, or None if it has none.

    ``counters`` maps counter paths (``smrstore.smrstore_user_bytes``,
    ``smrstore-drive.0.smrstore_zones_free``) to the dicts ``get_all_perf_counters`` returns
    (a ``value`` key, optionally ``time``) or to ``(time, value)`` pairs as
    ``get_latest_counter`` returns them.
    """
    what = f"smrstore in {osd}"
    store: Dict[str, float] = {}
    drives: Dict[int, Dict[str, float]] = {}
    newest: Optional[float] = None
    for path, entry in counters.items():
        m = _STORE_PATH.match(path)
        d = _DRIVE_PATH.match(path)
        if not m and not d:
            continue
        v, t = _value(entry, path, what)
        if t is not None:
            newest = t if newest is None else max(newest, t)
        if m:
            store[m.group(1)] = v
        elif d:
            drives.setdefault(int(d.group(1)), {})[d.group(2)] = v
    if not store and not drives:
        return None

    def need(src: Mapping[str, float], key: str, where: str) -> int:
        if key not in src:
            raise StatsError(f"{what}: counter {where}.{key} missing")
        return int(src[key])

    def fields(src: Mapping[str, float], logger: str, where: str,
               models: Mapping[str, Any]) -> Dict[str, Dict[str, Any]]:
        """The document fields the counters of ``logger`` carry (the schema's
        x-perf-counters paths), by section (``""``: the drive itself): a counter the model
        requires must be there; one it has as Optional may be missing (None)."""
        out: Dict[str, Dict[str, Any]] = {}
        for e in PERF_COUNTERS[logger]:
            path = e.get("path")
            if path is None:
                continue
            parts = path.strip("/").split("/")
            section, key = ("", parts[0]) if len(parts) == 1 else (parts[0], parts[1])
            model_field = models[section].__fields__[key]
            if e["name"] in src:
                v = src[e["name"]]
                out.setdefault(section, {})[key] = bool(v) if model_field.type_ is bool else int(v)
            elif model_field.required:
                raise StatsError(f"{what}: counter {where}.{e['name']} missing")
        return out

    user = need(store, "smrstore_user_bytes", "smrstore")
    device = need(store, "smrstore_device_bytes", "smrstore")
    gc_bytes = need(store, "smrstore_gc_bytes", "smrstore")
    # WA from the two byte counters (full precision; smrstore_wa_milli has 3 decimals and is
    # checked to be there); 0 before any user write, as in the document.
    need(store, "smrstore_wa_milli", "smrstore")
    wa = device / user if user > 0 else 0.0
    conv = CONVERSION_STATES.get(int(store.get("smrstore_conversion_state", 0)))
    if conv is None:
        raise StatsError(f"{what}: smrstore_conversion_state {store['smrstore_conversion_state']} unknown")
    if sorted(drives) != list(range(len(drives))):
        raise StatsError(f"{what}: drive loggers {sorted(drives)} are not 0..{len(drives) - 1}")
    drive_models: List[Drive] = []
    for i in sorted(drives):
        f = fields(drives[i], "smrstore-drive.<i>", f"smrstore-drive.{i}",
                   {"": Drive, "zones": ZoneCounts})
        # Perf counters carry no per-drive hybrid block, only the store's conversion state:
        # it is reported on every drive (byte counts and progress stay unknown = None).
        hybrid = None if conv == "none" else Hybrid(supported=True, state=conv)
        drive_models.append(Drive(index=i, zones=ZoneCounts(**f.get("zones", {})),
                                  hybrid=hybrid, **f.get("", {})))
    f = fields(store, "smrstore", "smrstore",
               {"io": IoStats, "gc": GcStats, "statfs": Statfs})
    # The OSD counters count since the OSD started; the lifetime fields take the same values
    # (the adapter has no lifetime counters).
    io = dict(f.get("io", {}), write_amplification=wa, lifetime_user_bytes=user,
              lifetime_device_bytes=device, lifetime_gc_bytes=gc_bytes,
              lifetime_write_amplification=wa)
    doc = StatsDoc(
        schema=SCHEMA_V1, name=osd, time=newest if newest is not None else now,
        statfs=Statfs(**f.get("statfs", {})), io=IoStats(**io),
        gc=GcStats(**dict({"auto": False}, **f.get("gc", {}))), drives=drive_models)
    return DaemonState(name=osd, source=SOURCE_OSD, doc=doc)


@dataclass(frozen=True)
class OsdDocument:
    """An OSD's ``smrstore stats`` answer, parsed: the document without the maps, and each
    drive's zone map and stream map."""
    doc: StatsDoc
    zonemaps: Dict[int, str]
    streams: Dict[int, str]


def parse_osd_document(osd: str, raw: Any) -> OsdDocument:
    """Read the answer of ``smrstore stats`` sent to an OSD (bytes, a JSON string or the decoded
    object): the full document of doc/stats-schema.md, maps inside the drives.  Inside an
    OSD the document's ``name`` is the store's (``smrstore``), not the OSD's: the OSD's name
    replaces it.  Raises StatsError naming what is wrong."""
    what = f"smrstore stats of {osd}"
    if isinstance(raw, (bytes, bytearray)):
        raw = raw.decode("utf-8", "replace")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as e:
            raise StatsError(f"{what}: not valid JSON: {e}") from None
    if not isinstance(raw, dict):
        raise StatsError(f"{what}: expected a JSON object, got {type(raw).__name__}")
    decoded = dict(raw)
    maps: Dict[int, Tuple[Any, Any]] = {}
    drives = decoded.get("drives")
    if isinstance(drives, list):
        stripped = []
        for d in drives:
            if isinstance(d, dict):
                d = dict(d)
                maps[d.get("index", -1)] = (d.pop("zonemap", None), d.pop("streams", None))
            stripped.append(d)
        decoded["drives"] = stripped
    decoded["name"] = osd
    doc = parse_stats(decoded, what=what, require_all_fields=True)
    zonemaps: Dict[int, str] = {}
    streams: Dict[int, str] = {}
    for d in doc.drives:
        zm, st = maps.get(d.index, (None, None))
        if not isinstance(zm, str) or not isinstance(st, str):
            raise StatsError(f"{what}: drive {d.index} has no zonemap/streams strings")
        zonemaps[d.index] = check_zone_string(zm, ZONEMAP_CHARS, d.nr_zones,
                                              f"{what} drives[{d.index}].zonemap")
        streams[d.index] = check_zone_string(st, STREAM_CHARS, d.nr_zones,
                                             f"{what} drives[{d.index}].streams")
    return OsdDocument(doc=doc, zonemaps=zonemaps, streams=streams)


@dataclass(frozen=True)
class OsdReading:
    """What the mgr has of one smrstore OSD at a sample: its smrstore_* perf counters (path ->
    ``(time, value)`` from get_latest_counter, or get_all_perf_counters' dicts), the last
    ``smrstore stats`` answer (raw; None if none yet) and why the last ask failed, if it did."""
    counters: PerfCounters
    document: Any = None
    document_error: Optional[str] = None


def parse_osd(osd: str, reading: OsdReading, now: float) -> DaemonState:
    """One smrstore OSD as a DaemonState (source ``osd``).

    The numbers come from the perf counters: I/O since mount, WA, GC, statfs, each drive's
    zone counts and bytes.  The ``smrstore stats`` document adds what counters cannot carry:
    the zone maps and stream maps, the drives' geometry and spec, the store block, the
    lifetime counters and the few statfs/io fields without a counter.  Without the document
    the OSD still shows (zone maps unavailable, ``zonemap_error`` says why); without
    counters (none received yet, or an operator raised mgr_stats_threshold) the document
    gives every number.  Neither: StatsError."""
    base = parse_osd_counters(osd, reading.counters, now)
    parsed: Optional[OsdDocument] = None
    doc_error = reading.document_error
    problems: Tuple[str, ...] = ()
    if reading.document is not None:
        try:
            parsed = parse_osd_document(osd, reading.document)
        except StatsError as e:
            doc_error = str(e)
            problems = (doc_error,)
    if base is None and parsed is None:
        why = f"; smrstore stats: {doc_error}" if doc_error else ""
        raise StatsError(f"{osd}: osd_objectstore is smrstore but the mgr has no smrstore_* "
                         f"perf counters of it{why}")
    if parsed is None:
        assert base is not None
        return DaemonState(name=osd, source=SOURCE_OSD, doc=base.doc,
                           zonemap_error=doc_error or "the OSD has not answered smrstore stats yet",
                           problems=problems)
    full = parsed.doc
    if base is None:
        return DaemonState(name=osd, source=SOURCE_OSD, doc=full, zonemaps=parsed.zonemaps,
                           streams=parsed.streams, zonemap_time=full.time)
    c = base.doc
    if len(c.drives) != len(full.drives):
        raise StatsError(f"{osd}: {len(c.drives)} drive loggers but smrstore stats lists "
                         f"{len(full.drives)} drives")
    # The counters have no inactive-zone count (hybrid drives): the document's is kept.
    drives = [fd.copy(update={"capacity_bytes": cd.capacity_bytes,
                              "written_bytes": cd.written_bytes, "live_bytes": cd.live_bytes,
                              "zones": cd.zones if cd.zones.inactive is not None
                              else cd.zones.copy(update={"inactive": fd.zones.inactive})})
              for cd, fd in zip(c.drives, full.drives)]
    doc = StatsDoc(
        schema=SCHEMA_V1, name=osd, time=c.time, store=full.store,
        statfs=c.statfs.copy(update={"allocated": full.statfs.allocated,
                                     "meta_bytes": full.statfs.meta_bytes}),
        io=c.io.copy(update={
            "inline_bytes": full.io.inline_bytes, "bytes_read": full.io.bytes_read,
            "txns_failed": full.io.txns_failed,
            "lifetime_user_bytes": full.io.lifetime_user_bytes,
            "lifetime_device_bytes": full.io.lifetime_device_bytes,
            "lifetime_gc_bytes": full.io.lifetime_gc_bytes,
            "lifetime_write_amplification": full.io.lifetime_write_amplification}),
        gc=c.gc, drives=drives)
    return DaemonState(name=osd, source=SOURCE_OSD, doc=doc, zonemaps=parsed.zonemaps,
                       streams=parsed.streams, zonemap_time=full.time,
                       zonemap_error=reading.document_error)


@dataclass
class Snapshot:
    """Everything the module knows at one instant."""
    time: float
    daemons: Dict[str, DaemonState]
    errors: List[DaemonError]


def merge(now: float,
          service_statuses: Mapping[str, Optional[Mapping[str, Any]]],
          osds: Mapping[str, OsdReading]) -> Snapshot:
    """Parse both sources into one snapshot.  A name present in both (a service daemon
    registered as ``osd.N``) keeps the service entry."""
    daemons: Dict[str, DaemonState] = {}
    errors: List[DaemonError] = []
    for name in sorted(service_statuses):
        try:
            daemons[name] = parse_service_status(name, service_statuses[name])
        except StatsError as e:
            errors.append(DaemonError(name, SOURCE_SERVICE, str(e)))
    for osd in sorted(osds, key=_osd_order):
        if osd in daemons:
            continue
        try:
            daemons[osd] = parse_osd(osd, osds[osd], now)
        except StatsError as e:
            errors.append(DaemonError(osd, SOURCE_OSD, str(e)))
            continue
        errors.extend(DaemonError(osd, SOURCE_OSD, p) for p in daemons[osd].problems)
    return Snapshot(time=now, daemons=daemons, errors=errors)


def _osd_order(name: str) -> Tuple[int, str]:
    m = re.match(r"^osd\.(\d+)$", name)
    return (int(m.group(1)), "") if m else (1 << 30, name)
