import { describe, expect, it } from "vitest";
import { countConditions, countStreams, decodeStreamChar, decodeZoneChar, zoneDetails, zoneMapProblems } from "./zonemap";

describe("decodeZoneChar", () => {
  it("decodes open and sealed zones with their live ratio in tenths", () => {
    expect(decodeZoneChar("A")).toEqual({ condition: "open", live: 0 });
    expect(decodeZoneChar("F")).toEqual({ condition: "open", live: 0.5 });
    expect(decodeZoneChar("K")).toEqual({ condition: "open", live: 1 });
    expect(decodeZoneChar("a")).toEqual({ condition: "sealed", live: 0 });
    expect(decodeZoneChar("d")?.live).toBeCloseTo(0.3);
    expect(decodeZoneChar("k")).toEqual({ condition: "sealed", live: 1 });
  });
  it("decodes the fixed codes", () => {
    expect(decodeZoneChar("#").condition).toBe("reserved");
    expect(decodeZoneChar(".").condition).toBe("free");
    expect(decodeZoneChar("X").condition).toBe("offline");
    expect(decodeZoneChar("!").condition).toBe("readonly");
    expect(decodeZoneChar("=")).toEqual({ condition: "conventional", live: null });
  });
  it("decodes 'c' as a sealed zone 20 % live, '=' as conventional", () => {
    expect(decodeZoneChar("c")).toEqual({ condition: "sealed", live: 0.2 });
    expect(countConditions("##=c.")).toMatchObject({ reserved: 2, conventional: 1, sealed: 1, free: 1 });
  });
  it("marks letters past K/k and other characters unknown", () => {
    for (const ch of ["L", "l", "z", "?", "", "ab", " "]) {
      expect(decodeZoneChar(ch)).toEqual({ condition: "unknown", live: null });
    }
  });
});

describe("streams", () => {
  it("decodes every stream code", () => {
    expect(["-", "u", "s", "g", "G", "h", "x"].map(decodeStreamChar)).toEqual([
      "none", "user", "small", "gc", "gc-cold", "user-hot", "unknown",
    ]);
  });
});

describe("countConditions", () => {
  it("counts the schema's example map", () => {
    const c = countConditions("##eeaaakkkB..");
    expect(c).toMatchObject({ reserved: 2, sealed: 8, open: 1, free: 2, unknown: 0 });
  });
});

describe("zoneDetails", () => {
  it("returns the zone under an index with its stream", () => {
    expect(zoneDetails("##eeaaakkkB..", "--uuusg--h..", 6)).toEqual({
      index: 6, condition: "sealed", live: 0, stream: "gc", zoneChar: "a", streamChar: "g",
    });
  });
  it("treats a missing stream string as no stream and rejects bad indices", () => {
    expect(zoneDetails("K", "", 0)?.stream).toBe("none");
    expect(zoneDetails("K", "", 1)).toBeNull();
    expect(zoneDetails("K", "", -1)).toBeNull();
    expect(zoneDetails("K", "", 0.5)).toBeNull();
  });
});

describe("zoneMapProblems", () => {
  it("is empty for a consistent map", () => {
    expect(zoneMapProblems(4, "#.aK", "--ug")).toEqual([]);
    expect(zoneMapProblems(4, "#.aK", "")).toEqual([]);
  });
  it("reports length mismatches and unknown codes", () => {
    const p = zoneMapProblems(5, "#.aZ", "--u");
    expect(p).toHaveLength(3);
    expect(p[0]).toContain("4 characters for 5 zones");
    expect(p[1]).toContain("stream map has 3");
    expect(p[2]).toContain("zone 3, 'Z'");
  });
});

describe("countStreams", () => {
  it("counts zones per stream in a fixed order, leaving out none", () => {
    expect(countStreams("--uuusg--h")).toEqual([
      { stream: "user", count: 3 },
      { stream: "small", count: 1 },
      { stream: "gc", count: 1 },
      { stream: "user-hot", count: 1 },
    ]);
    expect(countStreams("---")).toEqual([]);
    expect(countStreams("?")).toEqual([{ stream: "unknown", count: 1 }]);
  });
});
