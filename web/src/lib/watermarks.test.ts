import { describe, expect, it } from "vitest";
import { watermarkText } from "./watermarks";

describe("watermarkText", () => {
  it("gives the three watermarks and the cap on free zones", () => {
    expect(watermarkText({ gc_start_free: 0.03, gc_urgent_free: 0.01, gc_stop_free: 0.05, gc_free_zones_max: 64 })).toBe(
      "start 3.0 % · urgent 1.0 % · stop 5.0 % free, at most 64 zones free per drive",
    );
    expect(watermarkText({ gc_start_free: 0.3, gc_urgent_free: 0, gc_stop_free: 0.35, gc_free_zones_max: 1 })).toBe(
      "start 30.0 % · urgent 0.0 % · stop 35.0 % free, at most 1 zone free per drive",
    );
  });

  it("says when there is no cap, and leaves the cap out when it is not reported", () => {
    expect(watermarkText({ gc_start_free: 0.03, gc_urgent_free: 0.01, gc_stop_free: 0.05, gc_free_zones_max: 0 })).toBe(
      "start 3.0 % · urgent 1.0 % · stop 5.0 % free, no cap on free zones",
    );
    expect(watermarkText({ gc_start_free: 0.03, gc_urgent_free: 0.01, gc_stop_free: 0.05 })).toBe("start 3.0 % · urgent 1.0 % · stop 5.0 % free");
  });

  it("is null when the daemon does not report the watermarks", () => {
    expect(watermarkText(null)).toBeNull();
    expect(watermarkText({})).toBeNull();
    expect(watermarkText({ gc_start_free: 0.03, gc_urgent_free: null, gc_stop_free: 0.05, gc_free_zones_max: 64 })).toBeNull();
  });
});
