"""smrstore/stats_schema.json, the normative definition of smrstore.stats/1: documents (the
tests' own, a real OSD's, one the engine writes now) validate against it, and this module's
decoding (stats.py) and models agree with its tables and types.

The engine (src/os/smrstore/store/stats_schema_test.cc) and the web console
(web/scripts/gen-stats-codes.mjs --check) are checked against the same file."""
import copy
import json
import sys
import os
import re
import subprocess
from pathlib import Path
from typing import Any, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple, Type

import jsonschema
import pytest
from conftest import HEAD_MODEL, MiB, doc, drive, hybrid, osd_counters, status
from pydantic import BaseModel

from smrstore import stats, stats_codes
from smrstore.model import parse_osd_counters
from smrstore.stats import (HYBRID_STATES, REALMMAP_CHARS, REALMMAP_CODES,
                            SCHEMA_V1, STREAM_CHARS, ZONE_STATES, ZONEMAP_CHARS, ZONEMAP_OPEN,
                            ZONEMAP_SEALED, StatsDoc, StatsError, check_zone_string,
                            parse_stats, zonemap_counts)

MODULE_DIR = Path(__file__).resolve().parent.parent
REPO = MODULE_DIR.parent
SCHEMA_FILE = MODULE_DIR / "smrstore" / "stats_schema.json"
FIX = Path(__file__).resolve().parent / "fixtures" / "osd"


def raw_schema() -> Dict[str, Any]:
    """The schema as the file says it, read here independently of stats.py."""
    with open(SCHEMA_FILE, encoding="utf-8") as f:
        s: Dict[str, Any] = json.load(f)
    return s


SCHEMA = raw_schema()
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def compact_schema() -> Dict[str, Any]:
    """The schema of the service-status ``stats`` value (and `stats --document --compact`):
    the document without the fields the status map carries under keys of their own."""
    s = copy.deepcopy(SCHEMA)
    d = s["$defs"]["drive"]
    d["required"] = [k for k in d["required"] if "x-in-status-map" not in d["properties"][k]]
    for k in [k for k, v in d["properties"].items() if "x-in-status-map" in v]:
        del d["properties"][k]
    return s


def errors(document: Any, validator: Any = VALIDATOR) -> List[str]:
    return sorted(f"{e.json_path}: {e.message}" for e in validator.iter_errors(document))


def zonemap_code_table() -> Dict[str, Tuple[str, Optional[int]]]:
    return {c["char"]: (c["state"], c.get("live_tenths")) for c in SCHEMA["x-zonemap-codes"]}


def stream_code_table() -> Dict[str, str]:
    return {c["char"]: c["stream"] for c in SCHEMA["x-streams-codes"]}


# ---------------------------------------------------------------------------------------
# The schema itself.

def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["properties"]["schema"]["const"] == "smrstore.stats/1"


def test_the_module_ships_the_schema_inside_its_package() -> None:
    # ceph-mgr loads the package directory (qa/ceph/lib.sh links it whole): the file must be
    # in it, and stats.py must read that file.
    assert stats.SCHEMA_PATH == SCHEMA_FILE
    assert stats.STATS_SCHEMA == SCHEMA


def test_code_tables_are_well_formed() -> None:
    zm = SCHEMA["x-zonemap-codes"]
    chars = [c["char"] for c in zm]
    assert all(len(c) == 1 for c in chars) and len(set(chars)) == len(chars)
    states = [s["state"] for s in SCHEMA["x-zonemap-states"]]
    assert len(set(states)) == len(states)
    assert {c["state"] for c in zm} == set(states), "every state has a code, every code a state"
    for state in ("open", "sealed"):
        tenths = sorted(c["live_tenths"] for c in zm if c["state"] == state)
        assert tenths == list(range(11)), f"{state}: one code per live tenth 0..10"
    assert all("live_tenths" not in c for c in zm if c["state"] not in ("open", "sealed"))
    st = [c["char"] for c in SCHEMA["x-streams-codes"]]
    assert all(len(c) == 1 for c in st) and len(set(st)) == len(st)
    assert stream_code_table()["-"] == "none"
    # The per-drive zone counts are the zone-map states, one key each.
    assert list(SCHEMA["$defs"]["drive"]["properties"]["zones"]["properties"]) == states


