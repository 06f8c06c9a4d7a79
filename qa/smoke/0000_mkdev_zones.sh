# mkdev creates a drive whose zone report (text and JSON) matches the spec.
. "$(dirname "$0")/lib.sh"
SPEC="emu:$PWD/d.img?zones=32&zone_mib=64&cap_mib=48&conv=2&max_open=8&max_active=12"
$TOOL mkdev "$SPEC"
$TOOL zones "emu:$PWD/d.img" | tee report.txt
grep -q "32 zones x 64 MiB, capacity 48 MiB" report.txt || die "header"
[ "$(grep -c 'conventional ' report.txt)" -eq 2 ] || die "2 conventional zones"
$TOOL zones "emu:$PWD/d.img" --json >report.json
python3 - <<'PY'
import json
r = json.load(open("report.json"))
d = r["device"]
assert d["nr_zones"] == 32 and d["zone_size"] == 64 << 20 and d["zone_capacity"] == 48 << 20, d
assert d["max_open_zones"] == 8 and d["max_active_zones"] == 12 and d["nr_conventional"] == 2, d
assert len(r["zones"]) == 32 and r["summary"]["empty"] == 30, r["summary"]
assert r["zones"][2]["wp"] == r["zones"][2]["start"] and r["zones"][2]["cond"] == "empty"
print("json ok")
PY
# The image is sparse: 2 GiB of zones take almost no space.
[ "$(du -k d.img | cut -f1)" -lt 4096 ] || die "image not sparse"
