// The data-read figures of a daemon's stats document (io.data_reads, io.data_read_records;
// doc/stats-schema.md): device reads of object data since mount and
// the records they covered. On a rotational drive an object's records lying together are read
// in one device read, so more than one record per read shows gathered reads.
import { formatCount, known, ratio } from "./format";

export interface ReadIo {
  data_reads?: number | null;
  data_read_records?: number | null;
}

export interface ReadFigures {
  /** "R reads" (or "none since mount"). */
  value: string;
  /** "N records, x.xx per read", null when nothing was read. */
  hint: string | null;
  /** records / reads, null when nothing was read. */
  recordsPerRead: number | null;
  reads: number;
}

/**
 * The figures, or null when the daemon does not report them (a publisher or OSD library
 * from before the fields).
 */
export function readFigures(io: ReadIo): ReadFigures | null {
  const { data_reads: r, data_read_records: n } = io;
  if (!known(r) || !known(n)) return null;
  const per = ratio(n, r);
  if (per === null) return { value: "none since mount", hint: null, recordsPerRead: null, reads: r };
  return {
    value: `${formatCount(r)} ${r === 1 ? "read" : "reads"}`,
    hint: `${formatCount(n)} ${n === 1 ? "record" : "records"}, ${per.toFixed(2)} per read`,
    recordsPerRead: per,
    reads: r,
  };
}
