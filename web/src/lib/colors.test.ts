import { describe, expect, it } from "vitest";
import { cellColor, mix, packedZoneColor, ZONE_TABLE } from "./colors";
import { decodeZoneChar } from "./zonemap";

describe("colour scale", () => {
  it("interpolates and clamps", () => {
    expect(mix([0, 0, 0], [100, 200, 50], 0.5)).toEqual([50, 100, 25]);
    expect(mix([0, 0, 0], [100, 200, 50], 2)).toEqual([100, 200, 50]);
    expect(mix([0, 0, 0], [100, 200, 50], -1)).toEqual([0, 0, 0]);
  });
  it("gives each live tenth of sealed zones a distinct colour, monotone in green", () => {
    const greens = "abcdefghijk".split("").map((c) => cellColor(decodeZoneChar(c))[1]);
    expect(new Set(greens.map(String)).size).toBeGreaterThan(1);
    const colors = "abcdefghijk".split("").map((c) => cellColor(decodeZoneChar(c)).join(","));
    expect(new Set(colors).size).toBe(11);
  });
  it("distinguishes open from sealed at the same live ratio", () => {
    expect(cellColor(decodeZoneChar("F"))).not.toEqual(cellColor(decodeZoneChar("f")));
  });
  it("looks up packed colours and flags codes outside ASCII", () => {
    expect(packedZoneColor("X".charCodeAt(0))).toBe(ZONE_TABLE["X".charCodeAt(0)]);
    expect(packedZoneColor(0x263a)).toBe(0xff0000);
  });
});
