"""FileStore transaction dump -> smrstore.trace/1 (qa/traces/README.md).

    normalize.py --pools POOLS.json --out TRACE.json.gz DUMP.json [DUMP.json ...]

DUMP.json is what a FileStore OSD writes while `filestore_dump_file` is set: a JSON array
of submitted transaction groups, each an array of transactions {osr, seq, trans_num,
ops: [{op_num, op_name, collection, oid, ...}]}. POOLS.json is `ceph osd dump -f json`
(for each pool's pg_num: the dump does not print mkcoll's split bits, so they are derived
from pg_num exactly as the OSD derives them).
"""
from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from typing import Any, Dict, List, Optional, Set, Tuple

from model import CREATING_OPS, Coll, Model, Obj, TRACE_FORMAT, TraceError

# Dump op_name -> normalized op name (Ceph's own names; the few the dump prints with an
# "op_" prefix or under another op's name are mapped to the Transaction op they are).
SAME = {"create", "touch", "write", "zero", "truncate", "remove", "setattr", "setattrs",
        "rmattr", "rmattrs", "clone", "clonerange", "clonerange2", "mkcoll", "rmcoll",
        "coll_hint", "coll_set_bits", "omap_clear", "omap_setkeys", "omap_rmkeys",
        "omap_setheader", "nop", "op_setallochint"}
RENAMED = {"op_omap_rmkeyrange": "omap_rmkeyrange",
           "op_split_collection": "split_collection2",
           "op_merge_collection": "merge_collection",
           "trim_cache": "nop"}

_COLL_RE = re.compile(r"^(\d+)\.([0-9a-f]+)(?:s\d+)?_(?:head|TEMP)$")


def split_bits(ps: int, pg_num: int) -> int:
    """Split bits of placement seed ps in a pool of pg_num PGs (the collection's bits)."""
    if pg_num < 1:
        raise TraceError(f"pg_num {pg_num} < 1")
    if pg_num == 1:
        return 0
    p = pg_num.bit_length()  # pg_num is in [2^(p-1), 2^p)
    half = 1 << (p - 1)
    return p if (ps % half) < (pg_num % half) else p - 1


def coll_bits(coll: str, pg_nums: Dict[int, int]) -> int:
    if coll == "meta":
        return 0
    m = _COLL_RE.match(coll)
    if not m:
        raise TraceError(f"collection {coll!r}: not meta nor POOL.SEED[sSHARD]_head/_TEMP")
    pool, ps = int(m.group(1)), int(m.group(2), 16)
    if pool not in pg_nums:
        raise TraceError(f"collection {coll}: pool {pool} is not in the pool list (deleted during the capture?)")
    return split_bits(ps, pg_nums[pool])


def _need(op: Dict[str, Any], *names: str) -> None:
    for n in names:
        if n not in op:
            raise TraceError(f"dump op {op.get('op_name')!r} lacks field {n!r}: {json.dumps(op)[:200]}")


def _u(v: Any, what: str) -> int:
    """Dump numbers: unsigned ints, or decimal strings for fields printed with dump_stream."""
    if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
        return v
    if isinstance(v, str) and v.isdigit():
        return int(v)
    raise TraceError(f"{what}: {v!r} is not a non-negative integer")


