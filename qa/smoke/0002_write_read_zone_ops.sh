# Writes at write pointers, verifies data, drives zones through their states.
. "$(dirname "$0")/lib.sh"
D="emu:$PWD/d.img"
$TOOL mkdev "$D?zones=8&zone_mib=8&conv=1&max_open=2"
$TOOL write "$D" --zone 1 --length 3M --seed 11
$TOOL write "$D" --zone 1 --length 1M --seed 11   # continues at the write pointer
$TOOL read "$D" --offset 8M --length 4M --verify-seed 11
$TOOL write "$D" --zone 0 --length 64K --seed 5 && $TOOL write "$D" --offset 0 --length 64K --seed 6
$TOOL read "$D" --offset 0 --length 64K --verify-seed 6
$TOOL write "$D" --zone 2 --length 8M --seed 2         # fills the zone
$TOOL zones "$D" --json > z.json
python3 -c "
import json; z = json.load(open('z.json'))['zones']
assert z[1]['cond'] == 'implicit-open' and z[1]['written'] == 4 << 20, z[1]
assert z[2]['cond'] == 'full' and z[2]['wp'] == z[2]['start'] + z[2]['length'], z[2]"
# Reading past the write pointer returns zeros.
$TOOL read "$D" --offset 12M --length 1M --output zeros.bin
cmp zeros.bin /dev/zero 2>&1 | grep -q EOF || die "past-wp read not zero"
$TOOL zone "$D" finish 1
$TOOL zone "$D" reset 2
$TOOL zone "$D" open 3 --count 2
expect_fail "third explicit open over max_open=2" $TOOL zone "$D" open 5
$TOOL zones "$D" | tee report.txt
grep -q "zone      1 .*full" report.txt || die "zone 1 full"
grep -q "zone      2 .*empty" report.txt || die "zone 2 empty"
# Zones stay open across processes (the drive outlives the host process).
grep -q "zone      3 .*explicit-open" report.txt || die "zone 3 still open"
$TOOL zone "$D" close 3 --count 2
$TOOL zone "$D" open 5
$TOOL zones "$D" --zone 3 --count 3 | grep -c "seq-write-required empty" | grep -qx 2 || die "closed empty zones"

# A file round-trips through a conventional zone.
head -c 200000 /dev/urandom > in.bin
$TOOL write "$D" --offset 0 --input in.bin        # zero-padded to the 4 KiB block
$TOOL read "$D" --offset 0 --length 200704 --output out.bin
cmp -n 200000 in.bin out.bin || die "file round trip"
echo "write/read/zone ops ok"
