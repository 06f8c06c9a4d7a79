# Store object commands: mkfs on two emulated drives, collections, put/get round trips
# (0 B, 5 KiB, 20 MiB), xattrs, omap, ls order, rm, df/stats JSON; bad input is a one-line
# error, a non-zero exit and changes nothing.
. "$(dirname "$0")/lib.sh"
D0="emu:$PWD/d0.img?zones=32&zone_mib=16&conv=1"
D1="emu:$PWD/d1.img?zones=32&zone_mib=16&conv=1"
$TOOL mkfs st "$D0" "$D1" | tee mkfs.txt
grep -q "created store st: uuid .*, 2 drives" mkfs.txt || die "mkfs summary"
$TOOL mkcoll st 1.0_head
$TOOL mkcoll st 1.1_head --bits 3
[ "$($TOOL lscoll st | tr '\n' ' ')" = "1.0_head 1.1_head " ] || die "lscoll"

: >f0
head -c 5120 /dev/urandom >f5k
head -c 20M /dev/urandom >f20m
for f in f0 f5k f20m; do
  $TOOL put st 1.0_head "obj.$f" $f
  $TOOL get st 1.0_head "obj.$f" $f.out
  cmp $f $f.out || die "$f round trip"
done
# stdin / stdout, and a put that replaces a larger object with a smaller one.
$TOOL put st 1.0_head piped - <f5k
$TOOL get st 1.0_head piped - >piped.out
cmp f5k piped.out || die "stdin/stdout round trip"
$TOOL put st 1.0_head obj.f20m f5k
$TOOL get st 1.0_head obj.f20m replaced.out
cmp f5k replaced.out || die "put did not replace the object"
$TOOL put st 1.0_head obj.f20m f20m
$TOOL stat st 1.0_head obj.f20m --json >stat.json
$TOOL stat st 1.0_head obj.f0

# xattrs and omap round trips (a VALUE argument, and a binary value from stdin).
$TOOL setxattr st 1.0_head obj.f5k user.color blue
printf 'a\001b' | $TOOL setxattr st 1.0_head obj.f5k user.bin
[ "$($TOOL getxattr st 1.0_head obj.f5k user.color)" = blue ] || die "getxattr"
$TOOL getxattr st 1.0_head obj.f5k user.bin | head -c 3 >bin.out
printf 'a\001b' | cmp - bin.out || die "binary xattr"
[ "$($TOOL listxattr st 1.0_head obj.f5k | tr '\n' ' ')" = "user.bin user.color " ] || die "listxattr"
$TOOL setomapval st 1.0_head obj.f5k key2 two
$TOOL setomapval st 1.0_head obj.f5k key1 one
[ "$($TOOL getomapval st 1.0_head obj.f5k key2)" = two ] || die "getomapval"
[ "$($TOOL listomapkeys st 1.0_head obj.f5k | tr '\n' ' ')" = "key1 key2 " ] || die "listomapkeys"
# setomapvals: many keys in one transaction (hex lines on stdin; '-' an empty value).
i=0; while [ $i -lt 300 ]; do printf '6d%04x %04x\n' $i $i; i=$((i + 1)); done >kv.txt
printf '6b33 -\n' >>kv.txt
$TOOL setomapvals st 1.0_head obj.f5k <kv.txt || die "setomapvals"
[ "$($TOOL listomapkeys st 1.0_head obj.f5k | wc -l)" -eq 303 ] || die "setomapvals: key count"
[ "$($TOOL getomapval st 1.0_head obj.f5k k3)" = "" ] || die "setomapvals: empty value"
printf '6b34 zz\n' | expect_fail "setomapvals: bad hex" $TOOL setomapvals st 1.0_head obj.f5k

