#!/bin/bash
# Goal-4 closed-loop cells at d5eebcf (yielding idle slices, riding slices: the defaults).
T=/var/tmp/wm/smrstore-tool
OUT=/var/tmp/wm
run() { name=$1; shift; rm -rf /dev/shm/wmd; mkdir -p /dev/shm/wmd; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T bench --dir /dev/shm/wmd --json "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
# (run one after another by chain.sh)
# uniform 4 MiB, closed loop (the cell that gave 3.0x at 39ace1f)
run closed-uniform --zones 128 --zone-mib 32 --size-dist fixed:4194304 --util 0.8 --delete uniform --mix 0:1:1 --clients 4 --policy lifetime --placement separated --seed 1 --duration 180
# zipf 256 KiB, 16 clients, closed loop (1.39x)
run closed-zipf --zones 256 --zone-mib 16 --size-dist fixed:262144 --util 0.8 --delete zipf --mix 0:1:1 --clients 16 --policy lifetime --placement separated --seed 1 --duration 180
# HDD model, 4 MiB zipf, closed loop (2.15x)
run closed-hdd-zipf --zones 128 --zone-mib 32 --size-dist fixed:4194304 --util 0.8 --mix 0:1:1 --delete zipf --clients 4 --policy lifetime --placement separated --seed 1 --mbps 250 --duration 180
rm -rf /dev/shm/wmd
