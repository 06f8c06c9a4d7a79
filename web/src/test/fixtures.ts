// API answers for the component tests, typed by the generated schema so a change of the
// mgr module's API breaks the typecheck here too.
import type { ConversionDrive, DaemonDetail, DaemonSummary, DriveZones, GcOut, HistoryOut, Summary } from "../api/client";

const GiB = 1 << 30;

export const summary: Summary = {
  time: 1000,
  daemons: 1,
  stale_daemons: 0,
  drives: 2,
  capacity_bytes: 30 * GiB,
  stored_bytes: 8 * GiB,
  available_bytes: 20 * GiB,
  user_bytes: 10 * GiB,
  device_bytes: 12 * GiB,
  gc_bytes: 2 * GiB,
  write_amplification: 1.2,
  health: [
    { name: "SMRSTORE_SPACE_LOW", severity: "warning", summary: "1 daemon low on space", count: 1, detail: ["demo-a: 5 % available"] },
  ],
  errors: [],
};

export const daemons: DaemonSummary[] = [
  {
    name: "demo-a",
    source: "service",
    last_update: 998,
    age_seconds: 2,
    stale: false,
    drives: 2,
    capacity: 30 * GiB,
    stored: 8 * GiB,
    available: 20 * GiB,
    user_bytes: 10 * GiB,
    device_bytes: 12 * GiB,
    free_zones: 4,
    write_amplification: 1.2,
    lifetime_write_amplification: 1.25,
    gc_auto: true,
    gc_runs: 3,
  },
];

// A Ceph OSD whose objectstore is smrstore (shape as the module serves it for a real OSD).
export const osdSummary: DaemonSummary = {
  name: "osd.0",
  source: "osd",
  last_update: 997,
  age_seconds: 3,
  stale: false,
  drives: 2,
  capacity: 704 << 20,
  stored: 280 << 20,
  available: 152 << 20,
  user_bytes: 14466154496,
  device_bytes: 17853059072,
  free_zones: 6,
  write_amplification: 1.2341261167186142,
  lifetime_write_amplification: 1.2341,
  gc_auto: true,
  gc_runs: 1095,
};

export const zones: DriveZones = {
  daemon: "demo-a",
  index: 0,
  available: true,
  nr_zones: 13,
  zone_size: 256 << 20,
  zone_capacity: 256 << 20,
  conventional_zones: 0,
  source: "service",
  zonemap: "##eeaaakkkB..",
  streams: "--uuusg--h.--".replace(/\./g, "-"),
  reported: { free: 2, open: 1, sealed: 8, reserved: 2, offline: 0, readonly: 0, conventional: 0 },
  counts: { free: 2, open: 1, sealed: 8, reserved: 2, offline: 0, readonly: 0, conventional: 0, inactive: 0 },
  stream_counts: { "-": 7, u: 3, s: 1, g: 1, h: 1 },
};

export const detail: DaemonDetail = {
  schema: "smrstore.stats/1",
  name: "demo-a",
  time: 998,
  source: "service",
  age_seconds: 2,
  stale: false,
  store: {
    uuid: "u-1",
    dir: "/var/tmp/st",
    mount_count: 2,
    gc_policy: "lifetime",
    gc_auto: true,
    pack_max: 32768,
    gc_read_ahead: false,
    gc_start_free: 0.03,
    gc_urgent_free: 0.01,
    gc_stop_free: 0.05,
    gc_free_zones_max: 64,
  },
  statfs: { total: 30 * GiB, available: 20 * GiB, allocated: 9 * GiB, stored: 8 * GiB, meta_bytes: 1 << 20, reclaimable: 0, writable: 18 * GiB },
  io: {
    user_bytes: 10 * GiB,
    device_bytes: 12 * GiB,
    inline_bytes: 0,
    bytes_read: 0,
    txns_committed: 100,
    txns_failed: 0,
    crc_errors: 0,
    write_amplification: 1.2,
    lifetime_user_bytes: 10 * GiB,
    lifetime_device_bytes: 12 * GiB,
    lifetime_gc_bytes: 2 * GiB,
    lifetime_write_amplification: 1.2,
    pack_records: 0,
    pack_entries: 0,
    pack_payload_bytes: 0,
    pack_record_bytes: 0,
    data_reads: 0,
    data_read_records: 0,
  },
  gc: {
    runs: 3,
    zones_reset: 5,
    live_moved: 2 * GiB,
    bytes_written: 2 * GiB,
    throttle_ns: 0,
    auto: true,
    failures: 0,
    quarantined_zones: 0,
    pinned_zones: 0,
    read_ahead_bytes: 0,
    read_ahead_yields: 0,
  },
  drives: [
    {
      index: 0,
      nr_zones: 13,
      capacity_bytes: 12 * (256 << 20),
      written_bytes: 3 * GiB,
      live_bytes: 2 * GiB,
      zones: { free: 2, open: 1, sealed: 8, reserved: 2, offline: 0, readonly: 0, conventional: 0 },
    },
  ],
};

