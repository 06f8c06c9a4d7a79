#!/bin/bash
# The upgrade gate on a real cluster: `ceph-volume smrstore check-ceph` (Debian's own
# ceph-volume with the smrstore plugin) before an smrstore OSD starts, as the systemd drop-in
# runs it (ExecStartPre=ceph-volume smrstore check-ceph --osd-id N --quiet; no systemd here,
# so the two steps run as the unit would run them). A private cluster of 2 smrstore OSDs,
# cephx, the smrstore mgr module, a pool with objects; then:
#   - which keys of an OSD host can tell the cluster why: osd.N's own key (`profile osd`) may
#     set config-key daemon-private/osd.N/... and nothing else (no other key, no `config-key
#     rm`, no `log`); client.bootstrap-osd may set no config-key at all; the mgr reads them;
#   - check-ceph passes on Debian's /usr/bin/ceph-osd;
#   - osd.1 stopped, then "started" on an altered ceph-osd copy (another build-id, made by
#     altered_ceph_osd.py): the gate refuses with one line, ceph-osd is not run, the line is
#     in osd.1's own log, `ceph health detail` shows SMRSTORE_OSD_REFUSED with it, osd.1's
#     drives and metadata are byte-identical; the copy with other bytes at
#     ObjectStore::create is refused too;
#   - started through the gate on the real binary: it passes, osd.1 comes up, the health
#     check clears, every object reads back byte-exact.
# Prints PASS/FAIL lines and the wall time; exits non-zero on any failure.
#   bash qa/ceph/0010_check_ceph.sh [TOOL] [SCRATCH_DIR]
# Uses $SMRSTORE_OSD_LIB (lib.sh's default: build/src/os/smrstore/osd/libsmrstore_osd.so).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"   # also when started as `sh SCRIPT`
set -eu
if [ $# -ge 1 ] && [ -f "$1" ]; then shift; fi   # a TOOL argument (run.sh, make): not used
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
t_start=$(date +%s)
ceph_qa_scratch check-ceph "${1:-}"   # sets $scratch, $cl; stops the cluster on exit
cd "$scratch"
pass() { ceph_qa_pass "$@"; }
fail() { ceph_qa_fail "$@"; }
die() { echo "FAIL $*"; exit 1; }

# The plugin as installed: the package and its .dist-info on the path ceph-volume searches.
ceph_volume_plugin_site "$scratch/site"
export PYTHONDONTWRITEBYTECODE=1 SMRSTORE_OSD_LIB
cv() { ceph-volume --log-path "$scratch" smrstore "$@"; }

ceph_cluster_start "$cl" --objectstore smrstore --osds 2 --cephx --mgr-module-path "$repo/mgr-module" \
  || die "cluster start"
q config set mgr mgr/smrstore/sample_interval 1
q mgr module enable smrstore --force || die "enable smrstore: $(cat ceph.err)"
ceph_pool_create cc 16 1 || die "pool create"
mkdir -p objs got
for i in $(seq 1 24); do head -c $((i * 37 * 1024)) /dev/urandom >"objs/o$i"; done
for i in $(seq 1 24); do rados -p cc put "o$i" "objs/o$i" 2>>client.err || fail "rados put o$i"; done
(cd objs && sha256sum o*) >own.sha256
pass "24 objects written to pool cc (16 PGs on osd.0 and osd.1)"

# --- 1. What an OSD host's keys may write that the mgr can read -----------------------------
as() { n=$1; shift; timeout 60 ceph --name "$n" --admin-socket= --log-file= --connect-timeout 10 "$@" 2>>"$scratch/caps.err"; }
expect() {  # WANT(0|denied) WHAT CMD...
  want=$1; what=$2; shift 2
  if "$@" >/dev/null; then rc=0; else rc=$?; fi
  got=$([ $rc -eq 0 ] && echo 0 || echo "denied(rc $rc)")
  case "$want:$rc" in 0:0|denied:13) pass "caps: $what: $got" ;; *) fail "caps: $what: $got, expected $want" ;; esac
}
expect 0 "osd.1 key: config-key set daemon-private/osd.1/smrstore/probe" as osd.1 config-key set daemon-private/osd.1/smrstore/probe x
expect denied "osd.1 key: config-key set daemon-private/osd.0/smrstore/probe (another OSD's)" as osd.1 config-key set daemon-private/osd.0/smrstore/probe x
expect denied "osd.1 key: config-key set smrstore/refused/osd.1" as osd.1 config-key set smrstore/refused/osd.1 x
expect denied "osd.1 key: config-key set mgr/smrstore/refused/osd.1 (the module's own store)" as osd.1 config-key set mgr/smrstore/refused/osd.1 x
expect denied "osd.1 key: config-key rm daemon-private/osd.1/smrstore/probe" as osd.1 config-key rm daemon-private/osd.1/smrstore/probe
expect denied "osd.1 key: log (cluster log entry)" as osd.1 log "osd.1 probe"
q auth get-or-create client.bootstrap-osd mon 'allow profile bootstrap-osd' -o "$cl/keyring.client.bootstrap-osd" >/dev/null
expect denied "client.bootstrap-osd: config-key set daemon-private/osd.1/smrstore/probe" as client.bootstrap-osd config-key set daemon-private/osd.1/smrstore/probe x
expect denied "client.bootstrap-osd: config-key set smrstore/refused/osd.1" as client.bootstrap-osd config-key set smrstore/refused/osd.1 x
expect denied "client.bootstrap-osd: log" as client.bootstrap-osd log "bootstrap probe"
if as mgr.x config-key dump daemon-private/ | grep -q '"daemon-private/osd.1/smrstore/probe"'; then
  pass "caps: mgr.x key (profile mgr): config-key dump daemon-private/ lists osd.1's entry"
