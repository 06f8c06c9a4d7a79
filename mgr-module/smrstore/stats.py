"""Typed form of the smrstore stats document, schema ``smrstore.stats/1``.

``stats_schema.json`` beside this file defines the document (normative JSON Schema, with the
zone-map and stream codes; doc/stats-schema.md is its prose): the code tables, the hybrid
states and the fields added within version 1 are read from it, and tests/test_stats_schema.py
checks these models' fields and types against it.  The models here are used both to validate what a
publisher sends (service-daemon status) and as the REST API's response models, so the web
console's generated client sees exactly these fields.

Fields that an OSD's perf counters cannot provide are ``Optional``: an OSD seen only through
its counters (its ``smrstore stats`` document not answered yet) carries ``None`` there.  For
the service-daemon path and an OSD's own document every field is required
(``require_all_fields``), so a publisher that leaves one out gets a clear error naming the
field instead of a silent ``None``.
"""

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Dict, FrozenSet, Iterator, List, NamedTuple, Optional, Tuple

from pydantic import BaseModel, Field, ValidationError, validator

# The normative schema of the document (JSON Schema, with the zone-map and stream codes in
# its x-zonemap-codes / x-streams-codes tables).  It ships inside this package; the engine's
# and the web console's codes are checked against (or generated from) the same file.
SCHEMA_PATH = Path(__file__).resolve().parent / "stats_schema.json"


def load_schema(path: Path = SCHEMA_PATH) -> Dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        schema: Dict[str, Any] = json.load(f)
    return schema


STATS_SCHEMA = load_schema()

SCHEMA_V1: str = STATS_SCHEMA["properties"]["schema"]["const"]
# The OSD path's perf counters by logger ("smrstore", "smrstore-drive.<i>"): name, the
# document field it carries (``path``, a JSON pointer) or how it is derived, type, unit.
PERF_COUNTERS: Dict[str, List[Dict[str, Any]]] = {
    k: v for k, v in STATS_SCHEMA["x-perf-counters"].items() if k != "description"}


class ZoneCode(NamedTuple):
    """What one zone-map character means: the zone's state, and for open/sealed zones its
    live data in tenths of the zone's capacity (else None)."""
    state: str
    live_tenths: Optional[int]


# Zone-map states in the schema's order (also the keys of a drive's ``zones`` counts).
ZONE_STATES: Tuple[str, ...] = tuple(s["state"] for s in STATS_SCHEMA["x-zonemap-states"])
ZONEMAP_CODES: Dict[str, ZoneCode] = {
    c["char"]: ZoneCode(c["state"], c.get("live_tenths")) for c in STATS_SCHEMA["x-zonemap-codes"]}
# Stream characters -> stream names ("-" is "none").
STREAM_CODES: Dict[str, str] = {c["char"]: c["stream"] for c in STATS_SCHEMA["x-streams-codes"]}


class RealmCode(NamedTuple):
    """What one realm-map character (a hybrid drive's ``realmmap``) means."""
    label: str
    description: str


# Realm-map characters -> meaning (x-realmmap-codes: C, S, c, s, >), in the schema's order.
REALMMAP_CODES: Dict[str, RealmCode] = {
    c["char"]: RealmCode(c["label"], c["description"]) for c in STATS_SCHEMA["x-realmmap-codes"]}
REALMMAP_CHARS: FrozenSet[str] = frozenset(REALMMAP_CODES)


def _fill_chars(state: str) -> str:
    """The characters of an open or sealed zone, by live tenths 0..10."""
    codes = sorted((code.live_tenths or 0, ch) for ch, code in ZONEMAP_CODES.items()
                   if code.state == state)
    return "".join(ch for _, ch in codes)


# Characters of the zone map and the stream map (doc/stats-schema.md).
ZONEMAP_OPEN = _fill_chars("open")
ZONEMAP_SEALED = _fill_chars("sealed")
ZONEMAP_CHARS: FrozenSet[str] = frozenset(ZONEMAP_CODES)
STREAM_CHARS: FrozenSet[str] = frozenset(STREAM_CODES)

HYBRID_STATES: Tuple[str, ...] = tuple(
    STATS_SCHEMA["$defs"]["drive"]["properties"]["hybrid"]["properties"]["state"]["enum"])


class _Doc(BaseModel):
    class Config:
        extra = "ignore"          # the schema only ever adds fields
        allow_mutation = False


