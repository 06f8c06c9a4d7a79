# qa/ceph/lib.sh — a private one-node Ceph 16.2.15 (Debian) test cluster, as root, without
# systemd. Sourced (bash):
#
#   . qa/ceph/lib.sh
#   ceph_cluster_start DIR [--objectstore memstore|filestore|smrstore] [--osds N] \
#       [--size N] [--cephx] [--mgr-module-path PATH] [--rgw PORT] [--no-osd]
#   ceph_pool_create NAME [PGS]
#   ceph_cluster_stop DIR
#
# ceph_cluster_start writes DIR/ceph.conf, makes a monitor (a), a manager (x) and, unless
# --no-osd, one OSD (0) on memstore (1 GiB, the default) or FileStore (DIR/osd.0, journal
# in it), and exports CEPH_CONF=DIR/ceph.conf so that `ceph`, `rados`, `radosgw-admin` and
# python3-rados (conffile=$CEPH_CONF) reach it. It returns once `ceph health` answers, the
# OSD is up and in, and (with --rgw PORT) radosgw answers HTTP on 127.0.0.1:PORT.
#   --cephx   cephx everywhere; keyrings DIR/keyring.<name>: client.admin, mon., mgr.x,
#             osd.0, client.rgw.x (the conf's `keyring = DIR/keyring.$name` finds them).
#   --mgr-module-path PATH   the mgr loads modules from DIR/mgr-modules: a symlink to every
#             stock module of /usr/share/ceph/mgr plus each module package in PATH (PATH
#             itself if it holds module.py, else each subdirectory of PATH that does).
#   --objectstore bluestore: BlueStore on a sparse file DIR/osd.N/block (10 GiB, or
#             $CEPH_QA_BLUESTORE_BYTES); memstore: 1 GiB per OSD or $CEPH_QA_MEMSTORE_BYTES.
#             $CEPH_QA_EXTRA_CONF: lines added to [global].
#   --osds N  N OSDs (0..N-1, default 1); --size N: default pool size (default 1, min size
#             N-1 when N > 1). CRUSH's failure domain is the OSD (one host).
#   --objectstore smrstore: Debian's own ceph-osd with libsmrstore_osd.so preloaded
#             ($SMRSTORE_OSD_LIB, default build/src/os/smrstore/osd/libsmrstore_osd.so);
#             each OSD on its own emulated HM-SMR drives, files in DIR/osd.N (spec in
#             DIR/osd.N/smrstore_devices, from $SMRSTORE_QA_DRIVES with @DIR@ replaced by the
#             OSD dir; default two drives of 48 zones x 64 MiB), RocksDB in DIR/osd.N/smrstore.
#             The default drives write buffered (functional suites: fast on a shared
#             machine, any file system); add direct=1 to a spec for O_DIRECT writes, as
#             qa/perf/osd_bench.sh does (doc/tools/smrstore-tool.md, spec keys).
#             $SMRSTORE_QA_CONF, when set, is each OSD's smrstore.conf (lines of
#             `key = value`, doc/options.md), written before its mkfs.
# Ports: the monitor port is derived from DIR's name and probed until free (range
# 41000-48999); daemons bind messenger ports from a 40-port window above it. Logs are in
# DIR/log/, pid files and admin sockets in DIR/run/. It also waits for the manager to be
# available. Every failure prints what failed and
# the tail of the daemon log concerned, and returns non-zero.
#
# Environment knobs: CEPH_QA_TIMEOUT (seconds per wait, default 180: the machine is shared);
# CEPH_QA_FSID (the new cluster's fsid, default a random one: ceph-objectstore-tool imports
# only PG exports of the same fsid, so a second cluster that receives them needs the first's).

CEPH_QA_TIMEOUT=${CEPH_QA_TIMEOUT:-180}
_cq_root=$(cd "$(dirname "${BASH_SOURCE:-$0}")/../.." 2>/dev/null && pwd)
SMRSTORE_OSD_LIB=${SMRSTORE_OSD_LIB:-$_cq_root/build/src/os/smrstore/osd/libsmrstore_osd.so}
SMRSTORE_QA_DRIVES=${SMRSTORE_QA_DRIVES:-"emu:@DIR@/drive0.img?zones=48&zone_mib=64&conv=2 emu:@DIR@/drive1.img?zones=48&zone_mib=64&conv=2"}

_cq_err() { echo "ceph-qa: ERROR: $*" >&2; }
_cq_log() { echo "ceph-qa: $*" >&2; }

# _cq_tail FILE: the last lines of a daemon log, indented, to stderr.
_cq_tail() {
  if [ -f "$1" ]; then
    echo "---- last 40 lines of $1 ----" >&2
    tail -n 40 "$1" | sed 's/^/    /' >&2
    echo "----" >&2
  else
    echo "(no log file $1)" >&2
  fi
}

# _cq_port_free PORT: true if nothing listens on 127.0.0.1:PORT (and we can bind it).
_cq_port_free() {
  /usr/bin/python3 - "$1" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
finally:
    s.close()
EOF
}