else
  fail "caps: the mgr cannot read daemon-private/"
fi
q config-key rm daemon-private/osd.1/smrstore/probe >/dev/null || true

# --- 2. The installed ceph-osd passes --------------------------------------------------------
if out=$(cv check-ceph --binary /usr/bin/ceph-osd 2>&1); then
  pass "check-ceph on /usr/bin/ceph-osd: exit 0: $(echo "$out" | tail -n 1)"
  echo "$out" | sed 's/^/    /'
else
  fail "check-ceph on /usr/bin/ceph-osd: $out"
fi

# --- 3. osd.1 started on an altered ceph-osd, the way the drop-in starts it ------------------
/usr/bin/python3 "$here/altered_ceph_osd.py" /usr/bin/ceph-osd "$scratch" >/dev/null
ceph_osd_stop "$cl" 1 || die "stopping osd.1"
fingerprint() { (cd "$cl/osd.1" && find . -type f ! -name '*.pid' -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16; }
before=$(fingerprint)
# ExecStartPre, then ExecStart only if it succeeded (systemd's rule for a failing ExecStartPre).
gate_start() {  # ID BINARY -> 0 started, 1 refused
  if cv check-ceph --osd-id "$1" --quiet --binary "$2" 2>"gate.$1.err"; then
    LD_PRELOAD=$SMRSTORE_OSD_LIB "$2" -i "$1" -c "$CEPH_CONF" >>"$cl/log/osd.$1.out" 2>&1
    return 0
  fi
  return 1
}
log_lines_before=$(wc -l <"$cl/log/osd.1.log")
if gate_start 1 "$scratch/ceph-osd-other-build"; then
  fail "osd.1 on another build-id: the gate let it start"
else
  line=$(cat gate.1.err)
  if [ "$(wc -l <gate.1.err)" -eq 1 ] && case $line in "check-ceph: $scratch/ceph-osd-other-build 16.2.15 build-id "*" is not a build smrstore was verified against: smrstore OSDs must not start on it (doc/operations.md, \"Upgrades\")") true ;; *) false ;; esac; then
    pass "osd.1 on another build-id: refused, ceph-osd not run; the one line:"
    echo "    $line"
  else
    fail "osd.1 on another build-id: refusal output: $(cat gate.1.err)"
  fi
  if tail -n +$((log_lines_before + 1)) "$cl/log/osd.1.log" | grep -qF -- "$line"; then
    pass "osd.1's own log has it:"
    tail -n +$((log_lines_before + 1)) "$cl/log/osd.1.log" | grep -F -- "check-ceph" | sed 's/^/    /'
  else
    fail "osd.1's log lacks the refusal: $(tail -n 3 "$cl/log/osd.1.log")"
  fi
