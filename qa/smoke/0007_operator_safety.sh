# Operator safety and bad input (issue 15 part 4): raw commands refuse a store's drive,
# put streams in bounded memory and refuses what does not fit before writing, df's
# "available" is exactly the largest put, a killed get leaves no file, one exit-code
# convention, control characters in names are escaped, no dead bytes after clean puts.
. "$(dirname "$0")/lib.sh"
# expect_rc CODE "what" cmd...: exits with CODE and exactly one line on stderr.
expect_rc() {
  code=$1; what=$2; shift 2
  set +e; "$@" </dev/null >out.txt 2>err.txt; rc=$?; set -e
  [ "$rc" -eq "$code" ] || { cat err.txt >&2; die "$what: exit $rc, expected $code"; }
  [ "$(wc -l <err.txt)" -eq 1 ] || { cat err.txt >&2; die "$what: error is not one line"; }
  echo "ok: $what -> $rc: $(cat err.txt)"
}
D0="emu:$PWD/d0.img?zones=24&zone_mib=16&conv=1"
$TOOL mkfs st "$D0" >mkfs.txt
uuid=$(sed -n 's/.*uuid \([0-9a-f-]*\),.*/\1/p' mkfs.txt)
[ -n "$uuid" ] || die "no uuid in mkfs output"
$TOOL mkcoll st c >/dev/null

# 1. Raw commands that change a drive refuse a store's drive (unmounted) unless --force.
cp d0.img d0.orig
for action in reset finish open close; do
  expect_rc 1 "zone $action on a store's drive" $TOOL zone "emu:$PWD/d0.img" $action 1
  grep -q "d0.img holds smrstore $uuid" err.txt || die "zone $action: error names no drive/uuid"
done
expect_rc 1 "write on a store's drive" $TOOL write "emu:$PWD/d0.img" --zone 5 --length 4K
grep -q "d0.img holds smrstore $uuid" err.txt || die "write: error names no drive/uuid"
cmp d0.img d0.orig || die "a refused raw command changed the store's drive"
$TOOL read "emu:$PWD/d0.img" --offset 16M --length 4K >/dev/null || die "read must still work"
# --force does it (on a copy: the store stays intact).
cp d0.img d0.copy
$TOOL zone "emu:$PWD/d0.copy" reset 5 --force >/dev/null || die "zone reset --force"
$TOOL write "emu:$PWD/d0.copy" --zone 5 --length 4K --force >/dev/null || die "write --force"
rm d0.copy
# A drive without a store is not affected by the check.
$TOOL mkdev "emu:$PWD/plain.img?zones=4&zone_mib=4&conv=1" >/dev/null
$TOOL write "emu:$PWD/plain.img" --zone 1 --length 4K >/dev/null || die "write on a plain drive"

# 2a. write --length beyond the device / the zone's capacity fails before writing.
cp plain.img plain.orig
expect_rc 1 "write --length 1T" $TOOL write "emu:$PWD/plain.img" --zone 1 --length 1T
grep -q NoSpace err.txt || die "write 1T: not NoSpace"
expect_rc 1 "write past the zone's capacity" $TOOL write "emu:$PWD/plain.img" --zone 1 --length 4M
cmp plain.img plain.orig || die "a refused write changed the drive"

# 2b/3. df's available is exactly the largest put: it succeeds, one byte more is refused
# with NoSpace before anything is written (the store unchanged).
snapshot() { { $TOOL ls st c --json; $TOOL df st --json | python3 -c 'import json,sys; d=json.load(sys.stdin); del d["meta_bytes"]; print(d)'; } >"$1"; }
head -c 3M /dev/urandom >f3m
$TOOL put st c first f3m >/dev/null                  # an open zone partly used
avail=$($TOOL df st --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["available"])')
echo "df available: $avail bytes"
head -c $((avail + 1)) /dev/urandom >fbig
snapshot s1.txt
expect_rc 1 "put of df's available + 1 byte" $TOOL put st c big fbig
grep -q "NoSpace.*nothing was written" err.txt || die "put too big: not NoSpace before writing"
truncate -s 40G huge                                  # sparse: a 40 GiB file
expect_rc 1 "put of a 40 GiB file" $TOOL put st c huge huge
grep -q NoSpace err.txt || die "put 40G: not NoSpace"
snapshot s2.txt
cmp s1.txt s2.txt || die "a refused put changed the store"
head -c "$avail" fbig >fexact
$TOOL put st c exact fexact >/dev/null || die "a put of exactly df's available failed"
rm -f got && $TOOL get st c exact got >/dev/null && cmp fexact got || die "exact put differs"
rm -f got fbig fexact
# A put from a pipe cannot be checked first: when it hits NoSpace it removes what it wrote.
$TOOL ls st c --json >ls1.txt
set +e; head -c 40M /dev/urandom | $TOOL put st c piped - 2>err.txt; rc=$?; set -e
[ $rc -eq 1 ] && grep -q NoSpace err.txt || { cat err.txt; die "piped put into a full store"; }
$TOOL ls st c --json >ls2.txt
cmp ls1.txt ls2.txt || die "a failed piped put left objects behind"
$TOOL fsck st >/dev/null || die "fsck after the failed put"