# _cq_pick_base DIR: prints a monitor port whose 40-port window above is unused.
_cq_pick_base() {
  _h=$(printf '%s' "$1" | cksum | cut -d' ' -f1)
  _base=$((41000 + (_h % 195) * 40))
  _tries=0
  while [ $_tries -lt 195 ]; do
    if _cq_port_free "$_base" && _cq_port_free $((_base + 1)) && _cq_port_free $((_base + 39)); then
      echo "$_base"; return 0
    fi
    _base=$((_base + 40)); [ $_base -lt 48999 ] || _base=41000
    _tries=$((_tries + 1))
  done
  _cq_err "no free port window in 41000-48999"; return 1
}

# _cq_wait SECONDS WHAT LOGFILE CMD...: runs CMD every second until it succeeds.
_cq_wait() {
  _secs=$1; _what=$2; _logf=$3; shift 3
  _t0=$(date +%s)
  while ! "$@" >/dev/null 2>&1; do
    if [ $(( $(date +%s) - _t0 )) -ge "$_secs" ]; then
      _cq_err "timed out after ${_secs}s waiting for $_what"
      [ -n "$_logf" ] && _cq_tail "$_logf"
      return 1
    fi
    sleep 1
  done
}

# _cq_ceph ARGS...: the ceph CLI with a bounded connect time.
_cq_ceph() { timeout 60 ceph --connect-timeout 20 "$@"; }

_cq_osd_up_in() {  # [ID] (default 0)
  _cq_ceph osd dump -f json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
osds = [o for o in d["osds"] if o["osd"] == int(sys.argv[1])]
sys.exit(0 if osds and osds[0]["up"] == 1 and osds[0]["in"] == 1 else 1)' "${1:-0}"
}

# ceph_osd_run DIR ID ARGS...: runs ceph-osd for the cluster in DIR (with the smrstore preload
# when the cluster's store is smrstore), output appended to DIR/log/osd.ID.out.
ceph_osd_run() {
  _d=$1; _i=$2; shift 2
  if grep -q '^osd objectstore = smrstore' "$_d/ceph.conf"; then
    LD_PRELOAD=$SMRSTORE_OSD_LIB ceph-osd -i "$_i" -c "$_d/ceph.conf" "$@" >>"$_d/log/osd.$_i.out" 2>&1
  else
    ceph-osd -i "$_i" -c "$_d/ceph.conf" "$@" >>"$_d/log/osd.$_i.out" 2>&1
  fi
}

# ceph_osd_start DIR ID: starts an existing OSD and waits until it is up and in.
ceph_osd_start() {
  ceph_osd_run "$1" "$2" || { _cq_err "ceph-osd $2 did not start"; _cq_tail "$1/log/osd.$2.out"; _cq_tail "$1/log/osd.$2.log"; return 1; }
  _cq_wait "$CEPH_QA_TIMEOUT" "osd.$2 to be up and in" "$1/log/osd.$2.log" _cq_osd_up_in "$2"
}

# ceph_pidfile_pid PIDFILE: the pid a daemon wrote into PIDFILE if that process is still the
# one running under it, else nothing. A stopped daemon's pid file stays behind, and on a busy
# host its pid is soon another process's (another cluster's OSD, once): a process that
# started after the pid file was written is not the daemon that wrote it.
ceph_pidfile_pid() {
  [ -f "$1" ] || return 0
  _pp=$(cat "$1" 2>/dev/null)
  case $_pp in ''|*[!0-9]*) return 0 ;; esac
  [ -r "/proc/$_pp/stat" ] || return 0
  _ticks=$(sed 's/^.*) //' "/proc/$_pp/stat" 2>/dev/null | awk '{print $20}')
  _bt=$(awk '/^btime/ {print $2}' /proc/stat)
  [ -n "$_ticks" ] && [ -n "$_bt" ] || return 0
  _started=$(( _bt + _ticks / $(getconf CLK_TCK) ))
  _written=$(stat -c %Y "$1" 2>/dev/null) || return 0
  # Seconds: the start time is truncated, the file's mtime is not earlier than the start.
  [ "$_started" -le "$_written" ] && echo "$_pp"
  return 0
}

# ceph_osd_pid DIR ID: the running OSD's pid (from its pid file), empty if none is running.
ceph_osd_pid() { ceph_pidfile_pid "$1/run/osd.$2.pid"; }

_cq_osd_down() {  # ID: the osdmap says the OSD is down
  _cq_ceph osd dump -f json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
osds = [o for o in d["osds"] if o["osd"] == int(sys.argv[1])]
sys.exit(0 if osds and osds[0]["up"] == 0 else 1)' "$1"
}

