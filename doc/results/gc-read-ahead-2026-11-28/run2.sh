#!/bin/bash
# After run.sh: the read-ahead batched to 4 MiB of live data (slices shorter than that write
# what one read-ahead brought in), with short idle slices: 1 MiB fixed, and 0 (by how far
# ahead cleaning is). tool: smrstore-tool2 (working tree after the batching change).
while pgrep -f /var/tmp/ra/run.sh > /dev/null; do sleep 5; done
T=/var/tmp/ra/smrstore-tool2
OUT=/var/tmp/ra
BASE="bench --zones 128 --zone-mib 32 --size-dist fixed:4194304 --util 0.8 --mix 0:1:1 --clients 4 --duration 300 --json"
HDD="--dir /dev/shm/rad --mbps 250 --rate 9"
run() { name=$1; shift; rm -rf /dev/shm/rad; mkdir -p /dev/shm/rad; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T $BASE "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
run hdd-ra2-slice1m $HDD --delete uniform --gc-idle-slice 1048576
run hdd-ra2-slice0 $HDD --delete uniform --gc-idle-slice 0
run hdd-ra2-on $HDD --delete uniform
rm -rf /dev/shm/rad
