#!/usr/bin/env bash
# A long job on the device machine (longer than one 10-minute call), run from a copy of the tree:
#   scripts/detached.sh start NAME CMD [ARGS...]   copy the working tree (build folders left
#       out) to /tmp/detached/NAME, start CMD there in its own session (setsid nohup), its
#       console in /tmp/detached/NAME.log; returns at once
#   scripts/detached.sh wait NAME FILE [SECONDS]  wait until FILE (relative to the copy)
#       exists or SECONDS (default 540) pass, then print the console's tail; exit 0 if FILE
#       exists, 2 if the job is still running, 1 if it ended without FILE
# Why the copy: the device tool re-sends the working tree on every call, and a
# job that builds from the tree itself loses its sources under it on the next (polling) call
# ("kernels/common/grid.hpp: No such file or directory" halfway through scripts/ci-sm90.sh).
# The machine goes back 30 s after a call ends, so call `wait` at once after `start` and again
# right after each `wait` that returns 2.
# Example: scripts/detached.sh start ci env TMAKIT_CI_BENCH=0 scripts/ci-sm90.sh /tmp/ci-out
#          scripts/detached.sh wait ci /tmp/ci-out/summary.md   (an absolute FILE is fine too)
set -uo pipefail
cmd=${1:-}
name=${2:-}
[ -n "$cmd" ] && [ -n "$name" ] || { sed -n 2,16p "$0"; exit 64; }
dir=/tmp/detached/$name
case "$cmd" in
  start)
    shift 2
    [ $# -gt 0 ] || { echo "detached.sh: start needs a command" >&2; exit 64; }
    rm -rf "$dir" "$dir.pid" && mkdir -p "$dir" || exit 1
    tar --exclude='./build*' --exclude='./.git' -cf - . | tar -xf - -C "$dir" || exit 1
    # The job writes its own pid: setsid forks when it leads a process group (the device
    # tool's shell has job control), so $! would be a parent that exits at once (seen once:
    # `wait` then took the job for ended while it ran).
    (cd "$dir" && setsid nohup bash -c 'echo $$ > "$0.pid"; exec "$@"' "$dir" "$@" \
      > "$dir.log" 2>&1 < /dev/null &)
    for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$dir.pid" ] && break; sleep 0.2; done
    echo "started in $dir (pid $(cat "$dir.pid")), console $dir.log"
    ;;
  wait)
    file=${3:?wait needs FILE}
    [[ "$file" = /* ]] || file=$dir/$file
    limit=${4:-540}
    for ((t = 0; t < limit; t += 10)); do
      [ -e "$file" ] && break
      kill -0 "$(cat "$dir.pid" 2> /dev/null)" 2> /dev/null || break
      sleep 10
    done
    tail -n 25 "$dir.log"
    [ -e "$file" ] && exit 0
    kill -0 "$(cat "$dir.pid" 2> /dev/null)" 2> /dev/null && { echo "(still running)"; exit 2; }
    echo "(ended without $file)"
    exit 1
    ;;
  *)
    sed -n 2,16p "$0"
    exit 64
    ;;
esac
