#!/usr/bin/env python3
"""Generates mgr-module/smrstore/stats_models.py, the mgr module's pydantic (v1) models of
the stats document, from mgr-module/smrstore/stats_schema.json (the single source): one
class per object with ``x-model``, one field per property (the ``x-in-status-map`` strings
excepted: they travel beside the document), its type, bounds, enum/const check and
description from the schema.  ``--check``: exit 1 with a diff when the committed file is not
what this generates (ctest ``stats_models_generated``, pytest test_stats_schema.py).

Which fields are ``Optional`` is decided here, mechanically:

* a property the schema does not require (none today: the format is unreleased) or whose
  type allows null: Optional;
* a property an OSD seen only through its perf counters cannot fill (model.parse_osd_counters
  builds the document from the counters before the OSD's own ``smrstore stats`` answers):
  Optional with default None.  The counters fill the schema's ``x-perf-counters`` paths and
  COUNTERS_VIEW_EXTRA below; every other field is None there.  parse_stats still requires
  every field the schema requires in a document (stats.parse_stats, require_all_fields).

Checks that are not one field's type (the realm map against the realm count, the drive
indexes) are hand-written in smrstore/stats_codes.py; CHECKS below attaches them.

usage: gen_stats_models.py [--check]
"""

import json
import keyword
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

from generated_file import write_or_check

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "mgr-module" / "smrstore" / "stats_schema.json"
OUT = REPO / "mgr-module" / "smrstore" / "stats_models.py"

# Fields the perf-counter view fills although no counter's `path` names them: the document's
# identity, the containers, io's ratios and lifetime counters (computed from the byte
# counters), a drive's index and zone counts, and the hybrid block's supported/state (from
# smrstore_conversion_state; the block itself only when the store is hybrid).
COUNTERS_VIEW_EXTRA = frozenset({
    "/schema", "/name", "/time", "/statfs", "/io", "/gc", "/drives",
    "/io/write_amplification", "/io/lifetime_user_bytes", "/io/lifetime_device_bytes",
    "/io/lifetime_gc_bytes", "/io/lifetime_write_amplification",
    "/drives/index", "/drives/zones", "/drives/hybrid/supported", "/drives/hybrid/state",
})

# Hand-written checks (functions of smrstore/stats_codes.py) by model.field.
CHECKS = {
    "Hybrid.realmmap": "realmmap_codes",
    "StatsDoc.drives": "drive_indexes",
}

_PY = {"integer": "int", "number": "float", "boolean": "bool", "string": "str"}
# BaseModel attributes a field may not shadow: the field gets a trailing _ and an alias.
_RESERVED = {"schema", "json", "dict", "copy", "fields", "construct", "validate"}


def _counters_view(schema: Dict[str, Any]) -> Set[str]:
    paths = set(COUNTERS_VIEW_EXTRA)
    for logger, entries in schema["x-perf-counters"].items():
        if logger == "description":
            continue
        for e in entries:
            if "path" in e:
                paths.add(("/drives" if logger == "smrstore-drive.<i>" else "") + e["path"])
    return paths


