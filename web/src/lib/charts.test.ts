import { describe, expect, it } from "vitest";
import { gcRows, waRows, type HistoryLike } from "./charts";

const p = (t: number, o: Partial<HistoryLike> = {}): HistoryLike => ({
  t,
  write_amplification: null,
  lifetime_write_amplification: 1,
  user_bytes: 0,
  device_bytes: 0,
  gc_bytes: 0,
  zones_reset: 0,
  gc_runs: 0,
  throttle_ns: 0,
  ...o,
});

describe("waRows", () => {
  it("sorts by time and leaves gaps where WA is undefined", () => {
    expect(waRows([p(20, { write_amplification: 1.5 }), p(10, { lifetime_write_amplification: 0 })])).toEqual([
      { t: 10, interval: null, lifetime: null },
      { t: 20, interval: 1.5, lifetime: 1 },
    ]);
  });
});

describe("gcRows", () => {
  it("turns cumulative counters into rates", () => {
    const rows = gcRows([
      p(0),
      p(10, { gc_bytes: 10 * 1048576, user_bytes: 20 * 1048576, zones_reset: 5, gc_runs: 1, throttle_ns: 2.5e9 }),
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual({
      t: 10,
      gc_bps: 1048576,
      user_bps: 2 * 1048576,
      zones_per_min: 30,
      runs_per_min: 6,
      throttle_fraction: 0.25,
    });
  });
  it("gives no row for a single sample", () => {
    expect(gcRows([p(0)])).toEqual([]);
  });
});
