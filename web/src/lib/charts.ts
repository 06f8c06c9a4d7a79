// Chart rows from /history points (pure, so tests pin them).
import { counterRates } from "./series";

export interface HistoryLike {
  t: number;
  write_amplification?: number | null;
  lifetime_write_amplification: number;
  user_bytes: number;
  device_bytes: number;
  gc_bytes: number;
  zones_reset: number;
  gc_runs: number;
  throttle_ns: number;
}

export interface Row {
  t: number;
  [key: string]: number | null;
}

/** WA rows: interval WA (null when no user bytes in the interval or 0) and lifetime WA. */
export function waRows(points: readonly HistoryLike[]): Row[] {
  return [...points]
    .sort((a, b) => a.t - b.t)
    .map((p) => ({
      t: p.t,
      interval: typeof p.write_amplification === "number" && p.write_amplification > 0 ? p.write_amplification : null,
      lifetime: p.lifetime_write_amplification > 0 ? p.lifetime_write_amplification : null,
    }));
}

/**
 * GC rows per interval: GC and user bytes per second, zones reset per minute, GC runs per
 * minute, and the fraction of the interval GC spent throttled (throttle ns / elapsed ns).
 */
export function gcRows(points: readonly HistoryLike[]): Row[] {
  const rates = counterRates(
    points.map((p) => ({
      t: p.t,
      gc_bytes: p.gc_bytes,
      user_bytes: p.user_bytes,
      zones_reset: p.zones_reset,
      gc_runs: p.gc_runs,
      throttle_ns: p.throttle_ns,
    })),
    ["gc_bytes", "user_bytes", "zones_reset", "gc_runs", "throttle_ns"],
  );
  const perMin = (v: number | null | undefined): number | null => (typeof v === "number" ? v * 60 : null);
  return rates.map((r) => ({
    t: r.t,
    gc_bps: r.rates["gc_bytes"] ?? null,
    user_bps: r.rates["user_bytes"] ?? null,
    zones_per_min: perMin(r.rates["zones_reset"]),
    runs_per_min: perMin(r.rates["gc_runs"]),
    throttle_fraction: typeof r.rates["throttle_ns"] === "number" ? r.rates["throttle_ns"] / 1e9 : null,
  }));
}
