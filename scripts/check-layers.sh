#!/bin/sh
# The engine's dependency rule, checked on the sources (ctest "layering"): a layer includes
# only headers of the layers it may use, and the outside libraries stay in their one place.
#   common <- device <- zone <- store ;  common <- format <- meta <- store ;  format <- zone
#   common <- kv <- meta   (kv/: the key-value interface; RocksDB only in kv/rocksdb_kv*.cc)
# Tests (*_test.cc, */testing/*) may use any layer. objectstore/ceph_compat/ includes only
# its own headers (Ceph's layout); no other folder below a layer may hold sources.
# smrstore-tool's folders: below.
set -eu
root=$(cd "$(dirname "$0")/../src/os/smrstore" && pwd)
allowed() {
  case $1 in
    common) echo "common" ;;
    device) echo "common device" ;;
    format) echo "common format" ;;
    kv) echo "common kv" ;;
    meta) echo "common format meta kv" ;;
    zone) echo "common device format zone" ;;
    gc) echo "common gc" ;;
    store) echo "common device format meta zone gc store" ;;
    objectstore) echo "common device format meta zone gc store objectstore os osd include" ;;
    osd_preload) echo "common device format meta zone gc store kv objectstore os osd include osd_preload" ;;
    # libFuzzer targets of the decoders (fuzz/README.md); the transaction target drives the
    # Ceph adapter's decoding (objectstore/translate.h) and the engine's Transaction.
    fuzz) echo "common device format fuzz store objectstore os osd include" ;;
    *) echo "" ;;
  esac
}
fail=0
for dir in "$root"/*/; do
  layer=$(basename "$dir")
  ok=$(allowed "$layer")
  [ -n "$ok" ] || { echo "layering: unknown layer directory $layer (add it to $0)"; fail=1; continue; }
  for f in "$dir"*.h "$dir"*.cc; do
    [ -e "$f" ] || continue
    case $f in *_test.cc) continue ;; esac
    for inc in $(sed -n 's/^#include "\([a-z_]*\)\/.*"/\1/p' "$f"); do
      case " $ok " in *" $inc "*) ;; *) echo "layering: $f includes $inc/ (allowed: $ok)"; fail=1 ;; esac
    done
    case $layer/$(basename "$f") in
      kv/rocksdb_kv*.cc) ;;
      *) if grep -q '#include <rocksdb/' "$f"; then
           echo "layering: $f includes RocksDB (only kv/rocksdb_kv*.cc may)"; fail=1
         fi ;;
    esac
    if grep -q '#include <libzbd/' "$f" && [ "$(basename "$f")" != libzbd_zoned_device.cc ]; then
      echo "layering: $f includes libzbd (only device/libzbd_zoned_device.cc may)"; fail=1
    fi
    if grep -q '#include <rados/\|#include "include/\|#include "os/' "$f" && [ "$layer" != objectstore ] && [ "$layer" != osd_preload ] &&
       [ "${f#*/smrstore/}" != fuzz/transaction_fuzz.cc ]; then
      echo "layering: $f includes Ceph headers (only objectstore/, osd_preload/ and fuzz/transaction_fuzz.cc may)"; fail=1
    fi
  done
done
# objectstore/ceph_compat/: declarations of what Debian ships no header for, in Ceph's own
# layout (doc/ceph-integration.md). Its quoted includes name Ceph headers, which must be its
# own files, never one of the engine's layers (its "common/" is Ceph's, not smrstore's).
compat="$root/objectstore/ceph_compat"
for f in $(find "$compat" -name '*.h' -o -name '*.cc' | sort); do
  for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$f"); do
    [ -e "$compat/$inc" ] || { echo "layering: $f includes $inc, which is not a header of ceph_compat/"; fail=1; }
  done