def normalize_op(d: Dict[str, Any], pg_nums: Dict[int, int]) -> Dict[str, Any]:
    name = d.get("op_name")
    if name in SAME:
        op = name
    elif name in RENAMED:
        op = RENAMED[name]
    elif name == "op_coll_move_rename":
        # The dump prints OP_TRY_RENAME under this name too, with one "collection".
        op = "coll_move_rename" if "old_collection" in d else "try_rename"
    else:
        raise TraceError(f"dump op {name!r} is not supported: {json.dumps(d)[:200]}")
    out: Dict[str, Any] = {"op": op}
    if op == "nop":
        return out
    if op == "coll_move_rename":
        _need(d, "old_collection", "old_oid", "new_collection", "new_oid")
        out.update(coll=d["old_collection"], oid=d["old_oid"],
                   dest_coll=d["new_collection"], dest_oid=d["new_oid"])
        return out
    _need(d, "collection")
    out["coll"] = d["collection"]
    if op == "try_rename":
        _need(d, "old_oid", "new_oid")
        out.update(oid=d["old_oid"], dest_oid=d["new_oid"])
    elif op in ("clone", "clonerange", "clonerange2"):
        _need(d, "src_oid", "dst_oid")
        out.update(oid=d["src_oid"], dest_oid=d["dst_oid"])
        if op == "clonerange":
            _need(d, "offset", "len")
            out.update(offset=_u(d["offset"], "offset"), length=_u(d["len"], "len"))
        elif op == "clonerange2":
            _need(d, "src_offset", "len", "dst_offset")
            out.update(src_offset=_u(d["src_offset"], "src_offset"), length=_u(d["len"], "len"),
                       dest_offset=_u(d["dst_offset"], "dst_offset"))
    elif op in ("mkcoll", "rmcoll", "coll_hint", "coll_set_bits", "split_collection2",
                "merge_collection"):
        if op == "mkcoll":
            out["bits"] = coll_bits(d["collection"], pg_nums)
        elif op == "coll_hint":
            _need(d, "type")
            out["type"] = _u(d["type"], "type")
            for k in ("pg_num", "expected_num_objects"):
                if k in d:
                    out[k] = _u(d[k], k)
        elif op == "coll_set_bits":
            _need(d, "bits")
            out["bits"] = _u(d["bits"], "bits")
        elif op == "split_collection2":
            _need(d, "bits", "rem", "dest")
            out.update(bits=_u(d["bits"], "bits"), rem=_u(d["rem"], "rem"), dest_coll=d["dest"])
        elif op == "merge_collection":
            _need(d, "bits", "dest")
            out.update(bits=_u(d["bits"], "bits"), dest_coll=d["dest"])
    else:
        _need(d, "oid")
        out["oid"] = d["oid"]
        if op in ("write", "zero"):
            _need(d, "offset", "length")
            out.update(offset=_u(d["offset"], "offset"), length=_u(d["length"], "length"))
            if op == "write" and "bufferlist length" in d and _u(d["bufferlist length"], "bufferlist length") != out["length"]:
                raise TraceError(f"write with length {out['length']} but a {d['bufferlist length']}-byte buffer")
        elif op == "truncate":
            _need(d, "offset")
            out["offset"] = _u(d["offset"], "offset")
        elif op == "setattrs":
            _need(d, "attr_lens")
            out["attrs"] = {k: _u(v, k) for k, v in d["attr_lens"].items()}
        elif op == "setattr":
            _need(d, "name", "length")
            out["attrs"] = {d["name"]: _u(d["length"], "length")}
        elif op == "rmattr":
            _need(d, "name")
            out["name"] = d["name"]
        elif op == "omap_setkeys":
            _need(d, "attr_lens")
            out["keys"] = {k: _u(v, k) for k, v in d["attr_lens"].items()}
        elif op == "omap_rmkeys":
            _need(d, "attrs")
            out["keys"] = list(d["attrs"])
        elif op == "omap_rmkeyrange":
            _need(d, "first", "last")
            out.update(first=d["first"], last=d["last"])
        elif op == "omap_setheader":
            _need(d, "header_length")
            out["header_length"] = _u(d["header_length"], "header_length")
        elif op == "op_setallochint":
            for k in ("expected_object_size", "expected_write_size", "flags"):
                if k in d:
                    out[k] = _u(d[k], k)
    return out


def _objects(op: Dict[str, Any]) -> List[Tuple[Tuple[str, str], bool]]:
    """The objects an op reads or modifies in place, each with whether the op would
    create it if missing (such an object is a seed only if it existed before the dump)."""
    if "oid" not in op:
        return []
    out = [((op["coll"], op["oid"]), op["op"] in CREATING_OPS)]
    if op["op"] in ("clonerange", "clonerange2"):
        out.append(((op["coll"], op["dest_oid"]), True))
    return out


def _colls(op: Dict[str, Any]) -> List[str]:
    out = []
    if "coll" in op and op["op"] != "mkcoll":
        out.append(op["coll"])
    if "dest_coll" in op:
        out.append(op["dest_coll"])
    return out


