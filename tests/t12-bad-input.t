#!/bin/bash
# Every bad invocation, command by command and option by option: exit 2,
# one line on stderr naming the option (or argument) and the value, and
# nothing written: the database, the working directory and the machine
# (cgroups, swap, sysctls, the journal) exactly as before.
. "$(dirname "$0")/lib.sh"
mkdir -p "$TMP/cwd"
cd "$TMP/cwd" || exit 1
setup "a database with one run" "$PM" record --quiet --label l -- true
# Suite files with what no suite takes (t70 refuses these and more in suite run).
printf '[global]\nalpha = 0.7\n[a]\nworkload = swapout\n' > bad-alpha.ini
printf '[global]\ndetect = five\n[a]\nworkload = swapout\n' > bad-detect.ini
# A cell asking for cgroup v2's protection and MGLRU, under two named
# kernels (judged when each boots) and under the running one (judged now).
kernel_cell='[swapout]
workload = swapout
size = 96M
mem-cap = 64M
mem-low = 50%'
printf '[global]\nkernel = linux-image-cloud-amd64, linux-image-6.12-cloud-amd64\n%s\nlru-gen = on\n' "$kernel_cell" > named-kernels.ini
printf '[global]\nkernel = running\n%s\nlru-gen = on\n' "$kernel_cell" > running-lru.ini
printf '[global]\nkernel = running\n%s\n' "$kernel_cell" > running-low.ini
# Deferred is only what the kernel judges: sizes are judged here too.
printf '[global]\nkernel = linux-image-6.12-cloud-amd64\n%s\nmem-min = 96M\n' "$kernel_cell" > named-above.ini
# A backend name with a terminal escape: echoed quoted, not raw.
printf '[global]\nbackend = \033[2Jvm\n[a]\nworkload = swapout\n' > esc-backend.ini
state_before=$(machine_state)
listing() { find "$TMP" -path "$TMP/out" -prune -o -path "$TMP/err" -prune -o -print | sort; }
files_before=$(listing)

# REGEX<TAB>ARGS: ARGS split on blanks.
while IFS=$'\t' read -r re args; do
    [ -z "$re" ] && continue
    # shellcheck disable=SC2086
    bad "$args" "$re" $args
