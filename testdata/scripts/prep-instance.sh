#!/bin/sh
# usage: prep-instance.sh NAME  -- create tracefs instance NAME and mask its function-tracer
# files (refused with EPERM on this machine) with plain files, in the current mount namespace
I=/sys/kernel/tracing/instances/$1
mkdir "$I" || exit 1
d=$(mktemp -d)
for f in set_ftrace_filter set_ftrace_notrace set_ftrace_pid set_ftrace_notrace_pid set_graph_function set_graph_notrace; do
  [ -e "$I/$f" ] || continue
  : > "$d/$f"; mount --bind "$d/$f" "$I/$f" || exit 1
done
