"""Prometheus text exposition (format 0.0.4) of the model: metrics ``smrstore_*`` labelled
``daemon`` (and ``drive`` for per-drive metrics)."""

from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple

from .model import Snapshot
from .stats import HYBRID_STATES, STATS_SCHEMA, ZONE_STATES, Drive

Labels = Tuple[Tuple[str, str], ...]

# The metrics, in exposition order, from the stats schema's x-prometheus (the single source
# of their names, types, help and the document fields they carry).
METRICS: List[Dict[str, Any]] = STATS_SCHEMA["x-prometheus"]["metrics"]
# name -> (type, help)
_META: Dict[str, Tuple[str, str]] = {m["name"]: (m["type"], m["help"]) for m in METRICS}


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
        for m in METRICS:
            metric, scope, special = m["name"], m.get("scope"), m.get("special")
            if special == "up":
                put(metric, lab, 0 if d.age(snap.time) > stale_seconds else 1)
            elif special == "last_update":
                put(metric, lab, doc.time)
            elif scope == "daemon":
                put(metric, lab, _field(doc, m))
            else:
                for dr in doc.drives:
                    _drive(put, m, lab + (("drive", str(dr.index)),), dr)
    return "".join(_lines(rows))


def _field(model: Any, m: Mapping[str, Any]) -> Optional[float]:
    """The value of the document field at ``m["path"]`` (a JSON pointer) under ``model``
    (booleans as 0/1, times ``m["scale"]``); None when the daemon does not report it."""
    v: Any = model
    for part in m["path"].strip("/").split("/"):
        v = getattr(v, part, None)
        if v is None:
            return None
    if isinstance(v, bool):
        return 1 if v else 0
    return float(v) * m["scale"] if "scale" in m else v


def _drive(put: Callable[[str, Labels, Optional[float]], None], m: Mapping[str, Any],
           dl: Labels, dr: Drive) -> None:
    """One drive's samples of metric ``m`` (scope drive, hybrid or hybrid_any, or special)."""
    name, scope, special, h = m["name"], m.get("scope"), m.get("special"), dr.hybrid
    if special == "drive_zones":
        # Every zone state of the schema (x-zonemap-states) the daemon reports (put skips
        # None: conventional / inactive from a daemon that predates them).
        for state in ZONE_STATES:
            put(name, dl + (("state", state),), getattr(dr.zones, state))
    elif h is None or (not h.supported and scope != "hybrid_any" and scope != "drive"):
        if scope == "drive":
            put(name, dl, _field(dr, m))
    elif special == "conversion_state":
        for st in (x for x in HYBRID_STATES if x != "none"):   # the drive is hybrid
            put(name, dl + (("state", st),), 1 if h.state == st else 0)
    elif special == "realms":
        put(name, dl + (("domain", "cmr"),), h.realms_cmr)
        put(name, dl + (("domain", "smr"),), h.realms_smr)
    else:
        put(name, dl, _field(dr, m))


def _lines(rows: Dict[str, List[Tuple[Labels, float]]]) -> Iterable[str]:
    for name, (typ, help_) in _META.items():
        if not rows[name]:
            continue
        yield f"# HELP {name} {help_}\n"
        yield f"# TYPE {name} {typ}\n"
        for labels, value in rows[name]:
            lab = ",".join(f'{k}="{_escape(v)}"' for k, v in labels)
            yield f"{name}{{{lab}}} {_fmt(value)}\n"
