#!/bin/sh
# check-preload.sh LIBSMRSTORE_OSD_SO — the preload library inside Debian's own binaries
# (ctest "ceph_preload"; no cluster needed, ~20 s):
#   1. in ceph-osd and ceph-objectstore-tool: the self-tests (osd_preload/selftest.h) —
#      both patches in place; Transactions built by the host's own Pacific code decoded by
#      our iterator; ObjectStore::create routing; a store mkfs/mount/write/read/umount;
#   2. LD_DEBUG=bindings (with LD_BIND_NOW) of the store self-test in both: nothing of ours
#      replaces Ceph's, our Ceph references go to the host's code, RocksDB stays behind its
#      RTLD_DEEPBIND boundary (qa/ceph/check_bindings.py);
#   3. the option: `--osd-objectstore smrstore` parses only with the library;
#   4. refusals: a copy of ceph-osd with another build-id, and one with other bytes at
#      ObjectStore::create, are not patched and say why (and smrstore is then refused);
#   4b. each of those bytes (the 13 the patch displaces, the 20 of the build-id) altered alone;
#   5. both hosts under the seccomp filter of systemd's MemoryDenyWriteExecute= (mdwe_exec.py).
set -eu
[ $# -eq 1 ] || { echo "usage: $0 path/to/libsmrstore_osd.so" >&2; exit 2; }
LIB=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -f "$LIB" ] || { echo "check-preload: $1 not found" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
OSD=/usr/bin/ceph-osd
TOOL=/usr/bin/ceph-objectstore-tool
for b in $OSD $TOOL; do [ -x $b ] || { echo "check-preload: $b missing (scripts/install-deps.sh ceph)" >&2; exit 1; }; done
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
ok() { echo "check-preload: PASS $*"; }
bad() { echo "check-preload: FAIL $*"; fail=1; }

# 1 + 2.
for host in $OSD $TOOL; do
  for mode in state transactions create store; do
    if SMRSTORE_PRELOAD_SELFTEST=$mode LD_PRELOAD=$LIB $host >"$t/out" 2>&1; then
      ok "$(basename $host) self-test $mode ($(grep -c 'selftest: PASS' "$t/out") checks)"
    else
      bad "$(basename $host) self-test $mode:"; sed 's/^/    /' "$t/out"
    fi
  done
  rm -f "$t"/bind.*
  SMRSTORE_PRELOAD_SELFTEST=store LD_BIND_NOW=1 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$t/bind" \
    LD_PRELOAD=$LIB $host >/dev/null 2>&1 || true
  if /usr/bin/python3 "$here/check_bindings.py" $host "$t"/bind.* >"$t/out" 2>&1; then
    ok "$(basename $host) bindings"; sed 's/^/    /' "$t/out"
  else
    bad "$(basename $host) bindings:"; sed 's/^/    /' "$t/out"
  fi
done

# 3.
v=$(LD_PRELOAD=$LIB $OSD --osd-objectstore smrstore --show-config-value osd_objectstore 2>/dev/null || true)
[ "$v" = smrstore ] && ok "ceph-osd --osd-objectstore smrstore parses with the library" \
  || bad "with the library, osd_objectstore=smrstore gives: $v"
v=$($OSD --osd-objectstore smrstore --show-config-value osd_objectstore 2>&1 || true)
case $v in *"not one of the permitted values"*) ok "without the library it is refused, as Ceph refuses it" ;;
  *) bad "without the library: $v" ;; esac
v=$(LD_PRELOAD=$LIB $OSD --osd-objectstore memstore --show-config-value osd_objectstore 2>/dev/null || true)
[ "$v" = memstore ] && ok "other store types unchanged (memstore)" || bad "memstore: $v"

