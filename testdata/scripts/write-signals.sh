#!/bin/sh
# Workload for signal/signals.dat: signals sent and delivered, to a handler,
# to a task asleep in a syscall (signal_generate inside its open slice) and
# to the default action (a sleep killed, a shell's own SIGCHLD).
python3 -c '
import os, signal, time
signal.signal(signal.SIGUSR1, lambda *a: None)
for i in range(5):
    os.kill(os.getpid(), signal.SIGUSR1)
    time.sleep(0.002)
'
sleep 5 & p=$!
sleep 0.02
kill -USR1 $p
wait $p
sleep 5 & p=$!
sleep 0.02
kill -TERM $p
wait $p
exit 0
