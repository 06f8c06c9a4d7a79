"""The stats schema's tables, read from ``stats_schema.json`` (the single source): the
schema id, the perf counters, the zone-map, stream and realm-map codes, the hybrid states;
and the checks of the document models that are not one field's type (attached to the
generated models, stats_models.py, by mgr-module/tools/gen_stats_models.py's CHECKS).
Hand-written; stats.py re-exports all of it."""

import json
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, NamedTuple, Optional, Tuple


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


# --- checks the generated models attach (gen_stats_models.CHECKS) -------------------------

def realmmap_codes(cls: Any, v: Optional[str], values: Dict[str, Any]) -> Optional[str]:
    """Hybrid.realmmap: the schema's realm-map characters, one per realm."""
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


def drive_indexes(cls: Any, v: List[Any]) -> List[Any]:
    """StatsDoc.drives: indexes 0..n-1 once each; sorted by index."""
    seen = [d.index for d in v]
    if sorted(seen) != list(range(len(seen))):
        raise ValueError(f"drive indexes must be 0..{len(seen) - 1} once each, got {seen}")
    return sorted(v, key=lambda d: d.index)
