#!/bin/bash
T=/var/tmp/g3/long2/smrstore-tool
cd /var/tmp/g3/long2
run() { name=$1; shift; rm -rf /dev/shm/g3n; mkdir -p /dev/shm/g3n
  echo "$name start $(date +%T)" >> log
  $T bench --dir /dev/shm/g3n --zones 256 --zone-mib 16 --size-dist fixed:262144 --delete zipf --ops 260000 --clients 16 --mix 0:1:1 --placement separated --oracle --json "$@" > $name.json 2> $name.err; echo "$name rc=$? $(date +%T)" >> log; }
run store-0.8-lifetime-seed3 --util 0.8 --policy lifetime --seed 3
run store-0.8-greedy-seed3 --util 0.8 --policy greedy --seed 3
rm -rf /dev/shm/g3n
