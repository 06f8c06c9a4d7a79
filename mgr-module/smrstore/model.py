"""The module's model of the smrstore daemons: one DaemonState per store, whichever way it
reaches the mgr.

Two sources (doc/stats-schema.md):

* service daemons of type ``smrstore``: a status map of strings (``schema``, ``stats`` as
  compact JSON, ``zonemap.<i>``, ``streams.<i>``) -> ``parse_service_status``;
* OSDs running the SMRStore adapter: perf counters of the loggers ``smrstore`` and
  ``smrstore-drive.<i>`` -> ``parse_osd_counters``.  No OSD on the development machine runs
  smrstore, so this path is tested on recorded shapes only.

``merge`` joins both into one name -> DaemonState map; parse failures are kept as
``DaemonError`` records (they become a health check and show in the summary) instead of
being dropped or crashing the module.
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .stats import (SCHEMA_V1, STREAM_CHARS, ZONEMAP_CHARS, Drive, GcStats, Hybrid, IoStats,
                    Statfs, StatsDoc, StatsError, ZoneCounts, check_zone_string, parse_stats)

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

    user = need(store, "smrstore_user_bytes", "smrstore")
    device = need(store, "smrstore_device_bytes", "smrstore")
    gc_bytes = need(store, "smrstore_gc_bytes", "smrstore")
    wa = need(store, "smrstore_wa_milli", "smrstore") / 1000.0
    conv = CONVERSION_STATES.get(int(store.get("smrstore_conversion_state", 0)))
    if conv is None:
        raise StatsError(f"{what}: smrstore_conversion_state {store['smrstore_conversion_state']} unknown")
    if sorted(drives) != list(range(len(drives))):
        raise StatsError(f"{what}: drive loggers {sorted(drives)} are not 0..{len(drives) - 1}")
    drive_models: List[Drive] = []
    for i in sorted(drives):
        dv = drives[i]
        where = f"smrstore-drive.{i}"
        zones = ZoneCounts(free=need(dv, "smrstore_zones_free", where),
                           open=need(dv, "smrstore_zones_open", where),
                           sealed=need(dv, "smrstore_zones_sealed", where),
                           reserved=need(dv, "smrstore_zones_reserved", where),
                           offline=need(dv, "smrstore_zones_offline", where),
                           readonly=need(dv, "smrstore_zones_readonly", where))
        # Perf counters carry no per-drive hybrid block, only the store's conversion state:
        # it is reported on every drive (byte counts and progress stay unknown = None).
        hybrid = None if conv == "none" else Hybrid(supported=True, state=conv)
        drive_models.append(Drive(
            index=i, capacity_bytes=need(dv, "smrstore_capacity_bytes", where),
            written_bytes=need(dv, "smrstore_written_bytes", where),
            live_bytes=need(dv, "smrstore_live_bytes", where), zones=zones, hybrid=hybrid))
    doc = StatsDoc(
        schema=SCHEMA_V1, name=osd, time=newest if newest is not None else now,
        statfs=Statfs(total=need(store, "smrstore_statfs_total", "smrstore"),
                      available=need(store, "smrstore_statfs_available", "smrstore"),
                      stored=need(store, "smrstore_statfs_stored", "smrstore")),
        # The OSD counters count since the OSD started; the lifetime fields take the same
        # values (the adapter has no lifetime counters).
        io=IoStats(user_bytes=user, device_bytes=device,
                   txns_committed=need(store, "smrstore_txns", "smrstore"),
                   crc_errors=need(store, "smrstore_crc_errors", "smrstore"),
                   write_amplification=wa, lifetime_user_bytes=user,
                   lifetime_device_bytes=device, lifetime_gc_bytes=gc_bytes,
                   lifetime_write_amplification=wa),
        gc=GcStats(runs=need(store, "smrstore_gc_runs", "smrstore"),
                   zones_reset=need(store, "smrstore_gc_zones_reset", "smrstore"),
                   live_moved=need(store, "smrstore_gc_live_moved", "smrstore"),
                   throttle_ns=need(store, "smrstore_gc_throttle", "smrstore"),
                   auto=bool(store.get("smrstore_gc_auto", 0))),
        drives=drive_models)
    return DaemonState(name=osd, source=SOURCE_OSD, doc=doc)


@dataclass
class Snapshot:
    """Everything the module knows at one instant."""
    time: float
    daemons: Dict[str, DaemonState]
    errors: List[DaemonError]


def merge(now: float,
          service_statuses: Mapping[str, Optional[Mapping[str, Any]]],
          osd_counters: Mapping[str, PerfCounters]) -> Snapshot:
    """Parse both sources into one snapshot.  A name present in both (a service daemon
    registered as ``osd.N``) keeps the service entry, which carries the zone maps."""
    daemons: Dict[str, DaemonState] = {}
    errors: List[DaemonError] = []
    for name in sorted(service_statuses):
        try:
            daemons[name] = parse_service_status(name, service_statuses[name])
        except StatsError as e:
            errors.append(DaemonError(name, SOURCE_SERVICE, str(e)))
    for osd in sorted(osd_counters):
        if osd in daemons:
            continue
        try:
            st = parse_osd_counters(osd, osd_counters[osd], now)
        except StatsError as e:
            errors.append(DaemonError(osd, SOURCE_OSD, str(e)))
            continue
        if st is not None:
            daemons[osd] = st
    return Snapshot(time=now, daemons=daemons, errors=errors)
