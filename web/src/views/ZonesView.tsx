import { useState } from "react";
import { useDaemon, useDaemons, useZones } from "../api/queries";
import type { DriveZones } from "../api/client";
import { QueryState } from "../components/QueryState";
import { Legend } from "../components/Legend";
import { ZoneMapCanvas } from "../components/ZoneMapCanvas";
import { Stat } from "../components/Stat";
import { formatBytes, formatCount } from "../lib/format";
import { routeHref } from "../lib/route";
import { STREAM_LABELS, countConditions, countStreams, zoneMapProblems } from "../lib/zonemap";

function go(daemon: string, drive: number): void {
  window.location.hash = routeHref({ view: "zones", daemon, drive });
}

function DrivePicker({ daemon, drive }: { daemon: string; drive: number }) {
  const daemons = useDaemons();
  const detail = useDaemon(daemon);
  const names = daemons.data?.map((d) => d.name) ?? [daemon];
  const drives = detail.data?.drives.map((d) => d.index) ?? [drive];
  return (
    <div className="controls">
      <label>
        daemon{" "}
        <select value={daemon} onChange={(e) => go(e.target.value, 0)} aria-label="daemon">
          {(names.includes(daemon) ? names : [daemon, ...names]).map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>{" "}
      <label>
        drive{" "}
        <select value={drive} onChange={(e) => go(daemon, Number(e.target.value))} aria-label="drive">
          {(drives.includes(drive) ? drives : [drive, ...drives]).map((i) => (
            <option key={i} value={i}>
              {i}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

function ZoneMapPanel({ z }: { z: DriveZones }) {
  const [overlay, setOverlay] = useState(false);
  const nr = z.nr_zones ?? z.zonemap.length;
  const problems = zoneMapProblems(nr, z.zonemap, z.streams);
  // Counted here from the zone map string (one character per zone, lib/zonemap.ts).
  const counts = countConditions(z.zonemap);
  const streamCounts = countStreams(z.streams)
    .map((s) => `${STREAM_LABELS[s.stream]} ${s.count}`)
    .join(" · ");
  return (
    <>
      <div className="stats">
        <Stat label="zones" value={formatCount(nr)} hint={`${formatBytes(z.zone_size)} each, capacity ${formatBytes(z.zone_capacity)}`} />
        <Stat label="free" value={formatCount(counts.free)} exact={counts.free} testId="zones-free" />
        <Stat label="open" value={formatCount(counts.open)} />
        <Stat label="sealed" value={formatCount(counts.sealed)} />
        <Stat label="reserved / conventional" value={`${counts.reserved} / ${counts.conventional}`} />
        <Stat label="offline / read-only" value={`${counts.offline} / ${counts.readonly}`} />
        {counts.inactive > 0 ? (
          <Stat
            label="inactive (hybrid)"
            value={formatCount(counts.inactive)}
            exact={counts.inactive}
            testId="zones-inactive"
            hint="zones of their realm's other domain"
          />
        ) : null}
      </div>
      <p className="muted">
        Zones per stream: {streamCounts || "none in use"}
        {z.source === "osd" ? (
          <>
            {" "}
            · from the OSD&apos;s <code>smrstore stats</code>
            {z.zonemap_time !== null && z.zonemap_time !== undefined ? (
              <> at {new Date(z.zonemap_time * 1000).toLocaleTimeString()}</>
            ) : null}
          </>
        ) : null}
      </p>
      {z.zonemap_error ? (
        <p className="state state-error" role="status">
          {z.zonemap_error} (the map shown is the last one the OSD sent)
        </p>
      ) : null}
      {problems.length > 0 ? (
        <div className="state state-error" role="alert">
          <strong>The zone map does not match the drive</strong>
          <ul>
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <label className="toggle">
        <input type="checkbox" checked={overlay} onChange={(e) => setOverlay(e.target.checked)} /> show streams
      </label>
      <ZoneMapCanvas
        zonemap={z.zonemap}
        streams={z.streams}
        overlay={overlay}
        zoneSize={z.zone_size ?? null}
        zoneCapacity={z.zone_capacity ?? null}
      />
      <Legend overlay={overlay} />
    </>
  );
}

function DriveZonesView({ daemon, drive }: { daemon: string; drive: number }) {
  const q = useZones(daemon, drive);
  return (
    <>
      <DrivePicker daemon={daemon} drive={drive} />
      <QueryState
        query={q}
        what={`the zones of ${daemon} drive ${drive}`}
        empty={(z) =>
          !z.available ? (
            <>
              <code>{daemon}</code> has no zone map now: {z.zonemap_error ?? "none reported"}. Its zone counts: free{" "}
              {z.reported.free}, open {z.reported.open}, sealed {z.reported.sealed}.
            </>
          ) : z.zonemap.length === 0 ? (
            <>Drive {drive} of {daemon} has no zones.</>
          ) : null
        }
      >
        {(z) => <ZoneMapPanel z={z} />}
      </QueryState>
    </>
  );
}

export function ZonesView({ daemon, drive }: { daemon: string | null; drive: number | null }) {
  const daemons = useDaemons();
  return (
    <section>
      <h1>Zone map</h1>
      {daemon !== null ? (
        <DriveZonesView daemon={daemon} drive={drive ?? 0} />
      ) : (
        <QueryState
          query={daemons}
          what="daemons"
          empty={(ds) => (ds.length === 0 ? <>No smrstore daemons report yet, so there is no zone map to show.</> : null)}
        >
          {(ds) => <DriveZonesView daemon={ds[0]?.name ?? ""} drive={drive ?? 0} />}
        </QueryState>
      )}
    </section>
  );
}
