import { describe, expect, it } from "vitest";
import { cellOrigin, computeLayout, hitTest, MAX_CELL, renderZoneMap } from "./layout";
import { cellColor, ZONE_TABLE } from "./colors";

describe("computeLayout", () => {
  it("uses the largest cell for few zones", () => {
    const l = computeLayout(10, 800, 400);
    expect(l.cell).toBe(MAX_CELL);
    expect(l.rows).toBe(1);
    expect(l.cols).toBe(10);
    expect(l.width).toBe(10 * (MAX_CELL + 1) - 1);
  });
  it("shrinks cells until tens of thousands of zones fit", () => {
    const l = computeLayout(60000, 1000, 600);
    expect(l.height).toBeLessThanOrEqual(600);
    expect(l.width).toBeLessThanOrEqual(1000);
    expect(l.cols * l.rows).toBeGreaterThanOrEqual(60000);
    expect(l.cell).toBeGreaterThanOrEqual(2);
  });
  it("falls back to 1 px cells (scrolling) when nothing fits", () => {
    const l = computeLayout(100000, 100, 100);
    expect(l.cell).toBe(1);
    expect(l.height).toBe(1000);
  });
  it("handles zero zones and rejects bad counts", () => {
    expect(computeLayout(0, 500, 500)).toMatchObject({ width: 0, height: 0 });
    expect(() => computeLayout(-1, 500, 500)).toThrow(RangeError);
  });
});

describe("hitTest", () => {
  const l = computeLayout(25, 100, 1000); // 18 px cells + 1 px gap: 5 columns
  it("maps cell interiors back to the zone index", () => {
    expect(l.cols).toBe(5);
    expect(hitTest(l, 0, 0)).toBe(0);
    expect(hitTest(l, 17.9, 17.9)).toBe(0);
    expect(hitTest(l, 19, 0)).toBe(1);
    expect(hitTest(l, 19 * 4 + 5, 19 * 4 + 5)).toBe(24);
  });
  it("round-trips every cell origin", () => {
    for (let i = 0; i < 25; i++) {
      const o = cellOrigin(l, i);
      expect(hitTest(l, o.x + 1, o.y + 1)).toBe(i);
    }
  });
  it("returns null in gaps, outside, and past the last zone", () => {
    expect(hitTest(l, 18.5, 3)).toBeNull();
    expect(hitTest(l, -1, 3)).toBeNull();
    expect(hitTest(l, 3, l.height + 1)).toBeNull();
    expect(hitTest(l, Number.NaN, 3)).toBeNull();
    const partial = computeLayout(7, 100, 1000); // 5 + 2
    expect(hitTest(partial, 19 * 3 + 2, 19 + 2)).toBeNull();
    expect(hitTest(partial, 19 + 2, 19 + 2)).toBe(6);
  });
});

describe("renderZoneMap", () => {
  const px = (buf: Uint8ClampedArray, width: number, x: number, y: number): number[] =>
    Array.from(buf.slice((y * width + x) * 4, (y * width + x) * 4 + 4));
  const rgba = (packed: number): number[] => [(packed >> 16) & 255, (packed >> 8) & 255, packed & 255, 255];

  it("fills each cell with its zone colour and leaves gaps transparent", () => {
    const l = computeLayout(3, 100, 100);
    const buf = renderZoneMap(l, "#.k", "", false);
    expect(buf.length).toBe(l.width * l.height * 4);
    expect(px(buf, l.width, 2, 2)).toEqual(rgba(ZONE_TABLE["#".charCodeAt(0)] ?? -1));
    expect(px(buf, l.width, 19 + 2, 2)).toEqual(rgba(ZONE_TABLE[".".charCodeAt(0)] ?? -1));
    expect(px(buf, l.width, 38 + 17, 17)).toEqual(rgba(ZONE_TABLE["k".charCodeAt(0)] ?? -1));
    expect(px(buf, l.width, 18, 2)[3]).toBe(0);
  });
  it("draws the stream band only with the overlay on and only for zones in a stream", () => {
    const l = computeLayout(2, 100, 100);
    const plain = renderZoneMap(l, "kk", "g-", false);
    const over = renderZoneMap(l, "kk", "g-", true);
    expect(px(over, l.width, 2, 2)).toEqual(px(plain, l.width, 2, 2));
    expect(px(over, l.width, 2, l.cell - 1)).not.toEqual(px(plain, l.width, 2, l.cell - 1));
    expect(px(over, l.width, 19 + 2, l.cell - 1)).toEqual(px(plain, l.width, 19 + 2, l.cell - 1));
  });
  it("colours '=' as conventional and 'c' as sealed 20 % live", () => {
    const l = computeLayout(2, 100, 100);
    const buf = renderZoneMap(l, "=c", "-u", false);
    const packed = (c: readonly [number, number, number]): number => (c[0] << 16) | (c[1] << 8) | c[2];
    expect(px(buf, l.width, 2, 2)).toEqual(rgba(packed(cellColor({ condition: "conventional", live: null }))));
    expect(px(buf, l.width, 19 + 2, 2)).toEqual(rgba(packed(cellColor({ condition: "sealed", live: 0.2 }))));
    expect(ZONE_TABLE["=".charCodeAt(0)]).not.toBe(ZONE_TABLE["c".charCodeAt(0)]);
  });
  it("renders 50,000 zones into one buffer, last zone included", () => {
    // Speed is judged by the e2e run on a 20,000-zone drive, not by a timed assertion here.
    const map = "k.Ea#".repeat(10000);
    const l = computeLayout(map.length, 1200, 800);
    const buf = renderZoneMap(l, map, "ugs-h".repeat(10000), true);
    expect(buf.length).toBe(l.width * l.height * 4);
    const last = map.length - 1;
    const x = (last % l.cols) * (l.cell + l.gap);
    const y = Math.floor(last / l.cols) * (l.cell + l.gap);
    expect(px(buf, l.width, x, y)).toEqual(rgba(ZONE_TABLE["#".charCodeAt(0)] ?? -1));
  });
});
