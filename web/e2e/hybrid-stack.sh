#!/bin/sh
# The console's Hybrid view against real data (Playwright project `hybrid`, e2e/hybrid.spec.ts):
#   - a private one-node Ceph 16.2.15 (qa/ceph/lib.sh, no OSD) with the smrstore mgr module;
#   - a store on two emulated drives: drive 0 hybrid (12 realms of 4 CMR / 5 SMR zones of
#     16 MiB, all CMR at mkfs; timing model 40 MB/s; the drive takes 8 s to convert a realm),
#     drive 1 a plain zoned drive;
#   - `smrstore-tool serve --publish hyb --workload churn --fill 0.8`: as the churn fills the
#     store below hybrid_convert_free (15 % free) the engine's policy empties CMR realms by
#     migration quanta and has the drive convert them to SMR, one after the other;
#   - the console built into web/dist (vite build), served by the module, and
#     `npx playwright test --project hybrid` against it.
# While it runs, `ceph service status -f json` is saved every 2 s; with SMRSTORE_E2E_CAPTURE=DIR
# the status entries in which a realm was being emptied ('c'/'s') and the API answers the spec
# compared are copied to DIR (the real data of the Vitest and pytest fixtures came from here).
# Output: $SMRSTORE_E2E_OUT (default build/e2e): hybrid*.png, results-hybrid/, report-hybrid/.
# Exit status = verdict. About 3-5 minutes.
#   sh web/e2e/hybrid-stack.sh [TOOL] [SCRATCH_DIR]   (TOOL default build/src/tools/smrstore-tool;
#                                                     SCRATCH_DIR kept, else a temp dir removed on success)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
web=$(cd "$here/.." && pwd)
repo=$(cd "$web/.." && pwd)
TOOL=${1:-$repo/build/src/tools/smrstore-tool}
[ -x "$TOOL" ] || { echo "FAIL: $TOOL is not an executable (build it: cmake --build build --target smrstore-tool)" >&2; exit 2; }
TOOL=$(cd "$(dirname "$TOOL")" && pwd)/$(basename "$TOOL")
. "$repo/qa/ceph/lib.sh"
die() { echo "FAIL: $*" >&2; exit 1; }

ceph_qa_scratch smr-hybrid-e2e "${2:-}"   # sets $scratch, $cl; stops $serve_pid + cluster on exit
poll_pid=
stop_poll() { if [ -n "$poll_pid" ]; then kill "$poll_pid" 2>/dev/null || true; wait "$poll_pid" 2>/dev/null || true; poll_pid=; fi; }
trap 'stop_poll; ceph_qa_cleanup' EXIT
out=${SMRSTORE_E2E_OUT:-$repo/build/e2e}
mkdir -p "$out"

echo "== console build (web/dist)"
(cd "$web" && npx --no-install vite build --logLevel warn) || die "vite build"

cd "$scratch"
"$TOOL" mkfs st "emu:$scratch/h0.img?zone_mib=16&conv=2&realms=12&convert_ms=8000&mbps=40" \
  "emu:$scratch/d1.img?zones=12&zone_mib=16&conv=1&mbps=40"

ceph_cluster_start "$cl" --no-osd --mgr-module-path "$repo/mgr-module"
port=$(free_port)
base="http://127.0.0.1:$port"
q config set mgr mgr/smrstore/server_port "$port"
q config set mgr mgr/smrstore/sample_interval 1
q config set mgr mgr/smrstore/stale_seconds 20
q mgr module enable smrstore --force || die "enable smrstore: $(cat ceph.err)"

"$TOOL" serve st --publish hyb --workload churn --fill 0.8 --rate 20 --interval 1 >serve.log 2>&1 &
serve_pid=$!
mkdir -p status
( while :; do ceph service status -f json >"status/$(date +%s).json" 2>/dev/null || true; sleep 2; done ) &
poll_pid=$!

has_hyb() {
  q smrstore conversion -f json | /usr/bin/python3 -c '
import json, sys
sys.exit(0 if any(c["daemon"] == "hyb" and c["supported"] for c in json.load(sys.stdin)) else 1)'
}
wait_for 90 "the module lists hyb with a hybrid drive" has_hyb
token=$(q smrstore token create e2e) || die "token create: $(cat ceph.err)"
wait_for 30 "the API answers on $base" sh -c "curl -sf -o /dev/null -H 'Authorization: Bearer $token' $base/api/v1/summary"

rc=0
(cd "$web" && SMRSTORE_E2E_URL=$base SMRSTORE_E2E_TOKEN=$token SMRSTORE_E2E_OUT=$out \
  SMRSTORE_E2E_HYBRID_DAEMON=hyb PLAYWRIGHT_HTML_OUTPUT_DIR=$out/report-hybrid \
  npx --no-install playwright test --config playwright.config.ts --project hybrid) || rc=$?
stop_poll
q smrstore conversion || true
q health detail || true
tail -3 serve.log

if [ -n "${SMRSTORE_E2E_CAPTURE:-}" ]; then
  mkdir -p "$SMRSTORE_E2E_CAPTURE"
  # The newest status with a realm being emptied, and the newest one of all.
  /usr/bin/python3 - "$scratch/status" "$SMRSTORE_E2E_CAPTURE" <<'EOF'
import glob, json, os, sys
src, dst = sys.argv[1], sys.argv[2]
best = last = None
for f in sorted(glob.glob(os.path.join(src, "*.json"))):
    try:
        entry = json.load(open(f))["smrstore"]["hyb"]
    except (ValueError, KeyError):
        continue
    realms = json.loads(entry["status"]["stats"])["drives"][0]["hybrid"]["realmmap"]
    last = entry
    if any(c in realms for c in "cs") and "S" in realms:
        best = entry
for name, entry in (("service-status-draining.json", best), ("service-status-last.json", last)):
    if entry is not None:
        with open(os.path.join(dst, name), "w") as f:
            json.dump(entry, f, indent=2, sort_keys=True)
            f.write("\n")
        print(f"captured {name}")
EOF
fi
[ "$rc" -eq 0 ] || die "playwright project hybrid (screenshots, traces and report in $out; scratch $scratch kept)"
kill -TERM "$serve_pid"; wait "$serve_pid" || die "serve exited non-zero on SIGTERM: $(tail -3 serve.log)"
serve_pid=
trap - EXIT
ceph_qa_cleanup
[ $# -ge 2 ] || rm -rf "$scratch"
echo "PASS: the console's Hybrid view against a converting hybrid drive (screenshots in $out)"
