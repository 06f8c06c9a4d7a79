#!/bin/bash
T=/var/tmp/smrtool-yield
OUT=/var/tmp/yr
BASE="bench --zones 128 --zone-mib 32 --size-dist fixed:4194304 --util 0.8 --delete uniform --mix 0:1:1 --clients 4 --duration 300 --json"
SHM="--dir /dev/shm --rate 48"
HDD="--dir /dev/shm --mbps 250 --rate 9"
run() { name=$1; shift; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T $BASE "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
while pgrep -f "smrtool-yield bench" > /dev/null; do sleep 2; done
echo "$(date +%T) end hdd-noyield-1 (run.sh stopped after it: the /var/tmp cell overloads this machine's disk)" >> $OUT/run-log.txt
run shm-yield-1 $SHM --gc-idle-yield on
run shm-noyield-1 $SHM --gc-idle-yield off
run hdd-yield-2 $HDD --gc-idle-yield on
run hdd-noyield-2 $HDD --gc-idle-yield off