# 4. Altered copies of ceph-osd.
/usr/bin/python3 "$here/altered_ceph_osd.py" "$OSD" "$t" >/dev/null
v=$(LD_PRELOAD=$LIB "$t/ceph-osd-other-build" --osd-objectstore smrstore --show-config-value osd_objectstore 2>&1 || true)
case $v in *"refusing"*"is not a build smrstore was checked against"*"not one of the permitted values"*)
  ok "another build-id: refused, smrstore not accepted"; echo "$v" | grep refusing | cut -c1-160 | sed 's/^/    /' ;;
  *) bad "another build-id: $v" ;; esac
v=$(SMRSTORE_PRELOAD_SELFTEST=state LD_PRELOAD=$LIB "$t/ceph-osd-other-bytes" 2>&1 || true)
case $v in *"the first bytes of ObjectStore::create are"*"FAIL both patches"*)
  ok "other bytes at ObjectStore::create: refused"; echo "$v" | grep refusing | cut -c1-160 | sed 's/^/    /' ;;
  *) bad "other bytes at ObjectStore::create: $v" ;; esac

# 4b. The guard at every byte it guards: one copy of ceph-osd with each byte of the
#     displaced prologue and of the build-id altered in turn must be refused (a guard that
#     compared fewer bytes than it patches would let some through).
/usr/bin/python3 "$here/altered_ceph_osd.py" --guarded "$OSD" >"$t/guarded"
cp "$OSD" "$t/ceph-osd-each"
chmod +x "$t/ceph-osd-each"
flip() { /usr/bin/python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(int(sys.argv[2])); b=f.read(1)[0]; f.seek(int(sys.argv[2])); f.write(bytes([b ^ 0x5a]))' "$t/ceph-osd-each" "$1"; }
through=""; n=0
while read -r what off; do
  flip "$off"
  v=$(SMRSTORE_PRELOAD_SELFTEST=state LD_PRELOAD=$LIB "$t/ceph-osd-each" 2>&1 || true)
  case $v in *"create_patched=0"*refusal:*) ;; *) through="$through $what" ;; esac
  flip "$off"   # back
  n=$((n + 1))
done <"$t/guarded"
cmp -s "$OSD" "$t/ceph-osd-each" || bad "the per-byte copy did not return to the original"
[ -z "$through" ] && [ $n -eq 33 ] && ok "every guarded byte: $n copies (13 prologue bytes, 20 build-id bytes), each altered alone, all refused" \
  || bad "guarded bytes let through ($n tried):$through"

# 5. Under the seccomp filter of systemd's MemoryDenyWriteExecute= (Debian's ceph-osd@.service
#    sets it): the patches map their code from a memfd, so they still apply, and the store
#    self-test passes; the filter itself must refuse mprotect(PROT_EXEC) (else this proves nothing).
if /usr/bin/python3 -c 'import seccomp' 2>/dev/null; then
  if /usr/bin/python3 "$here/mdwe_exec.py" /usr/bin/python3 -c '
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True); libc.mmap.restype = ctypes.c_void_p
p = libc.mmap(None, 4096, 3, 0x22, -1, 0)
sys.exit(0 if libc.mprotect(ctypes.c_void_p(p), 4096, 5) == -1 and ctypes.get_errno() == 1 else 1)'; then
    for host in $OSD $TOOL; do
      if /usr/bin/python3 "$here/mdwe_exec.py" env SMRSTORE_PRELOAD_SELFTEST=store LD_PRELOAD="$LIB" \
           $host >"$t/out" 2>&1; then
        ok "$(basename $host) under MemoryDenyWriteExecute's filter: patched, store self-test ($(grep -c 'selftest: PASS' "$t/out") checks)"
      else
        bad "$(basename $host) under MemoryDenyWriteExecute's filter:"; sed 's/^/    /' "$t/out"
      fi
    done
  else
    bad "the MemoryDenyWriteExecute filter (qa/ceph/mdwe_exec.py) lets mprotect(PROT_EXEC) through"
  fi
else
  bad "python3-seccomp missing (scripts/install-deps.sh ceph): the MemoryDenyWriteExecute check cannot run"
fi

[ $fail -eq 0 ] && echo "check-preload: all checks passed" || echo "check-preload: FAILED"
exit $fail