# ceph_osd_stop DIR ID [KILL]: stops a running OSD — SIGTERM (Pacific's fast shutdown), or
# with KILL (any third argument) SIGKILL then `ceph osd down ID` — waits until its process
# has exited (SIGKILL after 60 s of SIGTERM) and the osdmap shows it down.
ceph_osd_stop() {
  _sp=$(ceph_osd_pid "$1" "$2")
  case $_sp in ''|*[!0-9]*) _cq_err "osd.$2: not running (no live pid in $1/run/osd.$2.pid)"; return 1 ;; esac
  if [ $# -ge 3 ]; then kill -KILL "$_sp"; else kill -TERM "$_sp"; fi
  _n=0
  while kill -0 "$_sp" 2>/dev/null && [ $_n -lt 600 ]; do sleep 0.1; _n=$((_n + 1)); done
  if kill -0 "$_sp" 2>/dev/null; then
    _cq_err "osd.$2 (pid $_sp) did not exit within 60 s of SIGTERM; sending SIGKILL"
    kill -KILL "$_sp" 2>/dev/null || true
    while kill -0 "$_sp" 2>/dev/null; do sleep 0.1; done
  fi
  [ $# -ge 3 ] && { _cq_ceph osd down "$2" >/dev/null 2>&1 || true; }
  _cq_wait "$CEPH_QA_TIMEOUT" "osd.$2 to be marked down" "" _cq_osd_down "$2"
}

_cq_mgr_available() {
  _cq_ceph mgr dump -f json | /usr/bin/python3 -c '
import json, sys
sys.exit(0 if json.load(sys.stdin).get("available") else 1)'
}

_cq_http_answers() {
  /usr/bin/python3 - "$1" <<'EOF'
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen("http://127.0.0.1:%s/" % sys.argv[1], timeout=5)
except urllib.error.HTTPError:
    pass  # any HTTP status means radosgw answers
except Exception:
    sys.exit(1)
EOF
}

# _cq_build_module_dir SRC DEST: stock modules + our module package(s) as symlinks.
_cq_build_module_dir() {
  _src=$(cd "$1" 2>/dev/null && pwd) || { _cq_err "--mgr-module-path $1: no such directory"; return 1; }
  mkdir -p "$2"
  for _m in /usr/share/ceph/mgr/*; do
    case $(basename "$_m") in CMakeLists.txt) continue ;; esac
    ln -sfn "$_m" "$2/$(basename "$_m")"
  done
  _n=0
  if [ -f "$_src/module.py" ]; then
    ln -sfn "$_src" "$2/$(basename "$_src")"; _n=1
  else
    for _p in "$_src"/*/; do
      _p=${_p%/}
      [ -f "$_p/module.py" ] || continue
      ln -sfn "$_p" "$2/$(basename "$_p")"; _n=$((_n + 1))
    done
  fi
  [ $_n -gt 0 ] || { _cq_err "--mgr-module-path $1: no module package (a directory with module.py) in it"; return 1; }
}

ceph_cluster_start() {
  [ $# -ge 1 ] || { _cq_err "usage: ceph_cluster_start DIR [--objectstore memstore|filestore] [--cephx] [--mgr-module-path PATH] [--rgw PORT] [--no-osd]"; return 2; }
  _dir=$1; shift
  _store=memstore; _cephx=0; _modpath=; _rgw=; _osd=1; _nosd=1; _size=1
  while [ $# -gt 0 ]; do
    case $1 in
      --objectstore)
        [ $# -ge 2 ] || { _cq_err "--objectstore needs memstore, filestore, bluestore or smrstore"; return 2; }
        case $2 in memstore|filestore|bluestore|smrstore) _store=$2 ;; *) _cq_err "--objectstore $2: must be memstore, filestore, bluestore or smrstore"; return 2 ;; esac
        shift 2 ;;
      --osds|--size)
        [ $# -ge 2 ] || { _cq_err "$1 needs a number"; return 2; }
        case $2 in ''|*[!0-9]*|0) _cq_err "$1 $2: not a positive number"; return 2 ;; esac
        if [ "$1" = --osds ]; then _nosd=$2; else _size=$2; fi
        shift 2 ;;
      --cephx) _cephx=1; shift ;;
      --mgr-module-path)
        [ $# -ge 2 ] || { _cq_err "--mgr-module-path needs a directory"; return 2; }
        _modpath=$2; shift 2 ;;
      --rgw)
        [ $# -ge 2 ] || { _cq_err "--rgw needs a port"; return 2; }
        case $2 in ''|*[!0-9]*) _cq_err "--rgw $2: not a port number"; return 2 ;; esac
        [ "$2" -ge 1024 ] && [ "$2" -le 65535 ] || { _cq_err "--rgw $2: port must be 1024-65535"; return 2; }
        _rgw=$2; shift 2 ;;
      --no-osd) _osd=0; shift ;;
      *) _cq_err "ceph_cluster_start: unknown option $1"; return 2 ;;
    esac
  done
  if [ -n "$_rgw" ] && [ $_cephx -eq 0 ]; then
    _cq_err "--rgw needs --cephx (radosgw 16.2.15 does not authenticate to a cluster with auth none)"; return 2
  fi
  if [ -n "$_rgw" ] && [ $_osd -eq 0 ]; then
    _cq_err "--rgw needs an OSD (do not combine with --no-osd)"; return 2
  fi
  if [ "$_store" = smrstore ] && [ ! -f "$SMRSTORE_OSD_LIB" ]; then
    _cq_err "--objectstore smrstore: $SMRSTORE_OSD_LIB not found (make build)"; return 1
  fi
  if [ "$_size" -gt "$_nosd" ]; then _cq_err "--size $_size is more than --osds $_nosd"; return 2; fi
  _minsize=1; [ "$_size" -gt 1 ] && _minsize=$((_size - 1))
  for _b in ceph ceph-mon ceph-mgr ceph-osd monmaptool ceph-authtool; do
    command -v $_b >/dev/null || { _cq_err "$_b not found (scripts/install-deps.sh ceph)"; return 1; }
  done
  [ -z "$_rgw" ] || command -v radosgw >/dev/null || { _cq_err "radosgw not found (apt-get install radosgw)"; return 1; }
  if [ -e "$_dir/ceph.conf" ]; then
    _cq_err "$_dir already holds a cluster (ceph.conf); stop it and use a fresh directory"; return 1
  fi
  mkdir -p "$_dir" || return 1
  _dir=$(cd "$_dir" && pwd)
  mkdir -p "$_dir/log" "$_dir/run" "$_dir/crash"
  _port=$(_cq_pick_base "$_dir") || return 1
  _fsid=${CEPH_QA_FSID:-$(cat /proc/sys/kernel/random/uuid)}
  if [ $_cephx -eq 1 ]; then _auth=cephx; else _auth=none; fi

  _modline=
  if [ -n "$_modpath" ]; then
    _cq_build_module_dir "$_modpath" "$_dir/mgr-modules" || return 1
    _modline="mgr module path = $_dir/mgr-modules"
  fi

  cat >"$_dir/ceph.conf" <<EOF
