#!/bin/bash
# One more default run of the cell on the tree 91cf34b (engine as 628fe05), then its FIFO reference.
T=/var/tmp/ra/smrstore-tool4
OUT=/var/tmp/ra
BASE="bench --zones 128 --zone-mib 32 --size-dist fixed:4194304 --util 0.8 --mix 0:1:1 --clients 4 --duration 300 --json"
HDD="--dir /dev/shm/rad --mbps 250 --rate 9"
run() { name=$1; shift; rm -rf /dev/shm/rad; mkdir -p /dev/shm/rad; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T $BASE "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
run hdd-r4-default $HDD --delete uniform
run hdd-r4-fifo $HDD --delete fifo
rm -rf /dev/shm/rad
