#!/bin/bash
T=/work/main/build/src/tools/smrstore-tool
cd /var/tmp/g3
run() { name=$1; shift; rm -rf /dev/shm/g3d; mkdir -p /dev/shm/g3d
  $T bench --dir /dev/shm/g3d --zones 256 --zone-mib 16 --size-dist fixed:262144 --util 0.8 --delete zipf --mix 0:1:1 --seed 1 --oracle --json --clients 16 "$@" > $name.json 2> $name.err; echo "$name rc=$? $(date +%T)" >> log; }
run gs-def --ops 60000 --policy greedy --placement single
run gs-low --ops 60000 --policy greedy --placement single --gc-free 0.008:0.003:0.012
run ls-sep --ops 60000 --policy lifetime --placement separated --gc-commits separate
run ls-nojournal --ops 60000 --policy lifetime --placement separated --journal off
run ls-def2 --ops 60000 --policy lifetime --placement separated --seed 2
rm -rf /dev/shm/g3d