[global]
fsid = $_fsid
mon host = [v2:127.0.0.1:$_port]
mon initial members = a
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind port min = $((_port + 1))
ms bind port max = $((_port + 39 + 20 * _nosd))
auth cluster required = $_auth
auth service required = $_auth
auth client required = $_auth
keyring = $_dir/keyring.\$name
run dir = $_dir/run
pid file = $_dir/run/\$name.pid
admin socket = $_dir/run/\$name.asok
log file = $_dir/log/\$name.log
mon cluster log file = $_dir/log/cluster.log
crash dir = $_dir/crash
osd pool default size = $_size
osd pool default min size = $_minsize
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon warn on insecure global id reclaim allowed = false
mon data avail warn = 2
mon max pg per osd = 1000
osd crush chooseleaf type = 0
mon data = $_dir/mon.\$id
mgr data = $_dir/mgr.\$id
osd data = $_dir/osd.\$id
osd objectstore = $_store
memstore device bytes = ${CEPH_QA_MEMSTORE_BYTES:-1073741824}
osd journal = $_dir/osd.\$id/journal
osd journal size = 1024
journal dio = false
journal aio = false
osd max object name len = 256
osd max object namespace len = 64
bluestore block create = true
bluestore block size = ${CEPH_QA_BLUESTORE_BYTES:-10737418240}
$_modline
${CEPH_QA_EXTRA_CONF:-}

[client]
# No admin socket for CLI/librados clients: concurrent ones would collide on one path.
admin socket =

