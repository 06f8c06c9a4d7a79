#!/bin/bash
# Goal-4 open-loop cell with yielding idle slices (default): default watermarks vs lower ones.
# tree d5eebcf
T=/var/tmp/wm/smrstore-tool
OUT=/var/tmp/wm
BASE="bench --zones 128 --zone-mib 32 --size-dist fixed:4194304 --util 0.8 --delete uniform --mix 0:1:1 --clients 4 --duration 300 --json"
SHM="--dir /dev/shm/wmd --rate 48"
HDD="--dir /dev/shm/wmd --mbps 250 --rate 9"
LOW="--gc-free 0.015:0.005:0.02"
run() { name=$1; shift; rm -rf /dev/shm/wmd; mkdir -p /dev/shm/wmd; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T $BASE "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
run shm-low-1 $SHM $LOW
run shm-def-1 $SHM
run hdd-low-1 $HDD $LOW
run hdd-def-1 $HDD
rm -rf /dev/shm/wmd
