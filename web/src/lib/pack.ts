// The pack-record figures of a daemon's stats document (io.pack_*, store.pack_max; added
// within schema v1, doc/stats-schema.md): how the small objects written since mount were
// stored, and what they cost in zone space.
import { formatBytes, formatCount, formatPercent, known, ratio } from "./format";

export interface PackIo {
  pack_records?: number | null;
  pack_entries?: number | null;
  pack_payload_bytes?: number | null;
  pack_record_bytes?: number | null;
}

export interface PackFigures {
  /** "E entries in R pack records" (or why there are none). */
  value: string;
  /** "payload P of B zone bytes (x %)", null when nothing was packed. */
  hint: string | null;
  /** payload / zone bytes of the pack records, null when none. */
  efficiency: number | null;
  entries: number;
}

/**
 * The figures, or null when the daemon does not report them (a publisher or OSD library
 * from before the fields). `packMax` is the store's pack_max option when known.
 */
export function packFigures(io: PackIo, packMax?: number | null): PackFigures | null {
  const { pack_records: r, pack_entries: e, pack_payload_bytes: p, pack_record_bytes: b } = io;
  if (!known(r) || !known(e) || !known(p) || !known(b)) return null;
  if (e === 0) {
    return {
      value: packMax === 0 ? "packing off (pack_max 0)" : "none packed since mount",
      hint: null,
      efficiency: null,
      entries: 0,
    };
  }
  const eff = ratio(p, b);
  return {
    value: `${formatCount(e)} ${e === 1 ? "entry" : "entries"} in ${formatCount(r)} pack ${r === 1 ? "record" : "records"}`,
    hint: `payload ${formatBytes(p)} of ${formatBytes(b)} zone bytes (${formatPercent(eff)})`,
    efficiency: eff,
    entries: e,
  };
}