def build_trace(dumps: List[Any], pg_nums: Dict[int, int],
                preexisting: Optional[Set[Tuple[str, str]]] = None) -> Dict[str, Any]:
    """Normalizes dump groups and computes the seed by running the model alongside.

    An object is a seed if the trace's first reference to it is an op that needs it to
    exist, or if it is in `preexisting` (the OSD's objects listed before the dump began:
    a write or touch of such an object changes it, it does not create it)."""
    pre = preexisting or set()
    m = Model()
    seen_colls: Set[str] = set()
    seen_objs: Set[Tuple[str, str]] = set()
    seed_colls: List[Dict[str, Any]] = []
    seed_objs: List[Dict[str, str]] = []
    txs: List[Dict[str, Any]] = []
    for dump in dumps:
        if not isinstance(dump, list):
            raise TraceError("a dump file must hold a JSON array of transaction groups")
        for group in dump:
            for t in group:
                ops = [normalize_op(d, pg_nums) for d in t.get("ops", [])]
                for op in ops:
                    for c in _colls(op):
                        if c not in seen_colls and c not in m.colls:
                            bits = coll_bits(c, pg_nums)
                            seed_colls.append({"coll": c, "bits": bits})
                            m.colls[c] = Coll(bits=bits)
                        seen_colls.add(c)
                    if op["op"] == "mkcoll":
                        seen_colls.add(op["coll"])
                    for key, creates in _objects(op):
                        if key not in seen_objs and not m.exists(*key) and (not creates or key in pre):
                            seed_objs.append({"coll": key[0], "oid": key[1]})
                            m.colls[key[0]].objects[key[1]] = Obj(exact=False)
                    for k in ("oid", "dest_oid"):
                        if k in op:
                            seen_objs.add((op.get("dest_coll", op["coll"]) if k == "dest_oid" else op["coll"], op[k]))
                    try:
                        m.apply(op)
                    except TraceError as e:
                        raise TraceError(f"osr {t.get('osr')} seq {t.get('seq')}: {e}") from None
                txs.append({"osr": t.get("osr", ""), "seq": t.get("seq", 0), "ops": ops})
    return {"format": TRACE_FORMAT, "source": "filestore-dump",
            "seed": {"collections": seed_colls, "objects": seed_objs},
            "transactions": txs}


def pg_nums_from_osd_dump(osd_dump: Dict[str, Any]) -> Dict[int, int]:
    return {int(p["pool"]): int(p["pg_num"]) for p in osd_dump.get("pools", [])}


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pools", required=True, help="`ceph osd dump -f json` output")
    ap.add_argument("--out", required=True, help="normalized trace (.json or .json.gz)")
    ap.add_argument("--preexisting", help="JSON list of [coll, oid] the OSD held before the dump (osdstate.py list)")
    ap.add_argument("dumps", nargs="+", help="FileStore dump files, in order")
    a = ap.parse_args(argv)
    try:
        with open(a.pools, encoding="utf-8") as f:
            pg_nums = pg_nums_from_osd_dump(json.load(f))
        dumps = []
        for p in a.dumps:
            with open(p, encoding="utf-8", errors="surrogateescape") as f:
                dumps.append(json.load(f))
        pre: Set[Tuple[str, str]] = set()
        if a.preexisting:
            with open(a.preexisting, encoding="utf-8") as f:
                pre = {(c, o) for c, o in json.load(f)}
        trace = build_trace(dumps, pg_nums, pre)
    except (OSError, json.JSONDecodeError, TraceError) as e:
        print(f"normalize: {e}", file=sys.stderr)
        return 1
    text = json.dumps(trace, separators=(",", ":"))
    if a.out.endswith(".gz"):
        with gzip.GzipFile(a.out, "wb", mtime=0) as g:
            g.write(text.encode("utf-8", "surrogateescape"))
    else:
        with open(a.out, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
    n_ops = sum(len(t["ops"]) for t in trace["transactions"])
    print(f"normalize: {len(trace['transactions'])} transactions, {n_ops} ops, seed "
          f"{len(trace['seed']['collections'])} collections / {len(trace['seed']['objects'])} objects -> {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
