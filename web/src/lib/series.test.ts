import { describe, expect, it } from "vitest";
import { counterRates, totalIncrease } from "./series";

describe("counterRates", () => {
  it("computes per-second rates between samples, in time order", () => {
    const r = counterRates(
      [
        { t: 20, b: 300 },
        { t: 10, b: 100 },
        { t: 25, b: 300 },
      ],
      ["b"],
    );
    expect(r).toEqual([
      { t: 20, rates: { b: 20 } },
      { t: 25, rates: { b: 0 } },
    ]);
  });
  it("gives no rate across a restart or a missing value, and skips equal times", () => {
    const r = counterRates(
      [
        { t: 0, b: 100, c: 1 },
        { t: 0, b: 100, c: 1 },
        { t: 5, b: 10, c: null },
      ],
      ["b", "c"],
    );
    expect(r).toEqual([{ t: 5, rates: { b: null, c: null } }]);
  });
});

describe("totalIncrease", () => {
  it("adds increases and counts a restart's new value", () => {
    expect(totalIncrease([{ t: 0, b: 5 }, { t: 1, b: 9 }, { t: 2, b: 3 }, { t: 3, b: 4 }], "b")).toBe(4 + 3 + 1);
  });
});
