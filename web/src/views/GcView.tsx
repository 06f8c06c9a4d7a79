import { useState } from "react";
import { useGc, useHistory } from "../api/queries";
import type { GcDaemon } from "../api/client";
import { QueryState } from "../components/QueryState";
import { Badge } from "../components/Stat";
import { TimeChart } from "../components/TimeChart";
import { WindowPicker } from "../components/WindowPicker";
import { gcRows } from "../lib/charts";
import { formatBytes, formatCount, formatNs, formatPercent, formatRate } from "../lib/format";

/** Zones GC quarantined after a failed cleaning: a media problem (SMRSTORE_GC_QUARANTINE).
 * null/undefined: the daemon does not report it (an older OSD library or publisher). */
function quarantined(d: GcDaemon): boolean {
  return (d.quarantined_zones ?? 0) > 0;
}

function GcTable({ daemons }: { daemons: GcDaemon[] }) {
  return (
    <table className="table" data-testid="gc-table">
      <thead>
        <tr>
          <th>daemon</th>
          <th>auto GC</th>
          <th>runs</th>
          <th>zones reclaimed</th>
          <th>bytes relocated</th>
          <th>GC bytes (lifetime)</th>
          <th>throttled</th>
          <th title="GC cleanings since mount that failed and were rolled back">failures</th>
          <th title="zones GC leaves out of its victims after a failed cleaning (SMRSTORE_GC_QUARANTINE)">quarantined</th>
          <th>free zones</th>
          <th>GC rate</th>
          <th>user rate</th>
          <th>throttled share</th>
        </tr>
      </thead>
      <tbody>
        {daemons.map((d) => (
          <tr key={d.daemon}>
            <td>{d.daemon}</td>
            <td>{d.auto ? <Badge tone="ok">on</Badge> : <Badge tone="muted">off</Badge>}</td>
            <td>{formatCount(d.runs)}</td>
            <td>{formatCount(d.zones_reset)}</td>
            <td>{formatBytes(d.bytes_written ?? null)}</td>
            <td>{formatBytes(d.lifetime_gc_bytes)}</td>
            <td>{formatNs(d.throttle_ns)}</td>
            <td data-testid="gc-failures">{formatCount(d.failures)}</td>
            <td data-testid="gc-quarantined" data-warn={quarantined(d) ? "true" : undefined}>
              {quarantined(d) ? (
                <Badge tone="warn">{formatCount(d.quarantined_zones)}</Badge>
              ) : (
                formatCount(d.quarantined_zones)
              )}
            </td>
            <td>{formatCount(d.free_zones)}</td>
            <td>{d.rates ? formatRate(d.rates.gc_bytes_per_s) : "–"}</td>
            <td>{d.rates ? formatRate(d.rates.user_bytes_per_s) : "–"}</td>
            <td>{d.rates ? formatPercent(d.rates.throttle_fraction) : "–"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function QuarantineNote({ daemons }: { daemons: GcDaemon[] }) {
  const hit = daemons.filter(quarantined);
  if (hit.length === 0) return null;
  const zones = hit.reduce((n, d) => n + (d.quarantined_zones ?? 0), 0);
  return (
    <p className="muted" data-testid="gc-quarantine-note">
      <Badge tone="warn">SMRSTORE_GC_QUARANTINE</Badge> {formatCount(zones)} zone{zones === 1 ? "" : "s"} quarantined on{" "}
      {hit.map((d) => d.daemon).join(", ")}: GC failed to clean them (read, checksum or write error) and rolled back. Check the
      drives and run a deep fsck; GC retries a quarantined zone later.
    </p>
  );
}

export function GcView() {
  const [window, setWindow] = useState(900);
  const gc = useGc(Math.min(window, 3600));
  const history = useHistory(null, window);
  return (
    <section>
      <h1>Garbage collection</h1>
      <div className="controls">
        <WindowPicker value={window} onChange={setWindow} />
      </div>
      <p className="muted">Counters since each daemon mounted its store; rates over the last {Math.min(window, 3600) / 60} min.</p>
      <QueryState
        query={gc}
        what="GC state"
        empty={(g) => (g.daemons.length === 0 ? <>No smrstore daemons report GC state yet.</> : null)}
      >
        {(g) => (
          <>
            <GcTable daemons={g.daemons} />
            <QuarantineNote daemons={g.daemons} />
          </>
        )}
      </QueryState>
      <QueryState query={history} what="GC history" empty={(h) => (h.series.length === 0 ? <>No history yet.</> : null)}>
        {(h) => (
          <>
            {h.series.map((s) => {
              const rows = gcRows(s.points);
              return (
                <div key={s.daemon} className="chart-pair">
                  <h2>{s.daemon}</h2>
                  <TimeChart
                    title="bytes written per second: GC relocation vs user"
                    testId="gc-bytes-chart"
                    rows={rows}
                    series={[
                      { key: "gc_bps", label: "GC relocated", color: "#ea580c" },
                      { key: "user_bps", label: "user", color: "#2563eb", dashed: true },
                    ]}
                    format={(v) => formatRate(v)}
                  />
                  <TimeChart
                    title="zones reclaimed and GC runs per minute"
                    testId="gc-zones-chart"
                    rows={rows}
                    series={[
                      { key: "zones_per_min", label: "zones reset / min", color: "#16a34a" },
                      { key: "runs_per_min", label: "GC runs / min", color: "#9333ea", dashed: true },
                    ]}
                    format={(v) => v.toFixed(1)}
                  />
                  <TimeChart
                    title="share of time GC was throttled"
                    testId="gc-throttle-chart"
                    rows={rows}
                    series={[{ key: "throttle_fraction", label: "throttled", color: "#dc2626" }]}
                    format={(v) => formatPercent(v, 1)}
                    axisFormat={(v) => formatPercent(v, 0)}
                    yDomain={[0, 1]}
                  />
                </div>
              );
            })}
          </>
        )}
      </QueryState>
    </section>
  );
}
