"""Tests of the trace model and the FileStore dump normalizer (pytest qa/traces)."""
from __future__ import annotations

import glob
import os
from typing import Any, Dict, List

import pytest

from model import Model, TraceError, compare_expected, hash_matches, load_json, oid_hash, run_trace
from normalize import build_trace, coll_bits, normalize_op, split_bits

A = "#2:7800b0f3:::o1:head#"
B = "#2:dd23e1a9:::o2:head#"


def trace(ops: List[Dict[str, Any]], seed: Dict[str, Any] | None = None) -> Dict[str, Any]:
    return {"format": "smrstore.trace/1", "source": "test",
            "seed": seed or {"collections": [{"coll": "2.0_head", "bits": 0}], "objects": []},
            "transactions": [{"ops": ops}]}


def obj(m: Model, oid: str = A, coll: str = "2.0_head") -> Dict[str, Any]:
    return m.colls[coll].objects[oid].to_json()


def test_write_extends_truncate_sets_zero_extends() -> None:
    m = run_trace(trace([
        {"op": "write", "coll": "2.0_head", "oid": A, "offset": 4096, "length": 100},
        {"op": "write", "coll": "2.0_head", "oid": A, "offset": 0, "length": 10},
    ]))
    assert obj(m)["size"] == 4196
    m.apply({"op": "truncate", "coll": "2.0_head", "oid": A, "offset": 7})
    assert obj(m)["size"] == 7
    m.apply({"op": "zero", "coll": "2.0_head", "oid": A, "offset": 100, "length": 50})
    assert obj(m)["size"] == 150
    m.apply({"op": "write", "coll": "2.0_head", "oid": A, "offset": 10000, "length": 0})
    assert obj(m)["size"] == 150, "a zero-length write does not extend"


def test_attrs_and_omap() -> None:
    m = run_trace(trace([
        {"op": "touch", "coll": "2.0_head", "oid": A},
        {"op": "setattrs", "coll": "2.0_head", "oid": A, "attrs": {"_": 257, "snapset": 35}},
        {"op": "setattr", "coll": "2.0_head", "oid": A, "attrs": {"_x": 3}},
        {"op": "rmattr", "coll": "2.0_head", "oid": A, "name": "snapset"},
        {"op": "rmattr", "coll": "2.0_head", "oid": A, "name": "never-set"},
        {"op": "omap_setkeys", "coll": "2.0_head", "oid": A, "keys": {"a": 1, "b": 2, "c": 3, "d": 4}},
        {"op": "omap_rmkeys", "coll": "2.0_head", "oid": A, "keys": ["a", "zz"]},
        {"op": "omap_rmkeyrange", "coll": "2.0_head", "oid": A, "first": "b", "last": "d"},
        {"op": "omap_setheader", "coll": "2.0_head", "oid": A, "header_length": 12},
    ]))
    o = obj(m)
    assert o["xattrs"] == {"_": 257, "_x": 3}
    assert o["omap"] == {"d": 4}, "rmkeyrange removes [first, last)"
    assert o["omap_header"] == 12
    m.apply({"op": "omap_clear", "coll": "2.0_head", "oid": A})
    m.apply({"op": "rmattrs", "coll": "2.0_head", "oid": A})
    assert obj(m) == {"size": 0, "xattrs": {}, "omap": {}, "omap_header": 0}


def test_clone_replaces_destination_and_clonerange_extends() -> None:
    m = run_trace(trace([
        {"op": "write", "coll": "2.0_head", "oid": A, "offset": 0, "length": 500},
        {"op": "omap_setkeys", "coll": "2.0_head", "oid": A, "keys": {"k": 1}},
        {"op": "write", "coll": "2.0_head", "oid": B, "offset": 0, "length": 9000},
        {"op": "setattrs", "coll": "2.0_head", "oid": B, "attrs": {"old": 1}},
        {"op": "clone", "coll": "2.0_head", "oid": A, "dest_oid": B},
    ]))
    assert obj(m, B) == obj(m, A)
    m.apply({"op": "clonerange2", "coll": "2.0_head", "oid": A, "dest_oid": B,
             "src_offset": 0, "length": 100, "dest_offset": 1000})
    assert obj(m, B)["size"] == 1100