# ls lists in Ceph order: reversed hash bits, namespace, key, name; --hash overrides crc32c.
for n in a b c d e; do $TOOL put st 1.1_head "o$n" f0; done
$TOOL put st 1.1_head ox f0 --hash ffffffff
$TOOL put st 1.1_head oy f0 --hash 0 --nspace ns1
$TOOL ls st 1.1_head --json >ls.json
$TOOL ls st 1.1_head >ls.txt
$TOOL ls st 1.0_head --json >ls0.json
$TOOL df st --json >df.json
$TOOL stats st --json >stats.json
$TOOL stats st >stats.txt
grep -q "^store.uuid " stats.txt || die "stats text"
python3 - <<'PY'
import json, zlib
def rev(h):
    return int('{:032b}'.format(h)[::-1], 2)
ls = json.load(open("ls.json"))
names = [o["name"] for o in ls["objects"]]
assert ls["count"] == 7 and sorted(names) == ["oa", "ob", "oc", "od", "oe", "ox", "oy"], ls
keys = [(rev(int(o["hash"], 16)), o["namespace"], o["name"]) for o in ls["objects"]]
assert keys == sorted(keys), keys
assert names[0] == "oy" and names[-1] == "ox", names    # hash 0 first, ffffffff last
assert open("ls.txt").read().split() == names
ls0 = {o["name"] for o in json.load(open("ls0.json"))["objects"]}
assert ls0 == {"obj.f0", "obj.f5k", "obj.f20m", "piped"}, ls0
st = json.load(open("stat.json"))
assert st["size"] == 20 << 20 and st["mapped_bytes"] == 20 << 20 and not st["data_inline"], st
df = json.load(open("df.json"))
assert df["total"] == 2 * 31 * (16 << 20), df
assert df["stored"] >= (20 << 20) + 2 * 5120 and df["allocated"] >= df["stored"], df
assert df["free"] + df["used"] == df["total"] and df["available"] <= df["free"], df
s = json.load(open("stats.json"))
assert s["store"]["drives"] == 2 and s["statfs"]["total"] == df["total"], s
print("json ok")
PY

$TOOL rm st 1.0_head obj.f0
$TOOL ls st 1.0_head | grep -qx obj.f0 && die "rm left the object"
$TOOL fsck st --deep

# Bad input: one-line error, non-zero exit, nothing changed. The logical state is
# compared (mounting rewrites the superblock on the drives, so the images change).
snapshot() {
  { $TOOL lscoll st; for c in 1.0_head 1.1_head; do $TOOL ls st $c --json; done
    $TOOL listxattr st 1.0_head obj.f5k; $TOOL listomapkeys st 1.0_head obj.f5k
    $TOOL df st --json | python3 -c 'import json,sys; d=json.load(sys.stdin); del d["meta_bytes"]; print(d)'
  } >"$1"
}
snapshot before.txt
cp d0.img d0.orig; cp d1.img d1.orig
long=$(python3 -c 'print("n" * 3000)')
expect_fail "name of 3000 bytes" $TOOL put st 1.0_head "$long" f5k
expect_fail "namespace of 3000 bytes" $TOOL stat st 1.0_head x --nspace "$long"
cmp d0.img d0.orig && cmp d1.img d1.orig || die "rejected names touched the drives"
expect_fail "mkfs over a store" $TOOL mkfs st "$D0" "$D1"
expect_fail "mkfs on another store's drives" $TOOL mkfs st2 "$D0" "$D1"
cmp d0.img d0.orig && cmp d1.img d1.orig || die "a refused mkfs touched the drives"
[ ! -e st2 ] || die "a refused mkfs created its directory"
expect_fail "mkfs in a missing directory" $TOOL mkfs nodir/st3 "emu:$PWD/d3.img?zones=8&zone_mib=16"
[ ! -e d3.img ] && [ ! -e nodir ] || die "a refused mkfs created files"
expect_fail "missing store dir" $TOOL ls missing 1.0_head
[ ! -e missing ] || die "a command created the missing store"
expect_fail "unknown collection (put)" $TOOL put st 9.9_head x f5k
expect_fail "unknown collection (ls)" $TOOL ls st 9.9_head
expect_fail "mkcoll of an existing collection" $TOOL mkcoll st 1.0_head
expect_fail "rmcoll of a non-empty collection" $TOOL rmcoll st 1.0_head
expect_fail "missing object (get)" $TOOL get st 1.0_head nothere out.bin
[ ! -e out.bin ] || die "a failed get created its file"
expect_fail "get over an existing file" $TOOL get st 1.0_head obj.f5k f20m
cmp f20m f20m.out || die "get overwrote a file"
expect_fail "missing object (rm)" $TOOL rm st 1.0_head nothere
expect_fail "setxattr on a missing object" $TOOL setxattr st 1.0_head nothere a b
expect_fail "missing xattr" $TOOL getxattr st 1.0_head obj.f5k user.none
expect_fail "missing omap key" $TOOL getomapval st 1.0_head obj.f5k nokey
expect_fail "missing input file" $TOOL put st 1.0_head x nofile
expect_fail "bad --hash" $TOOL stat st 1.0_head obj.f5k --hash xyz
expect_fail "bad --pool" $TOOL stat st 1.0_head obj.f5k --pool 1x
expect_fail "bad --gc-policy" $TOOL mkfs st4 "emu:$PWD/d4.img?zones=8&zone_mib=16" --gc-policy lfs
expect_fail "bad --gc-free" $TOOL mkfs st4 "emu:$PWD/d4.img?zones=8&zone_mib=16" --gc-free 0.1:0.05
expect_fail "bad --gc-free order" $TOOL mkfs st4 "emu:$PWD/d4.img?zones=8&zone_mib=16" \
  --gc-free 0.05:0.1:0.2
