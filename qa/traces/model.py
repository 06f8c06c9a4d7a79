"""Reference model for smrstore.trace/1 transaction traces (qa/traces/README.md).

It applies normalized ObjectStore ops to names, sizes, xattr/omap key sets and value
lengths -- never payloads -- with Ceph Pacific's ObjectStore semantics:

* create/touch/write/zero create a missing object; write/zero extend the size to
  offset+length; truncate sets the size;
* setattr(s) add or replace xattrs; rmattr removes one (a missing name is not an error);
  rmattrs removes all;
* omap_setkeys adds/replaces keys; omap_rmkeys removes keys; omap_rmkeyrange removes keys
  k with first <= k < last; omap_clear removes all keys and the header; omap_setheader sets
  the header;
* clone replaces the destination with a copy of the source (size, xattrs, omap, header);
  clonerange2 copies a byte range (the destination grows to dst_offset+length);
* coll_move_rename / try_rename move an object (an existing destination is replaced;
  try_rename of a missing source is a no-op);
* remove deletes an object (a missing object is not an error);
* mkcoll / rmcoll / coll_set_bits / split_collection2 / merge_collection maintain
  collections and their split bits (objects move by their 32-bit hash).

Objects that a trace uses before creating them existed before the capture: the trace's
"seed" lists them and the model starts them empty, exactly as the replay does.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

TRACE_FORMAT = "smrstore.trace/1"
EXPECTED_FORMAT = "smrstore.expected/1"

# Ops that create their target object when it is missing.
CREATING_OPS = frozenset({"create", "touch", "write", "zero"})
# Ops on one object (coll, oid).
OBJECT_OPS = frozenset({
    "create", "touch", "write", "zero", "truncate", "remove", "setattr", "setattrs",
    "rmattr", "rmattrs", "omap_clear", "omap_setkeys", "omap_rmkeys", "omap_rmkeyrange",
    "omap_setheader", "op_setallochint", "clone", "clonerange", "clonerange2",
    "coll_move_rename", "try_rename",
})
COLLECTION_OPS = frozenset({
    "mkcoll", "rmcoll", "coll_hint", "coll_set_bits", "split_collection2",
    "merge_collection",
})
ALL_OPS = OBJECT_OPS | COLLECTION_OPS | {"nop"}


class TraceError(ValueError):
    """The trace is malformed or inconsistent (the message says where and why)."""


@dataclass
class Obj:
    size: int = 0
    xattrs: Dict[str, int] = field(default_factory=dict)
    omap: Dict[str, int] = field(default_factory=dict)
    omap_header: int = 0
    # True if the state is fully determined by the trace (created during the capture);
    # False if it derives from a seed object whose pre-capture state is unknown.
    exact: bool = True

    def copy(self) -> "Obj":
        return Obj(self.size, dict(self.xattrs), dict(self.omap), self.omap_header, self.exact)

    def to_json(self) -> Dict[str, Any]:
        return {"size": self.size, "xattrs": dict(sorted(self.xattrs.items())),
                "omap": dict(sorted(self.omap.items())), "omap_header": self.omap_header}


@dataclass
class Coll:
    bits: int
    objects: Dict[str, Obj] = field(default_factory=dict)


def oid_hash(oid: str) -> int:
    """The 32-bit object hash of a ghobject_t text form '#pool:KEY:ns:key:name:snap#'.

    KEY is the bitwise sort key (the hash with its bits reversed), 8 hex digits."""
    body = oid.strip("#")
    parts = body.split(":")
    if len(parts) < 2 or len(parts[1]) != 8:
        raise TraceError(f"oid {oid!r}: cannot read the 8-hex-digit hash key")
    try:
        key = int(parts[1], 16)
    except ValueError as e:
        raise TraceError(f"oid {oid!r}: hash key {parts[1]!r} is not hex") from e
    return int(f"{key:032b}"[::-1], 2)


def hash_matches(h: int, bits: int, rem: int) -> bool:
    mask = (1 << bits) - 1 if bits < 32 else 0xFFFFFFFF
    return (h & mask) == rem


def _int(op: Dict[str, Any], name: str) -> int:
    v = op.get(name)
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise TraceError(f"op {op.get('op')!r}: field {name!r} must be a non-negative integer, got {v!r}")
    return v


def _str(op: Dict[str, Any], name: str) -> str:
    v = op.get(name)
    if not isinstance(v, str) or not v:
        raise TraceError(f"op {op.get('op')!r}: field {name!r} must be a non-empty string, got {v!r}")
    return v


def _lens(op: Dict[str, Any], name: str) -> Dict[str, int]:
    v = op.get(name)
    if not isinstance(v, dict) or not all(isinstance(x, int) and x >= 0 for x in v.values()):
        raise TraceError(f"op {op.get('op')!r}: field {name!r} must map names to lengths")
    return v


class Model:
    def __init__(self) -> None:
        self.colls: Dict[str, Coll] = {}
        # Every (coll, oid) the trace named, so that removed ones can be listed as absent.
        self.touched: Set[Tuple[str, str]] = set()
        self.ops_applied = 0

    # ---- seed -------------------------------------------------------------------------
    def seed(self, seed: Dict[str, Any]) -> None:
        for c in seed.get("collections", []):
            name = c["coll"]
            if name in self.colls:
                raise TraceError(f"seed: collection {name} listed twice")
            self.colls[name] = Coll(bits=int(c["bits"]))
        for o in seed.get("objects", []):
            coll, oid = o["coll"], o["oid"]
            if coll not in self.colls:
                raise TraceError(f"seed: object {oid} in {coll}, which is not a seed collection")
            if oid in self.colls[coll].objects:
                raise TraceError(f"seed: object {oid} in {coll} listed twice")
            self.colls[coll].objects[oid] = Obj(exact=False)
            self.touched.add((coll, oid))

    # ---- helpers ----------------------------------------------------------------------
    def _coll(self, name: str, op: str) -> Coll:
        c = self.colls.get(name)
        if c is None:
            raise TraceError(f"{op}: collection {name} does not exist")
        return c

    def _get(self, coll: str, oid: str, op: str) -> Obj:
        o = self._coll(coll, op).objects.get(oid)
        if o is None:
            raise TraceError(f"{op}: object {oid} in {coll} does not exist")
        return o

    # ---- ops --------------------------------------------------------------------------
    def apply(self, op: Dict[str, Any]) -> None:
        name = op.get("op")
        if name not in ALL_OPS:
            raise TraceError(f"unknown op {name!r}")
        self.ops_applied += 1
        if name == "nop":
            return
        if name in COLLECTION_OPS:
            self._apply_coll(name, op)
            return
        coll, oid = _str(op, "coll"), _str(op, "oid")
        self.touched.add((coll, oid))
        c = self._coll(coll, name)
        if name in CREATING_OPS and oid not in c.objects:
            c.objects[oid] = Obj()
        if name in ("create", "touch"):
            return
        if name == "remove":
            c.objects.pop(oid, None)
            return
        if name == "try_rename":
            dest = _str(op, "dest_oid")
            self.touched.add((coll, dest))
            if oid in c.objects:
                c.objects[dest] = c.objects.pop(oid)
            return
        if name == "coll_move_rename":
            dcoll, dest = _str(op, "dest_coll"), _str(op, "dest_oid")
            self.touched.add((dcoll, dest))
            d = self._coll(dcoll, name)
            d.objects[dest] = c.objects.pop(oid) if oid in c.objects else self._get(coll, oid, name)
            return
        if name == "clone":
            dest = _str(op, "dest_oid")
            self.touched.add((coll, dest))
            c.objects[dest] = self._get(coll, oid, name).copy()
            return
        if name in ("clonerange", "clonerange2"):
            dest = _str(op, "dest_oid")
            self.touched.add((coll, dest))
            src = self._get(coll, oid, name)
            length = _int(op, "length")
            dst_off = _int(op, "dest_offset") if name == "clonerange2" else _int(op, "offset")
            d_obj = c.objects.setdefault(dest, Obj())
            d_obj.exact = d_obj.exact and src.exact
            if length:
                d_obj.size = max(d_obj.size, dst_off + length)
            return
        o = self._get(coll, oid, name)
        if name in ("write", "zero"):
            off, length = _int(op, "offset"), _int(op, "length")
            if length:
                o.size = max(o.size, off + length)
        elif name == "truncate":
            o.size = _int(op, "offset")
        elif name in ("setattr", "setattrs"):
            o.xattrs.update(_lens(op, "attrs"))
        elif name == "rmattr":
            o.xattrs.pop(_str(op, "name"), None)
        elif name == "rmattrs":
            o.xattrs.clear()
        elif name == "omap_setkeys":
            o.omap.update(_lens(op, "keys"))
        elif name == "omap_rmkeys":
            keys = op.get("keys")
            if not isinstance(keys, list):
                raise TraceError("omap_rmkeys: field 'keys' must be a list")
            for k in keys:
                o.omap.pop(k, None)
        elif name == "omap_rmkeyrange":
            first, last = op.get("first"), op.get("last")
            if not isinstance(first, str) or not isinstance(last, str):
                raise TraceError("omap_rmkeyrange: 'first' and 'last' must be strings")
            for k in [k for k in o.omap if first <= k < last]:
                del o.omap[k]
        elif name == "omap_clear":
            o.omap.clear()
            o.omap_header = 0
        elif name == "omap_setheader":
            o.omap_header = _int(op, "header_length")
        elif name == "op_setallochint":
            pass  # a placement hint; no visible state

    def _apply_coll(self, name: str, op: Dict[str, Any]) -> None:
        coll = _str(op, "coll")
        if name == "mkcoll":
            if coll in self.colls:
                raise TraceError(f"mkcoll: collection {coll} already exists")
            self.colls[coll] = Coll(bits=_int(op, "bits"))
        elif name == "rmcoll":
            c = self._coll(coll, name)
            if c.objects:
                raise TraceError(f"rmcoll: collection {coll} still holds {len(c.objects)} objects")
            del self.colls[coll]
        elif name == "coll_hint":
            self._coll(coll, name)
        elif name == "coll_set_bits":
            self._coll(coll, name).bits = _int(op, "bits")
        elif name == "split_collection2":
            dname = _str(op, "dest_coll")
            c, d = self._coll(coll, name), self._coll(dname, name)
            bits, rem = _int(op, "bits"), _int(op, "rem")
            for oid in [o for o in c.objects if hash_matches(oid_hash(o), bits, rem)]:
                d.objects[oid] = c.objects.pop(oid)
                self.touched.add((dname, oid))
            c.bits = d.bits = bits
        elif name == "merge_collection":
            dname = _str(op, "dest_coll")
            c, d = self._coll(coll, name), self._coll(dname, name)
            for oid, o in c.objects.items():
                d.objects[oid] = o
                self.touched.add((dname, oid))
            del self.colls[coll]
            d.bits = _int(op, "bits")

    # ---- results ----------------------------------------------------------------------
    def exists(self, coll: str, oid: str) -> bool:
        c = self.colls.get(coll)
        return c is not None and oid in c.objects

    def expected(self) -> Dict[str, Any]:
        """The smrstore.expected/1 document: exact objects that exist, and absent ones."""
        colls: Dict[str, Any] = {}
        for cname in sorted(self.colls):
            objs = {oid: o.to_json() for oid, o in sorted(self.colls[cname].objects.items()) if o.exact}
            if objs:
                colls[cname] = {"objects": objs}
        absent = sorted([c, o] for c, o in self.touched if not self.exists(c, o))
        return {"format": EXPECTED_FORMAT, "collections": colls, "absent": absent}


def check_trace_header(trace: Dict[str, Any]) -> None:
    if trace.get("format") != TRACE_FORMAT:
        raise TraceError(f"format is {trace.get('format')!r}, expected {TRACE_FORMAT!r}")
    if not isinstance(trace.get("transactions"), list):
        raise TraceError("'transactions' must be a list")


def run_trace(trace: Dict[str, Any]) -> Model:
    """Applies a whole normalized trace (seed first) and returns the model."""
    check_trace_header(trace)
    m = Model()
    m.seed(trace.get("seed", {}))
    for ti, t in enumerate(trace["transactions"]):
        ops = t.get("ops")
        if not isinstance(ops, list):
            raise TraceError(f"transaction {ti}: 'ops' must be a list")
        for oi, op in enumerate(ops):
            try:
                m.apply(op)
            except TraceError as e:
                raise TraceError(f"transaction {ti} op {oi}: {e}") from None
    return m


def compare_expected(got: Dict[str, Any], want: Dict[str, Any]) -> List[str]:
    """Differences between two expected documents, one readable line each."""
    out: List[str] = []
    gc, wc = got.get("collections", {}), want.get("collections", {})
    for cname in sorted(set(gc) | set(wc)):
        go = gc.get(cname, {}).get("objects", {})
        wo = wc.get(cname, {}).get("objects", {})
        for oid in sorted(set(go) | set(wo)):
            if oid not in go:
                out.append(f"{cname} {oid}: missing")
            elif oid not in wo:
                out.append(f"{cname} {oid}: unexpected")
            elif go[oid] != wo[oid]:
                for k in ("size", "xattrs", "omap", "omap_header"):
                    if go[oid].get(k) != wo[oid].get(k):
                        out.append(f"{cname} {oid}: {k} {go[oid].get(k)!r} != expected {wo[oid].get(k)!r}")
    ga = {tuple(a) for a in got.get("absent", [])}
    wa = {tuple(a) for a in want.get("absent", [])}
    for a in sorted(wa - ga):
        out.append(f"{a[0]} {a[1]}: should be absent")
    for a in sorted(ga - wa):
        out.append(f"{a[0]} {a[1]}: absent but not expected absent")
    return out


def load_json(path: str) -> Any:
    import gzip
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:  # type: ignore[operator]
        return json.load(f)


def main(argv: Optional[Iterable[str]] = None) -> int:
    """model.py TRACE.json[.gz] [EXPECTED.json]: prints the model's expected document, or
    checks it against EXPECTED.json (exit 1 on any difference)."""
    import sys
    args = list(argv if argv is not None else sys.argv[1:])
    if len(args) not in (1, 2):
        print("usage: model.py TRACE.json[.gz] [EXPECTED.json]", file=sys.stderr)
        return 2
    try:
        got = run_trace(load_json(args[0])).expected()
    except (TraceError, OSError, json.JSONDecodeError) as e:
        print(f"model: {args[0]}: {e}", file=sys.stderr)
        return 1
    if len(args) == 1:
        json.dump(got, sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    diffs = compare_expected(got, load_json(args[1]))
    for d in diffs[:50]:
        print(f"model: {d}", file=sys.stderr)
    return 1 if diffs else 0


if __name__ == "__main__":
    raise SystemExit(main())