export const osdDetail: DaemonDetail = {
  ...detail,
  name: "osd.0",
  source: "osd",
  time: 997,
  age_seconds: 3,
  zonemap_time: 998.5,
  store: { ...detail.store!, uuid: "3de5", dir: "/var/lib/ceph/osd/ceph-0/smrstore" },
  io: { ...detail.io, user_bytes: 14466154496, device_bytes: 17853059072, write_amplification: 1.2341261167186142 },
  gc: { ...detail.gc, runs: 1095 },
};

export const osdZones: DriveZones = {
  ...zones,
  daemon: "osd.0",
  source: "osd",
  zonemap_time: 998.5,
};

export const history: HistoryOut = {
  time: 1000,
  window: 900,
  series: [
    {
      daemon: "demo-a",
      points: [
        { t: 990, lifetime_write_amplification: 1.1, user_bytes: 0, device_bytes: 0, gc_bytes: 0, zones_reset: 0, gc_runs: 0, throttle_ns: 0 },
        { t: 995, write_amplification: 1.3, lifetime_write_amplification: 1.2, user_bytes: GiB, device_bytes: 1.3 * GiB, gc_bytes: 0.3 * GiB, zones_reset: 2, gc_runs: 1, throttle_ns: 1e9 },
      ],
    },
  ],
};

export const conversionNone: ConversionDrive[] = [
  { daemon: "demo-a", drive: 0, supported: false, state: "none" },
  { daemon: "demo-a", drive: 1, supported: false, state: "none" },
];

export const conversionHybrid: ConversionDrive[] = [
  { daemon: "demo-a", drive: 0, supported: true, state: "converting", cmr_bytes: GiB, smr_bytes: 9 * GiB, converting_zones: 2, progress: 0.4, latency_bound_ms: 50 },
];

// GET /api/v1/gc: demo-a with 2 quarantined zones after 3 failed cleanings, osd.0 with none
// quarantined (1 failure since, its zone cleaned on retry), osd.1 an OSD on an older library
// that does not report either (left out here; the module sends null: the test fills it in).
export const gc: GcOut = {
  time: 1000,
  window: 900,
  daemons: [
    {
      daemon: "demo-a",
      auto: true,
      runs: 3,
      zones_reset: 5,
      live_moved: 2 * GiB,
      bytes_written: 2 * GiB,
      throttle_ns: 0,
      lifetime_gc_bytes: 2 * GiB,
      failures: 3,
      quarantined_zones: 2,
      free_zones: 4,
    },
    {
      daemon: "osd.0",
      auto: true,
      runs: 1095,
      zones_reset: 1100,
      live_moved: GiB,
      bytes_written: GiB,
      throttle_ns: 0,
      lifetime_gc_bytes: GiB,
      failures: 1,
      quarantined_zones: 0,
      free_zones: 6,
    },
    {
      daemon: "osd.1",
      auto: true,
      runs: 7,
      zones_reset: 9,
      live_moved: GiB,
      throttle_ns: 0,
      lifetime_gc_bytes: GiB,
      free_zones: 20,
    },
  ],
};

// Real answers of the module (on ceph-mgr 16.2.15) for a store on a converting emulated hybrid
// drive, captured by web/e2e/hybrid-stack.sh (SMRSTORE_E2E_CAPTURE): GET /api/v1/conversion
// while realm 8 was being emptied (10 realms converted to SMR, p99 of the migration quanta
// over the 100 ms bound), the health checks of that moment, and drive 0's zones a little later.
// Typed here, so an API change breaks the typecheck.
import liveConversionJson from "./live/hybrid-conversion.json";
import liveHealthJson from "./live/hybrid-summary-health.json";
import liveZonesJson from "./live/hybrid-zones-0.json";

// The module sends null for an absent optional field; the generated types say `?: T`. The
// captures are checked against the types with null allowed there, then handed over as is.
type Served<T> = { [K in keyof T]-?: undefined extends T[K] ? Exclude<T[K], undefined> | null : T[K] };
const conversionServed: Served<ConversionDrive>[] = liveConversionJson;
const zonesServed: Served<DriveZones> = liveZonesJson;
export const liveConversion = conversionServed as unknown as ConversionDrive[];
export const liveSummary: Summary = { ...summary, drives: 2, health: liveHealthJson.health };
export const liveZones = zonesServed as unknown as DriveZones;

// A drive whose last conversion stalled (no real store stalled in the captures: the engine's
// stall needs a failing drain, HybridStoreTest covers it): shapes as the module serves them.
export const conversionStalled: ConversionDrive[] = [
  {
    daemon: "demo-a",
    drive: 0,
    supported: true,
    state: "stalled",
    cmr_bytes: 3 * (64 << 20),
    smr_bytes: 80 << 20,
    converting_zones: 0,
    progress: 0,
    latency_bound_ms: 100,
    realms: 4,
    realms_cmr: 3,
    realms_smr: 1,
    realms_pending: 0,
    realmmap: "CCCS",
    quantum_bytes: 1 << 20,
    quantum_ms_p99: 42.5,
    quantum_ms_max: 61,
    bound_violations: 0,
    bound_exceeded: false,
    conversions: 1,
    migrated_bytes: 48 << 20,
    stall_reason: "no room for realm 0's live data outside it",
  },
];
