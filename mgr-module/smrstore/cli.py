"""Text and JSON answers of the ``ceph smrstore ...`` commands, from the views."""

import json
from typing import Any, List, Optional, Sequence

from pydantic import BaseModel

from . import views
from .auth import TokenRecord
from .stats import REALMMAP_CODES

FORMATS = ("plain", "json", "json-pretty")


class FormatError(ValueError):
    pass


def check_format(fmt: Optional[str]) -> str:
    f = fmt or "plain"
    if f not in FORMATS:
        raise FormatError(f"unknown format {f!r} (use plain, json or json-pretty)")
    return f


def to_json(obj: Any, fmt: str) -> str:
    def plain(o: Any) -> Any:
        if isinstance(o, BaseModel):
            return json.loads(o.json(by_alias=True))
        if isinstance(o, list):
            return [plain(x) for x in o]
        if isinstance(o, dict):
            return {k: plain(v) for k, v in o.items()}
        return o
    data = plain(obj)
    if fmt == "json-pretty":
        return json.dumps(data, indent=4, sort_keys=True)
    return json.dumps(data, separators=(",", ":"))


def iec(n: Optional[float]) -> str:
    if n is None:
        return "-"
    v = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(v) < 1024 or unit == "PiB":
            return f"{v:.0f} {unit}" if unit == "B" else f"{v:.1f} {unit}"
        v /= 1024
    return f"{v:.1f} PiB"


def wa(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.3f}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    cols: List[Sequence[str]] = [header] + [list(r) for r in rows]
    widths = [max(len(str(r[i])) for r in cols) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in cols]
    return "\n".join(lines)


def status_text(s: views.Summary, ds: List[views.DaemonSummary]) -> str:
    out = [f"smrstore: {s.daemons} daemon(s) ({s.stale_daemons} stale), {s.drives} drive(s)",
           f"  capacity {iec(s.capacity_bytes)}, stored {iec(s.stored_bytes)}, "
           f"available {iec(s.available_bytes)}",
           f"  lifetime: user {iec(s.user_bytes)}, device {iec(s.device_bytes)}, "
           f"GC {iec(s.gc_bytes)}, write amplification {wa(s.write_amplification)}"]
    if ds:
        out.append("")
        out.append(table(["DAEMON", "SOURCE", "DRIVES", "CAPACITY", "STORED", "AVAIL", "WA",
                          "WA(LIFE)", "GC", "AGE"],
                         [[d.name, d.source, str(d.drives), iec(d.capacity), iec(d.stored),
                           iec(d.available), wa(d.write_amplification),
                           wa(d.lifetime_write_amplification), "auto" if d.gc_auto else "off",
                           f"{d.age_seconds:.0f}s" + (" STALE" if d.stale else "")]
                          for d in ds]))
    for e in s.errors:
        out.append(f"unreadable: {e.name} ({e.source}): {e.message}")
    for c in s.health:
        out.append(f"health {c.name} ({c.severity}): {c.summary}")
    return "\n".join(out)


def zones_text(zs: List[views.DriveZones], width: int = 64) -> str:
    out: List[str] = []
    for z in zs:
        geo = (f"{z.nr_zones} zones of {iec(z.zone_size)}" if z.nr_zones is not None
               else "geometry unknown")
        r = z.reported
        out.append(f"{z.daemon} drive {z.index}: {geo}; free {r.free}, open {r.open}, "
                   f"sealed {r.sealed}, reserved {r.reserved}, offline {r.offline}, "
                   f"read-only {r.readonly}"
                   + (f", inactive {r.inactive}" if r.inactive else ""))
        if not z.available:
            out.append(f"  (no zone map: {z.zonemap_error or 'none reported'})")
            continue
        for i in range(0, len(z.zonemap), width):
            out.append(f"  {i:>6}  {z.zonemap[i:i + width]}")
    out.append("legend: # reserved  . free  A-K open / a-k sealed (live 0-100 %)  "
               "X offline  ! read-only  = conventional  _ inactive (hybrid)")
    return "\n".join(out)