def realmmap_code_table() -> Dict[str, str]:
    return {c["char"]: c["label"] for c in SCHEMA["x-realmmap-codes"]}


def test_realm_map_codes_are_well_formed_and_the_patterns() -> None:
    codes = SCHEMA["x-realmmap-codes"]
    chars = [c["char"] for c in codes]
    assert all(len(c) == 1 for c in chars) and len(set(chars)) == len(chars)
    assert all(c["label"] and c["description"] for c in codes)
    pattern = re.compile(SCHEMA["$defs"]["drive"]["properties"]["hybrid"]["properties"]
                         ["realmmap"]["pattern"])
    for ch in map(chr, range(256)):
        assert bool(pattern.fullmatch(ch)) == (ch in chars), f"realmmap pattern vs table at {ch!r}"
    assert pattern.fullmatch("") and pattern.fullmatch("".join(chars))


def test_realm_map_codes_are_the_schemas() -> None:
    assert list(REALMMAP_CODES) == list(realmmap_code_table())
    assert {ch: c.label for ch, c in REALMMAP_CODES.items()} == realmmap_code_table()
    assert REALMMAP_CHARS == set(realmmap_code_table())


def test_zone_string_patterns_accept_exactly_the_codes() -> None:
    props = SCHEMA["$defs"]["drive"]["properties"]
    tables: List[Tuple[str, Set[str]]] = [("zonemap", set(zonemap_code_table())),
                                          ("streams", set(stream_code_table()))]
    for key, table in tables:
        # fullmatch: ECMA-262's '$' (JSON Schema's regex dialect) does not match before a
        # final newline, Python's does.
        pattern = re.compile(props[key]["pattern"])
        for i in range(256):
            ch = chr(i)
            assert bool(pattern.fullmatch(ch)) == (ch in table), f"{key} pattern vs table at {ch!r}"
        assert pattern.fullmatch("".join(sorted(table)))
        assert pattern.fullmatch("")


# ---------------------------------------------------------------------------------------
# Documents validate.

def all_codes_drive(index: int) -> Dict[str, Any]:
    zm = "".join(zonemap_code_table())
    st = "".join(c if c != "-" else "u" for c in stream_code_table()) * len(zm)
    return drive(index, nr_zones=len(zm), zonemap=zm, streams=st[:len(zm)])


@pytest.mark.parametrize("name,document", [
    ("conftest doc()", doc()),
    ("every zone-map code", doc(drives=[all_codes_drive(0)])),
    ("no drives, nothing written", doc(drives=[], user=0, device=0, total=0, available=0)),
    ("a hybrid drive", doc(drives=[drive(0, nr_zones=8, zonemap="##A.b___",
                                         streams="--uu-" + "---", hybrid=hybrid()), drive(1)])),
    ("a stalled hybrid drive", doc(drives=[drive(0, hybrid=hybrid(
        "CS", state="stalled", progress=0.0, stall_reason="no room for the realm's data"))])),
])
def test_the_test_documents_validate(name: str, document: Dict[str, Any]) -> None:
    assert errors(document) == [], name


def test_a_document_from_a_real_osd_validates() -> None:
    # `ceph tell osd.0 smrstore stats` of a real OSD (the fields added since the recording
    # filled in: tests/test_osd_source.py).
    with open(FIX / "tell-osd.0.json", encoding="utf-8") as f:
        d = json.load(f)
    assert errors(d) == []


def test_the_status_stats_value_validates_against_the_compact_schema() -> None:
    compact = jsonschema.Draft202012Validator(compact_schema())
    st = json.loads(status(doc())["stats"])
    assert "zonemap" not in st["drives"][0]
    assert errors(st, compact) == []
    assert any("'zonemap' is a required property" in e for e in errors(st))


