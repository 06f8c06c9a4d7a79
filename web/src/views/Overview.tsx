import { useDaemons, useSummary } from "../api/queries";
import type { DaemonSummary, HealthCheck, Summary } from "../api/client";
import { QueryState } from "../components/QueryState";
import { Badge, Stat } from "../components/Stat";
import { formatAge, formatBytes, formatPercent, formatWa, ratio } from "../lib/format";
import { routeHref } from "../lib/route";

export function HealthList({ checks }: { checks: HealthCheck[] }) {
  if (checks.length === 0) {
    return (
      <p className="health-ok">
        <Badge tone="ok">OK</Badge> no smrstore health checks raised
      </p>
    );
  }
  return (
    <ul className="health-list">
      {checks.map((c) => (
        <li key={c.name}>
          <Badge tone={c.severity === "error" ? "err" : "warn"}>{c.severity}</Badge> <code>{c.name}</code>{" "}
          {c.summary}
          {c.detail.length > 0 ? (
            <ul>
              {c.detail.map((d, i) => (
                <li key={i}>{d}</li>
              ))}
            </ul>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

function SummaryCards({ s }: { s: Summary }) {
  return (
    <>
      <div className="stats">
        <Stat
          label="daemons"
          value={s.daemons}
          hint={s.stale_daemons > 0 ? <Badge tone="warn">{s.stale_daemons} stale</Badge> : "all reporting"}
        />
        <Stat label="drives" value={s.drives} />
        <Stat label="capacity" value={formatBytes(s.capacity_bytes)} />
        <Stat
          label="stored"
          value={formatBytes(s.stored_bytes)}
          hint={formatPercent(ratio(s.stored_bytes, s.capacity_bytes))}
        />
        <Stat label="available" value={formatBytes(s.available_bytes)} />
        <Stat label="cluster WA (lifetime)" value={formatWa(s.write_amplification)} hint="device / user bytes" />
        <Stat label="GC bytes (lifetime)" value={formatBytes(s.gc_bytes)} />
      </div>
      <h2>Health</h2>
      <HealthList checks={s.health} />
      {s.errors.length > 0 ? (
        <div className="state state-error" role="alert">
          <strong>Unreadable daemon status</strong>
          <ul>
            {s.errors.map((e) => (
              <li key={`${e.source}/${e.name}`}>
                <code>{e.name}</code> ({e.source}): {e.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}

/** Where a store runs: inside a Ceph OSD (objectstore smrstore) or as smrstore-tool serve. */
export function SourceBadge({ source }: { source: string }) {
  return source === "osd" ? (
    <span className="badge badge-osd" title="a Ceph OSD whose objectstore is smrstore">
      OSD
    </span>
  ) : (
    <span className="badge badge-muted" title="a store run by smrstore-tool serve --publish (librados service daemon)">
      {source}
    </span>
  );
}

export function DaemonTable({ daemons, now }: { daemons: DaemonSummary[]; now: number }) {
  return (
    <table className="table" data-testid="daemon-table">
      <thead>
        <tr>
          <th>daemon</th>
          <th>source</th>
          <th>updated</th>
          <th>drives</th>
          <th>capacity</th>
          <th>stored</th>
          <th>available</th>
          <th>free zones</th>
          <th>user / device (since mount)</th>
          <th>WA (since mount)</th>
          <th>WA (lifetime)</th>
          <th>GC</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {daemons.map((d) => (
          <tr key={d.name} data-daemon={d.name} data-source={d.source}>
            <td>
              <a href={routeHref({ view: "daemon", daemon: d.name })}>{d.name}</a>
            </td>
            <td>
              <SourceBadge source={d.source} />
            </td>
            <td>
              {formatAge(d.last_update, now)} {d.stale ? <Badge tone="warn">stale</Badge> : null}
            </td>
            <td>{d.drives}</td>
            <td>{formatBytes(d.capacity)}</td>
            <td>{formatBytes(d.stored)}</td>
            <td>{formatBytes(d.available)}</td>
            <td data-testid="free-zones" data-value={d.free_zones}>
              {d.free_zones}
            </td>
            <td>
              {formatBytes(d.user_bytes)} / {formatBytes(d.device_bytes)}
            </td>
            <td data-testid="wa" data-value={d.write_amplification}>
              {formatWa(d.write_amplification)}
            </td>
            <td>{formatWa(d.lifetime_write_amplification)}</td>
            <td>
              {d.gc_auto ? <Badge tone="ok">auto</Badge> : <Badge tone="muted">manual</Badge>}{" "}
              <span className="muted">{d.gc_runs} runs</span>
            </td>
            <td>
              <a href={routeHref({ view: "zones", daemon: d.name, drive: 0 })}>zones</a> ·{" "}
              <a href={routeHref({ view: "wa", daemon: d.name })}>WA</a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Overview() {
  const summary = useSummary();
  const daemons = useDaemons();
  const now = summary.data?.time ?? Date.now() / 1000;
  return (
    <section>
      <h1>Cluster overview</h1>
      <QueryState query={summary} what="the cluster summary">
        {(s) => <SummaryCards s={s} />}
      </QueryState>
      <h2>Daemons</h2>
      <QueryState
        query={daemons}
        what="daemons"
        empty={(ds) =>
          ds.length === 0 ? (
            <>
              No smrstore daemons report to this manager yet (no <code>smrstore</code> service daemons and no OSD
              whose objectstore is smrstore).
            </>
          ) : null
        }
      >
        {(ds) => <DaemonTable daemons={ds} now={now} />}
      </QueryState>
    </section>
  );
}
