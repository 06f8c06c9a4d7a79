# A put killed with SIGKILL at a random moment is all-or-nothing: afterwards the store
# mounts, fsck --deep is clean, and the object is absent or byte-identical to the file.
. "$(dirname "$0")/lib.sh"
$TOOL mkfs st "emu:$PWD/d0.img?zones=40&zone_mib=64&conv=1" \
              "emu:$PWD/d1.img?zones=40&zone_mib=64&conv=1" >/dev/null
$TOOL mkcoll st 1.0_head >/dev/null
head -c 200M /dev/urandom >big
check_store() {  # $1: what; the object "big" must be absent or equal to the file
  $TOOL fsck st --deep >fsck.txt 2>&1 || { cat fsck.txt >&2; die "$1: fsck --deep not clean"; }
  if $TOOL stat st 1.0_head big >stat.txt 2>stat.err; then
    rm -f big.out
    $TOOL get st 1.0_head big big.out >/dev/null
    cmp big big.out || die "$1: object present but not byte-identical"
    echo "$1: object complete"
  else
    grep -q NotFound stat.err || { cat stat.err >&2; die "$1: stat failed oddly"; }
    echo "$1: object absent"
  fi
}
# Calibrate: how long does an uninterrupted put take here? Kill points are spread over
# that time (reading the file, planning, writing the zones, committing) and a bit past it.
t0=$(date +%s.%N)
$TOOL put st 1.0_head calib big >/dev/null
t1=$(date +%s.%N)
$TOOL rm st 1.0_head calib >/dev/null
delays=$(awk -v t0="$t0" -v t1="$t1" 'BEGIN { srand(); d = t1 - t0;
  for (f = 0.05; f < 1.2; f += 0.22) printf "%.2f ", d * (f + rand() * 0.2) }')
echo "uninterrupted put: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s; kill after: $delays"
i=0
for delay in $delays; do
  i=$((i + 1))
  $TOOL rm st 1.0_head big >/dev/null 2>&1 || true
  $TOOL put st 1.0_head big big >put.out 2>&1 &
  pid=$!
  sleep "$delay"
  kill -9 $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
  check_store "kill $i after ${delay}s"
done
# The store still works: a fresh put/get round trip, and fsck --deep stays clean.
$TOOL rm st 1.0_head big >/dev/null 2>&1 || true
$TOOL put st 1.0_head big big >/dev/null
rm -f big.out
$TOOL get st 1.0_head big big.out >/dev/null
cmp big big.out || die "fresh round trip"
$TOOL fsck st --deep || die "final fsck"
$TOOL df st
echo "put kill -9 ok"