[client.rgw.x]
admin socket = $_dir/run/\$name.asok
rgw frontends = beast endpoint=127.0.0.1:${_rgw:-0}
rgw data = $_dir/rgw.x
log file = $_dir/log/client.rgw.x.log
EOF

  export CEPH_CONF="$_dir/ceph.conf"
  _log "cluster in $_dir: mon on 127.0.0.1:$_port, objectstore $_store, auth $_auth"

  # Monitor.
  _mkfs_args=
  if [ $_cephx -eq 1 ]; then
    ceph-authtool --create-keyring "$_dir/keyring.mon.a" --gen-key -n mon. --cap mon 'allow *' >/dev/null || return 1
    ceph-authtool --create-keyring "$_dir/keyring.client.admin" --gen-key -n client.admin \
      --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' --cap mds 'allow *' >/dev/null || return 1
    ceph-authtool "$_dir/keyring.mon.a" --import-keyring "$_dir/keyring.client.admin" >/dev/null || return 1
    _mkfs_args="--keyring $_dir/keyring.mon.a"
  fi
  monmaptool --create --fsid "$_fsid" --addv a "[v2:127.0.0.1:$_port]" "$_dir/monmap" >/dev/null \
    || { _cq_err "monmaptool failed"; return 1; }
  # shellcheck disable=SC2086
  ceph-mon --mkfs -i a --monmap "$_dir/monmap" -c "$CEPH_CONF" $_mkfs_args >"$_dir/log/mon-mkfs.out" 2>&1 \
    || { _cq_err "ceph-mon --mkfs failed"; _cq_tail "$_dir/log/mon-mkfs.out"; _cq_tail "$_dir/log/mon.a.log"; return 1; }
  ceph-mon -i a -c "$CEPH_CONF" >>"$_dir/log/mon.a.out" 2>&1 \
    || { _cq_err "ceph-mon did not start"; _cq_tail "$_dir/log/mon.a.out"; _cq_tail "$_dir/log/mon.a.log"; return 1; }
  _cq_wait "$CEPH_QA_TIMEOUT" "the monitor to answer (ceph health)" "$_dir/log/mon.a.log" _cq_ceph health || return 1

  # Manager.
  mkdir -p "$_dir/mgr.x"
  if [ $_cephx -eq 1 ]; then
    _cq_ceph auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' mds 'allow *' \
      -o "$_dir/keyring.mgr.x" || { _cq_err "creating the mgr.x key failed"; return 1; }
  fi
  ceph-mgr -i x -c "$CEPH_CONF" >>"$_dir/log/mgr.x.out" 2>&1 \
    || { _cq_err "ceph-mgr did not start"; _cq_tail "$_dir/log/mgr.x.out"; _cq_tail "$_dir/log/mgr.x.log"; return 1; }

  _cq_wait "$CEPH_QA_TIMEOUT" "the manager to become available" "$_dir/log/mgr.x.log" _cq_mgr_available || return 1

  # OSDs.
  if [ $_osd -eq 1 ]; then
    _i=0
    while [ $_i -lt $_nosd ]; do
      _id=$(_cq_ceph osd create) || { _cq_err "ceph osd create failed"; return 1; }
      [ "$_id" = $_i ] || { _cq_err "ceph osd create returned id '$_id', expected $_i"; return 1; }
      mkdir -p "$_dir/osd.$_i"
      if [ $_cephx -eq 1 ]; then
        _cq_ceph auth get-or-create osd.$_i mon 'allow profile osd' mgr 'allow profile osd' osd 'allow *' \
          -o "$_dir/keyring.osd.$_i" || { _cq_err "creating the osd.$_i key failed"; return 1; }
      fi
      if [ "$_store" = smrstore ]; then
        echo "$SMRSTORE_QA_DRIVES" | sed "s|@DIR@|$_dir/osd.$_i|g" >"$_dir/osd.$_i/smrstore_devices"
        [ -z "${SMRSTORE_QA_CONF:-}" ] || printf '%s\n' "$SMRSTORE_QA_CONF" >"$_dir/osd.$_i/smrstore.conf"
      fi
      ceph_osd_run "$_dir" $_i --mkfs \
        || { _cq_err "ceph-osd --mkfs ($_store) of osd.$_i failed"; _cq_tail "$_dir/log/osd.$_i.out"; _cq_tail "$_dir/log/osd.$_i.log"; return 1; }
      ceph_osd_run "$_dir" $_i \
        || { _cq_err "ceph-osd $_i did not start"; _cq_tail "$_dir/log/osd.$_i.out"; _cq_tail "$_dir/log/osd.$_i.log"; return 1; }
      _i=$((_i + 1))
    done
    _i=0
    while [ $_i -lt $_nosd ]; do
      _cq_wait "$CEPH_QA_TIMEOUT" "osd.$_i to be up and in" "$_dir/log/osd.$_i.log" _cq_osd_up_in $_i || return 1
      _i=$((_i + 1))
    done
  fi

  # RADOS gateway.
  if [ -n "$_rgw" ]; then
    mkdir -p "$_dir/rgw.x"
    _cq_port_free "$_rgw" || { _cq_err "--rgw $_rgw: port 127.0.0.1:$_rgw is already in use"; return 1; }
    _cq_ceph auth get-or-create client.rgw.x mon 'allow rw' osd 'allow rwx' mgr 'allow rw' \
      -o "$_dir/keyring.client.rgw.x" || { _cq_err "creating the client.rgw.x key failed"; return 1; }
    radosgw -n client.rgw.x -c "$CEPH_CONF" >>"$_dir/log/client.rgw.x.out" 2>&1 \
      || { _cq_err "radosgw did not start"; _cq_tail "$_dir/log/client.rgw.x.out"; _cq_tail "$_dir/log/client.rgw.x.log"; return 1; }
    _cq_wait "$CEPH_QA_TIMEOUT" "radosgw to answer on 127.0.0.1:$_rgw" "$_dir/log/client.rgw.x.log" _cq_http_answers "$_rgw" || return 1
  fi
  _log "cluster in $_dir is up (CEPH_CONF=$CEPH_CONF)"
}

_log() { _cq_log "$@"; }