def wa_text(ds: List[views.DaemonSummary], hist: views.HistoryOut) -> str:
    rows = []
    by_name = {s.daemon: s.points for s in hist.series}
    for d in ds:
        pts = by_name.get(d.name, [])
        recent = next((p.write_amplification for p in reversed(pts)
                       if p.write_amplification is not None), None)
        rows.append([d.name, wa(d.write_amplification), wa(d.lifetime_write_amplification),
                     wa(recent), str(len(pts))])
    return table(["DAEMON", "WA(MOUNT)", "WA(LIFE)", "WA(LAST INTERVAL)", "SAMPLES"], rows)


def gc_text(g: views.GcOut) -> str:
    rows = []
    for d in g.daemons:
        r = d.rates
        rows.append([d.daemon, "auto" if d.auto else "off", str(d.runs), str(d.zones_reset),
                     iec(d.live_moved), iec(d.lifetime_gc_bytes), f"{d.throttle_ns / 1e9:.1f}s",
                     "-" if d.failures is None else str(d.failures),
                     "-" if d.quarantined_zones is None else str(d.quarantined_zones),
                     str(d.free_zones),
                     "-" if r is None else f"{r.zones_reset_per_s * 60:.1f}/min",
                     "-" if r is None else f"{iec(r.gc_bytes_per_s)}/s",
                     "-" if r is None else f"{r.throttle_fraction * 100:.0f}%"])
    return table(["DAEMON", "GC", "RUNS", "ZONES_RESET", "MOVED", "GC_BYTES", "THROTTLE",
                  "FAILURES", "QUARANTINED", "FREE_ZONES", f"RESETS({g.window}s)", "GC_RATE", "THROTTLED"], rows)


def _ms(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:g}"


def _realms(c: views.ConversionDrive) -> str:
    if not c.supported or c.realms_cmr is None or c.realms_smr is None:
        return "-"
    return f"{c.realms_cmr}C/{c.realms_smr}S"


def conversion_text(cs: List[views.ConversionDrive]) -> str:
    """The hybrid drives' table (every drive: non-hybrid ones say 'no'), then each hybrid
    drive's realm map with the legend of the schema's x-realmmap-codes, and stall reasons."""
    rows = [[c.daemon, str(c.drive), "yes" if c.supported else "no", c.state,
             iec(c.cmr_bytes), iec(c.smr_bytes), _realms(c),
             "-" if c.progress is None else f"{c.progress * 100:.0f}%",
             iec(c.quantum_bytes) if c.supported else "-",
             f"{_ms(c.quantum_ms_p99)}/{_ms(c.quantum_ms_max)}" if c.supported else "-",
             "-" if c.latency_bound_ms is None else f"{c.latency_bound_ms:g} ms",
             "-" if c.bound_violations is None or not c.supported
             else str(c.bound_violations) + (" OVER" if c.bound_exceeded else "")]
            for c in cs]
    out = [table(["DAEMON", "DRIVE", "HYBRID", "STATE", "CMR", "SMR", "REALMS", "PROGRESS",
                  "QUANTUM", "P99/MAX_MS", "LATENCY_BOUND", "VIOL"], rows)]
    maps = [c for c in cs if c.supported and c.realmmap]
    if maps:
        legend = "  ".join(f"{ch} {code.label}" for ch, code in REALMMAP_CODES.items())
        out.append("")
        out.append(f"realms ({legend}):")
        for c in maps:
            pending = f"  ({c.realms_pending} pending)" if c.realms_pending else ""
            out.append(f"  {c.daemon} drive {c.drive}: {c.realmmap}{pending}")
    for c in cs:
        if c.stall_reason:
            out.append(f"stalled: {c.daemon} drive {c.drive}: {c.stall_reason}")
    return "\n".join(out)


def tokens_text(ts: List[TokenRecord]) -> str:
    import time
    return table(["NAME", "CREATED"],
                 [[t.name, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t.created))]
                  for t in ts])
