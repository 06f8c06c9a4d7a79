// The zone map: one cell per zone on a <canvas>, drawn from a pixel buffer (renderZoneMap) and
// hit-tested arithmetically (hitTest) — fast for tens of thousands of zones.
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from "react";
import { computeLayout, hitTest } from "../lib/layout";
import { renderZoneMap } from "../lib/layout";
import { zoneDetails, CONDITION_LABELS, STREAM_LABELS, type ZoneDetails } from "../lib/zonemap";
import { formatBytes, formatPercent } from "../lib/format";

interface Props {
  zonemap: string;
  streams: string;
  overlay: boolean;
  zoneSize: number | null;
  zoneCapacity: number | null;
  maxHeight?: number;
}

export function describeZone(z: ZoneDetails): string {
  const parts = [`zone ${z.index}`, CONDITION_LABELS[z.condition]];
  if (z.live !== null) parts.push(`live ${formatPercent(z.live, 0)}`);
  parts.push(`stream ${STREAM_LABELS[z.stream]}`);
  return parts.join(" · ");
}

function useWidth(ref: React.RefObject<HTMLElement>): number {
  const [width, setWidth] = useState(800);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const measure = () => {
      const w = el.clientWidth;
      if (w > 0) setWidth(w);
    };
    measure();
    if (typeof ResizeObserver === "undefined") return undefined;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return width;
}

export function ZoneMapCanvas({ zonemap, streams, overlay, zoneSize, zoneCapacity, maxHeight = 520 }: Props) {
  const wrapRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const width = useWidth(wrapRef);
  const layout = useMemo(() => computeLayout(zonemap.length, width, maxHeight), [zonemap.length, width, maxHeight]);
  const [hover, setHover] = useState<{ index: number; x: number; y: number } | null>(null);
  const [pinned, setPinned] = useState<number | null>(null);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || layout.width === 0) return;
    const ctx = canvas.getContext("2d");
    if (!ctx) return; // no 2D context (e.g. a test DOM): the canvas stays blank
    const pixels = renderZoneMap(layout, zonemap, streams, overlay);
    ctx.putImageData(new ImageData(pixels, layout.width, layout.height), 0, 0);
  }, [layout, zonemap, streams, overlay]);

  // A pinned zone past the end of a map that shrank is dropped.
  useEffect(() => {
    if (pinned !== null && pinned >= zonemap.length) setPinned(null);
  }, [pinned, zonemap.length]);

  const at = (e: MouseEvent<HTMLCanvasElement>): { index: number | null; x: number; y: number } => {
    const r = e.currentTarget.getBoundingClientRect();
    const sx = r.width > 0 ? layout.width / r.width : 1;
    const sy = r.height > 0 ? layout.height / r.height : 1;
    const x = (e.clientX - r.left) * sx;
    const y = (e.clientY - r.top) * sy;
    return { index: hitTest(layout, x, y), x: e.clientX - r.left, y: e.clientY - r.top };
  };

  const onMove = (e: MouseEvent<HTMLCanvasElement>) => {
    const p = at(e);
    setHover(p.index === null ? null : { index: p.index, x: p.x, y: p.y });
  };
  const onClick = (e: MouseEvent<HTMLCanvasElement>) => {
    const p = at(e);
    setPinned(p.index === null || p.index === pinned ? null : p.index);
  };
  const onKey = (e: KeyboardEvent<HTMLCanvasElement>) => {
    const n = zonemap.length;
    if (n === 0) return;
    const step: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: layout.cols, ArrowUp: -layout.cols };
    const d = step[e.key];
    if (d !== undefined) {
      e.preventDefault();
      setPinned((p) => Math.min(n - 1, Math.max(0, (p ?? 0) + (p === null ? 0 : d))));
    } else if (e.key === "Escape") {
      setPinned(null);
    }
  };

  const hoverZone = hover ? zoneDetails(zonemap, streams, hover.index) : null;
  const pinnedZone = pinned !== null ? zoneDetails(zonemap, streams, pinned) : null;

  return (
    <div className="zonemap">
      <div className="zonemap-wrap" ref={wrapRef}>
        <canvas
          ref={canvasRef}
          className="zonemap-canvas"
          width={layout.width}
          height={layout.height}
          style={{ width: layout.width, height: layout.height }}
          tabIndex={0}
          role="img"
          aria-label={`zone map of ${zonemap.length} zones; arrow keys move the selected zone`}
          data-cell={layout.cell}
          data-cols={layout.cols}
          data-gap={layout.gap}
          onMouseMove={onMove}
          onMouseLeave={() => setHover(null)}
          onClick={onClick}
          onKeyDown={onKey}
        />
        {hoverZone && hover ? (
          <div className="zonemap-tooltip" role="tooltip" style={{ left: hover.x + 14, top: hover.y + 14 }}>
            {describeZone(hoverZone)}
          </div>
        ) : null}
      </div>
      <div className="zonemap-pinned" aria-live="polite">
        {pinnedZone ? (
          <ZoneDetailsPanel z={pinnedZone} zoneSize={zoneSize} zoneCapacity={zoneCapacity} onClose={() => setPinned(null)} />
        ) : (
          <span className="muted">Hover a zone for details; click to pin it (arrow keys move the pin).</span>
        )}
      </div>
    </div>
  );
}

function ZoneDetailsPanel({
  z,
  zoneSize,
  zoneCapacity,
  onClose,
}: {
  z: ZoneDetails;
  zoneSize: number | null;
  zoneCapacity: number | null;
  onClose: () => void;
}) {
  return (
    <div className="pinned" data-testid="pinned-zone">
      <strong>Zone {z.index}</strong> <button onClick={onClose}>unpin</button>
      <dl>
        <dt>condition</dt>
        <dd>{CONDITION_LABELS[z.condition]}</dd>
        <dt>live data</dt>
        <dd>
          {z.live === null
            ? "–"
            : `${formatPercent(z.live, 0)}${zoneCapacity !== null ? ` (≈ ${formatBytes(z.live * zoneCapacity)} of ${formatBytes(zoneCapacity)})` : ""}`}
        </dd>
        <dt>stream</dt>
        <dd>{STREAM_LABELS[z.stream]}</dd>
        {zoneSize !== null ? (
          <>
            <dt>start</dt>
            <dd>
              byte {(z.index * zoneSize).toLocaleString("en-US")} ({formatBytes(z.index * zoneSize)})
            </dd>
          </>
        ) : null}
        <dt>codes</dt>
        <dd>
          <code>{z.zoneChar}</code> / <code>{z.streamChar}</code>
        </dd>
      </dl>
    </div>
  );
}
