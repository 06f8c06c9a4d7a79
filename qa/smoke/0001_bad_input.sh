# Bad input: one-line error, non-zero exit, nothing created or changed.
. "$(dirname "$0")/lib.sh"
expect_fail "unknown scheme" $TOOL zones "foo:/x"
expect_fail "no scheme" $TOOL zones "/tmp/x"
expect_fail "unknown key" $TOOL mkdev "emu:$PWD/a.img?zonez=3"
expect_fail "bad number" $TOOL mkdev "emu:$PWD/a.img?zones=abc"
expect_fail "capacity > size" $TOOL mkdev "emu:$PWD/a.img?zone_mib=16&cap_mib=32"
expect_fail "all conventional" $TOOL mkdev "emu:$PWD/a.img?zones=4&conv=4"
[ ! -e a.img ] || die "a bad mkdev created a file"
expect_fail "missing file" $TOOL zones "emu:$PWD/missing.img"
[ ! -e missing.img ] || die "zones created a file"
expect_fail "not a drive" sh -c "head -c 8192 /dev/urandom >junk.img; cp junk.img junk.orig; $TOOL zones emu:$PWD/junk.img"
cmp junk.img junk.orig || die "junk file changed"
expect_fail "not zoned (zbd)" $TOOL zones "zbd:/dev/null"
expect_fail "regular file as zbd" $TOOL zones "zbd:$PWD/junk.img"
cmp junk.img junk.orig || die "junk file changed"
$TOOL mkdev "emu:$PWD/d.img?zones=4&zone_mib=4&conv=1"
cp d.img d.orig
expect_fail "mkdev over an existing drive" $TOOL mkdev "emu:$PWD/d.img?zones=8"
expect_fail "geometry mismatch" $TOOL zones "emu:$PWD/d.img?zones=8"
expect_fail "unknown option" $TOOL zones "emu:$PWD/d.img" --bogus
expect_fail "unknown command" $TOOL frobnicate
expect_fail "write not at wp" $TOOL write "emu:$PWD/d.img" --offset 4100K --length 4K
expect_fail "write misaligned" $TOOL write "emu:$PWD/d.img" --zone 1 --length 100
expect_fail "zone op on conventional zone" $TOOL zone "emu:$PWD/d.img" reset 0
expect_fail "zone out of range" $TOOL zone "emu:$PWD/d.img" reset 9
cmp d.img d.orig || die "failed commands changed the drive"
ls *.creating.* 2>/dev/null && die "temporary files left behind"
for c in mkdev zones zone write read devbench; do $TOOL $c --help >/dev/null || die "$c --help"; done
echo "bad input ok"
