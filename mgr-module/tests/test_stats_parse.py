"""parse_stats / check_zone_string: what a publisher is told when its document is wrong.
Every problem is named, all of them in one message, in document order."""
import copy
from typing import Any, Dict

import pytest
from conftest import doc

from pydantic import ValidationError

from smrstore.stats import (STREAM_CHARS, ZONEMAP_CHARS, StatsDoc, StatsError,
                            check_zone_string, format_validation_error, parse_stats)


def raw_doc() -> Dict[str, Any]:
    d = copy.deepcopy(doc())
    for dr in d["drives"]:
        dr.pop("zonemap"), dr.pop("streams")
    return d


def test_a_complete_document_parses() -> None:
    assert parse_stats(raw_doc()).statfs.total == doc()["statfs"]["total"]


def test_not_an_object() -> None:
    with pytest.raises(StatsError) as e:
        parse_stats(["a"])
    assert str(e.value) == "stats: expected a JSON object, got list"
    with pytest.raises(StatsError) as e:
        parse_stats("x", what="status of demo-a")
    assert str(e.value) == "status of demo-a: expected a JSON object, got str"


def test_every_missing_field_is_named_once_in_order() -> None:
    d = raw_doc()
    del d["statfs"]["allocated"], d["statfs"]["meta_bytes"], d["io"]["inline_bytes"]
    del d["drives"][1]["zones"]["conventional"]
    with pytest.raises(StatsError) as e:
        parse_stats(d)      # every field is required unless asked otherwise
    assert str(e.value) == ("stats: missing field(s) statfs.allocated, statfs.meta_bytes, "
                            "io.inline_bytes, drives[1].zones.conventional")
    del d["drives"][1]["zones"]
    d["drives"][1]["zones"] = raw_doc()["drives"][1]["zones"]
    assert parse_stats(d, require_all_fields=False).statfs.allocated is None


def test_every_invalid_field_is_named() -> None:
    d = raw_doc()
    d["statfs"]["total"] = -1
    d["io"]["crc_errors"] = "many"
    with pytest.raises(StatsError) as e:
        parse_stats(d)
    assert str(e.value) == ("stats: statfs.total: ensure this value is greater than or equal "
                            "to 0; io.crc_errors: value is not a valid integer")


def test_zone_string_errors() -> None:
    with pytest.raises(StatsError) as e:
        check_zone_string("#.QZ.Q", ZONEMAP_CHARS, None, "zonemap.0")
    assert str(e.value) == "zonemap.0: unknown character(s) 'QZ'"
    with pytest.raises(StatsError) as e:
        check_zone_string("-u", STREAM_CHARS, 3, "streams.1")
    assert str(e.value) == "streams.1: 2 characters for 3 zones"
    assert check_zone_string("-ug", STREAM_CHARS, 3, "streams.1") == "-ug"


def test_gc_failures_and_quarantine_are_read() -> None:
    d = raw_doc()
    d["gc"].update(failures=4, quarantined_zones=2)
    g = parse_stats(d).gc
    assert (g.failures, g.quarantined_zones) == (4, 2)
    d["gc"].update(failures=-1, quarantined_zones="x")
    with pytest.raises(StatsError) as e:
        parse_stats(d)
    assert str(e.value) == ("stats: gc.failures: ensure this value is greater than or equal "
                            "to 0; gc.quarantined_zones: value is not a valid integer")


def test_data_reads_and_pinned_zones_are_read() -> None:
    d = raw_doc()
    d["io"].update(data_reads=10, data_read_records=35)
    d["gc"].update(pinned_zones=6)
    doc = parse_stats(d)
    assert (doc.io.data_reads, doc.io.data_read_records, doc.gc.pinned_zones) == (10, 35, 6)
    d["io"].update(data_reads=-1, data_read_records="many")
    d["gc"].update(pinned_zones="x")
    with pytest.raises(StatsError) as e:
        parse_stats(d)
    assert str(e.value) == ("stats: io.data_reads: ensure this value is greater than or equal "
                            "to 0; io.data_read_records: value is not a valid integer; "
                            "gc.pinned_zones: value is not a valid integer")


def test_gc_read_ahead_is_read() -> None:
    d = raw_doc()
    d["store"].update(gc_read_ahead=True)
    d["gc"].update(read_ahead_bytes=4096, read_ahead_yields=2)
    doc = parse_stats(d)
    assert doc.store is not None
    assert (doc.store.gc_read_ahead, doc.gc.read_ahead_bytes, doc.gc.read_ahead_yields) == (
        True, 4096, 2)
    d["gc"].update(read_ahead_bytes=-5, read_ahead_yields="some")
    with pytest.raises(StatsError) as e:
        parse_stats(d)
    assert str(e.value) == ("stats: gc.read_ahead_bytes: ensure this value is greater than or "
                            "equal to 0; gc.read_ahead_yields: value is not a valid integer")


@pytest.mark.parametrize("absent", [["gc.failures"], ["gc.quarantined_zones"],
                                    ["gc.failures", "gc.quarantined_zones"]])
def test_documents_without_the_gc_failure_fields_are_incomplete(absent: Any) -> None:
    # The format is unreleased: every field the schema has is required.
    d = raw_doc()
    for f in absent:
        del d["gc"][f.split(".")[1]]
    with pytest.raises(StatsError) as e:
        parse_stats(d, require_all_fields=True)
    assert str(e.value) == f"stats: missing field(s) {', '.join(absent)}"

# --- survivors of the 2026-12-07 mutmut run -----------------------------------------------

@pytest.mark.parametrize("key,value,message", [
    ("drives", 5, "stats: drives: value is not a valid list"),
    ("drives", {"0": {}}, "stats: drives: value is not a valid list"),
    ("statfs", [1], "stats: statfs: value is not a valid dict"),
])
def test_a_field_of_the_wrong_kind_is_named_not_a_crash(key: str, value: Any,
                                                        message: str) -> None:
    # An object where the schema has an array (or the reverse): the missing-field walk
    # skips it and validation names it.
    d = raw_doc()
    d[key] = value
    with pytest.raises(StatsError) as e:
        parse_stats(d)
    assert str(e.value) == message


def test_missing_and_invalid_fields_are_named_together() -> None:
    d = raw_doc()
    del d["statfs"]["allocated"]
    d["io"]["crc_errors"] = "many"
    with pytest.raises(StatsError) as e:
        parse_stats(d)
    assert str(e.value) == ("stats: missing field(s) statfs.allocated; "
                            "io.crc_errors: value is not a valid integer")


def test_format_validation_error_names_every_field_with_the_prefix() -> None:
    d = raw_doc()
    d["statfs"]["total"] = -1
    del d["name"]
    with pytest.raises(ValidationError) as e:
        StatsDoc.parse_obj(d)
    assert format_validation_error(e.value) == (
        "name: field required; statfs.total: ensure this value is greater than or equal to 0")
    assert format_validation_error(e.value, "demo-a: ") == (
        "demo-a: name: field required; "
        "demo-a: statfs.total: ensure this value is greater than or equal to 0")