def test_the_schema_rejects_what_it_must() -> None:
    d = doc()
    d["drives"][0]["zonemap"] = d["drives"][0]["zonemap"][:-1] + "?"
    d["drives"][1]["streams"] = "-x"
    d["io"]["crc_errors"] = 1.5
    d["statfs"]["total"] = -1
    d["gc"]["auto"] = "yes"
    del d["store"]["uuid"]
    d["surplus"] = 1
    d["drives"][0]["hybrid"]["state"] = "melting"
    d["drives"][1]["kind"] = "tape"
    d["schema"] = "smrstore.stats/2"
    got = errors(d)
    for where in ("$.drives[0].zonemap", "$.drives[1].streams", "$.io.crc_errors",
                  "$.statfs.total", "$.gc.auto", "$.store: 'uuid' is a required property",
                  "$: Additional properties are not allowed ('surplus'",
                  "$.drives[0].hybrid.state", "$.drives[1].kind", "$.schema"):
        assert any(e.startswith(where) for e in got), (where, got)
    assert len(got) == 10, got


def find_tool() -> Optional[Path]:
    env = os.environ.get("SMRSTORE_TOOL")
    for p in ([Path(env)] if env else []) + [REPO / "build" / "src" / "tools" / "smrstore-tool"]:
        if p.is_file() and os.access(p, os.X_OK):
            return p
    return None


@pytest.fixture(scope="module")
def engine_documents(tmp_path_factory: pytest.TempPathFactory) -> Tuple[str, str, str]:
    """(full, compact) documents the engine writes now for a small store with objects, and
    `df --json` of it."""
    tool = find_tool()
    if tool is None:
        pytest.skip("no smrstore-tool (build/src/tools/smrstore-tool or $SMRSTORE_TOOL); "
                    "the engine's document is checked once the build exists")
    work = tmp_path_factory.mktemp("engine-doc")

    def run(*args: str, stdin: bytes = b"") -> str:
        p = subprocess.run([str(tool), *args], input=stdin, capture_output=True, cwd=work,
                           timeout=120)
        assert p.returncode == 0, (args, p.stderr.decode(errors="replace"))
        return p.stdout.decode()

    st = str(work / "st")
    run("mkfs", st, f"emu:{work}/d0.img?zones=16&zone_mib=4&conv=1",
        f"emu:{work}/d1.img?zones=16&zone_mib=4&conv=3")
    run("mkcoll", st, "1.0_head")
    run("put", st, "1.0_head", "small", "-", stdin=b"s" * 5000)
    run("put", st, "1.0_head", "large", "-", stdin=os.urandom(9 * MiB))
    run("put", st, "1.0_head", "large", "-", stdin=os.urandom(3 * MiB))   # leaves dead bytes
    return (run("stats", st, "--document"), run("stats", st, "--document", "--compact"),
            run("df", st, "--json"))


def test_the_engines_document_validates(engine_documents: Tuple[str, str, str]) -> None:
    full, compact, df = engine_documents
    d = json.loads(full)
    assert errors(d) == []
    # The engine writes every field (the schema requires them all but statfs.writable, which
    # it writes too).
    assert "reclaimable" in d["statfs"] and "failures" in d["gc"]
    # statfs.writable is what `df --json` calls writable (Store::Statfs: an OSD's available),
    # and the overwrite's dead bytes are reclaimable but not all writable.
    assert d["statfs"]["writable"] == json.loads(df)["writable"]
    assert 0 < d["statfs"]["writable"] <= d["statfs"]["total"]
    assert d["statfs"]["reclaimable"] > 0
    assert d["store"]["pack_max"] == 32768
    assert {k for k in d["io"] if k.startswith("pack_")} == {
        "pack_records", "pack_entries", "pack_payload_bytes", "pack_record_bytes"}
    # Reads count since mount (this `stats` mount read nothing); drives without a head keep
    # the journal in zones of its own: nothing pinned (the counts: stats_document_test.cc).
    assert (d["io"]["data_reads"], d["io"]["data_read_records"]) == (0, 0)
    assert d["gc"]["pinned_zones"] == 0
    # Drives without a timing model are not rotational: `auto` leaves the read-ahead off.
    assert (d["store"]["gc_read_ahead"], d["gc"]["read_ahead_bytes"],
            d["gc"]["read_ahead_yields"]) == (False, 0, 0)
    assert (d["store"]["gc_start_free"], d["store"]["gc_urgent_free"], d["store"]["gc_stop_free"],
            d["store"]["gc_free_zones_max"]) == (0.03, 0.01, 0.05, 64)
    assert sum(len(dr["zonemap"]) for dr in d["drives"]) == 32
    assert {c for dr in d["drives"] for c in dr["zonemap"]} >= {"#", "=", "."}
    assert errors(json.loads(compact), jsonschema.Draft202012Validator(compact_schema())) == []
    # ... and this module reads it whole.
    parsed = parse_stats(json.loads(compact))
    assert parsed.statfs.writable == d["statfs"]["writable"]
    for dr, raw in zip(parsed.drives, d["drives"]):
        assert zonemap_counts(raw["zonemap"]) == (
            dr.zones.reserved, dr.zones.free, dr.zones.open, dr.zones.sealed, dr.zones.offline,
            dr.zones.readonly, dr.zones.conventional, dr.zones.inactive)


