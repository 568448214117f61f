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
^pressmark run swapout: --push: 'ftp://x' is not a URL	run swapout --push ftp://x
^pressmark run swapout: --interval: '1ms' is not a sampling interval	run swapout --interval 1ms
^pressmark run swapout: --runs: '100001' is not a run count	run swapout --runs 100001
^pressmark suite plan: bad-alpha.ini:2: alpha = 0.7: not a significance level \(accepted: a number above 0 and at most 0.5	suite plan bad-alpha.ini
^pressmark suite plan: bad-detect.ini:2: detect = five: not a change to detect \(accepted: a percentage of the mean above 0 and below 100	suite plan bad-detect.ini
EOF_LIST

is "$(listing)" "$files_before" "no bad invocation created or removed a file (working directory, --out, --junit)"
is "$(machine_state)" "$state_before" "nor changed the machine (swap, zram, cgroups, sysctls, THP, zswap, journal)"
is "$(q "select count(*) from run")" 1 "the database still holds its one run"
done_testing