# 2c. put streams: peak RSS stays bounded for a file many times the 16 MiB chunk.
$TOOL mkfs st2 "emu:$PWD/e0.img?zones=24&zone_mib=64&conv=1" >/dev/null
$TOOL mkcoll st2 c >/dev/null
head -c 512M /dev/zero | tr '\0' 'x' >f512m
if [ -x /usr/bin/time ]; then
  /usr/bin/time -v $TOOL put st2 c f512m f512m >/dev/null 2>time.txt || die "512 MiB put"
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' time.txt)
  echo "put of 512 MiB: peak RSS $rss KiB"
  [ "$rss" -lt 262144 ] || die "put of 512 MiB used $rss KiB (not streaming?)"
else
  $TOOL put st2 c f512m f512m >/dev/null || die "512 MiB put"
fi

# 4. A get killed with SIGKILL leaves no file (O_TMPFILE linked at the end); the
# fallback's temporary file is removed on SIGTERM.
mkdir out
for delay in 0.05 0.15 0.3; do
  $TOOL get st2 c f512m out/f >/dev/null 2>&1 &
  pid=$!
  sleep $delay
  kill -9 $pid 2>/dev/null && killed=yes || killed=no
  wait $pid 2>/dev/null || true
  [ -z "$(ls -A out)" ] || { ls -la out; die "get killed after ${delay}s left files"; }
  echo "ok: get killed after ${delay}s (running: $killed): nothing left"
done
SMRSTORE_GET_NO_TMPFILE=1 $TOOL get st2 c f512m out/f >/dev/null 2>&1 &
pid=$!
sleep 0.15
kill -TERM $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
[ -z "$(ls -A out)" ] || { ls -la out; die "get (no O_TMPFILE) left files after SIGTERM"; }
SMRSTORE_GET_NO_TMPFILE=1 $TOOL get st2 c f512m out/f >/dev/null || die "fallback get"
cmp f512m out/f || die "fallback get differs"
rm -f out/f
$TOOL get st2 c f512m out/f >/dev/null && cmp f512m out/f || die "get differs"
mode=$(printf '%o' $((0666 & ~0$(umask))))
[ "$(stat -c %a out/f)" = "$mode" ] || die "get's file mode $(stat -c %a out/f) is not $mode"
rm -rf out f512m

# 5. One exit-code convention: 2 usage, 1 the operation failed; one line on stderr.
while IFS='|' read -r code what cmd; do
  [ -n "$code" ] || continue
  eval "expect_rc $code \"$what\" $cmd"