done
# Every other folder below a layer is its tests' helpers (testing/, which may use any layer)
# or holds no sources (fuzz/corpus): a new folder of sources must be given a rule here.
for d in $(find "$root" -mindepth 2 -type d | sort); do
  case ${d#"$root"/} in
    */testing|*/testing/*|objectstore/ceph_compat|objectstore/ceph_compat/*) continue ;;
  esac
  if [ -n "$(find "$d" -maxdepth 1 \( -name '*.h' -o -name '*.cc' \) -print -quit)" ]; then
    echo "layering: ${d#"$root"/} holds sources but has no rule (add it to $0)"; fail=1
  fi
done

# smrstore-tool (src/tools/; src/tools/CMakeLists.txt builds one library per folder):
#   cli <- commands <- serve, whatif ;  cli, commands, serve <- bench ;  nbdkit alone
# i.e. cli/ (the subcommand framework and shared helpers) uses no other folder; commands/
# uses cli/; serve/ and whatif/ use cli/ only; bench/ uses cli/, commands/ and serve/ (bench
# --publish); nothing uses bench/, whatif/ or serve/ but smrstore_tool.cc, the executable,
# which registers every folder's commands. Of the engine the tool uses only the public
# layers common device format zone gc store; objectstore/ (the Ceph adapter) only in
# commands/replay_command.cc; nbdkit/ only common and device. librados only in
# serve/publisher.cc, zlib only in cli/gzip_file.cc. Tests (*_test.cc) follow their folder.
tools=$(cd "$(dirname "$0")/../src/tools" && pwd)
tool_allowed() {
  case $1 in
    cli) echo "cli" ;;
    commands) echo "cli commands" ;;
    serve) echo "cli serve" ;;
    whatif) echo "cli whatif" ;;
    bench) echo "cli commands serve bench" ;;
    nbdkit) echo "nbdkit" ;;
    .) echo "cli commands serve whatif bench" ;;  # smrstore_tool.cc
    *) echo "" ;;
  esac
}
tool_dirs=" cli commands serve whatif bench nbdkit "
for f in "$tools"/*.cc "$tools"/*.h "$tools"/*/*.cc "$tools"/*/*.h; do
  [ -e "$f" ] || continue
  rel=${f#"$tools"/}
  case $rel in
    */*) folder=${rel%%/*} ;;
    smrstore_tool.cc) folder=. ;;
    *) echo "layering: src/tools/$rel is outside the tool's folders (put it in one of:$tool_dirs)"; fail=1; continue ;;
  esac
  ok=$(tool_allowed "$folder")
  [ -n "$ok" ] || { echo "layering: unknown tool folder src/tools/$folder (add it to $0)"; fail=1; continue; }
  if [ "$folder" = nbdkit ]; then engine="common device"
  elif [ "$rel" = commands/replay_command.cc ]; then engine="common device format zone gc store objectstore"
  else engine="common device format zone gc store"; fi
  for inc in $(sed -n 's/^#include "\([a-z_]*\)\/.*"/\1/p' "$f"); do
    case "$tool_dirs" in
      *" $inc "*)
        case " $ok " in *" $inc "*) ;; *) echo "layering: src/tools/$rel includes $inc/ (tool folder $folder may use: $ok)"; fail=1 ;; esac ;;
      *)
        case " $engine " in *" $inc "*) ;; *) echo "layering: src/tools/$rel includes $inc/ (of the engine it may use: $engine)"; fail=1 ;; esac ;;
    esac
  done
  if grep -q '#include <rados/' "$f" && [ "$rel" != serve/publisher.cc ]; then
    echo "layering: src/tools/$rel includes librados (only serve/publisher.cc may)"; fail=1
  fi
  if grep -q '#include <zlib.h>' "$f" && [ "$rel" != cli/gzip_file.cc ]; then
    echo "layering: src/tools/$rel includes zlib (only cli/gzip_file.cc may)"; fail=1
  fi
done

[ $fail -eq 0 ] && echo "layering: ok"
exit $fail
