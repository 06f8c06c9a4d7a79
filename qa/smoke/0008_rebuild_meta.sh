# rebuild-meta, as an operator meets it: a store with objects (zones and inline), xattrs,
# omap, overwrites and removals, GC and a remount; its metadata directory is lost; mount
# refuses naming the fix; rebuild-meta from the drives alone (given in another order)
# gives back a store whose listing, attributes, omap and bytes equal the original's, and
# deep fsck is clean. Bad uses are one-line errors that change nothing.
. "$(dirname "$0")/lib.sh"
D0="emu:$PWD/d0.img?zones=48&zone_mib=16&conv=1"
D1="emu:$PWD/d1.img?zones=48&zone_mib=16&conv=1"
$TOOL mkfs st "$D0" "$D1" >/dev/null
$TOOL mkcoll st 1.0_head
$TOOL mkcoll st 2.0_head
i=0
for size in 0 100 4096 5000 300K 3M 9M 20M; do
  head -c "$size" /dev/urandom >f$i
  $TOOL put st 1.0_head "obj$i" f$i
  $TOOL setxattr st 1.0_head "obj$i" user.n "$i"
  $TOOL setomapval st 1.0_head "obj$i" "k$i" "v$i"
  i=$((i + 1))
done
head -c 7M /dev/urandom >g
$TOOL put st 2.0_head other g
$TOOL put st 1.0_head obj5 f2          # overwrite: 3 MiB -> 4 KiB
$TOOL rm st 1.0_head obj6
$TOOL setomapval st 1.0_head obj1 extra "$(printf 'x%.0s' $(seq 300))"
$TOOL gc st --zones 4 >/dev/null
$TOOL put st 2.0_head late f7          # after a remount (every command mounts)

dump() {
  for c in $($TOOL lscoll st); do
    echo "coll $c"
    $TOOL ls st "$c" | while read -r o; do
      echo "obj $c/$o $($TOOL get st "$c" "$o" - | md5sum | cut -c1-32)"
      for x in $($TOOL listxattr st "$c" "$o"); do
        echo "  xattr $x=$($TOOL getxattr st "$c" "$o" "$x")"
      done
      for k in $($TOOL listomapkeys st "$c" "$o"); do
        echo "  omap $k=$($TOOL getomapval st "$c" "$o" "$k" | md5sum | cut -c1-8)"
      done
    done
  done
}
dump >before.txt
[ "$(grep -c '^obj ' before.txt)" -eq 9 ] || { cat before.txt; die "expected 9 objects"; }

mv st/meta meta.lost
expect_fail "mount without its metadata" $TOOL ls st 1.0_head
grep -q "rebuild-meta" err.txt || die "the mount error does not name rebuild-meta"

expect_fail "rebuild-meta without drives" $TOOL rebuild-meta st
[ ! -e st/meta ] || die "a refused rebuild created st/meta"
$TOOL rebuild-meta st "$D1" "$D0" | tee rebuild.txt
grep -q "^  scanned .* MB/s" rebuild.txt || die "no scan speed in the report"
$TOOL rebuild-meta st "$D0" "$D1" --json >again.json 2>again.err && die "rebuilt over an existing st/meta"
grep -q "exists: move it aside" again.err || die "overwrite refusal: $(cat again.err)"

dump >after.txt
diff before.txt after.txt || die "the rebuilt store differs from the original"
$TOOL fsck st --deep | tee fsck.txt
grep -q "clean" fsck.txt || die "deep fsck after the rebuild"
# It keeps working: a new object, GC, and everything still reads back.
$TOOL put st 1.0_head new f3
$TOOL gc st --zones 2 >/dev/null
$TOOL get st 1.0_head new new.out && cmp f3 new.out || die "write after the rebuild"
echo "PASS: rebuild-meta gives back $(grep -c '^obj ' after.txt) objects"
