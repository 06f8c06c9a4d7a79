import { describe, expect, it } from "vitest";
import { formatAge, formatBytes, formatNs, formatPercent, formatRate, formatWa, ratio } from "./format";

describe("format", () => {
  it("formats bytes in IEC units", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.50 KiB");
    expect(formatBytes(268435456)).toBe("256 MiB");
    expect(formatBytes(64 * 268435456)).toBe("16.0 GiB");
    expect(formatBytes(-2048)).toBe("-2.00 KiB");
    expect(formatBytes(Number.NaN)).toBe("–");
    expect(formatBytes(null)).toBe("–");
    expect(formatRate(1048576)).toBe("1.00 MiB/s");
  });
  it("formats write amplification, percent, ratio", () => {
    expect(formatWa(1.234)).toBe("1.23×");
    expect(formatWa(0)).toBe("n/a");
    expect(formatPercent(0.4211)).toBe("42.1 %");
    expect(ratio(1, 0)).toBeNull();
    expect(ratio(1, 4)).toBe(0.25);
  });
  it("formats durations and ages", () => {
    expect(formatNs(500)).toBe("1 µs");
    expect(formatNs(2.5e6)).toBe("2.5 ms");
    expect(formatNs(830e6)).toBe("830 ms");
    expect(formatNs(12.5e9)).toBe("13 s");
    expect(formatNs(200e9)).toBe("3 min 20 s");
    expect(formatAge(100, 105)).toBe("5.0 s ago");
    expect(formatAge(null, 105)).toBe("never");
    expect(formatAge(110, 105)).toBe("just now");
  });
});