@pytest.fixture(scope="module")
def engine_hybrid_document(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The document the engine writes for a store on an emulated hybrid drive (4 realms of
    4 CMR / 5 SMR zones of 4 MiB, all CMR at mkfs) filled until its policy converted a realm
    to SMR (free fraction below hybrid_convert_free)."""
    tool = find_tool()
    if tool is None:
        pytest.skip("no smrstore-tool (build/src/tools/smrstore-tool or $SMRSTORE_TOOL)")
    work = tmp_path_factory.mktemp("engine-hybrid-doc")

    def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
        return subprocess.run([str(tool), *args], input=stdin, capture_output=True, cwd=work,
                              timeout=120)

    st = str(work / "st")
    for args in (("mkfs", st, f"emu:{work}/h.img?zone_mib=4&conv=2&realms=4&convert_ms=0"),
                 ("mkcoll", st, "1.0_head")):
        p = run(*args)
        assert p.returncode == 0, (args, p.stderr.decode(errors="replace"))
    for i in range(4):      # 40 MiB into 64 MiB of CMR: below 15 % free, a realm converts
        p = run("put", st, "1.0_head", f"o{i}", "-", stdin=os.urandom(10 * MiB))
        assert p.returncode == 0, p.stderr.decode(errors="replace")
    p = run("stats", st, "--document")
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    return p.stdout.decode()


def test_the_engines_hybrid_document_validates(engine_hybrid_document: str) -> None:
    d = json.loads(engine_hybrid_document)
    assert errors(d) == []
    raw = d["drives"][0]
    h = raw["hybrid"]
    assert h["supported"] is True and h["state"] in ("idle", "converting", "stalled")
    # Every field; one character per realm.
    assert set(h) == set(SCHEMA["$defs"]["drive"]["properties"]["hybrid"]["properties"])
    assert h["realms"] == 4 == len(h["realmmap"]) == h["realms_cmr"] + h["realms_smr"]
    assert h["realms_smr"] >= 1 and "S" in h["realmmap"], h
    assert raw["zones"]["inactive"] > 0 and "_" in raw["zonemap"]
    # ... and this module reads it whole, the inactive zones counted from the map.
    full = dict(d, drives=[{k: v for k, v in raw.items() if k not in ("zonemap", "streams")}])
    parsed = parse_stats(full).drives[0]
    assert parsed.hybrid is not None and parsed.hybrid.realmmap == h["realmmap"]
    assert zonemap_counts(raw["zonemap"]) == tuple(raw["zones"][s] for s in ZONE_STATES)
    assert parsed.hybrid.cmr_bytes == h["cmr_bytes"] and parsed.zones.inactive == raw["zones"]["inactive"]


# ---------------------------------------------------------------------------------------
# stats.py decodes as the schema says.

def test_zonemap_counts_decodes_every_character_as_the_schema_says() -> None:
    table = zonemap_code_table()
    order = [s["state"] for s in SCHEMA["x-zonemap-states"]]
    assert list(ZONE_STATES) == order
    for i in range(256):
        ch = chr(i)
        got = zonemap_counts(ch * 3)
        if ch in table:
            want = [0] * 8
            # zonemap_counts' tuple order: reserved, free, open, sealed, offline, readonly,
            # conventional, inactive — the schema's state names.
            want[["reserved", "free", "open", "sealed", "offline", "readonly",
                  "conventional", "inactive"].index(table[ch][0])] = 3
            assert got == tuple(want), f"{ch!r} is {table[ch][0]} in the schema"
        else:
            assert got == (0,) * 8, f"{ch!r} is no zone-map code in the schema"


def test_accepted_characters_are_the_schemas() -> None:
    assert ZONEMAP_CHARS == set(zonemap_code_table())
    assert STREAM_CHARS == set(stream_code_table())
    for ch in map(chr, range(256)):
        tables: List[Tuple[FrozenSet[str], Set[str]]] = [
            (ZONEMAP_CHARS, set(zonemap_code_table())), (STREAM_CHARS, set(stream_code_table()))]
        for allowed, table in tables:
            if ch in table:
                assert check_zone_string(ch, allowed, 1, "z") == ch
            else:
                with pytest.raises(StatsError):
                    check_zone_string(ch, allowed, 1, "z")


def test_fill_characters_follow_the_schemas_live_tenths() -> None:
    table = zonemap_code_table()
    for chars, state in ((ZONEMAP_OPEN, "open"), (ZONEMAP_SEALED, "sealed")):
        assert len(chars) == 11
        for tenths, ch in enumerate(chars):
            assert table[ch] == (state, tenths)


def test_hybrid_states_and_schema_id_are_the_schemas() -> None:
    hybrid = SCHEMA["$defs"]["drive"]["properties"]["hybrid"]["properties"]["state"]["enum"]
    assert list(HYBRID_STATES) == hybrid
    assert SCHEMA_V1 == SCHEMA["properties"]["schema"]["const"]


def field_paths(node: Dict[str, Any], path: str) -> Iterator[Tuple[str, Dict[str, Any]]]:
    """(path, parent object) of every property (array items as ``drives[]``)."""
    if "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]]
    if node.get("type") == "array":
        yield from field_paths(node["items"], path + "[]")
    for k, sub in node.get("properties", {}).items():
        where = f"{path}.{k}" if path else k
        yield where, node
        yield from field_paths(sub, where)


# Properties the schema does not require: documents of daemons from before them lack them,
# and readers fall back (statfs.writable: SMRSTORE_SPACE_LOW, health.py).
NOT_REQUIRED = {"statfs.writable"}


def test_every_field_is_required() -> None:
    # The format is unreleased: no document without a field exists, so the schema requires
    # every property but the ones a reader must do without during an upgrade (NOT_REQUIRED),
    # each of which says so in its description; no compatibility marks are left.
    paths = list(field_paths(SCHEMA, ""))
    assert len(paths) > 90
    for where, parent in paths:
        key = where.rsplit(".", 1)[-1]
        if where in NOT_REQUIRED:
            assert key not in parent.get("required", []), where
            assert "Not required: daemons from before it" in parent["properties"][key][
                "description"], where
            continue
        assert key in parent.get("required", []), f"{where}: not required"
    assert "x-added-within-v1" not in json.dumps(SCHEMA)
    # ... and parse_stats names each one a document lacks (the status-map strings travel
    # beside the document).
    full = json.loads(status(doc(drives=[drive(0, hybrid=hybrid(), head=dict(HEAD_MODEL)),
                                          drive(1)]))["stats"])
    for where, parent in paths:
        key = where.rsplit(".", 1)[-1]
        if "x-in-status-map" in parent["properties"][key]:
            continue
        d = copy.deepcopy(full)
        node: Any = d
        *parents, _ = where.replace("[]", ".0").split(".")
        for p in parents:
            node = node[int(p)] if p.isdigit() else node[p]
        del node[key]
        if where in NOT_REQUIRED:
            assert parse_stats(d) is not None     # read, the field None
            continue
        with pytest.raises(StatsError, match=re.escape(
                f"missing field(s) {where.replace('[]', '[0]')}")):
            parse_stats(d)
    # A null where the schema's type has none is missing too (the models allow it for an
    # OSD seen through its perf counters alone); a nullable field may be null.
    d = copy.deepcopy(full)
    d["statfs"]["allocated"] = None
    d["drives"][0]["hybrid"]["stall_reason"] = None
    with pytest.raises(StatsError, match=r"missing field\(s\) statfs\.allocated$"):
        parse_stats(d)


def test_the_models_are_generated_from_the_schema() -> None:
    # stats_models.py is what tools/gen_stats_models.py writes from the schema (ctest
    # stats_models_generated checks the same).
    sys.path.insert(0, str(REPO / "mgr-module" / "tools"))
    try:
        import gen_stats_models
    finally:
        sys.path.pop(0)
    assert gen_stats_models.OUT.read_text(encoding="utf-8") == gen_stats_models.generate(), \
        "stats_models.py is stale: run mgr-module/tools/gen_stats_models.py"


def test_the_models_optional_fields_are_what_the_perf_counters_lack() -> None:
    # The generator makes Optional exactly the fields an OSD's perf counters alone do not
    # fill (x-perf-counters paths + its COUNTERS_VIEW_EXTRA): parse_osd_counters on every
    # counter of a hybrid store fills every other field and leaves those None.
    d = parse_osd_counters("osd.0", osd_counters(conv=1), now=1.0)
    assert d is not None

    def walk(m: BaseModel, path: str) -> Iterator[Tuple[str, bool, bool]]:
        for name, f in m.__fields__.items():
            v = getattr(m, name)
            where = f"{path}.{f.alias}" if path else f.alias
            yield where, f.required is True, v is None
            if isinstance(v, BaseModel):
                yield from walk(v, where)
            elif isinstance(v, list) and v and isinstance(v[0], BaseModel):
                yield from walk(v[0], where + "[]")

    seen = list(walk(d.doc, ""))
    assert [w for w, required, none in seen if required and none] == []
    # (the hybrid block: there with the store's conversion state when the store is hybrid;
    # statfs.writable: a counter carries it, but a document may lack it)
    assert [w for w, required, none in seen if not required and not none] == [
        "statfs.writable", "drives[].hybrid"]
    # An OSD from before statfs.writable (no such counter): the field is None.
    old = parse_osd_counters("osd.0", osd_counters(without=("smrstore_statfs_writable",)), 1.0)
    assert old is not None and old.doc.statfs.writable is None
    assert {w for w, _, none in seen if none} >= {"store", "statfs.allocated",
                                                  "drives[].zones.inactive",
                                                  "drives[].hybrid.realmmap"}


@pytest.mark.parametrize("realmmap,realms,message", [
    ("CCxS", 4, "unknown realm-map character(s) 'x' (expected CSc" "s>)"),
    ("CC_S", 4, "unknown realm-map character(s) '_'"),
    ("CxSQy", 5, "unknown realm-map character(s) 'Qxy' (expected CSc" "s>)"),
    ("CCS", 4, "3 characters for 4 realms"),
    ("CCSS>", 4, "5 characters for 4 realms"),
])
def test_a_bad_realm_map_names_the_field(realmmap: str, realms: int, message: str) -> None:
    h = hybrid("CCSS")
    h.update(realmmap=realmmap, realms=realms)
    d = json.loads(status(doc(drives=[drive(0, hybrid=h)]))["stats"])
    with pytest.raises(StatsError) as e:
        parse_stats(d)
    assert "drives.0.hybrid.realmmap" in str(e.value) and message in str(e.value)


def test_a_realm_map_without_a_realm_count_is_checked_for_codes_only() -> None:
    # Only in a model built without a document (the realm count unknown): codes only.
    hy = stats.Hybrid(supported=True, state="idle", realmmap="CS>")
    assert hy.realmmap == "CS>" and hy.realms is None
    with pytest.raises(ValueError, match="unknown realm-map character"):
        stats.Hybrid(supported=True, state="idle", realmmap="CSx")


def json_type(t: Any) -> Optional[str]:
    """The JSON type of a model field's Python type (pydantic's constrained ints and floats
    are subclasses of int and float; bool is one of int too, so it is asked first)."""
    for py, js in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string")):
        if isinstance(t, type) and issubclass(t, py):
            return js
    return None


def check_model(model: Type[BaseModel], node: Dict[str, Any], path: str) -> Iterator[str]:
    """Disagreements between a pydantic model and its schema object."""
    if "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]]
    props = {k: v for k, v in node["properties"].items() if "x-in-status-map" not in v}
    fields = {(f.alias or n): f for n, f in model.__fields__.items()}
    for k in sorted(set(props) ^ set(fields)):
        yield f"{path}.{k}: {'only in the schema' if k in props else 'only in ' + model.__name__}"
    for k in sorted(set(props) & set(fields)):
        f, sub = fields[k], props[k]
        if sub.get("type") == "array":
            sub = sub["items"]
        if isinstance(f.type_, type) and issubclass(f.type_, BaseModel):
            yield from check_model(f.type_, sub, f"{path}.{k}")
            continue
        want = sub.get("type")
        want_set = set(want) if isinstance(want, list) else {want}
        got = json_type(f.type_)
        if got not in want_set:
            yield f"{path}.{k}: {model.__name__} has {f.type_}, the schema {want}"


def test_the_models_fields_and_types_are_the_schemas() -> None:
    # StatsDoc is also the REST API's response model (openapi.json, and from it the web
    # console's client types), so this checks those field types too.
    assert list(check_model(StatsDoc, SCHEMA, "$")) == []


def test_the_model_check_sees_a_drift() -> None:
    class Narrow(BaseModel):
        total: int
        available: float
        extra: int

    statfs = SCHEMA["properties"]["statfs"]
    got = list(check_model(Narrow, statfs, "$.statfs"))
    assert "$.statfs.extra: only in Narrow" in got
    assert "$.statfs.stored: only in the schema" in got
    assert any(g.startswith("$.statfs.available: Narrow has <class 'float'>") for g in got)


# ---------------------------------------------------------------------------------------
# Perf counter names (OSD path).

def test_perf_counter_table_is_generated_from_the_schema() -> None:
    # The engine's perf counters are registered and refreshed from
    # objectstore/smrstore_perf_table.h, which tools/gen_perf_table.py writes from the
    # schema's x-perf-counters: the committed file must be what it generates.
    sys.path.insert(0, str(REPO / "mgr-module" / "tools"))
    try:
        import gen_perf_table
    finally:
        sys.path.pop(0)
    if not gen_perf_table.OUT.is_file():
        pytest.skip(f"{gen_perf_table.OUT} not in this tree")
    assert gen_perf_table.OUT.read_text(encoding="utf-8") == gen_perf_table.generate(), \
        "smrstore_perf_table.h is stale: run mgr-module/tools/gen_perf_table.py"


def test_every_perf_counter_carries_a_document_field() -> None:
    # Each counter's path names a field of the schema's document (in a drive for the drive
    # loggers), so the engine's value and the mgr's mapping both come from the document.
    drive = SCHEMA["$defs"]["drive"]
    for logger, entries in SCHEMA["x-perf-counters"].items():
        if logger == "description":
            continue
        names = [e["name"] for e in entries]
        assert len(names) == len(set(names)), logger
        for e in entries:
            assert e["type"] in ("counter", "gauge"), e
            if "derived" in e:
                assert e["derived"] in ("wa_milli", "conversion_state"), e
                continue
            node = drive if logger == "smrstore-drive.<i>" else SCHEMA
            for part in e["path"].strip("/").split("/"):
                node = node["properties"][part]
            assert node.get("type") in ("integer", "boolean", ["integer", "null"]), e


def test_every_prometheus_metric_carries_a_document_field() -> None:
    # x-prometheus is the single list of the /metrics names: each path names a field of the
    # document (in a drive for the drive scopes), each special is one prometheus.py renders.
    drive = SCHEMA["$defs"]["drive"]
    names = [m["name"] for m in SCHEMA["x-prometheus"]["metrics"]]
    assert len(names) == len(set(names))
    for m in SCHEMA["x-prometheus"]["metrics"]:
        assert re.fullmatch(r"smrstore_[a-z0-9_]+", m["name"]), m
        assert m["type"] in ("counter", "gauge"), m
        assert (m["type"] == "counter") == m["name"].endswith("_total"), m
        if "special" in m:
            assert m["special"] in ("up", "last_update", "drive_zones", "conversion_state",
                                    "realms"), m
            continue
        node = SCHEMA if m["scope"] == "daemon" else drive
        for part in m["path"].strip("/").split("/"):
            node = node["properties"][part]
        assert node.get("type") in ("integer", "number", "boolean", ["integer", "null"],
                                    ["number", "null"]), m


def test_recorded_osd_counters_are_in_the_schema() -> None:
    with open(FIX / "perf-schema-osd.0.json", encoding="utf-8") as f:
        recorded = json.load(f)
    for logger, counters in recorded.items():
        if logger == "smrstore":
            key = "smrstore"
        elif logger.startswith("smrstore-drive."):
            key = "smrstore-drive.<i>"
        else:
            continue
        assert set(counters) <= {e["name"] for e in SCHEMA["x-perf-counters"][key]}, logger


def test_every_zone_state_is_counted_in_the_documents_of_the_tests() -> None:
    # conftest's drive() counts zones from the map with the same rules: its documents'
    # counts equal zonemap_counts of their maps.
    d = all_codes_drive(0)
    z = d["zones"]
    assert zonemap_counts(d["zonemap"]) == tuple(z[s] for s in ZONE_STATES)


# --- stats_codes: the schema file and the fill characters (survivors of the 2026-12-07 mutmut
# run; the module-level tables are computed at import, so these call the functions) -------

def test_load_schema_reads_the_shipped_schema() -> None:
    assert stats_codes.load_schema() == json.loads(
        stats_codes.SCHEMA_PATH.read_text(encoding="utf-8"))
    assert stats_codes.load_schema()["properties"]["schema"]["const"] == stats.SCHEMA_V1


def test_load_schema_reads_utf8_whatever_the_locale(tmp_path: Path) -> None:
    """The schema is UTF-8 (JSON's encoding), also under an ASCII locale (LC_ALL=C without
    Python's UTF-8 mode or locale coercion): a daemon's environment must not change it."""
    p = tmp_path / "schema.json"
    want = "zone capacity \u2264 size, 48 MiB \u2013 64 MiB"
    p.write_text(json.dumps({"description": want}, ensure_ascii=False), encoding="utf-8")
    assert stats_codes.load_schema(p) == {"description": want}
    # The same function in a fresh interpreter under the C locale (loaded by file, as the
    # module it is here, so an active mutant, if any, is the one loaded there too).
    code = ("import importlib.util, sys\n"
            "spec = importlib.util.spec_from_file_location('smrstore.stats_codes', sys.argv[1])\n"
            "m = importlib.util.module_from_spec(spec)\n"
            "spec.loader.exec_module(m)\n"
            "print(ascii(m.load_schema(m.Path(sys.argv[2]))['description']))\n")
    env = dict(os.environ, LC_ALL="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0",
               PYTHONIOENCODING="ascii")
    r = subprocess.run([sys.executable, "-c", code, stats_codes.__file__, str(p)], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ascii(want)


def test_fill_characters_are_the_schemas_in_live_tenths_order() -> None:
    assert stats_codes._fill_chars("open") == "ABCDEFGHIJK"
    assert stats_codes._fill_chars("sealed") == "abcdefghijk"
    assert stats_codes._fill_chars("free") == "."
    assert stats_codes._fill_chars("nosuchstate") == ""


def test_fill_characters_follow_live_tenths_not_the_characters(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A table whose characters do not sort like their live tenths (0 is "z", 10 is "p"):
    # the order is the tenths'.
    table = {chr(ord("z") - t): stats_codes.ZoneCode("open", t) for t in range(11)}
    table["."] = stats_codes.ZoneCode("free", None)
    monkeypatch.setattr(stats_codes, "ZONEMAP_CODES", table)
    assert stats_codes._fill_chars("open") == "zyxwvutsrqp"


def test_every_property_of_the_schema_names_its_type() -> None:
    """Every property (after $ref) has a JSON Schema "type": a type name or a list of them.
    stats._missing asks it whether a null is allowed."""
    names = {"null", "boolean", "integer", "number", "string", "object", "array"}

    def walk(node: Dict[str, Any], where: str) -> Iterator[str]:
        node = stats._resolve(node)
        if node.get("type") == "array":
            yield from walk(node["items"], where + "[]")
        for key, sub in node.get("properties", {}).items():
            t = stats._resolve(sub).get("type")
            if not (isinstance(t, str) and t in names
                    or isinstance(t, list) and t and set(t) <= names):
                yield f"{where}.{key}: {t!r}"
            yield from walk(sub, f"{where}.{key}")

    assert list(walk(stats.STATS_SCHEMA, "")) == []