fi
refused_shown() { ceph health detail 2>/dev/null | grep -qF "osd.1: not started: check-ceph: $scratch/ceph-osd-other-build"; }
if _cq_wait 60 "SMRSTORE_OSD_REFUSED" "" refused_shown; then
  pass "ceph health detail shows SMRSTORE_OSD_REFUSED for osd.1:"
  ceph health detail 2>/dev/null | grep -A2 SMRSTORE_OSD_REFUSED | sed 's/^/    /'
else
  fail "SMRSTORE_OSD_REFUSED not in ceph health detail: $(ceph health detail 2>&1 | head -n 8 | tr '\n' ' ')"
fi
pid=$(ceph_osd_pid "$cl" 1)
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then fail "an osd.1 process runs (pid $pid)"; else pass "no osd.1 process"; fi
after=$(fingerprint)
[ "$before" = "$after" ] && pass "osd.1's drives and metadata untouched (sha256 of every file in osd.1/: $after)" \
  || fail "osd.1's files changed: $before -> $after"
if gate_start 1 "$scratch/ceph-osd-other-bytes"; then
  fail "osd.1 on other bytes at ObjectStore::create: the gate let it start"
else
  case $(cat gate.1.err) in *": the preload library refuses it (the first bytes of ObjectStore::create are "*"smrstore OSDs must not start on it"*)
    pass "osd.1 on other bytes at ObjectStore::create: refused: $(cut -c1-150 gate.1.err)..." ;;
    *) fail "other bytes: $(cat gate.1.err)" ;; esac
fi
[ "$(fingerprint)" = "$before" ] && pass "osd.1's files still untouched" || fail "osd.1's files changed"

# --- 4. Through the gate on the real binary: it passes, the OSD comes up, the check clears ---
if gate_start 1 /usr/bin/ceph-osd && _cq_wait "$CEPH_QA_TIMEOUT" "osd.1 up" "$cl/log/osd.1.log" _cq_osd_up_in 1; then
  pass "osd.1 through the gate on /usr/bin/ceph-osd: check passed, osd.1 up and in"
else
  fail "osd.1 did not start through the gate: $(cat gate.1.err)"
fi
state=$(q config-key get daemon-private/osd.1/smrstore/check-ceph | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])' || true)
[ "$state" = passed ] && pass "osd.1's entry now says state passed" || fail "osd.1's entry: $state"
refused_gone() { ! ceph health detail 2>/dev/null | grep -q SMRSTORE_OSD_REFUSED; }
if _cq_wait 60 "SMRSTORE_OSD_REFUSED cleared" "" refused_gone; then
  pass "SMRSTORE_OSD_REFUSED cleared: $(ceph health 2>/dev/null)"
else
  fail "SMRSTORE_OSD_REFUSED still shown: $(ceph health detail 2>&1 | head -n 4 | tr '\n' ' ')"
fi
ceph_wait_clean 120 || fail "PGs not active+clean after osd.1's restart"
for i in $(seq 1 24); do rados -p cc get "o$i" "got/o$i" 2>>client.err || true; done
if (cd got && sha256sum -c ../own.sha256 >/dev/null 2>&1); then
  pass "all 24 objects read back byte-exact after the refused starts"
else
  fail "objects differ after the refused starts: $(cd got && sha256sum -c ../own.sha256 2>&1 | grep -v OK | head -n 3 | tr '\n' ' ')"
fi

ceph_qa_finish 0010_check_ceph "$t_start" "$([ -n "${1:-}" ] && echo keep)"
