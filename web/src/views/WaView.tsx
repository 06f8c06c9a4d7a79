import { useState } from "react";
import { useHistory } from "../api/queries";
import { QueryState } from "../components/QueryState";
import { TimeChart } from "../components/TimeChart";
import { WindowPicker } from "../components/WindowPicker";
import { waRows } from "../lib/charts";
import { formatWa } from "../lib/format";
import { routeHref } from "../lib/route";

const fmt = (v: number): string => formatWa(v);

export function WaView({ daemon }: { daemon: string | null }) {
  const [window, setWindow] = useState(900);
  const q = useHistory(daemon, window);
  return (
    <section>
      <h1>Write amplification {daemon !== null ? <code>{daemon}</code> : null}</h1>
      <div className="controls">
        <WindowPicker value={window} onChange={setWindow} />{" "}
        {daemon !== null ? <a href={routeHref({ view: "wa", daemon: null })}>all daemons</a> : null}
      </div>
      <p className="muted">
        Interval WA: device / user bytes written between two samples (no point when nothing was written). Lifetime
        WA: since the store was created.
      </p>
      <QueryState
        query={q}
        what="WA history"
        empty={(h) => (h.series.length === 0 ? <>No daemon has history in this window yet.</> : null)}
      >
        {(h) => (
          <>
            {h.series.map((s) => (
              <div key={s.daemon}>
                <h2>
                  <a href={routeHref({ view: "wa", daemon: s.daemon })}>{s.daemon}</a>
                </h2>
                <TimeChart
                  title={`${s.daemon}: write amplification`}
                  testId="wa-chart"
                  rows={waRows(s.points)}
                  series={[
                    { key: "interval", label: "interval WA", color: "#2563eb" },
                    { key: "lifetime", label: "lifetime WA", color: "#16a34a", dashed: true },
                  ]}
                  format={fmt}
                  axisFormat={(v) => `${v.toFixed(2)}×`}
                />
              </div>
            ))}
          </>
        )}
      </QueryState>
    </section>
  );
}
