#!/bin/bash
T=/work/main/build/src/tools/smrstore-tool
cd /var/tmp/g3
run() { name=$1; shift; rm -rf /dev/shm/g3d; mkdir -p /dev/shm/g3d
  SMR_BENCH_DUMP=1 $T bench --dir /dev/shm/g3d --zones 256 --zone-mib 16 --size-dist fixed:262144 --util 0.8 --delete zipf --mix 0:1:1 --oracle --json --clients 16 "$@" > $name.json 2> $name.err; echo "$name rc=$? $(date +%T)" >> log; }
run D-gs-def --ops 60000 --policy greedy --placement single --seed 1
rm -rf /dev/shm/g3d
