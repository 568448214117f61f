#!/bin/bash
# build --linux for real (make test-slow): Debian's linux-source-6.1
# unpacked into a cache of the test's own, configured by tinyconfig, and
# make -j2 vmlinux built under a cap with cold shmem beside it; then the
# zswap series' recipe (suites/kbuild-zswap-quick.ini) whole, zswap off
# and on, compared.
. "$(dirname "$0")/../lib.sh"
required_by PM_SLOW_REQUIRED   # make test-slow: a missing need fails it
need_root
quiet_machine    # (it measures, and switches zswap for the machine)
memcg_hierarchy || skip_all "needs a memory cgroup hierarchy (cgroup v2 with memory, or v1's memory controller)"
[ -f /usr/src/linux-source-6.1.tar.xz ] || skip_all "needs linux-source-6.1 (apt-get install linux-source-6.1)"
[ -e /sys/module/zswap/parameters/enabled ] || skip_all "needs a kernel with zswap"
export PRESSMARK_CACHE="$TMP/cache"
unset PRESSMARK_LINUX_SOURCE
before=$(machine_state)
pkg=$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null)
[ -n "$pkg" ] || skip_all "linux-source-6.1's version is unknown to dpkg"

"$PM" run build --quiet --linux 6.1 --kconfig tinyconfig --jobs 2 --mem-cap 192M --swap 1G --cold-shmem 128M \
    --label real 2>"$TMP/err"
is "$?" 0 "Debian's 6.1 source builds under a cap with cold shmem beside it"
is "$(q "select status from run where label = 'real'")" ok "  the run is ok"
kernel=$(q "select value from run_meta m join run r on r.id = m.run_id where r.label = 'real' and key = 'build.kernel'")
is "${pkg%%-*}" "$kernel" "  the tree's version is the package's ($pkg)"
key=$(ls "$PRESSMARK_CACHE/linux")
obj=$PRESSMARK_CACHE/linux/$key/tinyconfig
ok "  vmlinux is an ELF file in the config's directory" sh -c "head -c 4 '$obj/vmlinux' | grep -q ELF"
is "$(grep -c '^CONFIG_CC_OPTIMIZE_FOR_SIZE=y' "$obj/.config")" 1 "  configured by tinyconfig"
s=$PRESSMARK_CACHE/linux/$key/src
ok "  the unpacked tree is marked whole" test -f "$s/.pressmark-complete"
is "$(find "$s" -newer "$s/.pressmark-complete" | head -5; echo "find:$?")" "find:0" "  the source tree is never written (built out of tree)"
is "$(metric real build.cold_shmem_mb)" 128.0 "  with its 128M of cold shmem"
ge "$(imetric real memcg.swap_max_bytes)" $((16 << 20)) "  some of which went to swap (the cap is 192M)"
ge "$(imetric real time.elapsed_s)" 1 "  a build of seconds at least"
ge "$(imetric real memcg.usage_max_bytes)" $((160 << 20)) "  the cap was reached (cold shmem and the build)"
is "$(machine_state)" "$before" "the machine is as it was"

# The recipe, whole: zswap off and on, two runs each, the same cache.
"$PM" suite run "$ROOT/suites/kbuild-zswap-quick.ini" >"$TMP/suite.out" 2>"$TMP/suite.err"
is "$?" 0 "suites/kbuild-zswap-quick.ini runs"
is "$(q "select group_concat(x, ' ') from (select label || ':' || group_concat(status, ',') as x from run where label like 'kbuild zswap %' group by label order by label)")" \
   "kbuild zswap off:ok,ok kbuild zswap on:ok,ok" "  each cell's two runs ok"
is "$(grep -c 'unpacking\|configuring' "$TMP/suite.err")" 0 "  the cache's tree served it: neither unpacked nor configured again"
is "$(cat "$PRESSMARK_CACHE"/linux/*/tinyconfig/.pressmark-primed)" "mm/" "  primed once, for mm/"
ge "$(q "select cast(sum(value) as int) from metric m join run r on r.id = m.run_id where r.label = 'kbuild zswap on' and m.name = 'zswap.out_kb'")" 1 \
   "  zswap on stored pages in zswap"
is "$(q "select cast(coalesce(sum(value), 0) as int) from metric m join run r on r.id = m.run_id where r.label = 'kbuild zswap off' and m.name = 'zswap.out_kb'")" 0 \
   "  zswap off stored none"
cmp=$("$PM" compare --suite 2>"$TMP/cmp.err")
is "$?" 0 "compare --suite"
like "$cmp" "^kbuild zswap on +[0-9.]+ ±[0-9.]+ +[-+][0-9.]+% p=" "  shows zswap on against off, with its change"
like "$cmp" "zswap\.enabled: kbuild zswap off=N, kbuild zswap on=Y" "  and the environment's difference"
is "$(machine_state)" "$before" "the machine is as it was (zswap as it was)"
done_testing
