import json

import pytest
from conftest import doc, drive, hybrid, osd_counters, status

from smrstore import cli, views
from smrstore.auth import TokenRecord
from smrstore.health import Thresholds, evaluate
from smrstore.history import History
from smrstore.model import OsdReading, merge


def snap():  # type: ignore[no-untyped-def]
    return merge(1001.0, {"demo-a": status(doc())}, {"osd.2": OsdReading(osd_counters())})


def test_format_checked() -> None:
    assert cli.check_format(None) == "plain"
    assert cli.check_format("json-pretty") == "json-pretty"
    with pytest.raises(cli.FormatError, match="unknown format 'xml'"):
        cli.check_format("xml")


def test_status_text_and_json() -> None:
    s = snap()
    summ = views.summary(s, evaluate(s, History(), Thresholds()), 30.0)
    ds = views.daemons(s, 30.0)
    text = cli.status_text(summ, ds)
    assert text.startswith("smrstore: 2 daemon(s) (0 stale), 4 drive(s)")
    assert "demo-a" in text and "osd.2" in text and "30.0 GiB" in text
    data = json.loads(cli.to_json({"summary": summ, "daemons": ds}, "json"))
    assert data["summary"]["daemons"] == 2 and data["daemons"][1]["source"] == "osd"
    pretty = cli.to_json(ds, "json-pretty")
    assert "\n    " in pretty and json.loads(pretty)[0]["name"] == "demo-a"


def test_zones_text() -> None:
    s = snap()
    zs = [views.drive_zones(s.daemons["demo-a"], 0), views.drive_zones(s.daemons["osd.2"], 0)]
    text = cli.zones_text([z for z in zs if z is not None], width=8)
    lines = text.splitlines()
    assert lines[0].startswith("demo-a drive 0: 16 zones of 256.0 MiB; free 6")
    assert lines[1] == "       0  #......A" and lines[2] == "       8  ekkkkkkk"
    assert "no zone map" in text and lines[-1].startswith("legend:")


def test_gc_wa_conversion_tokens_text() -> None:
    s = snap()
    assert "demo-a" in cli.gc_text(views.gc(s, History(), 60))
    assert "WA(LIFE)" in cli.wa_text(views.daemons(s, 30.0), views.history(History(), [], 60, 1.0))
    assert "none" in cli.conversion_text(views.conversion(s))
    assert "1970-01-01T00:00:05Z" in cli.tokens_text([TokenRecord("web", "00", "ab", 5.0)])
    assert cli.iec(None) == "-" and cli.iec(512) == "512 B" and cli.iec(3 << 30) == "3.0 GiB"


def test_gc_text_failures_and_quarantined_columns() -> None:
    s = merge(1001.0, {"demo-a": status(doc(gc_failures=3, quarantined_zones=1))},
              {"osd.2": OsdReading(osd_counters())})
    lines = cli.gc_text(views.gc(s, History(), 60)).splitlines()
    head = lines[0].split()
    assert head[7:9] == ["FAILURES", "QUARANTINED"]
    a = lines[1].split()
    o = lines[2].split()
    # iec() values take two words ("2.0 GiB"): count the columns from the end instead.
    assert a[0] == "demo-a" and a[-6:-4] == ["3", "1"]
    assert o[0] == "osd.2" and o[-6:-4] == ["0", "0"]      # the OSD's counters


def test_conversion_text_of_hybrid_drives() -> None:
    d0 = drive(0, hybrid=hybrid("CcSS>", violations=2, p99=150.0, qmax=400.5))
    d1 = drive(1, hybrid=hybrid("CS", state="stalled", progress=0.0, p99=10.0, qmax=20.0,
                                stall_reason="no room for realm 0's live data"))
    s = merge(1001.0, {"h": status(doc(name="h", drives=[d0, d1, drive(2)]))}, {})
    text = cli.conversion_text(views.conversion(s))
    lines = text.splitlines()
    assert lines[0].split() == ["DAEMON", "DRIVE", "HYBRID", "STATE", "CMR", "SMR", "REALMS",
                                "PROGRESS", "QUANTUM", "P99/MAX_MS", "LATENCY_BOUND", "VIOL"]
    assert [line.split() for line in lines[1:4]] == [
        ["h", "0", "yes", "converting", "128.0", "MiB", "160.0", "MiB", "3C/2S", "40%", "4.0",
         "MiB", "150/400.5", "100", "ms", "2", "OVER"],          # p99 over the bound
        ["h", "1", "yes", "stalled", "64.0", "MiB", "80.0", "MiB", "1C/1S", "0%", "4.0", "MiB",
         "10/20", "100", "ms", "0"],
        ["h", "2", "no", "none", "0", "B", "0", "B", "-", "0%", "-", "-", "-", "-"]]
    i = lines.index("") + 1
    assert lines[i] == ("realms (C CMR  S SMR  c CMR, emptying  s SMR, emptying  "
                        "> converting):")
    assert lines[i + 1:i + 3] == ["  h drive 0: CcSS>  (2 pending)", "  h drive 1: CS"]
    assert lines[-1] == "stalled: h drive 1: no room for realm 0's live data"


def test_conversion_text_without_hybrid_drives_has_no_realm_lines() -> None:
    text = cli.conversion_text(views.conversion(snap()))
    assert "realms (" not in text and "stalled:" not in text
    assert all(line.split()[2] == "no" for line in text.splitlines()[1:])


def test_zones_text_counts_and_explains_inactive_zones() -> None:
    zm = "##A.b___"
    d0 = drive(0, nr_zones=8, zonemap=zm, streams="--uu----", hybrid=hybrid("CS"))
    s = merge(1001.0, {"h": status(doc(name="h", drives=[d0]))}, {})
    z = views.drive_zones(s.daemons["h"], 0)
    assert z is not None
    text = cli.zones_text([z])
    assert text.splitlines()[0].endswith("read-only 0, inactive 3")
    assert "_ inactive (hybrid)" in text.splitlines()[-1]
    # A drive without inactive zones keeps the short line.
    assert cli.zones_text([views.drive_zones(snap().daemons["demo-a"], 0)]  # type: ignore[list-item]
                          ).splitlines()[0].endswith("read-only 0")
