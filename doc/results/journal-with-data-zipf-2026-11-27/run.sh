#!/bin/bash
# zipf 80 % cell, 10 turnovers, ours: journal records after the data (non-rotational drive) vs the default journal zones. tree 241558f. Beside a make test (WA only).
T=/var/tmp/jw/smrstore-tool
cd /var/tmp/jw
run() { name=$1; shift; rm -rf /dev/shm/jwd; mkdir -p /dev/shm/jwd
  echo "$name start $(date +%T)" >> log
  $T bench --dir /dev/shm/jwd --zones 256 --zone-mib 16 --size-dist fixed:262144 --delete zipf --ops 260000 --clients 16 --mix 0:1:1 --placement separated --oracle --json "$@" > $name.json 2> $name.err; echo "$name rc=$? $(date +%T)" >> log; }
run jwd-on --util 0.8 --policy lifetime --seed 1 --journal-with-data on
run jwd-default --util 0.8 --policy lifetime --seed 1
rm -rf /dev/shm/jwd