done <<EOF
2|no command|\$TOOL
2|unknown command|\$TOOL frobnicate
2|unknown option|\$TOOL df st --bogus
2|option without its value|\$TOOL ls st c --json=1
2|missing argument|\$TOOL get st c
2|too many arguments|\$TOOL df st st
2|zone: not a zone number|\$TOOL zone "emu:\$PWD/plain.img" reset x
2|zone: unknown action|\$TOOL zone "emu:\$PWD/plain.img" explode 1
2|zone: bad --count|\$TOOL zone "emu:\$PWD/plain.img" reset 1 --count x
2|write: bad --length|\$TOOL write "emu:\$PWD/plain.img" --zone 1 --length 12Q
2|write: --zone and --offset|\$TOOL write "emu:\$PWD/plain.img" --zone 1 --offset 0 --length 4K
2|write: no --length|\$TOOL write "emu:\$PWD/plain.img" --zone 1
2|read: no --offset|\$TOOL read "emu:\$PWD/plain.img" --length 4K
2|zones: bad --zone|\$TOOL zones "emu:\$PWD/plain.img" --zone x
2|gc: --zones 0|\$TOOL gc st --zones 0
2|mkcoll: bad --bits|\$TOOL mkcoll st d --bits 40
2|stat: bad --hash|\$TOOL stat st c first --hash xyz
2|put: empty object name|\$TOOL put st c "" f3m
2|put: name over 2048 bytes|\$TOOL put st c "\$(printf '%03000d' 0)" f3m
2|stat: namespace over 256 bytes|\$TOOL stat st c first --nspace "\$(printf '%0300d' 0)"
2|setxattr: 90 kB xattr name|\$TOOL setxattr st c first "\$(printf '%090000d' 0)" v
2|setxattr: empty xattr name|\$TOOL setxattr st c first "" v
1|zones: missing drive|\$TOOL zones "emu:\$PWD/missing.img"
1|zone: zone out of range|\$TOOL zone "emu:\$PWD/plain.img" reset 9
1|missing store|\$TOOL df nostore
1|missing collection|\$TOOL ls st nocoll
1|missing object|\$TOOL stat st c nothere
1|missing xattr|\$TOOL getxattr st c first user.none
1|put: missing file|\$TOOL put st c x nofile
1|get over a file|\$TOOL get st c first f3m
EOF
$TOOL setxattr st c first "$(printf '%0100d' 0)" v >/dev/null || die "a 100-byte xattr name"
$TOOL put st2 c first f3m >/dev/null

# 7. Control characters in names are escaped in every listing (one line per name).
nl='
'
$TOOL put st2 c "a$(printf '\001')b${nl}c" f3m >/dev/null
$TOOL setxattr st2 c first "user.$(printf '\t')x" v >/dev/null
$TOOL setomapval st2 c first "k$(printf '\033')[31m" v >/dev/null
$TOOL mkcoll st2 "d$(printf '\r')e" >/dev/null
$TOOL ls st2 c >ls.txt
grep -qxF 'a\x01b\x0ac' ls.txt || { cat -A ls.txt; die "ls: name not escaped"; }
[ "$(wc -l <ls.txt)" -eq 3 ] || { cat -A ls.txt; die "ls: a name spans lines"; }
$TOOL listxattr st2 c first | grep -qxF 'user.\x09x' || die "listxattr: not escaped"
$TOOL listomapkeys st2 c first | grep -qxF 'k\x1b[31m' || die "listomapkeys: not escaped"
$TOOL lscoll st2 | grep -qxF 'd\x0de' || die "lscoll: not escaped"
$TOOL stat st2 c "a$(printf '\001')b${nl}c" | grep -qF 'c/a\x01b\x0ac (' || die "stat: not escaped"
expect_rc 1 "missing object with control bytes" $TOOL stat st2 c "z$(printf '\033')]0;pwned$(printf '\007')"
grep -qF '\x1b]0;pwned\x07' err.txt || die "error message: not escaped"
$TOOL ls st2 c --json | python3 -c 'import json,sys; n={o["name"] for o in json.load(sys.stdin)["objects"]}; assert "a\x01b\nc" in n, n'

# 8. Clean puts leave no dead bytes at the next mount.
for i in 1 2 3 4 5 6; do $TOOL put st2 c "o$i" f3m >/dev/null; done
dead=$($TOOL stats st2 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counters"]["dead_on_mount_bytes"])')
[ "$dead" -eq 0 ] || die "$dead dead bytes at mount after clean puts"
$TOOL fsck st --deep >/dev/null && $TOOL fsck st2 --deep >/dev/null || die "fsck"
# 9. A capture nested without end (2,000,000 '[') is refused in one line; `replay` used to
# overflow its stack on it (SIGSEGV), found by the trace_json fuzz target's deep inputs.
mkdir -p deep
python3 -c "print('[' * 2000000)" >deep/trace.json
cp deep/trace.json deep/expected.json
cp deep/trace.json deep/meta.json
expect_rc 1 "replay of a capture nested 2,000,000 deep" $TOOL replay deep
grep -qF 'nested deeper than 64 levels' err.txt || die "replay: nesting not named"
echo "operator safety ok"
