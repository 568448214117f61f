# shellcheck shell=bash
# What every bench script shares; sourced (". bench/lib.sh"), never run.
#
# Goals. A script declares each goal once, near its top, with goal_plan;
# each figure is then judged with goal, which prints one line
#   goal NAME: VALUE UNIT (goal OP TARGET UNIT): met|missed
# and appends it to "$BENCH_GOALS" when that is set (bench/run-all.sh
# sets it and sums the lines up). A figure that could not be measured is
# said so, never judged met:
#   goal NAME: no figure (goal OP TARGET UNIT): not measured (WHY)
# and a goal that the script never reached (it failed or was interrupted
# first) is written that way when it exits.
#
# Clean-up. cleanup_add queues a command for the script's exit, normal or
# not (set -e, SIGINT, SIGTERM), run last queued first; bench_tmpdir makes
# the script's /tmp/pressmark-bench.* directory and queues its removal.
# A script that sets its own EXIT trap loses these: use cleanup_add.

BENCH_NAME="bench/$(basename "$0")"
declare -A _goal_op=() _goal_target=() _goal_unit=() _goal_done=()
_goal_order=()
_cleanups=()

# goal_plan NAME OP TARGET [UNIT]: a goal this script will judge.
goal_plan() {
    _goal_op[$1]=$2; _goal_target[$1]=$3; _goal_unit[$1]=${4:-}
    _goal_order+=("$1")
}

_goal_line() {  # _goal_line TEXT: print it, and keep it where run-all reads
    echo "$1"
    if [ -n "${BENCH_GOALS:-}" ]; then echo "$1" >> "$BENCH_GOALS"; fi
}

# " UNIT" or nothing, so a ratio has no trailing space.
_unit() { if [ -n "$1" ]; then printf ' %s' "$1"; fi; }

# goal NAME VALUE [OP TARGET [UNIT]]: VALUE judged against the goal (OP
# one of <= < >= >); OP, TARGET and UNIT default to goal_plan's. A VALUE
# that is not a finite number is "not measured", never met.
goal() {
    local name=$1 value=$2 op=${3:-${_goal_op[$1]:-}} target=${4:-${_goal_target[$1]:-}}
    local unit=${5-${_goal_unit[$1]:-}}
    _goal_done[$name]=1
    case "$op" in
        '<=' | '<' | '>=' | '>') ;;
        *) not_measured "$name" "bench bug: no goal declared for it (OP '$op')"; return 0 ;;
    esac
    if ! [[ "$value" =~ ^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]]; then
        not_measured "$name" "the figure came out as '${value}', not a number" "$op" "$target" "$unit"
        return 0
    fi
    local verdict
    verdict=$(awk -v v="$value" -v t="$target" -v op="$op" 'BEGIN {
        v += 0; t += 0
        ok = (op == "<=") ? v <= t : (op == "<") ? v < t : (op == ">=") ? v >= t : v > t
        print ok ? "met" : "missed" }')
    _goal_line "goal $name: $value$(_unit "$unit") (goal $op $target$(_unit "$unit")): $verdict"
}

# not_measured NAME WHY [OP TARGET [UNIT]]: the goal's figure could not be
# had; WHY says what stood in the way.
not_measured() {
    local name=$1 why=$2 op=${3:-${_goal_op[$1]:-?}} target=${4:-${_goal_target[$1]:-?}}
    local unit=${5-${_goal_unit[$1]:-}}
    _goal_done[$name]=1
    _goal_line "goal $name: no figure (goal $op $target$(_unit "$unit")): not measured ($why)"
}

cleanup_add() { _cleanups+=("$*"); }

_bench_exit() {
    local rc=$? i name
    set +e
    trap '' INT TERM
    for ((i = ${#_cleanups[@]} - 1; i >= 0; i--)); do eval "${_cleanups[$i]}"; done
    for name in "${_goal_order[@]}"; do
        [ -n "${_goal_done[$name]:-}" ] && continue
        if [ "$rc" -eq 0 ]; then not_measured "$name" "$BENCH_NAME ended without judging it"
        else not_measured "$name" "$BENCH_NAME stopped before measuring it (exit $rc)"; fi
    done
    exit "$rc"
}
trap _bench_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# bench_tmpdir VAR: a fresh /tmp/pressmark-bench.XXXXXX in VAR, removed at exit.
bench_tmpdir() {
    local d
    d=$(mktemp -d /tmp/pressmark-bench.XXXXXX)
    printf -v "$1" '%s' "$d"
    cleanup_add "rm -rf '$d'"
}

# wait_until SECONDS COMMAND...: poll COMMAND every 50 ms until it succeeds
# (0) or SECONDS have passed (1): waiting for a condition, not for a time.
wait_until() {
    local limit=$1 t0 now; shift
    t0=$(date +%s%N)
    while ! "$@"; do
        now=$(date +%s%N)
        [ $(( (now - t0) / 1000000 )) -ge $(( limit * 1000 )) ] && return 1
        sleep 0.05
    done
    return 0
}

# median: of the numbers on stdin, one a line; nothing when there are none.
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
