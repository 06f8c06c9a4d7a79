#!/bin/bash
# The goal-3 zipf store cell's capacity (4 GiB) in 2048 zones of 2 MiB instead of 256 of 16 MiB:
# ours (lifetime) and greedy, separated streams, seed 1, 260,000 ops. Tool of a7461d5+docs.
T=/var/tmp/g2k/smrstore-tool
cd /var/tmp/g2k
run() { name=$1; shift; rm -rf /dev/shm/g2k; mkdir -p /dev/shm/g2k
  echo "$name start $(date +%T)" >> log
  nice -n 10 $T bench --dir /dev/shm/g2k --zones 2048 --zone-mib 2 --size-dist fixed:262144 --delete zipf --ops 260000 --clients 16 --mix 0:1:1 --placement separated --oracle --json "$@" > $name.json 2> $name.err; echo "$name rc=$? $(date +%T)" >> log; }
run store-2k-0.8-lifetime --util 0.8 --policy lifetime --seed 1
run store-2k-0.8-greedy --util 0.8 --policy greedy --seed 1
rm -rf /dev/shm/g2k
