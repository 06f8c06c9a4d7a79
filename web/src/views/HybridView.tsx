import { useConversion } from "../api/queries";
import type { ConversionDrive } from "../api/client";
import { QueryState } from "../components/QueryState";
import { Badge } from "../components/Stat";
import { formatBytes, formatPercent } from "../lib/format";

export const NO_HYBRID_TEXT = "no hybrid (CMR↔SMR convertible) drives";

function stateTone(state: string): "ok" | "warn" | "err" | "muted" {
  if (state === "stalled") return "err";
  if (state === "converting") return "warn";
  if (state === "idle") return "ok";
  return "muted";
}

function HybridTable({ drives }: { drives: ConversionDrive[] }) {
  return (
    <table className="table" data-testid="hybrid-table">
      <thead>
        <tr>
          <th>daemon</th>
          <th>drive</th>
          <th>state</th>
          <th>CMR</th>
          <th>SMR</th>
          <th>converting zones</th>
          <th>progress</th>
          <th>latency bound</th>
        </tr>
      </thead>
      <tbody>
        {drives.map((d) => (
          <tr key={`${d.daemon}/${d.drive}`}>
            <td>{d.daemon}</td>
            <td>{d.drive}</td>
            <td>
              <Badge tone={stateTone(d.state)}>{d.state}</Badge>
            </td>
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
            <td>{typeof d.latency_bound_ms === "number" ? `${d.latency_bound_ms} ms` : "none"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function HybridView() {
  const q = useConversion();
  return (
    <section>
      <h1>Hybrid SMR drives</h1>
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
        {(drives) => <HybridTable drives={drives.filter((d) => d.supported)} />}
      </QueryState>
    </section>
  );
}
