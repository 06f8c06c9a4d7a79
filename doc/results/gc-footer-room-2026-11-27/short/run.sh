#!/bin/bash
T=/work/main/build/src/tools/smrstore-tool
cd /var/tmp/g3
run() { name=$1; shift; rm -rf /dev/shm/g3d; mkdir -p /dev/shm/g3d
  $T bench --dir /dev/shm/g3d --zones 256 --zone-mib 16 --size-dist fixed:262144 --util 0.8 --delete zipf --ops 60000 --mix 0:1:1 --policy lifetime --placement separated --seed 1 --oracle --json "$@" > $name.json 2> $name.err; echo "$name rc=$? $(date +%T)" >> log; }
run c16-def --clients 16
run c16-low --clients 16 --gc-free 0.008:0.003:0.012
run c1-low --clients 1 --gc-free 0.008:0.003:0.012
run c1-def --clients 1
rm -rf /dev/shm/g3d
