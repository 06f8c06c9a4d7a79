#!/bin/bash
# A second open-loop pair (same commands as run2.sh/run3.sh), cap first this time.
T=/var/tmp/cap/smrstore-tool
OUT=/var/tmp/cap
BASE="bench --zones 2048 --zone-mib 2 --size-dist fixed:258048 --util 0.8 --delete zipf --duration 240 --rate 800 --clients 16 --mix 0:1:1 --placement separated --seed 1 --policy lifetime --json"
run() { name=$1; shift; rm -rf /dev/shm/capd; mkdir -p /dev/shm/capd; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T $BASE --dir /dev/shm/capd "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
run open-cap64-2
run open-nocap-2 --gc-free-zones-max 0
rm -rf /dev/shm/capd