class StoreInfo(_Doc):
    uuid: str
    dir: str
    mount_count: int = Field(..., ge=0)
    gc_policy: str
    gc_auto: bool
    pack_max: Optional[int] = Field(
        None, ge=0, description="the store's pack_max option: data writes of at most this many "
                                "bytes share pack records (0: never; null: not reported)")
    gc_start_free: Optional[float] = Field(
        None, ge=0, le=1, description="GC start watermark: cleaning starts below this free "
                                      "fraction of the data zones (null: not reported)")
    gc_urgent_free: Optional[float] = Field(
        None, ge=0, le=1, description="urgent watermark: below it commit groups wait for "
                                      "cleaning (null: not reported)")
    gc_stop_free: Optional[float] = Field(
        None, ge=0, le=1, description="stop watermark: idle cleaning stops above it (null: "
                                      "not reported)")
    gc_free_zones_max: Optional[int] = Field(
        None, ge=0, description="cap on the zones the watermarks keep free, per drive (0: "
                                "no cap; null: not reported)")
    gc_read_ahead: Optional[bool] = Field(
        None, description="whether idle GC reads its victim ahead of the slices that move it, "
                          "as resolved at mount (auto: on when a drive is rotational; null: "
                          "not reported)")


class Statfs(_Doc):
    total: int = Field(..., ge=0)
    available: int = Field(..., ge=0)
    allocated: Optional[int] = Field(None, ge=0)
    stored: int = Field(..., ge=0)
    meta_bytes: Optional[int] = Field(None, ge=0)
    reclaimable: Optional[int] = Field(
        None, ge=0, description="dead record bytes zone GC can reclaim (counted as available "
                                "by Ceph's statfs inside an OSD)")


class IoStats(_Doc):
    user_bytes: int = Field(..., ge=0, description="user bytes written since mount")
    device_bytes: int = Field(..., ge=0, description="device bytes written since mount")
    inline_bytes: Optional[int] = Field(None, ge=0)
    bytes_read: Optional[int] = Field(None, ge=0)
    txns_committed: int = Field(..., ge=0)
    txns_failed: Optional[int] = Field(None, ge=0)
    crc_errors: int = Field(..., ge=0)
    write_amplification: float = Field(..., ge=0, description="device / user bytes since mount")
    lifetime_user_bytes: int = Field(..., ge=0)
    lifetime_device_bytes: int = Field(..., ge=0)
    lifetime_gc_bytes: int = Field(..., ge=0)
    lifetime_write_amplification: float = Field(..., ge=0)
    # Added within v1 (pack records): null when a daemon does not report them.
    pack_records: Optional[int] = Field(
        None, ge=0, description="pack records (small writes of a commit group sharing one "
                                "header block) written since mount, GC's included")
    pack_entries: Optional[int] = Field(
        None, ge=0, description="entries written into pack records since mount")
    pack_payload_bytes: Optional[int] = Field(
        None, ge=0, description="payload bytes of those entries")
    pack_record_bytes: Optional[int] = Field(
        None, ge=0, description="zone bytes of those pack records: header blocks and payload "
                                "padded to blocks (part of device_bytes)")
    # Added within v1 (reads): null when a daemon does not report them.
    data_reads: Optional[int] = Field(
        None, ge=0, description="device reads of object data since mount")
    data_read_records: Optional[int] = Field(
        None, ge=0, description="data records those reads covered (more than data_reads: an "
                                "object's records lying together on a rotational drive read "
                                "in one read)")


class GcStats(_Doc):
    runs: int = Field(..., ge=0)
    zones_reset: int = Field(..., ge=0)
    live_moved: int = Field(..., ge=0)
    bytes_written: Optional[int] = Field(None, ge=0)
    throttle_ns: int = Field(..., ge=0)
    auto: bool
    failures: Optional[int] = Field(
        None, ge=0, description="cleanings since mount that failed and were rolled back "
                                "(null: the daemon does not report it)")
    quarantined_zones: Optional[int] = Field(
        None, ge=0, description="zones GC leaves out of its victims now because their "
                                "cleaning failed: a media problem to look at (null: the "
                                "daemon does not report it)")
    pinned_zones: Optional[int] = Field(
        None, ge=0, description="data zones pinned now by metadata-journal records newer than "
                                "the last checkpoint: GC does not reset them until a checkpoint "
                                "unpins them (null: the daemon does not report it)")
    read_ahead_bytes: Optional[int] = Field(
        None, ge=0, description="victim bytes idle GC read ahead of the slices that moved them, "
                                "since mount (null: the daemon does not report it)")
    read_ahead_yields: Optional[int] = Field(
        None, ge=0, description="read-aheads a foreground arrival stopped before a slice ran, "
                                "since mount (null: the daemon does not report it)")


