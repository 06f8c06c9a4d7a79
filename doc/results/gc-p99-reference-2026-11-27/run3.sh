#!/bin/bash
# Goal-4 references "without GC work": the same open-loop cells with FIFO deletes (zones die
# whole, GC only resets them), same util, rate, drive model. tree d5eebcf.
T=/var/tmp/wm/smrstore-tool
OUT=/var/tmp/wm
BASE="bench --zones 128 --zone-mib 32 --size-dist fixed:4194304 --util 0.8 --mix 0:1:1 --clients 4 --duration 300 --json"
run() { name=$1; shift; rm -rf /dev/shm/wmd; mkdir -p /dev/shm/wmd; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T $BASE "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
# (run one after another by chain.sh)
run ref-shm-fifo --dir /dev/shm/wmd --rate 48 --delete fifo
run ref-hdd-fifo --dir /dev/shm/wmd --mbps 250 --rate 9 --delete fifo
rm -rf /dev/shm/wmd
