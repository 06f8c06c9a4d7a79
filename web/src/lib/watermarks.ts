// The GC watermarks of a daemon's stats document (store.gc_start_free, gc_urgent_free,
// gc_stop_free, gc_free_zones_max; doc/stats-schema.md): background
// cleaning starts below `start` free, commit groups wait for it below `urgent`, idle cleaning
// stops above `stop`; when `stop` of the data zones is more than gc_free_zones_max zones per
// drive, all three shrink by one factor (a large drive keeps tens of zones free, not a share).
import { formatPercent, known } from "./format";

export interface WatermarkStore {
  gc_start_free?: number | null;
  gc_urgent_free?: number | null;
  gc_stop_free?: number | null;
  gc_free_zones_max?: number | null;
}

/**
 * "start 3.0 % · urgent 1.0 % · stop 5.0 % free, at most 64 zones free per drive" (or "…, no
 * cap on free zones"), or null when the daemon does not report the watermarks.
 */
export function watermarkText(store: WatermarkStore | null | undefined): string | null {
  if (!store) return null;
  const { gc_start_free: start, gc_urgent_free: urgent, gc_stop_free: stop, gc_free_zones_max: cap } = store;
  if (!known(start) || !known(urgent) || !known(stop)) return null;
  const fractions = `start ${formatPercent(start)} · urgent ${formatPercent(urgent)} · stop ${formatPercent(stop)} free`;
  if (!known(cap)) return fractions;
  if (cap === 0) return `${fractions}, no cap on free zones`;
  return `${fractions}, at most ${cap} ${cap === 1 ? "zone" : "zones"} free per drive`;
}
