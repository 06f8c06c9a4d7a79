// Hybrid SMR drives (CMR↔SMR realms): per drive its realm map, CMR vs SMR capacity, the
// conversion in progress, the migration quanta against the latency bound, violations and a
// stall reason — GET /api/v1/conversion (the stats document's `hybrid` blocks).
import { useConversion, useSummary } from "../api/queries";
import type { ConversionDrive, HealthCheck } from "../api/client";
import { REALM_CODES } from "../api/statsCodes";
import { QueryState } from "../components/QueryState";
import { Badge, Stat } from "../components/Stat";
import { rgbCss } from "../lib/colors";
import { formatBytes, formatCount, formatMs, formatPercent } from "../lib/format";
import {
  countRealms,
  decodeRealmChar,
  domainShares,
  latencyScale,
  pendingRealms,
  REALM_COLORS,
  REALM_DESCRIPTIONS,
  REALM_LABELS,
  realmMapProblems,
} from "../lib/realms";
import { routeHref } from "../lib/route";
import { HealthList } from "./Overview";

export const NO_HYBRID_TEXT = "no hybrid (CMR↔SMR convertible) drives";

function stateTone(state: string): "ok" | "warn" | "err" | "muted" {
  if (state === "stalled") return "err";
  if (state === "converting") return "warn";
  if (state === "idle") return "ok";
  return "muted";
}

const key = (d: ConversionDrive): string => `${d.daemon}/${d.drive}`;

function realmCounts(d: ConversionDrive): string {
  if (typeof d.realms_cmr !== "number" || typeof d.realms_smr !== "number") return "–";
  const pending = d.realms_pending ? ` (${d.realms_pending} pending)` : "";
  return `${d.realms_cmr} CMR / ${d.realms_smr} SMR${pending}`;
}

