#!/bin/bash
# Goal-4 open-loop cell: gc_idle_yield on vs off, both drive models, alternating.
T=/var/tmp/smrtool-yield
OUT=/var/tmp/yr
BASE="bench --zones 128 --zone-mib 32 --size-dist fixed:4194304 --util 0.8 --delete uniform --mix 0:1:1 --clients 4 --duration 300 --json"
NOSEEK="--rate 48"
HDD="--dir /dev/shm --mbps 250 --rate 9"
run() { name=$1; shift; echo "$(date +%T) start $name" >> $OUT/run-log.txt; $T $BASE "$@" > $OUT/$name.json 2> $OUT/$name.err; echo "$(date +%T) end $name rc $?" >> $OUT/run-log.txt; }
run yield-1 $NOSEEK --gc-idle-yield on
run hdd-yield-1 $HDD --gc-idle-yield on
run noyield-1 $NOSEEK --gc-idle-yield off
run hdd-noyield-1 $HDD --gc-idle-yield off
run yield-2 $NOSEEK --gc-idle-yield on
run hdd-yield-2 $HDD --gc-idle-yield on
run noyield-2 $NOSEEK --gc-idle-yield off
run hdd-noyield-2 $HDD --gc-idle-yield off
