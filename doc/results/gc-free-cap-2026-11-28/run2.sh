#!/bin/bash
# The same 2048 x 2 MiB zipf cell in an open loop at about half the closed loop's rate
# (idle time in which GC cleans up to its stop watermark): default cap 64 zones per drive
# (stop 5 % = 102 zones -> 64) against no cap. Same tool as run.sh.
T=/var/tmp/cap/smrstore-tool
OUT=/var/tmp/cap
BASE="bench --zones 2048 --zone-mib 2 --size-dist fixed:258048 --util 0.8 --delete zipf --duration 240 --rate 800 --clients 16 --mix 0:1:1 --placement separated --seed 1 --policy lifetime --json"
run() { name=$1; shift; rm -rf /dev/shm/capd; mkdir -p /dev/shm/capd; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T $BASE --dir /dev/shm/capd "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
run open-cap64
run open-nocap --gc-free-zones-max 0
rm -rf /dev/shm/capd
