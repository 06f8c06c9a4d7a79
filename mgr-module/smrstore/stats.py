"""Typed form of the smrstore stats document, schema ``smrstore.stats/1``.

``stats_schema.json`` beside this file defines the document (normative JSON Schema, with the
zone-map and stream codes; doc/stats-schema.md is its prose).  The pydantic models
(StatsDoc and its parts) are generated from it into stats_models.py by
mgr-module/tools/gen_stats_models.py; the code tables are read from it in stats_codes.py.
This module re-exports both and reads documents (parse_stats).  The models are used both to
validate what a publisher sends (service-daemon status) and as the REST API's response
models, so the web console's generated client sees exactly these fields.

Fields that an OSD's perf counters cannot provide are ``Optional``: an OSD seen only through
its counters (its ``smrstore stats`` document not answered yet) carries ``None`` there.  A
document must have every field the schema requires (``require_all_fields``), so a publisher
that leaves one out gets a clear error naming the field instead of a silent ``None``.
"""

from collections import Counter
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from pydantic import ValidationError

from .stats_codes import (HYBRID_STATES, PERF_COUNTERS, REALMMAP_CHARS, REALMMAP_CODES,  # noqa: F401
                          SCHEMA_PATH, SCHEMA_V1, STATS_SCHEMA, STREAM_CHARS, STREAM_CODES,
                          ZONE_STATES, ZONEMAP_CHARS, ZONEMAP_CODES, ZONEMAP_OPEN,
                          ZONEMAP_SEALED, RealmCode, ZoneCode, load_schema)
from .stats_models import (Drive, GcStats, Hybrid, IoStats, Statfs, StatsDoc,  # noqa: F401
                           StoreInfo, ZoneCounts)

__all__ = ["HYBRID_STATES", "PERF_COUNTERS", "REALMMAP_CHARS", "REALMMAP_CODES", "SCHEMA_PATH",
           "SCHEMA_V1", "STATS_SCHEMA", "STREAM_CHARS", "STREAM_CODES", "ZONE_STATES",
           "ZONEMAP_CHARS", "ZONEMAP_CODES", "ZONEMAP_OPEN", "ZONEMAP_SEALED", "RealmCode",
           "ZoneCode", "load_schema", "Drive", "GcStats", "Hybrid", "IoStats", "Statfs",
           "StatsDoc", "StoreInfo", "ZoneCounts", "StatsError",
           "format_validation_error", "parse_stats", "check_zone_string", "zonemap_counts"]


class StatsError(ValueError):
    """A stats document or status map that cannot be read; the message says why."""


def _resolve(node: Dict[str, Any]) -> Dict[str, Any]:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        resolved: Dict[str, Any] = STATS_SCHEMA["$defs"][ref[len("#/$defs/"):]]
        return resolved
    return node


def _missing(raw: Any, node: Dict[str, Any], path: str) -> Iterator[str]:
    """Paths (``statfs.reclaimable``, ``drives[1].zones.inactive``), in the schema's order, of
    the fields the schema requires that ``raw`` lacks or has as null where the schema's type
    does not allow null (the models do, for an OSD seen through its perf counters alone);
    the ``x-in-status-map`` strings travel beside the document and are not asked for."""
    node = _resolve(node)
    if isinstance(raw, list) and node.get("type") == "array":
        for i, item in enumerate(raw):
            yield from _missing(item, node["items"], f"{path}[{i}]")
        return
    if not isinstance(raw, dict):
        return
    required = set(node.get("required", ()))
    for key, sub in node.get("properties", {}).items():
        where = f"{path}.{key}" if path else key
        if key in raw and raw[key] is None:
            types = _resolve(sub).get("type")
            if "null" not in (types if isinstance(types, list) else [types]):
                yield where
        elif key in raw:
            yield from _missing(raw[key], sub, where)
        elif key in required and "x-in-status-map" not in sub:
            yield where


def _format(errors: Sequence[Mapping[str, Any]], prefix: str = "") -> str:
    return "; ".join(f"{prefix}{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors)


def format_validation_error(err: ValidationError, prefix: str = "") -> str:
    return _format(err.errors(), prefix)


def parse_stats(raw: Any, what: str = "stats", require_all_fields: bool = True) -> StatsDoc:
    """Validate a decoded stats document.  Raises StatsError with every problem found: the
    fields the schema requires that it lacks (require_all_fields; the models leave the ones
    an OSD's perf counters cannot fill Optional), then the invalid ones."""
    if not isinstance(raw, dict):
        raise StatsError(f"{what}: expected a JSON object, got {type(raw).__name__}")
    missing = list(_missing(raw, STATS_SCHEMA, "")) if require_all_fields else []
    problems = [f"missing field(s) {', '.join(missing)}"] if missing else []
    try:
        doc = StatsDoc.parse_obj(raw)
    except ValidationError as e:
        # A missing field is named once, above, when every field is asked for.
        invalid = [x for x in e.errors() if not (missing and x["type"] == "value_error.missing")]
        if invalid:
            problems.append(_format(invalid))
    if problems:
        raise StatsError(f"{what}: {'; '.join(problems)}")
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