expect_fail "bad --max-record" $TOOL mkfs st4 "emu:$PWD/d4.img?zones=8&zone_mib=16" --max-record 1000
# Store options through the option table (doc/options.md): an unknown key names the nearest
# ones; out of range and wrong type name the option and what it takes; nothing is made.
expect_fail "unknown --opt key" $TOOL mkfs st4 "emu:$PWD/d4.img?zones=8&zone_mib=16" --opt gc_polcy=greedy
grep -q "unknown key 'gc_polcy' (nearest: gc_policy" err.txt || die "no nearest key named"
expect_fail "--opt out of range" $TOOL mkfs st4 "emu:$PWD/d4.img?zones=8&zone_mib=16" --opt pack_max=2M
grep -q "pack_max = '2M': expected" err.txt || die "the range is not named"
expect_fail "--opt wrong type" $TOOL mkfs st4 "emu:$PWD/d4.img?zones=8&zone_mib=16" --opt gc_auto=maybe
expect_fail "--inline-max out of range" $TOOL mkfs st4 "emu:$PWD/d4.img?zones=8&zone_mib=16" --inline-max 1M
expect_fail "bench --gc-idle-slice out of range" $TOOL bench --dir "$PWD" --gc-idle-slice 4096
grep -q "gc_idle_slice = '4096': expected an integer.*0 or in \[65536" err.txt || die "bench: the range is not named"
expect_fail "bench unknown --opt key" $TOOL bench --dir "$PWD" --opt journal_with_dat=on
$TOOL options | grep -q "^pack_max = 32768" || die "options does not list pack_max"
[ ! -e d4.img ] && [ ! -e st4/meta ] || die "a refused mkfs created files"
snapshot after.txt
cmp before.txt after.txt || die "failed commands changed the store"
ls ./*.smrstore-get.* 2>/dev/null && die "temporary files left behind"
for c in mkfs df stats fsck mkcoll rmcoll lscoll put get rm ls stat setxattr getxattr \
         listxattr setomapval setomapvals getomapval listomapkeys; do
  $TOOL $c --help >/dev/null || die "$c --help"
done
echo "store objects ok"