# ceph_pool_create NAME [PGS [SIZE]]: a replicated pool of SIZE replicas (default 1; min_size
# SIZE-1, at least 1), application "rados", waits until all its PGs are active. Uses the
# cluster of $CEPH_CONF.
ceph_pool_create() {
  [ $# -ge 1 ] && [ -n "$1" ] || { _cq_err "usage: ceph_pool_create NAME [PGS [SIZE]]"; return 2; }
  _pool=$1; _pgs=${2:-8}; _psize=${3:-1}
  case $_pgs in ''|*[!0-9]*|0) _cq_err "ceph_pool_create $_pool: PGS '$_pgs' is not a positive number"; return 2 ;; esac
  case $_psize in ''|*[!0-9]*|0) _cq_err "ceph_pool_create $_pool: SIZE '$_psize' is not a positive number"; return 2 ;; esac
  [ -n "${CEPH_CONF:-}" ] || { _cq_err "ceph_pool_create: CEPH_CONF is not set (start a cluster first)"; return 1; }
  _cq_ceph osd pool create "$_pool" "$_pgs" "$_pgs" replicated >/dev/null \
    || { _cq_err "ceph osd pool create $_pool failed"; return 1; }
  _cq_ceph osd pool set "$_pool" size "$_psize" --yes-i-really-mean-it >/dev/null 2>&1 \
    || { _cq_err "setting size $_psize on pool $_pool failed"; return 1; }
  _pmin=1; [ "$_psize" -gt 1 ] && _pmin=$((_psize - 1))
  _cq_ceph osd pool set "$_pool" min_size "$_pmin" >/dev/null 2>&1 \
    || { _cq_err "setting min_size $_pmin on pool $_pool failed"; return 1; }
  _cq_ceph osd pool application enable "$_pool" rados >/dev/null 2>&1 || true
  _cdir=$(dirname "$CEPH_CONF")
  _cq_wait "$CEPH_QA_TIMEOUT" "all $_pgs PGs of pool $_pool to be active" "$_cdir/log/osd.0.log" _cq_pool_active "$_pool" "$_pgs" || {
    _cq_ceph pg ls-by-pool "$_pool" >&2 || true; return 1; }
}

_cq_pool_active() {
  _cq_ceph pg ls-by-pool "$1" -f json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
pgs = d["pg_stats"] if isinstance(d, dict) else d
want = int(sys.argv[1])
ok = len(pgs) == want and all("active" in p["state"].split("+") for p in pgs)
sys.exit(0 if ok else 1)' "$2"
}

