// Geometry of the zone-map canvas: a grid of square cells in zone order, row-major. Drawing and
// hit-testing both derive from this one layout, so a pointer position maps back to a zone index
// arithmetically (no per-zone DOM nodes, no search).
import { packedStreamColor, packedZoneColor } from "./colors";

export interface GridLayout {
  /** Number of zones laid out. */
  count: number;
  cols: number;
  rows: number;
  /** Cell edge in CSS pixels. */
  cell: number;
  /** Gap between cells in CSS pixels (0 for cells under 4 px). */
  gap: number;
  /** Canvas size in CSS pixels. */
  width: number;
  height: number;
}

export const MAX_CELL = 18;

/**
 * Chooses the largest cell (≤ MAX_CELL px) for which `count` zones fit `maxWidth` wide and
 * `maxHeight` tall; if even 1 px cells do not fit the height, uses 1 px cells (the canvas then
 * scrolls).
 */
export function computeLayout(count: number, maxWidth: number, maxHeight: number): GridLayout {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`bad zone count ${count}`);
  const width = Math.max(1, Math.floor(maxWidth));
  if (count === 0) return { count, cols: 0, rows: 0, cell: 0, gap: 0, width: 0, height: 0 };
  let chosen: GridLayout | null = null;
  for (let cell = MAX_CELL; cell >= 1; cell--) {
    const gap = cell >= 4 ? 1 : 0;
    const pitch = cell + gap;
    const cols = Math.max(1, Math.min(count, Math.floor((width + gap) / pitch)));
    const rows = Math.ceil(count / cols);
    const layout: GridLayout = {
      count,
      cols,
      rows,
      cell,
      gap,
      width: cols * pitch - gap,
      height: rows * pitch - gap,
    };
    chosen = layout;
    if (layout.height <= maxHeight) break;
  }
  // The loop runs at least once (MAX_CELL >= 1), so chosen is set.
  return chosen as GridLayout;
}

/** Zone index under the point (x, y) in CSS pixels of the canvas, or null (gap, outside). */
export function hitTest(layout: GridLayout, x: number, y: number): number | null {
  if (layout.count === 0 || !Number.isFinite(x) || !Number.isFinite(y)) return null;
  if (x < 0 || y < 0 || x >= layout.width || y >= layout.height) return null;
  const pitch = layout.cell + layout.gap;
  const col = Math.floor(x / pitch);
  const row = Math.floor(y / pitch);
  if (x - col * pitch >= layout.cell || y - row * pitch >= layout.cell) return null;
  if (col >= layout.cols) return null;
  const index = row * layout.cols + col;
  return index < layout.count ? index : null;
}

/** Top-left corner of zone `index`'s cell. */
export function cellOrigin(layout: GridLayout, index: number): { x: number; y: number } {
  const pitch = layout.cell + layout.gap;
  return { x: (index % layout.cols) * pitch, y: Math.floor(index / layout.cols) * pitch };
}

/**
 * Renders the zone map into an RGBA pixel buffer of layout.width × layout.height (what
 * CanvasRenderingContext2D.putImageData takes). With `overlay`, zones that belong to a stream
 * get a band in the stream's colour across the lower third of the cell (the whole cell when
 * cells are under 3 px). Gaps stay transparent.
 */
export function renderZoneMap(
  layout: GridLayout,
  zonemap: string,
  streams: string,
  overlay: boolean,
): Uint8ClampedArray<ArrayBuffer> {
  const { width, height, cell, cols } = layout;
  const pixels = new Uint8ClampedArray(width * height * 4);
  const pitch = cell + layout.gap;
  const n = Math.min(layout.count, zonemap.length);
  const band = cell >= 3 ? Math.max(1, Math.round(cell / 3)) : cell;
  const bandStart = cell - band;
  for (let i = 0; i < n; i++) {
    const x0 = (i % cols) * pitch;
    const y0 = Math.floor(i / cols) * pitch;
    const zch = zonemap.charCodeAt(i);
    const stch = i < streams.length ? streams.charCodeAt(i) : 45; /* '-' */
    const zc = packedZoneColor(zch);
    const sc = overlay && stch !== 45 ? packedStreamColor(stch) : zc;
    for (let dy = 0; dy < cell; dy++) {
      const c = dy >= bandStart ? sc : zc;
      const r = (c >> 16) & 255;
      const g = (c >> 8) & 255;
      const b = c & 255;
      let p = ((y0 + dy) * width + x0) * 4;
      for (let dx = 0; dx < cell; dx++) {
        pixels[p] = r;
        pixels[p + 1] = g;
        pixels[p + 2] = b;
        pixels[p + 3] = 255;
        p += 4;
      }
    }
  }
  return pixels;
}
