import { describe, expect, it } from "vitest";
import { packFigures } from "./pack";

describe("packFigures", () => {
  it("says how many entries went into how many packs, and their payload share of the zone bytes", () => {
    // 120 writes of 3000 bytes in two packs: 4096 + 303104 + 4096 + 61440 zone bytes.
    const f = packFigures({ pack_records: 2, pack_entries: 120, pack_payload_bytes: 360000, pack_record_bytes: 372736 }, 32768);
    expect(f).not.toBeNull();
    expect(f?.value).toBe("120 entries in 2 pack records");
    expect(f?.hint).toBe("payload 352 KiB of 364 KiB zone bytes (96.6 %)");
    expect(f?.efficiency).toBeCloseTo(360000 / 372736, 10);
    expect(f?.entries).toBe(120);
  });

  it("uses the singular and thousands separators", () => {
    expect(packFigures({ pack_records: 1, pack_entries: 1, pack_payload_bytes: 20000, pack_record_bytes: 24576 })?.value).toBe(
      "1 entry in 1 pack record",
    );
    expect(
      packFigures({ pack_records: 1234, pack_entries: 98765, pack_payload_bytes: 4096 * 98765, pack_record_bytes: 4096 * 98765 + 4096 * 1234 })
        ?.value,
    ).toBe("98,765 entries in 1,234 pack records");
  });

  it("tells packing off from nothing packed yet", () => {
    const zero = { pack_records: 0, pack_entries: 0, pack_payload_bytes: 0, pack_record_bytes: 0 };
    expect(packFigures(zero, 0)).toEqual({ value: "packing off (pack_max 0)", hint: null, efficiency: null, entries: 0 });
    expect(packFigures(zero, 32768)?.value).toBe("none packed since mount");
    expect(packFigures(zero, undefined)?.value).toBe("none packed since mount");
  });

  it("is null when the daemon does not report the figures (older publisher or OSD library)", () => {
    expect(packFigures({})).toBeNull();
    expect(packFigures({ pack_records: 2, pack_entries: 120, pack_payload_bytes: null, pack_record_bytes: 372736 })).toBeNull();
  });
});