def test_renames_and_remove() -> None:
    m = run_trace(trace([
        {"op": "write", "coll": "2.0_head", "oid": A, "offset": 0, "length": 5},
        {"op": "try_rename", "coll": "2.0_head", "oid": A, "dest_oid": B},
        {"op": "try_rename", "coll": "2.0_head", "oid": A, "dest_oid": B},  # missing: no-op
        {"op": "mkcoll", "coll": "2.1_head", "bits": 1},
        {"op": "coll_move_rename", "coll": "2.0_head", "oid": B, "dest_coll": "2.1_head", "dest_oid": A},
        {"op": "remove", "coll": "2.0_head", "oid": B},  # already gone: tolerated
    ]))
    assert obj(m, A, "2.1_head")["size"] == 5
    exp = m.expected()
    assert ["2.0_head", A] in exp["absent"] and ["2.0_head", B] in exp["absent"]
    assert list(exp["collections"]) == ["2.1_head"]


def test_seed_objects_are_not_expected() -> None:
    seed = {"collections": [{"coll": "meta", "bits": 0}],
            "objects": [{"coll": "meta", "oid": "#-1:7b3f43c4:::osd_superblock:0#"}]}
    m = run_trace(trace([{"op": "write", "coll": "meta", "oid": "#-1:7b3f43c4:::osd_superblock:0#",
                          "offset": 0, "length": 594}], seed))
    assert m.expected()["collections"] == {}, "a seeded object's real pre-state is unknown"


def test_errors_are_loud() -> None:
    with pytest.raises(TraceError, match="unknown op"):
        run_trace(trace([{"op": "frobnicate", "coll": "2.0_head", "oid": A}]))
    with pytest.raises(TraceError, match="does not exist"):
        run_trace(trace([{"op": "truncate", "coll": "2.0_head", "oid": A, "offset": 1}]))
    with pytest.raises(TraceError, match="collection 9.0_head does not exist"):
        run_trace(trace([{"op": "touch", "coll": "9.0_head", "oid": A}]))
    with pytest.raises(TraceError, match="non-negative integer"):
        run_trace(trace([{"op": "write", "coll": "2.0_head", "oid": A, "offset": -1, "length": 1}]))
    with pytest.raises(TraceError, match="still holds"):
        run_trace(trace([{"op": "touch", "coll": "2.0_head", "oid": A}, {"op": "rmcoll", "coll": "2.0_head"}]))
    with pytest.raises(TraceError, match="format"):
        run_trace({"format": "other", "transactions": []})


def test_hash_and_split() -> None:
    assert oid_hash(A) == 3473735710  # ceph-objectstore-tool printed this hash for o1
    assert hash_matches(0b1011, 2, 0b11) and not hash_matches(0b1011, 2, 0b01)
    m = run_trace(trace([{"op": "touch", "coll": "2.0_head", "oid": A},
                         {"op": "touch", "coll": "2.0_head", "oid": B},
                         {"op": "mkcoll", "coll": "2.2_head", "bits": 1}]))
    want_moved = {o for o in (A, B) if hash_matches(oid_hash(o), 2, 2)}
    m.apply({"op": "split_collection2", "coll": "2.0_head", "bits": 2, "rem": 2, "dest_coll": "2.2_head"})
    assert set(m.colls["2.2_head"].objects) == want_moved
    assert m.colls["2.0_head"].bits == m.colls["2.2_head"].bits == 2
    m.apply({"op": "merge_collection", "coll": "2.2_head", "bits": 1, "dest_coll": "2.0_head"})
    assert set(m.colls["2.0_head"].objects) == {A, B} and "2.2_head" not in m.colls


