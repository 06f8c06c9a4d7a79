#!/bin/bash
# Goal-4 closed loops at 159d72b (idle read-ahead on by default on the HDD model), with
# their FIFO references. One after another, nothing else running.
T=/var/tmp/cl/smrstore-tool
OUT=/var/tmp/cl
run() { name=$1; shift; rm -rf /dev/shm/cld; mkdir -p /dev/shm/cld; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T bench --dir /dev/shm/cld --json "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
HDDZ="--zones 128 --zone-mib 32 --size-dist fixed:4194304 --util 0.8 --mix 0:1:1 --clients 4 --policy lifetime --placement separated --seed 1 --mbps 250 --duration 180"
run closed-hdd-zipf $HDDZ --delete zipf
run ref-closed-hdd-fifo $HDDZ --delete fifo
run closed-hdd-zipf-ra-off $HDDZ --delete zipf --gc-read-ahead off
rm -rf /dev/shm/cld
