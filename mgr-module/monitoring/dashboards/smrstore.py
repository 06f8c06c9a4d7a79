#!/usr/bin/python3
"""Generates the Grafana dashboard smrstore.json (ceph-mixin's style) from the panel list below.

    dashboards/smrstore.py            # rewrite smrstore.json
    dashboards/smrstore.py --check    # exit 1 if smrstore.json differs from what this generates

The JSON is what Grafana imports and what monitoring/check.sh and live_check.sh check; this
file only keeps its ids, grid positions and datasource references consistent. Every query
reads metrics of mgr-module/smrstore/prometheus.py only (check.sh fails on any other
`smrstore_*` name), filtered by the template variables $daemon (osd.N or a service daemon,
multi) and, for per-drive metrics, $drive.
"""

import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

OUT = Path(__file__).resolve().with_name("smrstore.json")
DS: Dict[str, str] = {"type": "prometheus", "uid": "${datasource}"}
D = 'daemon=~"$daemon"'
DD = 'daemon=~"$daemon", drive=~"$drive"'
RI = "$__rate_interval"
# statfs writable (what users can still write), available from a daemon without it: what
# the space alerts judge (monitoring/alerts.yml).
W = f"smrstore_statfs_writable_bytes{{{D}}} or smrstore_statfs_available_bytes{{{D}}}"

Target = Tuple[str, str]          # (expr, legendFormat)
Panel = Dict[str, Any]


