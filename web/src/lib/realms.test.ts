import { describe, expect, it } from "vitest";
import { countRealms, decodeRealmChar, domainShares, latencyScale, pendingRealms, realmMapProblems } from "./realms";

describe("realm map", () => {
  it("decodes the codes and marks anything else unknown", () => {
    expect(["C", "S", "c", "s", ">"].map(decodeRealmChar)).toEqual(["C", "S", "c", "s", ">"]);
    for (const ch of ["_", "x", "", "CS", " ", "<"]) expect(decodeRealmChar(ch)).toBe("unknown");
  });
  it("counts every code, zero when absent", () => {
    expect(countRealms("SSSSSSSScCSS")).toEqual({ C: 1, S: 10, c: 1, s: 0, ">": 0, unknown: 0 });
    expect(countRealms("")).toEqual({ C: 0, S: 0, c: 0, s: 0, ">": 0, unknown: 0 });
    expect(countRealms("C?>")).toMatchObject({ C: 1, ">": 1, unknown: 1 });
  });
  it("lists the realms in flight in realm order with what happens to them", () => {
    expect(pendingRealms("CcS>s")).toEqual([
      { index: 1, kind: "c", what: "emptying its data (CMR → SMR)" },
      { index: 3, kind: ">", what: "the drive is converting it" },
      { index: 4, kind: "s", what: "emptying its data (SMR → CMR)" },
    ]);
    expect(pendingRealms("CCSS")).toEqual([]);
  });
  it("reports a map that does not match the realm count or has unknown codes", () => {
    expect(realmMapProblems(4, "CCSS")).toEqual([]);
    expect(realmMapProblems(null, "CS")).toEqual([]);
    expect(realmMapProblems(4, "CCS")).toEqual(["realm map has 3 characters for 4 realms"]);
    expect(realmMapProblems(3, "CxS")).toEqual(["1 realm(s) with an unknown code (first: 'x')"]);
  });
});

describe("capacity and latency", () => {
  it("splits CMR and SMR capacity", () => {
    expect(domainShares(1, 3)).toEqual({ cmr: 0.25, smr: 0.75 });
    expect(domainShares(0, 0)).toBeNull();
    expect(domainShares(null, undefined)).toBeNull();
    expect(domainShares(5, null)).toEqual({ cmr: 1, smr: 0 });
  });
  it("puts bound, p99 and max on one axis with 10 % room and says when p99 is over", () => {
    const s = latencyScale(100, 320.434, 376.716);
    expect(s.top).toBeCloseTo(376.716 * 1.1);
    expect(s.max).toBeCloseTo(1 / 1.1);
    expect(s.bound).toBeCloseTo(100 / (376.716 * 1.1));
    expect(s.over).toBe(true);
    expect(latencyScale(100, 100, 100).over).toBe(false); // at the bound: within it
    const within = latencyScale(100, 40, 60);
    expect(within.over).toBe(false);
    expect(within.bound).toBeCloseTo(1 / 1.1);
    expect(latencyScale(100, null, null)).toMatchObject({ p99: null, max: null, over: null });
    expect(latencyScale(null, 10, 20).over).toBeNull();
  });
});