# ceph_cluster_stop DIR: SIGTERM to every daemon with a pid file in DIR/run, waits up to
# 60 s for each to exit, then SIGKILL. Returns non-zero if a daemon had to be killed.
ceph_cluster_stop() {
  [ $# -ge 1 ] || { _cq_err "usage: ceph_cluster_stop DIR"; return 2; }
  [ -d "$1/run" ] || { _cq_err "ceph_cluster_stop: $1/run does not exist (no cluster there)"; return 1; }
  _rc=0
  # Stop in reverse start order: gateway, OSD, manager, monitor.
  _osds=$(cd "$1/run" && ls osd.*.pid 2>/dev/null | sed 's/\.pid$//' | sort -t. -k2 -rn)
  # shellcheck disable=SC2086
  for _name in client.rgw.x $_osds mgr.x mon.a; do
    _pf="$1/run/$_name.pid"
    [ -f "$_pf" ] || continue
    _pid=$(ceph_pidfile_pid "$_pf")  # empty: stopped already (its pid may be another's now)
    if [ -n "$_pid" ] && kill -0 "$_pid" 2>/dev/null; then
      kill -TERM "$_pid" 2>/dev/null || true
      _n=0
      while kill -0 "$_pid" 2>/dev/null && [ $_n -lt 600 ]; do sleep 0.1; _n=$((_n + 1)); done
      if kill -0 "$_pid" 2>/dev/null; then
        _cq_err "$_name (pid $_pid) did not exit within 60 s of SIGTERM; sending SIGKILL"
        kill -KILL "$_pid" 2>/dev/null || true
        while kill -0 "$_pid" 2>/dev/null; do sleep 0.1; done
        _rc=1
      fi
    fi
    rm -f "$_pf"
  done
  # A daemon that outlived its pid file (e.g. stopped before it wrote one) still names this
  # cluster's ceph.conf on its command line: stop those too, by pid, and say so.
  _conf="$1/ceph.conf"
  for _p in /proc/[0-9]*; do
    _pid=${_p#/proc/}
    [ -r "$_p/cmdline" ] || continue
    if tr '\0' ' ' < "$_p/cmdline" 2>/dev/null | grep -q -- "-c $_conf\( \|$\)"; then
      _cq_err "pid $_pid ($(tr '\0' ' ' < "$_p/cmdline" | cut -c1-60)) outlived its pid file; stopping it"
      kill -TERM "$_pid" 2>/dev/null || true
      _n=0
      while kill -0 "$_pid" 2>/dev/null && [ $_n -lt 300 ]; do sleep 0.1; _n=$((_n + 1)); done
      kill -KILL "$_pid" 2>/dev/null || true
    fi
  done
  return $_rc
}

# For the qa scripts: ceph_qa_scratch PREFIX [DIR] sets $scratch (DIR, or a new temp dir
# named PREFIX.XXXXXX; absolute) and $cl=$scratch/cluster, clears $serve_pid, and installs
# an EXIT trap that stops the process in $serve_pid (if set and alive) and the cluster.
ceph_qa_scratch() {
  scratch=${2:-}
  [ -n "$scratch" ] || scratch=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  mkdir -p "$scratch"
  scratch=$(cd "$scratch" && pwd)
  cl="$scratch/cluster"
  serve_pid=
  trap ceph_qa_cleanup EXIT
}
ceph_qa_cleanup() {
  ceph_health_watch_stop
  if [ -n "${serve_pid:-}" ] && kill -0 "$serve_pid" 2>/dev/null; then
    kill -TERM "$serve_pid" 2>/dev/null || true
    wait "$serve_pid" 2>/dev/null || true
  fi
  if [ -d "$cl/run" ]; then ceph_cluster_stop "$cl" || true; fi
}

# ---- For the OSD suites (0004-0006): results, PG state, and the checks every suite ends with.
#
# ceph_qa_pass WHAT / ceph_qa_fail WHAT: one "PASS WHAT" / "FAIL WHAT" line on stdout (WHAT
#   carries the figures measured); ceph_qa_fail counts into $ceph_qa_failed.
# ceph_wait_clean [SECONDS]: waits until every PG is active+clean and stays so for 6 s (PG
#   stats reach the mgr every 5 s, so a stale "clean" cannot pass); prints `ceph pg stat`
#   and `ceph health detail` and returns 1 on timeout.
# ceph_health_watch_start DIR: polls `ceph health detail` every 2 s in the background, one
#   line per poll (status and check names) in DIR/health-watch.log; ceph_health_watch_stop
#   (also run by ceph_qa_cleanup) stops it.
# ceph_qa_final_checks DIR: stops the watcher and asserts (a PASS/FAIL line each, returns 1
#   if either fails) that
#   - no OSD log DIR/log/osd.*.log contains "had timed out" (a heartbeat_map thread timeout),
#   - SLOW_OPS never appeared: not in any poll of the watcher (which must have polled), not
#     in the monitor's cluster log (DIR/log/cluster.log: every health check change), and no
#     OSD logged "slow ops"/"slow request".
# ceph_qa_osd_tails DIR [ID...]: the tail of each (or every) OSD log of DIR, to stderr.
ceph_qa_osd_tails() {
  _ot_d=$1; shift
  if [ $# -eq 0 ]; then
    for _ot_f in "$_ot_d"/log/osd.*.log; do _cq_tail "$_ot_f"; done
  else
    for _ot_i in "$@"; do _cq_tail "$_ot_d/log/osd.$_ot_i.log"; done
  fi
}
ceph_qa_failed=0
ceph_qa_pass() { echo "PASS $*"; }
ceph_qa_fail() { echo "FAIL $*"; ceph_qa_failed=$((ceph_qa_failed + 1)); }

_cq_pgs_clean() {
  _cq_ceph pg stat -f json | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)["pg_summary"]
st = {x["name"]: x["num"] for x in s["num_pg_by_state"]}
sys.exit(0 if s["num_pgs"] > 0 and st == {"active+clean": s["num_pgs"]} else 1)'
}

ceph_wait_clean() {
  _wc_secs=${1:-$CEPH_QA_TIMEOUT}; _wc_t0=$(date +%s); _wc_since=
  while :; do
    if _cq_pgs_clean >/dev/null 2>&1; then
      [ -n "$_wc_since" ] || _wc_since=$(date +%s)
      [ $(( $(date +%s) - _wc_since )) -lt 6 ] || return 0
    else
      _wc_since=
    fi
    if [ $(( $(date +%s) - _wc_t0 )) -ge "$_wc_secs" ]; then
      _cq_err "timed out after ${_wc_secs}s waiting for all PGs to be active+clean"
      _cq_ceph pg stat >&2 || true
      _cq_ceph health detail 2>&1 | head -n 30 >&2 || true
      return 1
    fi
    sleep 1
  done
}

_cq_watch_pid=
ceph_health_watch_start() {
  _cq_watch_log="$1/health-watch.log"
  : >"$_cq_watch_log"
  (
    set +e
    _c=
    trap '[ -n "$_c" ] && kill $_c 2>/dev/null; exit 0' TERM
    while :; do
      timeout 30 ceph --connect-timeout 20 health detail >"$_cq_watch_log.tmp" 2>&1 &
      _c=$!; wait $_c
      { date +%T | tr '\n' ' '; grep -E '^(HEALTH_|\[)' "$_cq_watch_log.tmp" | tr '\n' ' '; echo; } >>"$_cq_watch_log"
      sleep 2 & _c=$!; wait $_c
    done
  ) &
  _cq_watch_pid=$!
}
ceph_health_watch_stop() {
  if [ -n "${_cq_watch_pid:-}" ]; then
    kill -TERM "$_cq_watch_pid" 2>/dev/null || true
    wait "$_cq_watch_pid" 2>/dev/null || true
    _cq_watch_pid=
  fi
}

ceph_qa_final_checks() {
  _fc_d=$1; _fc_rc=0
  ceph_health_watch_stop
  _fc_w="$_fc_d/health-watch.log"
  _fc_polls=$(grep -c HEALTH_ "$_fc_w" 2>/dev/null || true)
  _fc_watch=$(grep -c SLOW_OPS "$_fc_w" 2>/dev/null || true)
  _fc_clog=$(grep -c SLOW_OPS "$_fc_d/log/cluster.log" 2>/dev/null || true)
  _fc_osd=$(cat "$_fc_d"/log/osd.*.log 2>/dev/null | grep -c -E 'slow ops|slow request' || true)
  if [ "${_fc_polls:-0}" -ge 1 ] && [ "${_fc_watch:-0}" -eq 0 ] && [ "${_fc_clog:-0}" -eq 0 ] && [ "${_fc_osd:-0}" -eq 0 ]; then
    ceph_qa_pass "no SLOW_OPS: $_fc_polls health polls, cluster log and OSD logs clean"
  else
    ceph_qa_fail "SLOW_OPS: polls=$_fc_polls polls-with-SLOW_OPS=$_fc_watch cluster-log=$_fc_clog osd-log-lines=$_fc_osd"
    grep SLOW_OPS "$_fc_w" "$_fc_d/log/cluster.log" 2>/dev/null | head -n 5 | sed 's/^/    /'
    grep -h -E 'slow ops|slow request' "$_fc_d"/log/osd.*.log 2>/dev/null | head -n 5 | sed 's/^/    /'
    _fc_rc=1
  fi
  _fc_to=$(grep -l 'had timed out' "$_fc_d"/log/osd.*.log 2>/dev/null || true)
  if [ -z "$_fc_to" ]; then
    ceph_qa_pass "no 'had timed out' in $(ls "$_fc_d"/log/osd.*.log 2>/dev/null | wc -l) OSD logs"
  else
    ceph_qa_fail "'had timed out' in: $(echo $_fc_to)"
    grep -h 'had timed out' $_fc_to | head -n 5 | sed 's/^/    /'
    _fc_rc=1
  fi
  return $_fc_rc
}

# ceph_qa_finish NAME START_EPOCH [keep]: the end of an OSD suite, after its final checks:
# shows the client's stderr (client.err in the current directory) if any, stops the
# cluster, prints "PASS NAME: all checks, wall time N s" or the FAIL line with the number of
# failed checks, removes $scratch on success unless `keep` (a scratch dir the caller named),
# and returns 0 or 1 for the suite's exit status.
ceph_qa_finish() {
  _qf_secs=$(( $(date +%s) - $2 ))
  if [ -s client.err ]; then
    echo "client stderr (first lines):" >&2; head -n 5 client.err | sed 's/^/    /' >&2
  fi
  ceph_cluster_stop "$cl" || true
  if [ "$ceph_qa_failed" -eq 0 ]; then
    echo "PASS $1: all checks, wall time $_qf_secs s"
    [ "${3:-}" = keep ] || { cd /; rm -rf "$scratch"; }
    return 0
  fi
  echo "FAIL $1: $ceph_qa_failed failed checks, wall time $_qf_secs s (scratch kept: $scratch)"
  return 1
}

# For the mgr-module/console suites (0003, 0007), which keep their scratch in $scratch:
# q CMD...: a ceph command with the client's asok noise dropped from stderr.
q() { ceph "$@" 2>"$scratch/ceph.err"; }
# wait_for SECONDS WHAT CMD...: run CMD every second until it succeeds; else a FAIL line and
# exit 1.
wait_for() {
  _s=$1; _w=$2; shift 2; _t0=$(date +%s)
  until "$@" >/dev/null 2>&1; do
    if [ $(( $(date +%s) - _t0 )) -ge "$_s" ]; then
      echo "FAIL: timed out after ${_s}s waiting for $_w" >&2; exit 1
    fi
    sleep 1
  done
  echo "ok: $_w ($(( $(date +%s) - _t0 ))s)"
}
# ceph_volume_plugin_site DIR: the `ceph-volume smrstore` plugin as installed, for Debian's
# own ceph-volume: the package (a link to src/ceph-volume/ceph_volume_smrstore) and its
# .dist-info with the `ceph_volume_handlers` entry point in DIR; exports PYTHONPATH=DIR.
ceph_volume_plugin_site() {
  mkdir -p "$1/ceph_volume_smrstore-0.1.0.dist-info"
  ln -sfn "$_cq_root/src/ceph-volume/ceph_volume_smrstore" "$1/ceph_volume_smrstore"
  printf 'Metadata-Version: 2.1\nName: ceph-volume-smrstore\nVersion: 0.1.0\n' \
    >"$1/ceph_volume_smrstore-0.1.0.dist-info/METADATA"
  cp "$_cq_root/src/ceph-volume/dist-info/entry_points.txt" "$1/ceph_volume_smrstore-0.1.0.dist-info/"
  export PYTHONPATH=$1
}
# free_port: a TCP port on 127.0.0.1 nobody listens on now.
free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
