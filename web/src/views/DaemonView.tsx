import { useDaemon } from "../api/queries";
import type { DaemonDetail } from "../api/client";
import { ApiError } from "../api/client";
import { Empty, ErrorBox, Loading } from "../components/QueryState";
import { Badge, Stat } from "../components/Stat";
import { formatAge, formatBytes, formatCount, formatNs, formatPercent, formatWa, ratio } from "../lib/format";
import { packFigures } from "../lib/pack";
import { readAheadFigures } from "../lib/readAhead";
import { readFigures } from "../lib/reads";
import { watermarkText } from "../lib/watermarks";
import { routeHref } from "../lib/route";
import { SourceBadge } from "./Overview";

function Detail({ d }: { d: DaemonDetail }) {
  const now = d.time + d.age_seconds;
  const freeZones = d.drives.reduce((n, dr) => n + dr.zones.free, 0);
  const pack = packFigures(d.io, d.store?.pack_max);
  const reads = readFigures(d.io);
  const pinned = d.gc.pinned_zones;
  const readAhead = readAheadFigures(d.gc, d.store?.gc_read_ahead);
  const watermarks = watermarkText(d.store);
  // What users can still write counting what GC can really give back (null/absent: a daemon
  // from before statfs.writable).
  const writable = d.statfs.writable ?? null;
  return (
    <>
      <p>
        <SourceBadge source={d.source} />{" "}
        {d.source === "osd" ? (
          <>
            Ceph OSD on smrstore: figures from its perf counters, zone maps from its <code>smrstore stats</code>
            {d.zonemap_time !== null && d.zonemap_time !== undefined ? <> (taken {formatAge(d.zonemap_time, now)})</> : null}
          </>
        ) : (
          <>service daemon (smrstore-tool serve)</>
        )}{" "}
        · schema <code>{d.schema}</code> · updated {formatAge(d.time, now)}{" "}
        {d.stale ? <Badge tone="warn">stale</Badge> : null}
        {d.store ? (
          <>
            {" "}
            · store <code>{d.store.uuid}</code> in <code>{d.store.dir}</code>, mounted {d.store.mount_count}×, GC
            policy <code>{d.store.gc_policy}</code>
            {watermarks ? <span data-testid="gc-watermarks">, GC watermarks {watermarks}</span> : null}
          </>
        ) : null}
      </p>
      {d.zonemap_error ? (
        <p className="state state-error" role="status" data-testid="zonemap-error">
          Zone maps: {d.zonemap_error}
        </p>
      ) : null}
      <div className="stats">
        <Stat label="total" value={formatBytes(d.statfs.total)} />
        <Stat label="stored" value={formatBytes(d.statfs.stored)} hint={formatPercent(ratio(d.statfs.stored, d.statfs.total))} />
        <Stat label="available" value={formatBytes(d.statfs.available)} />
        {writable !== null ? (
          <Stat
            label="writable"
            value={formatBytes(writable)}
            hint={`${formatPercent(ratio(writable, d.statfs.total))}, GC's real gain included`}
            exact={writable}
            testId="stat-writable"
          />
        ) : null}
        <Stat label="free zones" value={formatCount(freeZones)} exact={freeZones} testId="stat-free-zones" />
        <Stat label="user bytes (since mount)" value={formatBytes(d.io.user_bytes)} exact={d.io.user_bytes} testId="stat-user-bytes" />
        <Stat label="device bytes (since mount)" value={formatBytes(d.io.device_bytes)} exact={d.io.device_bytes} testId="stat-device-bytes" />
        <Stat label="WA since mount" value={formatWa(d.io.write_amplification)} exact={d.io.write_amplification} testId="stat-wa" />
        {pack ? (
          <Stat
            label="small objects (packed, since mount)"
            value={pack.value}
            hint={pack.hint ?? undefined}
            exact={pack.entries}
            testId="stat-pack"
          />
        ) : null}
        <Stat label="WA lifetime" value={formatWa(d.io.lifetime_write_amplification)} />
        <Stat label="user bytes (lifetime)" value={formatBytes(d.io.lifetime_user_bytes)} />
        <Stat label="device bytes (lifetime)" value={formatBytes(d.io.lifetime_device_bytes)} />
        <Stat label="GC bytes (lifetime)" value={formatBytes(d.io.lifetime_gc_bytes)} />
        <Stat label="transactions" value={formatCount(d.io.txns_committed)} hint={`${formatCount(d.io.txns_failed ?? 0)} failed`} />
        <Stat label="crc errors" value={formatCount(d.io.crc_errors)} />
        {reads ? (
          <Stat
            label="data reads (since mount)"
            value={reads.value}
            hint={reads.hint ?? undefined}
            exact={reads.reads}
            testId="stat-data-reads"
          />
        ) : null}
        <Stat label="GC runs" value={formatCount(d.gc.runs)} hint={`${formatCount(d.gc.zones_reset)} zones reset`} exact={d.gc.runs} testId="stat-gc-runs" />
        <Stat label="GC throttle" value={formatNs(d.gc.throttle_ns)} hint={d.gc.auto ? "auto GC on" : "auto GC off"} testId="stat-gc-auto" />
        {d.gc.quarantined_zones !== undefined && d.gc.quarantined_zones !== null ? (
          <Stat
            label="GC quarantined zones"
            value={d.gc.quarantined_zones > 0 ? <Badge tone="warn">{formatCount(d.gc.quarantined_zones)}</Badge> : formatCount(d.gc.quarantined_zones)}
            hint={`${formatCount(d.gc.failures)} failed cleanings since mount`}
            exact={d.gc.quarantined_zones}
            testId="stat-gc-quarantined"
          />
        ) : null}
        {pinned !== undefined && pinned !== null ? (
          <Stat
            label="journal-pinned zones"
            value={formatCount(pinned)}
            hint="GC may reset them after the next checkpoint"
            exact={pinned}
            testId="stat-gc-pinned"
          />
        ) : null}
        {readAhead ? (
          <Stat
            label="GC read-ahead (since mount)"
            value={readAhead.value}
            hint={readAhead.hint ?? undefined}
            exact={readAhead.bytes}
            testId="stat-gc-read-ahead"
          />
        ) : null}
      </div>
      <h2>Drives</h2>
      {d.drives.length === 0 ? (
        <Empty>This daemon reports no drives.</Empty>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>#</th>
              <th>spec</th>
              <th>kind</th>
              <th>zones</th>
              <th>zone size</th>
              <th>free / open / sealed</th>
              <th>offline / read-only</th>
              <th>live / capacity</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {d.drives.map((dr) => (
              <tr key={dr.index}>
                <td>{dr.index}</td>
                <td>
                  <code>{dr.spec ?? "–"}</code>
                </td>
                <td>{dr.kind ?? "–"}</td>
                <td>{formatCount(dr.nr_zones)}</td>
                <td>{formatBytes(dr.zone_size)}</td>
                <td>
                  {dr.zones.free} / {dr.zones.open} / {dr.zones.sealed}
                </td>
                <td>
                  {dr.zones.offline > 0 ? <Badge tone="err">{dr.zones.offline}</Badge> : 0} /{" "}
                  {dr.zones.readonly > 0 ? <Badge tone="warn">{dr.zones.readonly}</Badge> : 0}
                </td>
                <td>
                  {formatBytes(dr.live_bytes)} / {formatBytes(dr.capacity_bytes)} (
                  {formatPercent(ratio(dr.live_bytes, dr.capacity_bytes))})
                </td>
                <td>
                  <a href={routeHref({ view: "zones", daemon: d.name, drive: dr.index })}>zone map</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

export function DaemonView({ name }: { name: string }) {
  const q = useDaemon(name);
  return (
    <section>
      <h1>
        Daemon <code>{name}</code>
      </h1>
      {q.isPending ? (
        <Loading what={`daemon ${name}`} />
      ) : q.isError ? (
        q.error instanceof ApiError && q.error.notFound ? (
          <Empty>
            Daemon <code>{name}</code> is gone: the manager no longer knows it ({q.error.message}).{" "}
            <a href={routeHref({ view: "overview" })}>Back to the overview</a>
          </Empty>
        ) : (
          <ErrorBox error={q.error} what={`daemon ${name}`} />
        )
      ) : (
        <Detail d={q.data} />
      )}
    </section>
  );
}
