#!/bin/bash
# Goal-4 open-loop cells, with GC (uniform deletes) and without GC work (FIFO deletes), on the
# tool of 241558f (p99 intervals in the JSON). One after another.
T=/var/tmp/wm/smrstore-tool-ci
OUT=/var/tmp/wm
BASE="bench --zones 128 --zone-mib 32 --size-dist fixed:4194304 --util 0.8 --mix 0:1:1 --clients 4 --duration 300 --json"
run() { name=$1; shift; rm -rf /dev/shm/wmd; mkdir -p /dev/shm/wmd; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T $BASE "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
while kill -0 $1 2>/dev/null; do sleep 2; done
run ci-shm-uniform --dir /dev/shm/wmd --rate 48 --delete uniform
run ci-shm-fifo --dir /dev/shm/wmd --rate 48 --delete fifo
run ci-hdd-uniform --dir /dev/shm/wmd --mbps 250 --rate 9 --delete uniform
run ci-hdd-fifo --dir /dev/shm/wmd --mbps 250 --rate 9 --delete fifo
rm -rf /dev/shm/wmd
