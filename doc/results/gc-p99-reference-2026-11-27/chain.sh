#!/bin/bash
# Runs run2.sh, run3.sh, run4.sh one after another once run.sh (pid $1) has exited.
while kill -0 $1 2>/dev/null; do sleep 2; done
cd /var/tmp/wm
./run2.sh; ./run3.sh; ./run4.sh
