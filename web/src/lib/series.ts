// Turning the cumulative counters of /history into per-interval rates for the GC chart.
// Counters count since mount (or lifetime); a counter that goes down means the daemon
// restarted, and that interval gets no rate rather than a negative one.

export interface CounterSample {
  t: number;
  [counter: string]: number | null | undefined;
}

export interface RatePoint {
  t: number;
  /** Per-second rate of each requested counter over (previous t, t]; null when unknown. */
  rates: Record<string, number | null>;
}

/** Per-second rates between consecutive samples (sorted by t; duplicate times are skipped). */
export function counterRates(samples: readonly CounterSample[], counters: readonly string[]): RatePoint[] {
  const sorted = [...samples].filter((s) => Number.isFinite(s.t)).sort((a, b) => a.t - b.t);
  const out: RatePoint[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1];
    const cur = sorted[i];
    if (prev === undefined || cur === undefined) continue;
    const dt = cur.t - prev.t;
    if (dt <= 0) continue;
    const rates: Record<string, number | null> = {};
    for (const c of counters) {
      const a = prev[c];
      const b = cur[c];
      rates[c] =
        typeof a === "number" && typeof b === "number" && Number.isFinite(a) && Number.isFinite(b) && b >= a
          ? (b - a) / dt
          : null;
    }
    out.push({ t: cur.t, rates });
  }
  return out;
}

/** Increase of a cumulative counter over the samples, counting across restarts. */
export function totalIncrease(samples: readonly CounterSample[], counter: string): number {
  const sorted = [...samples].sort((a, b) => a.t - b.t);
  let total = 0;
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]?.[counter];
    const b = sorted[i]?.[counter];
    if (typeof a !== "number" || typeof b !== "number") continue;
    // After a restart the counter starts again from 0: its new value is all increase.
    total += b >= a ? b - a : b;
  }
  return total;
}