class _Gen:
    def __init__(self, schema: Dict[str, Any]) -> None:
        self.schema = schema
        self.view = _counters_view(schema)
        self.classes: List[List[str]] = []
        self.seen: Set[str] = set()

    def resolve(self, node: Dict[str, Any]) -> Dict[str, Any]:
        ref = node.get("$ref")
        if isinstance(ref, str):
            assert ref.startswith("#/$defs/"), ref
            resolved: Dict[str, Any] = self.schema["$defs"][ref[len("#/$defs/"):]]
            return resolved
        return node

    def type_of(self, node: Dict[str, Any], ptr: str) -> Tuple[str, bool]:
        """(Python type, nullable) of a property."""
        node = self.resolve(node)
        t = node.get("type")
        types = list(t) if isinstance(t, list) else [t]
        nullable = "null" in types
        types = [x for x in types if x != "null"]
        assert len(types) == 1, f"{ptr}: one type (and null) expected, got {t}"
        if types[0] == "object":
            return self.model(node, ptr), nullable
        if types[0] == "array":
            inner, _ = self.type_of(node["items"], ptr)
            return f"List[{inner}]", nullable
        return _PY[types[0]], nullable

    def in_view(self, ptr: str) -> bool:
        """Whether the perf-counter view fills the field at ptr: it does, or it is inside an
        object that view leaves out whole (that object only ever comes whole, from a
        document)."""
        if ptr in self.view:
            return True
        parent = ptr.rsplit("/", 1)[0]
        while parent:
            if parent in self.view:
                return False
            if not any(v.startswith(parent + "/") for v in self.view):
                return True
            parent = parent.rsplit("/", 1)[0]
        return False

    def model(self, node: Dict[str, Any], ptr: str) -> str:
        name: str = node["x-model"]
        if name in self.seen:
            return name
        self.seen.add(name)
        required = set(node.get("required", ()))
        body: List[str] = []
        checks: List[str] = []
        doc = node.get("description") if ptr else node.get("title")
        if doc:
            body.append(f"    {json.dumps(doc, ensure_ascii=False)}")
        for key, sub in node["properties"].items():
            if "x-in-status-map" in sub:
                continue
            where = f"{ptr}/{key}"
            py, nullable = self.type_of(sub, where)
            sub = self.resolve(sub)
            attr = key + "_" if key in _RESERVED or keyword.iskeyword(key) else key
            desc: Optional[str] = sub.get("description")
            if key not in required:
                default, note = "None", "absent"
            elif not self.in_view(where):
                default, note = "None", "only an OSD's perf counters known"
            else:
                default, note = "...", ""
            if "x-model" in self.resolve(sub):
                desc = None       # the model's own description
            elif note:
                note = f"null{' also' if desc and 'null' in desc else ''}: {note}"
                desc = f"{desc} ({note})" if desc else note
            args = [default]
            if attr != key:
                args.append(f"alias={json.dumps(key)}")
            if "minimum" in sub:
                args.append(f"ge={sub['minimum']!r}")
            if "maximum" in sub:
                args.append(f"le={sub['maximum']!r}")
            if desc:
                args.append(f"description={json.dumps(desc, ensure_ascii=False)}")
            ann = f"Optional[{py}]" if (nullable or default == "None") else py
            body.append(f"    {attr}: {ann} = Field({', '.join(args)})")
            if "enum" in sub:
                checks.append(f"    _{attr}_enum = validator({json.dumps(attr)}, allow_reuse=True)"
                              f"(_enum({json.dumps(name.lower() + ' ' + key)}, "
                              f"{tuple(sub['enum'])!r}))")
            if "const" in sub:
                checks.append(f"    _{attr}_const = validator({json.dumps(attr)}, allow_reuse=True)"
                              f"(_const({json.dumps(key)}, {sub['const']!r}))")
            check = CHECKS.get(f"{name}.{key}")
            if check:
                checks.append(f"    _{attr}_check = validator({json.dumps(attr)}, allow_reuse=True)"
                              f"(_codes.{check})")
        self.classes.append([f"class {name}(_Doc):", *body, *checks])
        return name


def generate() -> str:
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    g = _Gen(schema)
    g.model(schema, "")
    missing = {k for k in CHECKS if k.split(".")[0] not in g.seen}
    assert not missing, f"CHECKS names models the schema lacks: {missing}"
    head = [
        "# GENERATED by mgr-module/tools/gen_stats_models.py from mgr-module/smrstore/stats_schema.json:",
        "# do not edit. ctest stats_models_generated (and pytest test_stats_schema.py) fail when",
        "# it is stale. The pydantic (v1) models of the stats document: the publisher's and the",
        "# OSD's documents are read into them (stats.parse_stats) and they are the REST API's",
        "# response models (mgr-module/openapi.json, web/src/api/schema.d.ts). Optional with",
        "# default None: a field an OSD's perf counters alone cannot fill (see the generator).",
        "# pylint: skip-file",
        "",
        "from typing import Any, Callable, List, Optional, Tuple",
        "",
        "from pydantic import BaseModel, Field, validator",
        "",
        "from . import stats_codes as _codes",
        "",
        "",
        "class _Doc(BaseModel):",
        "    class Config:",
        "        extra = \"ignore\"          # readers ignore fields they do not know",
        "        allow_mutation = False",
        "        allow_population_by_field_name = True",
        "",
        "",
        "def _enum(what: str, allowed: Tuple[str, ...]) -> Callable[[Any, Optional[str]], Optional[str]]:",
        "    def check(cls: Any, v: Optional[str]) -> Optional[str]:",
        "        if v is not None and v not in allowed:",
        "            raise ValueError(f\"unknown {what} {v!r} (expected one of {', '.join(allowed)})\")",
        "        return v",
        "    return check",
        "",
        "",
        "def _const(what: str, want: str) -> Callable[[Any, str], str]:",
        "    def check(cls: Any, v: str) -> str:",
        "        if v != want:",
        "            raise ValueError(f\"unsupported {what} {v!r} (this module reads {want})\")",
        "        return v",
        "    return check",
    ]
    out = head
    for c in g.classes:       # dependencies first: a class is appended after its fields'
        out += ["", "", *c]
    return "\n".join(out) + "\n"


def main(argv: List[str]) -> int:
    return write_or_check(argv, OUT, generate(), __doc__ or "",
                          str(Path(__file__).relative_to(REPO)))

if __name__ == "__main__":
    sys.exit(main(sys.argv))
