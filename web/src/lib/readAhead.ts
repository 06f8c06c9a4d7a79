// Idle GC's read-ahead figures of a daemon's stats document (store.gc_read_ahead,
// gc.read_ahead_bytes, gc.read_ahead_yields; doc/stats-schema.md):
// before an idle slice GC reads its victim's live records ahead in reads of at most 512 KiB,
// stopping when a foreground write arrives, so the slices only write. On by default on
// rotational drives.
import { formatBytes, formatCount, known } from "./format";

export interface ReadAheadGc {
  read_ahead_bytes?: number | null;
  read_ahead_yields?: number | null;
}

export interface ReadAheadFigures {
  /** "12.0 MiB read ahead", "none since mount", or "off (gc_read_ahead)". */
  value: string;
  /** "N stopped by arrivals", null when the read-ahead is off. */
  hint: string | null;
  bytes: number;
}

/**
 * The figures, or null when the daemon does not report the counters (a publisher or OSD
 * library from before the fields). `enabled` is the store's resolved setting when known.
 */
export function readAheadFigures(gc: ReadAheadGc, enabled: boolean | null | undefined): ReadAheadFigures | null {
  const { read_ahead_bytes: bytes, read_ahead_yields: yields } = gc;
  if (!known(bytes) || !known(yields)) return null;
  // Off since mount (the setting is resolved at mount, the counters count since mount).
  if (enabled === false) return { value: "off (gc_read_ahead)", hint: null, bytes };
  const hint = `${formatCount(yields)} stopped by ${yields === 1 ? "an arrival" : "arrivals"}`;
  if (bytes === 0) return { value: "none since mount", hint, bytes };
  return { value: `${formatBytes(bytes)} read ahead`, hint, bytes };
}
