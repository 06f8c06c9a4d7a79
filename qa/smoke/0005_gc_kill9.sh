# Zone GC survives kill -9 at any moment: after each kill the store mounts, fsck --deep is
# clean and every remaining object is byte-identical; a final GC reclaims the dead space.
. "$(dirname "$0")/lib.sh"
S="$PWD/st"
$TOOL mkfs "$S" "emu:$PWD/d0.img?zones=40&zone_mib=16&conv=1" >/dev/null
$TOOL mkcoll "$S" 1.0_head >/dev/null
i=0
while [ $i -lt 60 ]; do
  head -c 4194304 /dev/urandom > "obj$i"
  $TOOL put "$S" 1.0_head "obj$i" "obj$i" >/dev/null
  i=$((i + 1))
done
i=0
while [ $i -lt 60 ]; do                      # delete every other object: ~half dead
  $TOOL rm "$S" 1.0_head "obj$i" >/dev/null && rm "obj$i"
  i=$((i + 2))
done
before=$($TOOL df "$S" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["available"])')
check() {
  $TOOL fsck "$S" --deep >fsck.txt || { cat fsck.txt; die "fsck after $1"; }
  for f in obj*; do
    rm -f got && $TOOL get "$S" 1.0_head "$f" got >/dev/null && cmp -s "$f" got || die "$f differs after $1"
  done
}
for delay in 0.05 0.1 0.2 0.3 0.5 0.8; do
  $TOOL gc "$S" --zones 100 >/dev/null 2>&1 &
  pid=$!
  sleep $delay
  kill -9 $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
  check "kill -9 of gc after ${delay}s"
  echo "ok: gc killed after ${delay}s"
done
$TOOL gc "$S" --zones 100
check "a full gc"
after=$($TOOL df "$S" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["available"])')
[ "$after" -gt "$before" ] || die "gc freed nothing ($before -> $after)"
echo "available $before -> $after bytes"
