// A time-series line chart (recharts) with a clock x axis; points with null values leave gaps.
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatClock } from "../lib/format";

export interface SeriesDef {
  key: string;
  label: string;
  color: string;
  dashed?: boolean;
}

export interface ChartRow {
  t: number;
  [key: string]: number | null;
}

interface Props {
  title: string;
  rows: ChartRow[];
  series: SeriesDef[];
  format: (v: number) => string;
  /** Axis tick labels (default: format). */
  axisFormat?: (v: number) => string;
  /** Fixed y range, e.g. [0, 1] for fractions (default: from the data, from 0). */
  yDomain?: [number, number];
  height?: number;
  testId?: string;
}

export function TimeChart({ title, rows, series, format, axisFormat, yDomain, height = 260, testId }: Props) {
  const points = rows.reduce((n, r) => n + series.filter((s) => typeof r[s.key] === "number").length, 0);
  return (
    <figure className="chart" data-testid={testId} data-points={points}>
      <figcaption>{title}</figcaption>
      {points === 0 ? (
        <div className="state state-empty">No samples in this window yet (the module samples every few seconds).</div>
      ) : (
        <ResponsiveContainer width="100%" height={height}>
          <LineChart data={rows} margin={{ top: 8, right: 24, bottom: 4, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
            <XAxis
              dataKey="t"
              type="number"
              scale="time"
              domain={["dataMin", "dataMax"]}
              tickFormatter={formatClock}
              minTickGap={40}
            />
            <YAxis tickFormatter={axisFormat ?? format} width={84} domain={yDomain ?? [0, "auto"]} allowDataOverflow={yDomain !== undefined} />
            <Tooltip
              labelFormatter={(t) => (typeof t === "number" ? formatClock(t) : String(t))}
              formatter={(v) => (typeof v === "number" ? format(v) : String(v))}
            />
            <Legend />
            {series.map((s) => (
              <Line
                key={s.key}
                dataKey={s.key}
                name={s.label}
                stroke={s.color}
                strokeDasharray={s.dashed ? "5 3" : undefined}
                dot={rows.length <= 60}
                isAnimationActive={false}
                connectNulls={false}
                type="linear"
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}
