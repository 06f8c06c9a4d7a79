#!/bin/bash
# Closed-loop reference without GC work (FIFO deletes) for the closed-uniform cell. tree d5eebcf.
T=/var/tmp/wm/smrstore-tool
OUT=/var/tmp/wm
run() { name=$1; shift; rm -rf /dev/shm/wmd; mkdir -p /dev/shm/wmd; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T bench --dir /dev/shm/wmd --json "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
# (run one after another by chain.sh)
run ref-closed-uniform-fifo --zones 128 --zone-mib 32 --size-dist fixed:4194304 --util 0.8 --delete fifo --mix 0:1:1 --clients 4 --policy lifetime --placement separated --seed 1 --duration 180
rm -rf /dev/shm/wmd
# the same for the zipf 256 KiB closed loop and the HDD-model 4 MiB closed loop
run ref-closed-zipf-fifo --zones 256 --zone-mib 16 --size-dist fixed:262144 --util 0.8 --delete fifo --mix 0:1:1 --clients 16 --policy lifetime --placement separated --seed 1 --duration 180
run ref-closed-hdd-fifo --zones 128 --zone-mib 32 --size-dist fixed:4194304 --util 0.8 --mix 0:1:1 --delete fifo --clients 4 --policy lifetime --placement separated --seed 1 --mbps 250 --duration 180
rm -rf /dev/shm/wmd
