# Shared by the test clusters' stop scripts (scripts/minicluster/stop.sh,
# scripts/kube/stop.sh): ending a cluster's own processes, and only those.
# Source it; it defines functions and runs nothing. Each caller defines
# say MESSAGE... (how it reports) before calling them.

# stop_pids TIMEOUT PID...: TERM, wait up to TIMEOUT seconds, then KILL
# what is left.
stop_pids() {
  local timeout="$1"
  shift
  local pids=("$@") deadline=$((SECONDS + timeout)) left
  kill -TERM "${pids[@]}" 2>/dev/null || true
  while :; do
    left=()
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left+=("$p"); done
    ((${#left[@]} == 0)) && return 0
    if ((SECONDS >= deadline)); then
      say "still running after $timeout s, killing: ${left[*]}"
      kill -KILL "${left[@]}" 2>/dev/null || true
      return 0
    fi
    sleep 0.2
  done
}

# runs_as PID PATTERN: the process PID runs and its command line (its
# arguments joined by spaces, with a trailing space) matches the grep
# PATTERN. A stale pid file's pid may belong to someone else by now.
runs_as() {
  tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline" | grep -q -- "$2"
}

# stray_pids DIR ENVPATTERN: prints the pids of the processes whose working
# directory is inside DIR and whose environment has a line matching the
# grep ENVPATTERN (a variable the cluster sets in what it starts), so that
# a shell someone left in DIR is not among them.
stray_pids() {
  local d cwd
  for d in /proc/[0-9]*; do
    cwd="$(readlink "$d/cwd" 2>/dev/null)" || continue
    case "$cwd" in
      "$1"/*)
        if tr '\0' '\n' 2>/dev/null <"$d/environ" | grep -q -- "$2"; then
          echo "${d#/proc/}"
        fi
        ;;
    esac
  done
}