def test_split_bits_rule() -> None:
    assert [split_bits(ps, 8) for ps in range(8)] == [3] * 8
    assert [split_bits(ps, 6) for ps in range(6)] == [3, 3, 2, 2, 3, 3]
    assert split_bits(0, 1) == 0
    assert coll_bits("3.1f_head", {3: 32}) == 5 and coll_bits("meta", {}) == 0
    with pytest.raises(TraceError, match="pool 4"):
        coll_bits("4.0_head", {3: 8})


def test_normalize_dump_op_shapes() -> None:
    pg = {2: 4}
    assert normalize_op({"op_name": "omap_setheader", "collection": "2.0_head", "oid": A,
                         "header_length": "3"}, pg)["header_length"] == 3
    assert normalize_op({"op_name": "mkcoll", "collection": "2.3_head"}, pg) == \
        {"op": "mkcoll", "coll": "2.3_head", "bits": 2}
    tr = normalize_op({"op_name": "op_coll_move_rename", "collection": "2.0_head",
                       "old_oid": A, "new_oid": B}, pg)
    assert tr == {"op": "try_rename", "coll": "2.0_head", "oid": A, "dest_oid": B}
    mv = normalize_op({"op_name": "op_coll_move_rename", "old_collection": "2.0_head", "old_oid": A,
                       "new_collection": "2.1_head", "new_oid": B}, pg)
    assert mv["op"] == "coll_move_rename" and mv["dest_coll"] == "2.1_head"
    with pytest.raises(TraceError, match="not supported"):
        normalize_op({"op_name": "unknown", "op_code": 99}, pg)
    with pytest.raises(TraceError, match="buffer"):
        normalize_op({"op_name": "write", "collection": "2.0_head", "oid": A, "offset": 0,
                      "length": 10, "bufferlist length": 9}, pg)


def test_build_trace_seed_rules() -> None:
    dump = [[{"osr": "2.0_head", "seq": 1, "ops": [
        {"op_name": "write", "collection": "2.0_head", "oid": A, "offset": 0, "length": 8},
        {"op_name": "omap_setkeys", "collection": "2.0_head", "oid": "#2:00000000::::head#",
         "attr_lens": {"_info": 940}},
        {"op_name": "write", "collection": "meta", "oid": "#-1:7b3f43c4:::osd_superblock:0#",
         "offset": 0, "length": 594},
    ]}]]
    t = build_trace([dump], {2: 1}, preexisting={("meta", "#-1:7b3f43c4:::osd_superblock:0#")})
    assert t["seed"]["collections"] == [{"coll": "2.0_head", "bits": 0}, {"coll": "meta", "bits": 0}]
    assert [o["oid"] for o in t["seed"]["objects"]] == ["#2:00000000::::head#",
                                                        "#-1:7b3f43c4:::osd_superblock:0#"]
    exp = run_trace(t).expected()
    assert list(exp["collections"]["2.0_head"]["objects"]) == [A]


def test_compare_expected_reports_each_difference() -> None:
    w = {"collections": {"c": {"objects": {"o": {"size": 1, "xattrs": {}, "omap": {}, "omap_header": 0}}}},
         "absent": [["c", "gone"]]}
    g = {"collections": {"c": {"objects": {"o": {"size": 2, "xattrs": {}, "omap": {}, "omap_header": 0}}}},
         "absent": []}
    d = compare_expected(g, w)
    assert any("size 2 != expected 1" in x for x in d) and any("should be absent" in x for x in d)
    assert compare_expected(w, w) == []


CAPTURES = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "captures", "*", "trace.json.gz")))


@pytest.mark.parametrize("path", CAPTURES)
def test_committed_captures_reproduce_expected(path: str) -> None:
    d = os.path.dirname(path)
    got = run_trace(load_json(path)).expected()
    assert compare_expected(got, load_json(os.path.join(d, "expected.json"))) == []
    meta = load_json(os.path.join(d, "meta.json"))
    assert meta["counts"]["ops"] == sum(len(t["ops"]) for t in load_json(path)["transactions"])