class ZoneCounts(_Doc):
    free: int = Field(..., ge=0)
    open: int = Field(..., ge=0)
    sealed: int = Field(..., ge=0)
    reserved: int = Field(..., ge=0)
    offline: int = Field(..., ge=0)
    readonly: int = Field(..., ge=0)
    conventional: Optional[int] = Field(
        None, ge=0, description="conventional zones the store does not use ('=')")
    inactive: Optional[int] = Field(
        None, ge=0, description="hybrid drives: zones of their realm's inactive domain ('_'; "
                                "null: not reported, a daemon from before hybrid drives)")


class Hybrid(_Doc):
    supported: bool
    state: str
    cmr_bytes: Optional[int] = Field(None, ge=0)
    smr_bytes: Optional[int] = Field(None, ge=0)
    converting_zones: Optional[int] = Field(None, ge=0)
    progress: Optional[float] = Field(None, ge=0.0, le=1.0)
    latency_bound_ms: Optional[float] = Field(None, ge=0)
    # Added within v1 (hybrid drives in the engine): null when a daemon does not report them.
    realms: Optional[int] = Field(None, ge=0, description="realms of the drive (0: not hybrid)")
    realms_cmr: Optional[int] = Field(None, ge=0, description="realms active in the CMR domain")
    realms_smr: Optional[int] = Field(None, ge=0, description="realms active in the SMR domain")
    realms_pending: Optional[int] = Field(
        None, ge=0, description="realms being emptied or converted now")
    realmmap: Optional[str] = Field(
        None, description="one character per realm, in realm order (C CMR, S SMR, c/s "
                          "emptying, > converting; doc/stats-schema.md)")
    quantum_bytes: Optional[int] = Field(
        None, ge=0, description="live bytes the next migration quantum may move")
    quantum_ms_p99: Optional[float] = Field(
        None, ge=0, description="p99 duration of the store's last (up to) 1024 migration "
                                "quanta, ms (null: none ran)")
    quantum_ms_max: Optional[float] = Field(
        None, ge=0, description="longest migration quantum since mount, ms (null: none ran)")
    bound_violations: Optional[int] = Field(
        None, ge=0, description="migration quanta since mount longer than the latency bound")
    conversions: Optional[int] = Field(
        None, ge=0, description="realm conversions the drive completed since mount")
    migrated_bytes: Optional[int] = Field(
        None, ge=0, description="live bytes moved out of converting realms since mount "
                                "(store-wide)")
    stall_reason: Optional[str] = Field(
        None, description="why the drive's last conversion stalled (null: it did not)")

    @validator("state")
    def _state_known(cls, v: str) -> str:
        if v not in HYBRID_STATES:
            raise ValueError(f"unknown hybrid state {v!r} (expected one of {', '.join(HYBRID_STATES)})")
        return v

    @validator("realmmap")
    def _realmmap_codes(cls, v: Optional[str], values: Dict[str, Any]) -> Optional[str]:
        if v is None:
            return v
        bad = sorted(set(v) - REALMMAP_CHARS)
        if bad:
            raise ValueError(f"unknown realm-map character(s) {''.join(bad)!r} "
                             f"(expected {''.join(REALMMAP_CODES)})")
        realms = values.get("realms")
        if realms is not None and len(v) != realms:
            raise ValueError(f"{len(v)} characters for {realms} realms")
        return v


class Drive(_Doc):
    index: int = Field(..., ge=0)
    spec: Optional[str] = None
    kind: Optional[str] = None
    zone_size: Optional[int] = Field(None, gt=0)
    zone_capacity: Optional[int] = Field(None, gt=0)
    nr_zones: Optional[int] = Field(None, ge=0)
    conventional_zones: Optional[int] = Field(None, ge=0)
    max_open: Optional[int] = Field(None, ge=0)
    max_active: Optional[int] = Field(None, ge=0)
    capacity_bytes: int = Field(..., ge=0)
    written_bytes: int = Field(..., ge=0)
    live_bytes: int = Field(..., ge=0)
    zones: ZoneCounts
    hybrid: Optional[Hybrid] = None