function HybridTable({ drives }: { drives: ConversionDrive[] }) {
  return (
    <table className="table" data-testid="hybrid-table">
      <thead>
        <tr>
          <th>daemon</th>
          <th>drive</th>
          <th>state</th>
          <th>realms</th>
          <th>CMR</th>
          <th>SMR</th>
          <th>converting zones</th>
          <th>progress</th>
          <th title="p99 / max duration of the migration quanta">quanta p99 / max</th>
          <th>latency bound</th>
          <th title="migration quanta since mount that took longer than the latency bound">violations</th>
        </tr>
      </thead>
      <tbody>
        {drives.map((d) => (
          <tr key={key(d)}>
            <td>{d.daemon}</td>
            <td>{d.drive}</td>
            <td>
              <Badge tone={stateTone(d.state)}>{d.state}</Badge>
            </td>
            <td>{realmCounts(d)}</td>
            <td>{formatBytes(d.cmr_bytes ?? null)}</td>
            <td>{formatBytes(d.smr_bytes ?? null)}</td>
            <td>{d.converting_zones ?? "–"}</td>
            <td>
              {typeof d.progress === "number" ? (
                <>
                  <progress max={1} value={d.progress} /> {formatPercent(d.progress)}
                </>
              ) : (
                "–"
              )}
            </td>
            <td>
              {formatMs(d.quantum_ms_p99)} / {formatMs(d.quantum_ms_max)}
            </td>
            <td>{typeof d.latency_bound_ms === "number" ? `${d.latency_bound_ms} ms` : "none"}</td>
            <td>
              {typeof d.bound_violations === "number" ? (
                d.bound_violations > 0 || d.bound_exceeded ? (
                  <Badge tone="warn">{d.bound_violations}</Badge>
                ) : (
                  d.bound_violations
                )
              ) : (
                "–"
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One cell per realm, coloured and labelled by the schema's x-realmmap-codes. */
export function RealmMap({ realmmap }: { realmmap: string }) {
  return (
    <div className="realm-map" role="img" aria-label={`realm map of ${realmmap.length} realms`} data-testid="realm-map" data-realmmap={realmmap}>
      {realmmap.split("").map((ch, i) => {
        const kind = decodeRealmChar(ch);
        return (
          <span
            key={i}
            className={`realm-cell realm-${kind === "unknown" ? "unknown" : kind === ">" ? "converting" : kind}`}
            data-code={ch}
            data-realm={i}
            title={`realm ${i}: ${REALM_LABELS[kind]} — ${REALM_DESCRIPTIONS[kind]}`}
            style={{ background: rgbCss(REALM_COLORS[kind]) }}
          >
            {ch}
          </span>
        );
      })}
    </div>
  );
}

/** The realm-map legend: every code of the schema in its order, with this drive's count. */
export function RealmLegend({ realmmap }: { realmmap: string }) {
  const counts = countRealms(realmmap);
  return (
    <div className="legend" aria-label="realm legend" data-testid="realm-legend">
      <div>
        {REALM_CODES.map((c) => (
          <span key={c} className="legend-item" data-code={c} data-count={counts[c]} title={REALM_DESCRIPTIONS[c]}>
            <span className="swatch" style={{ background: rgbCss(REALM_COLORS[c]) }} />
            <code>{c}</code> {REALM_LABELS[c]} ({counts[c]})
          </span>
        ))}
        {counts.unknown > 0 ? (
          <span className="legend-item" data-code="?" data-count={counts.unknown}>
            <span className="swatch" style={{ background: rgbCss(REALM_COLORS.unknown) }} />
            {REALM_LABELS.unknown} ({counts.unknown})
          </span>
        ) : null}
      </div>
    </div>
  );
}

/** CMR vs SMR capacity of the drive's data zones, as one stacked bar. */
export function CapacityBar({ d }: { d: ConversionDrive }) {
  const shares = domainShares(d.cmr_bytes, d.smr_bytes);
  const cmr = d.cmr_bytes ?? null;
  const smr = d.smr_bytes ?? null;
  return (
    <div className="capacity" data-testid="capacity-bar" data-cmr={cmr ?? ""} data-smr={smr ?? ""}>
      <div className="capacity-bar" role="img" aria-label={`CMR ${formatBytes(cmr)}, SMR ${formatBytes(smr)}`}>
        {shares !== null ? (
          <>
            <span className="capacity-cmr" style={{ width: `${shares.cmr * 100}%`, background: rgbCss(REALM_COLORS.C) }} />
            <span className="capacity-smr" style={{ width: `${shares.smr * 100}%`, background: rgbCss(REALM_COLORS.S) }} />
          </>
        ) : null}
      </div>
      <div className="capacity-labels">
        <span>
          CMR <strong>{formatBytes(cmr)}</strong>
          {typeof d.realms_cmr === "number" ? ` in ${d.realms_cmr} realm(s)` : ""}
          {shares !== null ? ` · ${formatPercent(shares.cmr, 0)}` : ""}
        </span>
        <span>
          SMR <strong>{formatBytes(smr)}</strong>
          {typeof d.realms_smr === "number" ? ` in ${d.realms_smr} realm(s)` : ""}
          {shares !== null ? ` · ${formatPercent(shares.smr, 0)}` : ""}
        </span>
      </div>
    </div>
  );
}

/** The latency bound against the migration quanta's p99 and max, on one axis. */
export function LatencyPanel({ d }: { d: ConversionDrive }) {
  const s = latencyScale(d.latency_bound_ms, d.quantum_ms_p99, d.quantum_ms_max);
  const none = d.quantum_ms_p99 === null || d.quantum_ms_p99 === undefined;
  return (
    <div
      className="latency"
      data-testid="hybrid-latency"
      data-bound={d.latency_bound_ms ?? ""}
      data-p99={d.quantum_ms_p99 ?? ""}
      data-max={d.quantum_ms_max ?? ""}
      data-over={s.over === null ? "" : String(s.over)}
    >
      <div className="latency-title">
        Latency a migration quantum adds: p99 <strong>{formatMs(d.quantum_ms_p99)}</strong>, max{" "}
        <strong>{formatMs(d.quantum_ms_max)}</strong>, bound <strong>{formatMs(d.latency_bound_ms)}</strong>{" "}
        {s.over === true ? (
          <Badge tone="warn">p99 over the bound</Badge>
        ) : s.over === false ? (
          <Badge tone="ok">within the bound</Badge>
        ) : null}
      </div>
      {none ? (
        <div className="muted">No migration quantum ran since the store was mounted.</div>
      ) : (
        <div className="latency-track" role="img" aria-label={`p99 ${formatMs(d.quantum_ms_p99)}, max ${formatMs(d.quantum_ms_max)}, bound ${formatMs(d.latency_bound_ms)}`}>
          {s.max !== null ? <span className="latency-max" style={{ width: `${s.max * 100}%` }} /> : null}
          {s.p99 !== null ? <span className={`latency-p99${s.over ? " over" : ""}`} style={{ width: `${s.p99 * 100}%` }} /> : null}
          {s.bound !== null ? <span className="latency-bound" style={{ left: `${s.bound * 100}%` }} title={`bound ${formatMs(d.latency_bound_ms)}`} /> : null}
        </div>
      )}
      {none ? null : (
        <div className="legend latency-legend">
          <div>
            <span className="legend-item">
              <span className={`swatch latency-p99${s.over ? " over" : ""}`} /> p99 of the last (up to) 1024 quanta
            </span>
            <span className="legend-item">
              <span className="swatch latency-max" /> longest since mount
            </span>
            <span className="legend-item">
              <span className="swatch latency-bound-swatch" /> latency bound
            </span>
          </div>
        </div>
      )}
    </div>
  );
}

function ConversionStatus({ d }: { d: ConversionDrive }) {
  const pending = pendingRealms(d.realmmap ?? "");
  if (d.state !== "converting" && pending.length === 0) {
    return <p className="muted" data-testid="hybrid-conversion">No conversion in progress on this drive.</p>;
  }
  return (
    <div className="conversion" data-testid="hybrid-conversion" data-progress={d.progress ?? ""}>
      <span>Conversion in progress: </span>
      {typeof d.progress === "number" ? (
        <>
          <progress max={1} value={d.progress} /> <strong>{formatPercent(d.progress)}</strong>
        </>
      ) : null}
      {typeof d.converting_zones === "number" && d.converting_zones > 0 ? <> · {d.converting_zones} zones</> : null}
      {pending.length > 0 ? (
        <ul>
          {pending.map((p) => (
            <li key={p.index} data-realm={p.index} data-code={d.realmmap?.charAt(p.index)}>
              realm {p.index}: {p.what}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function HybridDrivePanel({ d }: { d: ConversionDrive }) {
  const realmmap = d.realmmap ?? "";
  const problems = d.realmmap === null || d.realmmap === undefined ? [] : realmMapProblems(d.realms, realmmap);
  const violations = d.bound_violations ?? null;
  return (
    <section className="hybrid-drive" data-testid="hybrid-drive" data-daemon={d.daemon} data-drive={d.drive} data-state={d.state}>
      <h2>
        {d.daemon} · drive {d.drive} <Badge tone={stateTone(d.state)}>{d.state}</Badge>{" "}
        <a className="small" href={routeHref({ view: "zones", daemon: d.daemon, drive: d.drive })}>
          zone map
        </a>
      </h2>
      {d.stall_reason ? (
        <div className="state state-error" role="alert" data-testid="hybrid-stall">
          <strong>Conversion stalled</strong>: {d.stall_reason}
        </div>
      ) : null}
      {d.realmmap === null || d.realmmap === undefined ? (
        <p className="muted">This daemon does not report the drive&apos;s realms (a build from before them).</p>
      ) : (
        <>
          <RealmMap realmmap={realmmap} />
          <RealmLegend realmmap={realmmap} />
        </>
      )}
      {problems.length > 0 ? (
        <div className="state state-error" role="alert">
          <strong>The realm map does not match the drive</strong>
          <ul>
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <CapacityBar d={d} />
      <ConversionStatus d={d} />
      <div className="stats">
        <Stat label="next quantum" value={formatBytes(d.quantum_bytes ?? null)} exact={d.quantum_bytes ?? null} testId="hybrid-quantum" hint="live bytes it may move" />
        <Stat
          label="bound violations"
          value={violations === null ? "–" : violations > 0 ? <Badge tone="warn">{formatCount(violations)}</Badge> : "0"}
          exact={violations}
          testId="hybrid-violations"
          hint="quanta over the bound since mount"
        />
        <Stat label="conversions" value={formatCount(d.conversions ?? null)} exact={d.conversions ?? null} testId="hybrid-conversions" hint="realms converted since mount" />
        <Stat label="migrated" value={formatBytes(d.migrated_bytes ?? null)} exact={d.migrated_bytes ?? null} testId="hybrid-migrated" hint="live bytes moved since mount (store)" />
      </div>
      <LatencyPanel d={d} />
    </section>
  );
}

function ConversionChecks({ checks }: { checks: HealthCheck[] }) {
  const mine = checks.filter((c) => c.name.startsWith("SMRSTORE_CONVERSION_"));
  if (mine.length === 0) return null;
  return (
    <div data-testid="hybrid-health">
      <HealthList checks={mine} />
    </div>
  );
}

export function HybridView() {
  const q = useConversion();
  const summary = useSummary();
  return (
    <section>
      <h1>Hybrid SMR drives</h1>
      <ConversionChecks checks={summary.data?.health ?? []} />
      <QueryState
        query={q}
        what="conversion state"
        empty={(drives) =>
          drives.some((d) => d.supported) ? null : (
            <span data-testid="hybrid-empty">
              {NO_HYBRID_TEXT}
              {drives.length > 0 ? ` — all ${drives.length} drive(s) reported are zoned-only.` : "."}
            </span>
          )
        }
      >
        {(drives) => {
          const hybrid = drives.filter((d) => d.supported);
          const others = drives.length - hybrid.length;
          return (
            <>
              <HybridTable drives={hybrid} />
              {others > 0 ? (
                <p className="muted" data-testid="hybrid-others">
                  {others} other drive(s) reported are not hybrid (zoned only).
                </p>
              ) : null}
              {hybrid.map((d) => (
                <HybridDrivePanel key={key(d)} d={d} />
              ))}
            </>
          );
        }}
      </QueryState>
    </section>
  );
}