class Board:
    def __init__(self) -> None:
        self.panels: List[Panel] = []
        self.y = 0
        self.x = 0
        self.row_h = 0
        self.next_id = 1

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def row(self, title: str) -> None:
        if self.x:
            self.y += self.row_h
        self.x, self.row_h = 0, 0
        self.panels.append({"collapsed": False, "gridPos": {"h": 1, "w": 24, "x": 0, "y": self.y},
                            "id": self._id(), "panels": [], "title": title, "type": "row"})
        self.y += 1

    def _place(self, w: int, h: int) -> Dict[str, int]:
        if self.x + w > 24:
            self.y += self.row_h
            self.x, self.row_h = 0, 0
        pos = {"h": h, "w": w, "x": self.x, "y": self.y}
        self.x += w
        self.row_h = max(self.row_h, h)
        return pos

    def panel(self, kind: str, title: str, description: str, targets: List[Target], unit: str,
              w: int = 8, h: int = 8, thresholds: Optional[List[Tuple[str, Optional[float]]]] = None,
              mappings: Optional[List[Dict[str, Any]]] = None, stack: bool = False,
              decimals: Optional[int] = None, minv: Optional[float] = None,
              maxv: Optional[float] = None) -> None:
        steps = [{"color": c, "value": v} for c, v in (thresholds or [("green", None)])]
        defaults: Dict[str, Any] = {"unit": unit, "mappings": mappings or [],
                                    "thresholds": {"mode": "absolute", "steps": steps}}
        if decimals is not None:
            defaults["decimals"] = decimals
        if minv is not None:
            defaults["min"] = minv
        if maxv is not None:
            defaults["max"] = maxv
        options: Dict[str, Any]
        if kind == "timeseries":
            defaults["color"] = {"mode": "palette-classic"}
            defaults["custom"] = {
                "drawStyle": "line", "lineWidth": 1, "fillOpacity": 30 if stack else 10,
                "showPoints": "never", "spanNulls": False,
                "stacking": {"group": "A", "mode": "normal" if stack else "none"},
                "thresholdsStyle": {"mode": "line" if thresholds else "off"}}
            options = {"legend": {"calcs": ["lastNotNull", "max"], "displayMode": "table",
                                  "placement": "bottom"},
                       "tooltip": {"mode": "multi", "sort": "desc"}}
        elif kind == "stat":
            defaults["color"] = {"mode": "thresholds"}
            options = {"colorMode": "value", "graphMode": "area", "justifyMode": "auto",
                       "orientation": "auto", "textMode": "auto",
                       "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}}
        elif kind == "bargauge":
            defaults["color"] = {"mode": "thresholds"}
            options = {"displayMode": "gradient", "orientation": "horizontal", "showUnfilled": True,
                       "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}}
        elif kind == "state-timeline":
            defaults["color"] = {"mode": "thresholds"}
            defaults["custom"] = {"fillOpacity": 70, "lineWidth": 0}
            options = {"mergeValues": True, "showValue": "auto", "rowHeight": 0.9,
                       "legend": {"displayMode": "list", "placement": "bottom"}}
        else:
            raise ValueError(kind)
        self.panels.append({
            "datasource": DS,
            "description": description,
            "fieldConfig": {"defaults": defaults, "overrides": []},
            "gridPos": self._place(w, h),
            "id": self._id(),
            "options": options,
            "targets": [{"datasource": DS, "expr": e, "interval": "", "legendFormat": lf,
                         "refId": chr(ord("A") + i), "instant": False, "range": True}
                        for i, (e, lf) in enumerate(targets)],
            "title": title,
            "type": kind,
        })


UPDOWN = [{"type": "value", "options": {"0": {"text": "STALE", "color": "red", "index": 0},
                                        "1": {"text": "UP", "color": "green", "index": 1}}}]
ONOFF = [{"type": "value", "options": {"0": {"text": "off", "color": "orange", "index": 0},
                                       "1": {"text": "on", "color": "green", "index": 1}}}]


def build() -> Dict[str, Any]:
    b = Board()
    # --- cluster ------------------------------------------------------------------------
    b.row("Cluster")
    b.panel("stat", "Daemons reporting", "smrstore daemons (OSDs on smrstore and service daemons) "
            "whose stats are fresh (smrstore_up == 1, the module's stale_seconds).",
            [(f"sum(smrstore_up{{{D}}})", "up")], "none", w=4, h=4)
    b.panel("stat", "Daemons stale", "Daemons whose last stats are older than the module's "
            "stale_seconds (alert SMRStoreDaemonStale after 1m).",
            [(f"count(smrstore_up{{{D}}}) - sum(smrstore_up{{{D}}})", "stale")], "none", w=4, h=4,
            thresholds=[("green", None), ("red", 1)])
    b.panel("stat", "Capacity", "statfs total of the selected daemons.",
            [(f"sum(smrstore_statfs_total_bytes{{{D}}})", "total")], "bytes", w=4, h=4)
    b.panel("stat", "Writable", "statfs writable / total: what users can still write, counting "
            "what GC can really give back (available from a daemon that does not report "
            "writable; alerts SMRStoreSpaceLow below 10 %, SMRStoreSpaceCritical below 5 %).",
            [(f"sum({W}) / sum(smrstore_statfs_total_bytes{{{D}}})",
              "writable")], "percentunit", w=4, h=4,
            thresholds=[("red", None), ("orange", 0.05), ("green", 0.10)])
    b.panel("stat", "Write amplification", "Device bytes / user bytes written over the rate "
            "interval, all selected daemons (empty or NaN while nobody writes).",
            [(f"sum(rate(smrstore_device_bytes_total{{{D}}}[{RI}])) / "
              f"sum(rate(smrstore_user_bytes_total{{{D}}}[{RI}]))", "WA")], "none", w=4, h=4,
            decimals=2, thresholds=[("green", None), ("orange", 2), ("red", 3)])
    b.panel("stat", "Quarantined zones", "Zones GC quarantined after a failed cleaning "
            "(alert SMRStoreZonesQuarantined).",
            [(f"sum(smrstore_gc_quarantined_zones{{{D}}})", "quarantined")], "none", w=4, h=4,
            thresholds=[("green", None), ("orange", 1)])

    # --- daemons ------------------------------------------------------------------------
    b.row("Daemons (OSDs and service daemons)")
    b.panel("state-timeline", "Daemon up", "1 while the daemon's stats are fresh, 0 when stale "
            "(smrstore_up). A daemon gone from the module's view has no series.",
            [(f"smrstore_up{{{D}}}", "{{daemon}}")], "none", w=8, h=8, mappings=UPDOWN,
            thresholds=[("red", None), ("green", 1)])
    b.panel("timeseries", "Seconds since last stats", "Age of each daemon's newest stats "
            "snapshot (an OSD's perf counters as the mgr received them).",
            [(f"time() - smrstore_last_update_seconds{{{D}}}", "{{daemon}}")], "s", w=8, h=8)
    b.panel("state-timeline", "Background GC", "smrstore_gc_auto: background GC on or off "
            "(ceph tell osd.N smrstore gc start|stop).",
            [(f"smrstore_gc_auto{{{D}}}", "{{daemon}}")], "none", w=8, h=8, mappings=ONOFF,
            thresholds=[("orange", None), ("green", 1)])
    b.panel("timeseries", "Space used", "1 - statfs writable / total per daemon (available "
            "from a daemon that does not report writable).",
            [(f"1 - ({W}) / smrstore_statfs_total_bytes{{{D}}}",
              "{{daemon}}")], "percentunit", w=8, h=8, minv=0, maxv=1,
            thresholds=[("green", None), ("orange", 0.90), ("red", 0.95)])
    b.panel("timeseries", "Free-space forecast: available now and in 7 days",
            "statfs available bytes, and predict_linear over the last 6 h extrapolated 7 days "
            "ahead (below 0: full within a week at the current rate).",
            [(f"smrstore_statfs_available_bytes{{{D}}}", "{{daemon}} now"),
             (f"predict_linear(smrstore_statfs_available_bytes{{{D}}}[6h], 7 * 86400)",
              "{{daemon}} in 7 d")], "bytes", w=8, h=8)
    b.panel("bargauge", "Days until full (linear, 6 h)",
            "available bytes / the rate they shrank at over the last 6 h (deriv), in days; a "
            "store that is not filling shows available / (1 B/s), i.e. very large.",
            [(f"smrstore_statfs_available_bytes{{{D}}} / "
              f"clamp_min(-deriv(smrstore_statfs_available_bytes{{{D}}}[6h]), 1) / 86400",
              "{{daemon}}")], "d", w=8, h=8, decimals=1,
            thresholds=[("red", None), ("orange", 7), ("green", 30)])

    # --- write amplification and I/O ---------------------------------------------------
    b.row("Write amplification and I/O")
    b.panel("timeseries", "Write amplification (rate)",
            "rate(device bytes) / rate(user bytes) per daemon over the rate interval (alert "
            "SMRStoreWriteAmplificationHigh: above 3 over 1 h).",
            [(f"rate(smrstore_device_bytes_total{{{D}}}[{RI}]) / "
              f"rate(smrstore_user_bytes_total{{{D}}}[{RI}])", "{{daemon}}")], "none", w=8,
            decimals=2, thresholds=[("green", None), ("red", 3)])
    b.panel("timeseries", "Write amplification (since mount, lifetime)",
            "The daemons' own figures: device / user bytes since mount and over the store's "
            "lifetime (an OSD's lifetime figure is its since-start one).",
            [(f"smrstore_write_amplification{{{D}}}", "{{daemon}} since mount"),
             (f"smrstore_lifetime_write_amplification{{{D}}}", "{{daemon}} lifetime")],
            "none", w=8, decimals=2)
    b.panel("timeseries", "Bytes written", "User bytes, device bytes (all records the store "
            "wrote) and GC relocation bytes per second.",
            [(f"rate(smrstore_user_bytes_total{{{D}}}[{RI}])", "{{daemon}} user"),
             (f"rate(smrstore_device_bytes_total{{{D}}}[{RI}])", "{{daemon}} device"),
             (f"rate(smrstore_gc_bytes_total{{{D}}}[{RI}])", "{{daemon}} GC")], "Bps", w=8)
    b.panel("timeseries", "Transactions", "Transactions committed per second.",
            [(f"rate(smrstore_txns_total{{{D}}}[{RI}])", "{{daemon}}")], "ops", w=8)
    b.panel("timeseries", "Checksum errors", "Checksum errors on read over the last hour "
            "(each is returned as an error, never as data).",
            [(f"increase(smrstore_crc_errors_total{{{D}}}[1h])", "{{daemon}}")], "none", w=8,
            thresholds=[("green", None), ("red", 1)])
    b.panel("timeseries", "Data reads", "Device reads of object data per second.",
            [(f"rate(smrstore_data_reads_total{{{D}}}[{RI}])", "{{daemon}}")], "ops", w=8)

    # --- GC -----------------------------------------------------------------------------
    b.row("Zone GC")
    b.panel("timeseries", "Zones reset by GC", "Zones GC cleaned and reset, per second.",
            [(f"rate(smrstore_gc_zones_reset_total{{{D}}}[{RI}])", "{{daemon}}")], "ops", w=8)
    b.panel("timeseries", "Live bytes moved by GC", "Live bytes GC relocated out of its "
            "victims, per second.",
            [(f"rate(smrstore_gc_live_moved_total{{{D}}}[{RI}])", "{{daemon}}")], "Bps", w=8)
    b.panel("timeseries", "GC throttled", "Fraction of time GC was throttled (alert "
            "SMRStoreGCThrottled above 0.5 for 10m).",
            [(f"rate(smrstore_gc_throttle_seconds_total{{{D}}}[{RI}])", "{{daemon}}")],
            "percentunit", w=8, thresholds=[("green", None), ("red", 0.5)])
    b.panel("timeseries", "GC runs", "GC runs per second.",
            [(f"rate(smrstore_gc_runs_total{{{D}}}[{RI}])", "{{daemon}}")], "ops", w=8)
    b.panel("timeseries", "Quarantined zones and failed cleanings",
            "Zones GC quarantined now, and GC cleanings that failed and were rolled back over "
            "the last hour (a media problem: doc/operations.md).",
            [(f"smrstore_gc_quarantined_zones{{{D}}}", "{{daemon}} quarantined"),
             (f"increase(smrstore_gc_failures_total{{{D}}}[1h])", "{{daemon}} failures 1h")],
            "none", w=8, thresholds=[("green", None), ("orange", 1)])
    b.panel("timeseries", "Pinned zones", "Data zones pinned by metadata-journal records "
            "until the next checkpoint.",
            [(f"smrstore_gc_pinned_zones{{{D}}}", "{{daemon}}")], "none", w=8)

    # --- drives -------------------------------------------------------------------------
    b.row("Drives")
    b.panel("timeseries", "Zones by state", "Zones of each selected drive by zone-map state "
            "(reserved, free, open, sealed, offline, readonly, conventional, inactive), stacked.",
            [(f"sum by (daemon, drive, state) (smrstore_drive_zones{{{DD}}})",
              "{{daemon}} d{{drive}} {{state}}")], "none", w=12, h=9, stack=True)
    b.panel("timeseries", "Free zones", "Free zones per drive (alert SMRStoreGCBehind below 4 "
            "while GC runs).",
            [(f'smrstore_drive_zones{{{DD}, state="free"}}', "{{daemon}} d{{drive}}")], "none",
            w=6, h=9, thresholds=[("red", None), ("green", 4)])
    b.panel("timeseries", "Offline and read-only zones", "Zones the drive reports offline or "
            "read-only (health checks SMRSTORE_ZONE_OFFLINE / _READONLY).",
            [(f'smrstore_drive_zones{{{DD}, state=~"offline|readonly"}}',
              "{{daemon}} d{{drive}} {{state}}")], "none", w=6, h=9,
            thresholds=[("green", None), ("red", 1)])
    b.panel("timeseries", "Drive written and live", "Bytes below the write pointers and live "
            "bytes, as fractions of the drive's data capacity; the gap is what GC can reclaim.",
            [(f"smrstore_drive_written_bytes{{{DD}}} / smrstore_drive_capacity_bytes{{{DD}}}",
              "{{daemon}} d{{drive}} written"),
             (f"smrstore_drive_live_bytes{{{DD}}} / smrstore_drive_capacity_bytes{{{DD}}}",
              "{{daemon}} d{{drive}} live")], "percentunit", w=12, minv=0, maxv=1)
    b.panel("timeseries", "Reclaimable bytes", "Written - live bytes per drive: dead records "
            "GC can give back.",
            [(f"smrstore_drive_written_bytes{{{DD}}} - smrstore_drive_live_bytes{{{DD}}}",
              "{{daemon}} d{{drive}}")], "bytes", w=12)

    # --- hybrid conversion -----------------------------------------------------------------
    b.row("Hybrid conversion (hybrid drives only)")
    b.panel("state-timeline", "Conversion state", "The hybrid drive's conversion state "
            "(idle, converting, stalled; alert SMRStoreConversionStalled).",
            [(f"smrstore_drive_conversion_state{{{DD}}} == 1", "{{daemon}} d{{drive}} {{state}}")],
            "none", w=8)
    b.panel("timeseries", "Conversion progress", "Progress of the realm conversion (0..1).",
            [(f"smrstore_drive_conversion_progress{{{DD}}}", "{{daemon}} d{{drive}}")],
            "percentunit", w=8, minv=0, maxv=1)
    b.panel("timeseries", "Realms", "Realms per active domain, and realms being emptied or "
            "converted now.",
            [(f"smrstore_drive_realms{{{DD}}}", "{{daemon}} d{{drive}} {{domain}}"),
             (f"smrstore_drive_realms_pending{{{DD}}}", "{{daemon}} d{{drive}} pending")],
            "none", w=8)
    b.panel("timeseries", "Migration quantum p99 vs bound",
            "p99 and max duration of the store's recent migration quanta against the latency "
            "bound (alert SMRStoreConversionOverBound: p99 above the bound for 5m). Absent "
            "until a quantum ran.",
            [(f"smrstore_drive_conversion_quantum_ms_p99{{{DD}}}", "{{daemon}} d{{drive}} p99"),
             (f"smrstore_drive_conversion_quantum_ms_max{{{DD}}}", "{{daemon}} d{{drive}} max"),
             (f"smrstore_drive_conversion_latency_bound_ms{{{DD}}}", "{{daemon}} d{{drive}} bound")],
            "ms", w=8)
    b.panel("timeseries", "Migration", "Live bytes moved out of converting realms per second, "
            "and the size of the next quantum.",
            [(f"rate(smrstore_drive_conversion_migrated_bytes_total{{{DD}}}[{RI}])",
              "{{daemon}} d{{drive}} moved/s"),
             (f"smrstore_drive_conversion_quantum_bytes{{{DD}}}", "{{daemon}} d{{drive}} quantum")],
            "bytes", w=8)
    b.panel("timeseries", "CMR and SMR capacity, conversions, bound violations",
            "Capacity of the CMR and SMR realms; conversions completed and quanta over the bound "
            "in the last hour.",
            [(f"smrstore_drive_cmr_bytes{{{DD}}}", "{{daemon}} d{{drive}} CMR bytes"),
             (f"smrstore_drive_smr_bytes{{{DD}}}", "{{daemon}} d{{drive}} SMR bytes"),
             (f"increase(smrstore_drive_conversions_total{{{DD}}}[1h])",
              "{{daemon}} d{{drive}} conversions 1h"),
             (f"increase(smrstore_drive_conversion_bound_violations_total{{{DD}}}[1h])",
              "{{daemon}} d{{drive}} violations 1h")], "bytes", w=8)

    def var(name: str, label: str, query: str, multi: bool) -> Dict[str, Any]:
        return {"allValue": ".*", "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
                "datasource": DS, "definition": query, "hide": 0, "includeAll": True,
                "label": label, "multi": multi, "name": name, "options": [],
                "query": {"query": query, "refId": f"{name}-query"}, "refresh": 2,
                "regex": "", "skipUrlSync": False, "sort": 3, "type": "query"}

    return {
        "__inputs": [],
        "annotations": {"list": [{
            "builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"},
            "enable": True, "hide": True, "iconColor": "rgba(0, 211, 255, 1)",
            "name": "Annotations & Alerts", "type": "dashboard"}]},
        "description": "smrstore (zone-native Ceph ObjectStore for SMR drives): zones, write "
                       "amplification, GC, hybrid conversion, free-space forecast, per daemon "
                       "and drive, from the smrstore ceph-mgr module's /metrics.",
        "editable": True,
        "fiscalYearStartMonth": 0,
        "graphTooltip": 1,
        "links": [],
        "liveNow": False,
        "panels": b.panels,
        "refresh": "30s",
        "schemaVersion": 36,
        "style": "dark",
        "tags": ["ceph-mixin", "smrstore"],
        "templating": {"list": [
            {"current": {"selected": False, "text": "default", "value": "default"},
             "hide": 0, "includeAll": False, "label": "Data Source", "multi": False,
             "name": "datasource", "options": [], "query": "prometheus", "refresh": 1,
             "regex": "", "skipUrlSync": False, "type": "datasource"},
            var("daemon", "Daemon", "label_values(smrstore_up, daemon)", True),
            var("drive", "Drive", 'label_values(smrstore_drive_zones{daemon=~"$daemon"}, drive)', True),
        ]},
        "time": {"from": "now-6h", "to": "now"},
        "timepicker": {"refresh_intervals": ["10s", "30s", "1m", "5m", "15m", "30m", "1h"]},
        "timezone": "",
        "title": "smrstore",
        "uid": "smrstore-overview",
        "version": 1,
        "weekStart": "",
    }


def render() -> str:
    return json.dumps(build(), indent=2, sort_keys=False) + "\n"


def main(argv: List[str]) -> int:
    text = render()
    if argv[1:] == ["--check"]:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is stale: run {Path(__file__).name} to regenerate it", file=sys.stderr)
            return 1
        return 0
    if argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