done <<'EOF_LIST'
^pressmark list: --format: 'yaml' is not a format	list --format yaml
^pressmark list: --workload: 'nosuch' is not a workload \(accepted: record, 	list --workload nosuch
^pressmark list: unexpected argument 'extra'	list extra
^pressmark show: --format: 'x' is not a format	show --format x
^pressmark show: .*'nosuchlabel'	show nosuchlabel
^pressmark compare: --alpha: '2' is not a significance level	compare --alpha 2
^pressmark compare: --alpha: 'abc' is not a significance level	compare --alpha abc
^pressmark compare: --format: 'pdf' is not a format	compare --format pdf
^pressmark compare: --baseline-max-size: '10Q' is not a size	compare --baseline-max-size 10Q
^pressmark compare: --workload: 'nosuch' is not a workload	compare --workload nosuch
^pressmark compare: --baseline: 'nosuchlabel' has no runs	compare --baseline nosuchlabel
^pressmark compare: unknown option or missing value '--junit'	compare --junit
^pressmark compare: unknown option or missing value '--bogus'	compare --bogus
^pressmark plot: --format: 'gif' is not a chart format	plot --format gif
^pressmark plot: --workload: 'nosuch' is not a workload	plot --workload nosuch
^pressmark report: unknown option or missing value '--out'	report --out
^pressmark merge: name at least one database	merge
^pressmark merge: /nonexistent.db: No such file	merge /nonexistent.db
^pressmark push: 'ftp://x' is not a URL	push ftp://x
^pressmark push: --batch: '0' is not a line count	push --batch 0 http://127.0.0.1:9/x
^pressmark push: --token-file: /nonexistent: No such file	push --token-file /nonexistent http://127.0.0.1:9/x
^pressmark chat-server: --listen: 'nohost' is not an address	chat-server --listen nohost
^pressmark chat-server: --heap: '1Q' is not a size	chat-server --listen 127.0.0.1:0 --heap 1Q
^pressmark chat-server: --msg-alloc: '1' is not a size	chat-server --listen 127.0.0.1:0 --msg-alloc 1
^pressmark record: a command is needed after --	record
^pressmark record: --interval: '5' is not a sampling interval	record --interval 5 -- true
^pressmark record: --runs: '0' is not a run count	record --runs 0 -- true
^pressmark record: --gap: 'x' is not a duration	record --gap x -- true
^pressmark record: --timeout: '0s' is not a duration	record --timeout 0s -- true
^pressmark record: --label: '--' is not a label .*was the label left out	record --label -- true
^pressmark record: --figures: 'nope' is not a figures parser \(accepted: fio, 	record --figures nope -- true
^pressmark record: --figure: 'x': not NAME:UNIT:DIR=REGEX	record --figure x -- true
^pressmark record: --headline fio.x: not a figure these runs read	record --figures fio --headline fio.x -- true
^pressmark record: --figures-log y: fio takes no log	record --figures fio --figures-log y -- true
^pressmark run: 'nosuch' is not a workload	run nosuch
^pressmark run chat: --rooms: '0' is not a count	run chat --rooms 0
^pressmark run chat: --users: '1' is not a count	run chat --users 1
^pressmark run chat: --messages: 'x' is not a count	run chat --messages x
^pressmark run chat: --pause: '-1' is not a pause	run chat --pause -1
^pressmark run chat: --duration: '5' is not a duration	run chat --duration 5
^pressmark run chat: --server: 'x' is not an address	run chat --server x
^pressmark run chat: --stall: 'q' is not a duration	run chat --stall q
^pressmark run swapout: --size: '0' is not a size	run swapout --size 0
^pressmark run swapout: --chunk: 'x' is not a size	run swapout --chunk x
^pressmark run swapout: --touch: 'nope' is not a touch mode	run swapout --touch nope
^pressmark run swapout: --prefill: '1Q' is not a size	run swapout --prefill 1Q
^pressmark run swapout: --prefill-procs: '0' is not a process count	run swapout --prefill-procs 0
^pressmark run swapout: unexpected argument 'extra-word'	run swapout extra-word
^pressmark run build: --jobs: 'x' is not a job count	run build --jobs x
^pressmark run build: --files: '0' is not a count	run build --files 0
^pressmark run build: --tree: '/nonexistent' has no Makefile	run build --tree /nonexistent
^pressmark run build: --seed: 'x' is not a seed	run build --seed x
^pressmark run shmio: --mode: 'x' is not a mode	run shmio --mode x
^pressmark run shmio: --procs: '0' is not a process count	run shmio --procs 0
^pressmark run shmio: --read-pct: '101' is not a percentage	run shmio --read-pct 101
^pressmark run shmio: --io-min is above --io-max	run shmio --io-min 2M --io-max 1M
^pressmark run shmio: --dir: '/nonexistent/x' is not a directory	run shmio --dir /nonexistent/x
^pressmark run swapout: --mem-cap: '1K' is not a memory cap	run swapout --mem-cap 1K
^pressmark run swapout: --mem-cap: '99999T' is not below this machine's MemTotal	run swapout --mem-cap 99999T
^pressmark run swapout: --cap-method: 'x' is not a cap method	run swapout --cap-method x
^pressmark run swapout: --swap: a swap file of .* does not fit in	run swapout --swap 9000000T
^pressmark run swapout: --swap: 'nosuchalgo' is not a zram compressor of this kernel \(accepted: .*lz	run swapout --swap zram:64M:nosuchalgo
^pressmark run swapout: --swap: 'zram:1K' is not a swap set-up	run swapout --swap zram:1K
^pressmark run swapout: --zswap: 'maybe' is not a zswap setting	run swapout --zswap maybe
^pressmark run swapout: --sysctl: 'vm.nope=1': this kernel has no /proc/sys/vm/nope	run swapout --sysctl vm.nope=1
^pressmark run swapout: --sysctl: 'kernel.x=1' is not a VM setting	run swapout --sysctl kernel.x=1
^pressmark run swapout: --thp: 'x' is not a THP mode	run swapout --thp x
^pressmark run swapout: --mem-high: needs --mem-cap	run swapout --mem-high 1G
^pressmark run swapout: --swap-cap: needs --mem-cap	run swapout --swap-cap 1G
^pressmark run swapout: --mem-low: needs --mem-cap \(memory.low protects part of the capped workload's memory\)$	run swapout --mem-low 32M
^pressmark run swapout: --mem-min: '25%' is a share of --mem-cap, and there is none \(accepted: a size, or --mem-cap with it\)$	run swapout --mem-min 25%
^pressmark run swapout: --mem-high: '75%' is a share of --mem-cap, and there is none \(accepted: a size, or --mem-cap with it\)$	run swapout --mem-high 75%
^pressmark run swapout: --mem-low: 100663296 bytes is above the cap of 67108864 bytes \(accepted: at most the cap\)$	run swapout --mem-low 96M --mem-cap 64M
^pressmark run swapout: --mem-min: 67109888 bytes is above the cap of 67108864 bytes \(accepted: at most the cap\)$	run swapout --mem-cap 64M --mem-min 65537K
^pressmark run swapout: --mem-min: 'lots' is not a size \(accepted: a byte count with K, M, G or T \(binary\), e.g. 48M, 1G, or a percentage of --mem-cap such as 75%\)$	run swapout --mem-min lots
^pressmark run swapout: --mem-low: '101%' is not a size \(accepted: .* a percentage of --mem-cap such as 75%\)$	run swapout --mem-cap 64M --mem-low 101%
^pressmark run swapout: --zswap-max: 'huge' is not a size \(accepted: .* a percentage of --mem-cap such as 75%; or max\)$	run swapout --zswap-max huge
^pressmark run swapout: --zswap-max: needs --mem-cap \(memory.zswap.max limits the capped workload's zswap pool\)$	run swapout --zswap-max max
^pressmark run swapout: --zswap-max: memory.zswap.max needs cgroup v2, and the cap here is the balloon \(accepted: --cap-method cgroup2, where the memory controller is on cgroup v2\)$	run swapout --mem-cap 64M --cap-method balloon --zswap-max 16M
^pressmark run swapout: --zswap-writeback: 'maybe' is not a zswap writeback setting \(accepted: on, off\)$	run swapout --zswap-writeback maybe
^pressmark run swapout: --zswap-writeback: needs --mem-cap \(memory.zswap.writeback is set on the capped workload's cgroup\)$	run swapout --zswap-writeback off
^pressmark run swapout: --lru-gen: 'sometimes' is not an MGLRU setting \(accepted: on, off, or a mask of its components from 0x0000 to 0xffff, e.g. 0x0007 for all, 0x0001 for the main switch alone\)$	run swapout --lru-gen sometimes
^pressmark run swapout: --lru-gen: '0x12345' is not an MGLRU setting	run swapout --lru-gen 0x12345
^pressmark run swapout: --lru-gen-min-ttl: '1s' is not a time in milliseconds \(accepted: a whole number from 0 to 4294967295, e.g. 1000; 0 switches the thrashing prevention off\)$	run swapout --lru-gen-min-ttl 1s
^pressmark run swapout: --push: 'ftp://x' is not a URL	run swapout --push ftp://x
^pressmark run swapout: --interval: '1ms' is not a sampling interval	run swapout --interval 1ms
^pressmark run swapout: --runs: '100001' is not a run count	run swapout --runs 100001
^pressmark suite plan: bad-alpha.ini:2: alpha = 0.7: not a significance level \(accepted: a number above 0 and at most 0.5	suite plan bad-alpha.ini
^pressmark suite plan: bad-detect.ini:2: detect = five: not a change to detect \(accepted: a percentage of the mean above 0 and below 100	suite plan bad-detect.ini
EOF_LIST

# What only some kernels and hierarchies have: refused where this one lacks it.
v2_only="needs cgroup v2, and the cap here is cgroup1 \(accepted: --cap-method cgroup2, where the memory controller is on cgroup v2\)$"
memcg_hierarchy
if [ "$CG_VERSION" = 1 ]; then
    bad "--mem-low on cgroup1" "^pressmark run swapout: --mem-low: memory.low $v2_only" \
        run swapout --mem-cap 64M --cap-method cgroup1 --mem-low 32M
    bad "--zswap-writeback on cgroup1" "^pressmark run swapout: --zswap-writeback: memory.zswap.writeback $v2_only" \
        run swapout --zswap-writeback off --cap-method cgroup1 --mem-cap 64M
else
    skip "no cgroup v1 memory controller here"
fi
# auto takes cgroup1 where no cgroup2 hierarchy has the memory controller.
if [ "$CG_VERSION" = 1 ]; then
    bad "--mem-min where auto takes cgroup1" "^pressmark run swapout: --mem-min: memory.min $v2_only" \
        run swapout --mem-cap 64M --mem-min 10%
    bad "a running-kernel cell with --mem-low on cgroup1" \
        "^pressmark suite plan: running-low.ini: cell 'swapout': --mem-low: memory.low $v2_only" suite plan running-low.ini
else
    skip "auto takes ${CG_VERSION:+cgroup}${CG_VERSION:-the balloon} here"
fi
if [ ! -e /sys/kernel/mm/lru_gen ]; then
    lacks="this kernel has no /sys/kernel/mm/lru_gen/%s \(accepted: a kernel built with CONFIG_LRU_GEN\)$"
    # shellcheck disable=SC2059
    bad "--lru-gen without MGLRU" "^pressmark run swapout: --lru-gen: 'on': $(printf "$lacks" enabled)" \
        run swapout --lru-gen on
    # shellcheck disable=SC2059
    bad "--lru-gen-min-ttl without MGLRU" "^pressmark run swapout: --lru-gen-min-ttl: '1000': $(printf "$lacks" min_ttl_ms)" \
        run swapout --lru-gen-min-ttl 1000
    # shellcheck disable=SC2059
    bad "a running-kernel cell with --lru-gen without MGLRU" \
        "^pressmark suite plan: running-lru.ini:8: lru-gen: 'on': $(printf "$lacks" enabled)" suite plan running-lru.ini
else
    skip "this kernel has MGLRU"
fi
if [ "$(id -u)" -eq 0 ]; then
    bad "a named kernel's cell with memory.min above its cap" \
        "^pressmark suite plan: named-above.ini: cell '.*': --mem-min: 100663296 bytes is above the cap of 67108864 bytes \\(accepted: at most the cap\\)$" \
        suite plan named-above.ini
else
    skip "a suite with --mem-cap is planned as root"
fi
# The tree's own tools' helper (tools/v2-host-check.sh): a kernel's VM
# image, made or found. Anything but one kernel is refused before any
# recovery, lock or build; the caller's text stays quoted.
bad "a backend name with an escape" "^pressmark suite plan: esc-backend\\.ini:2: backend = \\\\x1b\\[2Jvm: not a backend \\(accepted:" \
    suite plan esc-backend.ini
unlike "$(cat "$TMP/err")" $'\e' "  no escape byte on the terminal"
bad "__vm-image without a kernel" "^pressmark __vm-image: takes one kernel \(accepted: a linux-image package name" __vm-image
bad "__vm-image with an option" "^pressmark __vm-image: takes one kernel" __vm-image --help
bad "__vm-image of the running kernel" "^pressmark __vm-image: kernel = running: it has no VM image \(accepted:" __vm-image running
bad "__vm-image of a name with escapes" "^pressmark __vm-image: kernel = \\\\x1b\[2Jx: not a kernel \(accepted:" __vm-image $'\e[2Jx'
is "$(listing)" "$files_before" "no bad invocation created or removed a file (working directory, --out, --junit)"
is "$(machine_state)" "$state_before" "nor changed the machine (swap, zram, cgroups, sysctls, THP, zswap, journal)"
is "$(q "select count(*) from run")" 1 "the database still holds its one run"

# Not bad input: a cell of a named kernel is judged when that kernel runs
# it, not here (reading the database leaves its -wal beside it, so last).
if [ "$(id -u)" -eq 0 ]; then
    "$PM" suite plan named-kernels.ini >"$TMP/out" 2>"$TMP/err"
    is "$?" 0 "a named kernel's cell with --lru-gen and --mem-low is planned here $(head -1 "$TMP/err")"
    like "$(cat "$TMP/out")" "linux-image-6.12-cloud-amd64 +boots in a VM" "and its kernel boots in a VM"
else
    skip "a suite with --mem-cap is planned as root"
fi
done_testing
