#!/usr/bin/env python3
"""Brings the recorded test fixtures (mgr-module/tests/fixtures/: real OSDs' captures, perf
dumps and `smrstore stats` answers, a hybrid service daemon's status) up to the current
stats schema: the format is unreleased and every field and every x-perf-counters counter is
required, so a field or counter added after a recording is filled in with what the engine
writes for such a store (counters and counts 0, the store options' defaults below, null
where the schema allows it, a non-hybrid drive's hybrid block); recorded values are kept.
A field the schema does not require (statfs.writable: daemons from before it lack it) and
its counter are not filled in: no value would be true for the recorded store, and the
fixtures then stand for such older daemons.
Idempotent: running it on up-to-date fixtures changes nothing.

usage: fill_fixtures.py
"""

import glob
import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Set

MODULE = Path(__file__).resolve().parents[1]
TESTS = MODULE / "tests"
S: Dict[str, Any] = json.loads((MODULE / "smrstore" / "stats_schema.json").read_text())
# Fields whose engine value is not 0 / false / "" / null: the store options' defaults.
DEFAULTS = {"store.pack_max": 32768, "store.gc_start_free": 0.03, "store.gc_urgent_free": 0.01,
            "store.gc_stop_free": 0.05, "store.gc_free_zones_max": 64}
filled: Set[str] = set()


def _res(n: Dict[str, Any]) -> Dict[str, Any]:
    r = n.get("$ref")
    return S["$defs"][r.rsplit("/", 1)[1]] if r else n


def _default(node: Dict[str, Any], where: str) -> Any:
    if where in DEFAULTS:
        return DEFAULTS[where]
    t = node.get("type")
    types = t if isinstance(t, list) else [t]
    if "null" in types:
        return None
    return {"integer": 0, "number": 0, "boolean": False, "string": ""}[types[0]]


def fill(obj: Any, node: Dict[str, Any], path: str, compact: bool) -> Any:
    node = _res(node)
    if node.get("type") == "array" and isinstance(obj, list):
        return [fill(it, node["items"], path + "[]", compact) for it in obj]
    if not isinstance(obj, dict) or "properties" not in node:
        return obj
    out = {}
    for k, sub in node["properties"].items():
        where = f"{path}.{k}" if path else k
        if k in obj:
            out[k] = fill(obj[k], sub, where, compact)
        elif compact and "x-in-status-map" in sub:
            continue
        elif k not in node.get("required", []):
            continue
        else:
            out[k] = _default(_res(sub), where)
            filled.add(where)
    out.update((k, v) for k, v in obj.items() if k not in out)
    return out


def _indent(raw: str) -> Optional[int]:
    m = re.match(r"[\[{]\n( +)", raw)
    return len(m.group(1)) if m else None


def _write(f: str, raw: str, data: Any) -> None:
    new = json.dumps(data, indent=_indent(raw)) + "\n"
    if new != raw:
        Path(f).write_text(new)
        print(f"filled {f}")


def _schema_entry(e: Dict[str, Any], asok: bool) -> Dict[str, Any]:
    typ = 10 if e["type"] == "counter" else 2
    if asok:
        return {"type": typ, "metric_type": e["type"], "value_type": "integer",
                "description": e["description"], "nick": e.get("nick", ""), "priority": 5,
                "units": "bytes" if e.get("unit") == "bytes" else "none"}
    return {"description": e["description"], "priority": 5, "type": typ,
            "units": 1 if e.get("unit") == "bytes" else 0}


def _carries_required_field(logger: str, e: Dict[str, Any]) -> bool:
    """Whether counter e (of x-perf-counters' logger) carries a field the schema requires
    (or is derived): the counters of the others are not filled in, like those fields."""
    if "path" not in e:
        return True
    node = S if logger == "smrstore" else S["$defs"]["drive"]
    *parents, key = e["path"].strip("/").split("/")
    for p in parents:
        node = _res(node["properties"][p])
    return key in node.get("required", [])


def main(argv: List[str]) -> int:
    if argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    pc = {logger: [e for e in entries if _carries_required_field(logger, e)]
          for logger, entries in S["x-perf-counters"].items() if logger != "description"}
    for f in sorted(glob.glob(str(TESTS / "fixtures/osd/capture-*.json"))):
        raw = Path(f).read_text()
        c = json.loads(raw)
        sc = c["stats_command"]
        if sc.get("outb"):
            sc["outb"] = json.dumps(fill(json.loads(sc["outb"]), S, "", False))
        lc, osd = c["latest_counter"], f"osd.{c['osd_id']}"
        t = lc["smrstore.smrstore_user_bytes"][0]
        drives = sorted({int(m.group(1)) for k in lc for m in [re.match(r"smrstore-drive\.(\d+)\.", k)] if m})
        loggers = [("smrstore", pc["smrstore"])] + [
            (f"smrstore-drive.{i}", pc["smrstore-drive.<i>"]) for i in drives]
        for logger, entries in loggers:
            for e in entries:
                key = f"{logger}.{e['name']}"
                if key not in lc:
                    lc[key] = [t, 0]
                    c["perf_schema"][osd][key] = _schema_entry(e, asok=False)
                    filled.add(key)
        _write(f, raw, c)
    f = str(TESTS / "fixtures/osd/tell-osd.0.json")
    raw = Path(f).read_text()
    _write(f, raw, fill(json.loads(raw), S, "", False))
    for name in ("perf-dump", "perf-schema"):
        f = str(TESTS / f"fixtures/osd/{name}-osd.0.json")
        raw = Path(f).read_text()
        d = json.loads(raw)
        for logger in d:
            entries = pc["smrstore" if logger == "smrstore" else "smrstore-drive.<i>"]
            for e in entries:
                if e["name"] not in d[logger]:
                    d[logger][e["name"]] = 0 if name == "perf-dump" else _schema_entry(e, True)
                    filled.add(f"{logger}.{e['name']}")
        _write(f, raw, d)
    for f in sorted(glob.glob(str(TESTS / "fixtures/hybrid/*.json"))):
        raw = Path(f).read_text()
        c = json.loads(raw)
        c["status"]["stats"] = json.dumps(fill(json.loads(c["status"]["stats"]), S, "", True),
                                          separators=(",", ":"))
        _write(f, raw, c)
    if filled:
        print("filled in:", ", ".join(sorted(filled)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
