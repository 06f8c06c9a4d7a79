#!/bin/bash
# gc_free_zones_max on the store: the goal-3 zipf cell at 8x the zones (2048 x 2 MiB, the
# 4 GiB of the 256-zone cell), 80 % full. Default cap 64 zones per drive (stop 5 % = 102
# zones -> capped) against no cap (0: the fractions alone). Tree: see git log.
T=/var/tmp/cap/smrstore-tool
OUT=/var/tmp/cap
BASE="bench --zones 2048 --zone-mib 2 --size-dist fixed:258048 --util 0.8 --delete zipf --ops 260000 --clients 16 --mix 0:1:1 --placement separated --seed 1 --json"
run() { name=$1; shift; rm -rf /dev/shm/capd; mkdir -p /dev/shm/capd; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T $BASE --dir /dev/shm/capd "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
run lifetime-cap64 --policy lifetime
run lifetime-nocap --policy lifetime --gc-free-zones-max 0
run greedy-cap64 --policy greedy
run greedy-nocap --policy greedy --gc-free-zones-max 0
rm -rf /dev/shm/capd
