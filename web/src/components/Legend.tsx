import { ZONE_STATES } from "../api/statsCodes";
import { cellColor, rgbCss, STREAM_COLORS } from "../lib/colors";
import { CONDITION_LABELS, STREAM_LABELS, type StreamKind, type ZoneCondition } from "../lib/zonemap";

// Every zone state of the schema (api/statsCodes.ts) with one colour; open and sealed zones
// get their live-data scales below.
const FIXED: ZoneCondition[] = ZONE_STATES.filter((s) => s !== "open" && s !== "sealed");
const STEPS = [0, 0.2, 0.4, 0.6, 0.8, 1];
const STREAMS: StreamKind[] = ["user", "user-hot", "small", "gc", "gc-cold"];

function Swatch({ color, label }: { color: string; label: string }) {
  return (
    <span className="legend-item" data-label={label}>
      <span className="swatch" style={{ background: color }} />
      {label}
    </span>
  );
}

export function Legend({ overlay }: { overlay: boolean }) {
  return (
    <div className="legend" aria-label="legend">
      <div>
        {FIXED.map((c) => (
          <Swatch key={c} color={rgbCss(cellColor({ condition: c, live: null }))} label={CONDITION_LABELS[c]} />
        ))}
      </div>
      {(["sealed", "open"] as const).map((cond) => (
        <div key={cond}>
          <span className="legend-title">{cond} by live data:</span>
          {STEPS.map((s) => (
            <Swatch key={s} color={rgbCss(cellColor({ condition: cond, live: s }))} label={`${s * 100} %`} />
          ))}
        </div>
      ))}
      {overlay ? (
        <div>
          <span className="legend-title">stream band:</span>
          {STREAMS.map((s) => (
            <Swatch key={s} color={rgbCss(STREAM_COLORS[s])} label={STREAM_LABELS[s]} />
          ))}
        </div>
      ) : null}
    </div>
  );
}
