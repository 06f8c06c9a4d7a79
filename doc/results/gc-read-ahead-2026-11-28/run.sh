#!/bin/bash
# Goal-4 open-loop uniform 4 MiB cell: idle GC read-ahead on vs off, and the FIFO reference.
# tool: HEAD 754c65a + the read-ahead working tree (copied to /var/tmp/ra/smrstore-tool).
T=/var/tmp/ra/smrstore-tool
OUT=/var/tmp/ra
BASE="bench --zones 128 --zone-mib 32 --size-dist fixed:4194304 --util 0.8 --mix 0:1:1 --clients 4 --duration 300 --json"
HDD="--dir /dev/shm/rad --mbps 250 --rate 9"
SHM="--dir /dev/shm/rad --rate 48"
run() { name=$1; shift; rm -rf /dev/shm/rad; mkdir -p /dev/shm/rad; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T $BASE "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
run hdd-ra-on $HDD --delete uniform
run hdd-ra-off $HDD --delete uniform --gc-read-ahead off
run hdd-fifo $HDD --delete fifo
run shm-ra-on $SHM --delete uniform
run shm-ra-off $SHM --delete uniform --gc-read-ahead off
run shm-fifo $SHM --delete fifo
rm -rf /dev/shm/rad
