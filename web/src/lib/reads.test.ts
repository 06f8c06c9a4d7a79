import { describe, expect, it } from "vitest";
import { readFigures } from "./reads";

describe("readFigures", () => {
  it("gives the reads, the records they covered and the records per read", () => {
    const f = readFigures({ data_reads: 40, data_read_records: 100 });
    expect(f).toEqual({ value: "40 reads", hint: "100 records, 2.50 per read", recordsPerRead: 2.5, reads: 40 });
  });

  it("says one read of one record in the singular, and groups thousands", () => {
    expect(readFigures({ data_reads: 1, data_read_records: 1 })).toMatchObject({ value: "1 read", hint: "1 record, 1.00 per read" });
    expect(readFigures({ data_reads: 12345, data_read_records: 12345 })?.value).toBe("12,345 reads");
  });

  it("says none when nothing was read since mount", () => {
    expect(readFigures({ data_reads: 0, data_read_records: 0 })).toEqual({ value: "none since mount", hint: null, recordsPerRead: null, reads: 0 });
  });

  it("is null when the daemon does not report either field", () => {
    expect(readFigures({})).toBeNull();
    expect(readFigures({ data_reads: 3, data_read_records: null })).toBeNull();
    expect(readFigures({ data_reads: undefined, data_read_records: 7 })).toBeNull();
  });
});
