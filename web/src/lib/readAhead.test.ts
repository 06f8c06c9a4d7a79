import { describe, expect, it } from "vitest";
import { readAheadFigures } from "./readAhead";

describe("readAheadFigures", () => {
  it("gives the bytes read ahead and the read-aheads arrivals stopped", () => {
    expect(readAheadFigures({ read_ahead_bytes: 12 * 1024 * 1024, read_ahead_yields: 7 }, true)).toEqual({
      value: "12.0 MiB read ahead",
      hint: "7 stopped by arrivals",
      bytes: 12 * 1024 * 1024,
    });
    expect(readAheadFigures({ read_ahead_bytes: 4096, read_ahead_yields: 1 }, true)?.hint).toBe("1 stopped by an arrival");
  });

  it("says off when the store has it off, none when on and nothing was read yet", () => {
    expect(readAheadFigures({ read_ahead_bytes: 0, read_ahead_yields: 0 }, false)).toEqual({ value: "off (gc_read_ahead)", hint: null, bytes: 0 });
    expect(readAheadFigures({ read_ahead_bytes: 0, read_ahead_yields: 0 }, true)).toEqual({ value: "none since mount", hint: "0 stopped by arrivals", bytes: 0 });
    // Setting unknown (a counters-only OSD reading): the counts as they are.
    expect(readAheadFigures({ read_ahead_bytes: 0, read_ahead_yields: 0 }, null)?.value).toBe("none since mount");
  });

  it("is null when the daemon does not report the counters", () => {
    expect(readAheadFigures({}, true)).toBeNull();
    expect(readAheadFigures({ read_ahead_bytes: 5, read_ahead_yields: null }, true)).toBeNull();
    expect(readAheadFigures({ read_ahead_bytes: undefined, read_ahead_yields: 2 }, false)).toBeNull();
  });
});