class StatsDoc(_Doc):
    """The stats document without the per-drive ``zonemap`` / ``streams`` strings."""
    schema_: str = Field(..., alias="schema")
    name: str
    time: float = Field(..., ge=0, description="seconds since the epoch of the snapshot")
    store: Optional[StoreInfo] = None
    statfs: Statfs
    io: IoStats
    gc: GcStats
    drives: List[Drive]

    class Config:
        allow_population_by_field_name = True

    @validator("schema_")
    def _schema_known(cls, v: str) -> str:
        if v != SCHEMA_V1:
            raise ValueError(f"unsupported schema {v!r} (this module reads {SCHEMA_V1})")
        return v

    @validator("drives")
    def _drive_indexes(cls, v: List[Drive]) -> List[Drive]:
        seen = [d.index for d in v]
        if sorted(seen) != list(range(len(seen))):
            raise ValueError(f"drive indexes must be 0..{len(seen) - 1} once each, got {seen}")
        return sorted(v, key=lambda d: d.index)


class StatsError(ValueError):
    """A stats document or status map that cannot be read; the message says why."""


def _resolve(node: Dict[str, Any]) -> Dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        resolved: Dict[str, Any] = STATS_SCHEMA["$defs"][ref[len("#/$defs/"):]]
        return resolved
    return node


def _added_in_v1(node: Dict[str, Any], path: str) -> Iterator[str]:
    """Paths (``statfs.reclaimable``; array items as ``drives[].x``) of the fields the schema
    does not require: those marked added within version 1."""
    node = _resolve(node)
    if node.get("type") == "array":
        yield from _added_in_v1(node["items"], f"{path}[]")
        return
    required = set(node.get("required", ()))
    for key, sub in node.get("properties", {}).items():
        where = f"{path}.{key}" if path else key
        if key not in required:
            yield where
        yield from _added_in_v1(sub, where)


# Fields added to schema smrstore.stats/1 after its first release: a document from an
# earlier build (e.g. an OSD not restarted on a new preload library) may lack them.
ADDED_IN_V1: FrozenSet[str] = frozenset(_added_in_v1(STATS_SCHEMA, ""))

_INDEX = re.compile(r"\[\d+\]")


def _missing_fields(model: BaseModel, path: str) -> Iterator[str]:
    for name, field in model.__fields__.items():
        label = field.alias or name
        where = f"{path}.{label}" if path else label
        if name not in model.__fields_set__:
            if _INDEX.sub("[]", where) not in ADDED_IN_V1:
                yield where
            continue
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            yield from _missing_fields(value, where)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, BaseModel):
                    yield from _missing_fields(item, f"{where}[{i}]")


def format_validation_error(err: ValidationError, prefix: str = "") -> str:
    parts: List[str] = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"])
        parts.append(f"{prefix}{loc}: {e['msg']}")
    return "; ".join(parts)


def parse_stats(raw: Any, what: str = "stats", require_all_fields: bool = True) -> StatsDoc:
    """Validate a decoded stats document.  Raises StatsError with every problem found."""
    if not isinstance(raw, dict):
        raise StatsError(f"{what}: expected a JSON object, got {type(raw).__name__}")
    try:
        doc = StatsDoc.parse_obj(raw)
    except ValidationError as e:
        raise StatsError(f"{what}: {format_validation_error(e)}") from None
    if require_all_fields:
        missing = list(_missing_fields(doc, ""))
        if missing:
            raise StatsError(f"{what}: missing field(s) {', '.join(missing)}")
    return doc


def check_zone_string(s: str, allowed: frozenset, nr_zones: Optional[int], what: str) -> str:
    bad = sorted(set(s) - allowed)
    if bad:
        raise StatsError(f"{what}: unknown character(s) {''.join(bad)!r}")
    if nr_zones is not None and len(s) != nr_zones:
        raise StatsError(f"{what}: {len(s)} characters for {nr_zones} zones")
    return s


def zonemap_counts(zonemap: str) -> Tuple[int, int, int, int, int, int, int, int]:
    """(reserved, free, open, sealed, offline, readonly, conventional, inactive) counted from a
    map (the schema's x-zonemap-states order), each character decoded by the schema's table
    (unknown characters count nowhere)."""
    per_state: Dict[str, int] = dict.fromkeys(ZONE_STATES, 0)
    for ch, n in Counter(zonemap).items():
        code = ZONEMAP_CODES.get(ch)
        if code is not None:
            per_state[code.state] += n
    return (per_state["reserved"], per_state["free"], per_state["open"], per_state["sealed"],
            per_state["offline"], per_state["readonly"], per_state["conventional"],
            per_state["inactive"])
