#!/bin/bash
T=/var/tmp/g3/long/smrstore-tool
cd /var/tmp/g3/long
run() { name=$1; shift; rm -rf /dev/shm/g3l; mkdir -p /dev/shm/g3l
  echo "$name start $(date +%T)" >> log
  $T bench --dir /dev/shm/g3l --zones 256 --zone-mib 16 --size-dist fixed:262144 --delete zipf --ops 260000 --clients 16 --mix 0:1:1 --placement separated --oracle --json "$@" > $name.json 2> $name.err; echo "$name rc=$? $(date +%T)" >> log; }
run store-0.8-lifetime-seed2 --util 0.8 --policy lifetime --seed 2
run store-0.8-greedy-seed2 --util 0.8 --policy greedy --seed 2
run store-0.7-lifetime --util 0.7 --policy lifetime --seed 1
run store-0.9-lifetime --util 0.9 --policy lifetime --seed 1
rm -rf /dev/shm/g3l
