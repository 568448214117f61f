#!/bin/bash
# The build workload (the 2004 objrmap report), the shared-memory + disk workload (the wblg-disk report), and --profile.
. "$(dirname "$0")/lib.sh"
export PRESSMARK_CACHE="$TMP/cache"
have_cap=no
[ "$(id -u)" -eq 0 ] && memcg_hierarchy && have_cap=yes

# Build: phases of --jobs, each its own label; GNU time lines and averages.
"$PM" run build --quiet --files 3 --unit-size 100 --headers 2 --jobs 2,max --runs 2 --label small
is "$?" 0 "a small generated tree builds with --jobs 2,max"
is "$(q "select group_concat(label || ':' || status, ' ') from (select label, status from run order by id)")" \
   "small/j2:ok small/j2:ok small/jmax:ok small/jmax:ok" "each phase has its own runs and label"
like "$(q "select params from run where label = 'small/jmax' limit 1")" "--jobs max \(make -j\)" "max is an unlimited make -j"
show=$("$PM" show small/j2)
like "$show" "[0-9.]+user [0-9.]+system [0-9:.]+elapsed [0-9]+%CPU \(0avgtext\+0avgdata [0-9]+maxresident\)k" "show prints GNU time's line"
like "$show" "\([0-9]+major\+[0-9]+minor\)pagefaults 0swaps" "with major and minor faults"
like "$show" "Average elapsed = [0-9]+:[0-9.]+ \(2 ok runs\)" "and the average of the label's runs"
ge "$(metric small/j2 time.minflt | cut -d. -f1)" 1000 "wait4 on make counts its compilers' faults"
ge "$(metric small/j2 time.nvcsw | cut -d. -f1)" 1 "and context switches"

# The cache: a cached tree that is not what the generator wrote is made again
# (its Makefile never runs), and a cache others can write is refused.
tree=$(ls -d "$PRESSMARK_CACHE"/trees/*-f3-u100-h2-s1)
printf 'vmlinux:\n\ttouch %s/pwned-make\nclean:\n\ttouch %s/pwned-make\n' "$TMP" "$TMP" > "$tree/Makefile"
"$PM" run build --quiet --files 3 --unit-size 100 --headers 2 --jobs 2 --label retree 2>"$TMP/err"
is "$(q "select status from run where label = 'retree'")" ok "a tampered cached tree: the run is ok"
like "$(cat "$TMP/err")" "the cached tree .* is not what the generator wrote; generating it again" "  saying it was made again"
ok "  and the tampered Makefile never ran" test ! -e "$TMP/pwned-make"
mkdir -m 0777 "$TMP/opencache"
PRESSMARK_CACHE="$TMP/opencache" bad "a cache directory others can write" \
    "the cache .*/opencache is not a private directory of this user \(owner [0-9]+, mode 0777" \
    run build --quiet --files 3 --unit-size 100 --headers 2 --jobs 2
# The whole path counts: a private cache inside a directory another user
# owns could be swapped by them after the check (and their Makefile run by
# root), so it is refused, naming that directory.
if [ "$(id -u)" -eq 0 ]; then
    mkdir -m 0755 "$TMP/theirs" && mkdir -m 0700 "$TMP/theirs/cache" && chown 65534 "$TMP/theirs"
    PRESSMARK_CACHE="$TMP/theirs/cache" bad "a private cache below another user's directory" \
        "$TMP/theirs/cache is below $TMP/theirs, which another user could change \(owner 65534, mode 0755" \
        run build --quiet --files 3 --unit-size 100 --headers 2 --jobs 2
    is "$(ls -A "$TMP/theirs/cache")" "" "  nothing was built there"
    # Root's cache without HOME (a systemd service): /var/cache/pressmark,
    # never /tmp/.cache.
    is "$(env -i PATH="$PATH" PRESSMARK_DB="$PRESSMARK_DB" "$PM" doctor | sed -n 's/^  cache  *//p')" \
       "/var/cache/pressmark (generated trees, fetched baselines, filestream's files)" \
       "root's cache without HOME is /var/cache/pressmark"
    is "$(setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH="$PATH" PRESSMARK_DB=/nonexistent "$PM" doctor 2>&1 | sed -n 's/^  cache  *//p')" \
       "none: neither HOME nor XDG_CACHE_HOME is an absolute path (set PRESSMARK_CACHE)" \
       "a user without HOME has no cache (not one in /tmp)"
else
    skip "another user's directory needs root to make"
    skip "another user needs root to become"
fi
# A directory others can write is trusted above the cache only when sticky
# (others cannot move what is not theirs there), as /tmp.
mkdir -m 1777 "$TMP/sticky" && mkdir -m 0777 "$TMP/open"
PRESSMARK_CACHE="$TMP/open/cache" bad "a cache below a directory anyone can write" \
    "$TMP/open/cache is below $TMP/open, which another user could change \(owner [0-9]+, mode 0777" \
    run build --quiet --files 3 --unit-size 100 --headers 2 --jobs 2
is "$(ls -A "$TMP/open")" "" "  not even made there"
PRESSMARK_CACHE="$TMP/sticky/cache" "$PM" run build --quiet --files 3 --unit-size 100 --headers 2 --jobs 2 --label sticky
is "$?" 0 "a cache below a sticky directory anyone can write (as /tmp) is taken"

# The generated tree is the same for the same seed, and another for another.
tree() { ls -d "$PRESSMARK_CACHE"/trees/v1-f3-u100-h2-s$1 2>/dev/null; }
first=$(tree 1)
ok "the tree is cached by its parameters" test -f "$first/.complete"
sum1=$(cd "$first" && cat Makefile main.c unit*.c include/*.h | md5sum)
PRESSMARK_CACHE="$TMP/cache2" "$PM" run build --quiet --files 3 --unit-size 100 --headers 2 --jobs 2 --label again
sum2=$(cd "$TMP/cache2/trees/v1-f3-u100-h2-s1" && cat Makefile main.c unit*.c include/*.h | md5sum)
is "$sum2" "$sum1" "the same seed generates the same tree, byte for byte"
"$PM" run build --quiet --files 3 --unit-size 100 --headers 2 --jobs 2 --seed 7 --label seeded
sum3=$(cd "$(tree 7)" && cat Makefile main.c unit*.c include/*.h | md5sum)
ok "another seed, another tree" test "$sum3" != "$sum1"

# --make-arg reaches make; --drop-caches (root) runs before each timed build.
dc=(); [ "$(id -u)" -eq 0 ] && dc=(--drop-caches)
mkdir -p "$TMP/own"
printf 'kernel: ; echo "$(MSG)" > got.txt; touch kernel\nclean: ; rm -f got.txt kernel\n' > "$TMP/own/Makefile"
"$PM" run build --quiet --tree "$TMP/own" --target kernel --make-arg 'MSG=hello pressmark' "${dc[@]}" --label args
is "$(q "select status from run where label = 'args'")" ok "a user tree with --target, --make-arg ${dc[*]}: ok"
is "$(cat "$TMP/own/got.txt")" "hello pressmark" "make got the argument, word for word"
like "$(q "select params from run where label = 'args'")" "--target kernel .*--make-arg 'MSG=hello pressmark'" "the make arguments are part of the stored configuration"

# A tree that does not compile: failed, with the compiler's words.
mkdir -p "$TMP/broken"
printf 'vmlinux: a.o\n\t$(CC) -o vmlinux a.o\nclean:\n\trm -f a.o vmlinux\n' > "$TMP/broken/Makefile"
printf 'int main(void) { return 0 }\n' > "$TMP/broken/a.c"
"$PM" run build --quiet --tree "$TMP/broken" --label broken
is "$?" 1 "a broken tree: exit 1"
like "$(q "select status || ': ' || reason from run where label = 'broken'")" "^failed: make exited with status 2: .*a.c:1:.*error: expected" \
     "failed, with the compiler's message"

# Under a cap of tens of MiB with swap: the compilers swap.
if [ $have_cap = yes ]; then
    "$PM" run build --quiet --files 4 --unit-size 600 --headers 2 --jobs 2 --mem-cap 48M --swap 256M --label capped
    is "$(q "select status from run where label = 'capped'")" ok "the build under a 48M cap with swap is ok"
    ge "$(metric capped time.majflt | cut -d. -f1)" 1 "major faults ($(metric capped time.majflt))"
    ge "$(metric capped swap.out_kb | cut -d. -f1)" 1 "swap-out above zero ($(metric capped swap.out_kb) KB)"
    is "$(metric small/j2 swap.out_kb | cut -d. -f1)" 0 "and none uncapped"
else
    for i in 1 2 3 4; do skip "needs root and a memory cgroup controller"; done
fi

# shmio, both modes.
segs() { tail -n +2 /proc/sysvipc/shm | wc -l; }
segs0=$(segs)
"$PM" run shmio --quiet --procs 6 --duration 2s --interval 200ms --label alternate
is "$(q "select status from run where label = 'alternate'")" ok "shmio alternate: ok"
w=$(metric alternate shmio.bytes_written); d=$(metric alternate shmio.bytes_on_disk)
ge "${w%.*}" 1 "bytes were written ($w)"
is "$w" "$d" "bytes written equal the files' sizes"
ge "$(metric alternate shmio.passes | cut -d. -f1)" 6 "every process made passes over the shared memory"
ok "MB/s is stored" test -n "$(metric alternate shmio.write_mb_per_s)"
ok "swap in and out min-max per tick are stored" test -n "$(metric alternate swap.out_kbps_max)"
show=$("$PM" show alternate)
like "$show" "shmio: .*bytes_written [0-9,]+ bytes, passes [0-9,]+, .*write_mb_per_s [0-9.,]+ MB/s" "show prints MB/s, bytes written and passes"
like "$show" "swap per tick \(vmstat's view\): in [0-9-]+ - [0-9]+ KB/s, out [0-9-]+ - [0-9]+ KB/s \(min - max\)" "and the wblg-disk report's swap in/out min-max"
"$PM" run shmio --quiet --mode split --io-procs 2 --mem-procs 3 --regions 2 --region-size 16M --duration 2s --read-pct 20 --label split
is "$(q "select status from run where label = 'split'")" ok "shmio split with reads: ok"
is "$(metric split shmio.bytes_written)" "$(metric split shmio.bytes_on_disk)" "split: bytes written equal the files' sizes"
ge "$(metric split shmio.bytes_read | cut -d. -f1)" 1 "split: --read-pct 20 read something back"
is "$(segs)" "$segs0" "no shared memory segment is left after success"
is "$(ls -d /tmp/pressmark-shmio.* 2>/dev/null | wc -l)" 0 "no file or directory is left after success"
"$PM" run shmio --quiet --procs 4 --duration 10s --timeout 1s --label timeout
is "$(q "select status from run where label = 'timeout'")" failed "a shmio run that times out is failed"
is "$(segs)" "$segs0" "no segment left after a failure"
is "$(ls -d /tmp/pressmark-shmio.* 2>/dev/null | wc -l)" 0 "no file left after a failure"
"$PM" run shmio --quiet --procs 4 --duration 20s --label interrupted &
pm=$!
ok "the workers are running" wait_for pgrep -f 'pressmark __shmio-worke[r]'
kill -INT $pm; wait $pm
is "$?" 130 "SIGINT ends shmio"
is "$(segs)" "$segs0" "no segment left after SIGINT"
is "$(ls -d /tmp/pressmark-shmio.* 2>/dev/null | wc -l)" 0 "no file left after SIGINT"
is "$(pgrep -fc 'pressmark __shmio-worke[r]' || true)" 0 "no worker left after SIGINT"

# --profile: the top kernel symbols of a run.
if command -v perf >/dev/null && [ "$(id -u)" -eq 0 ]; then
    "$PM" run shmio --quiet --procs 4 --duration 2s --profile --label profiled
    id=$(q "select id from run where label = 'profiled'")
    ge "$(q "select count(*) from profile where run_id = $id")" 1 "--profile stores kernel symbols"
    like "$("$PM" show profiled)" "kernel profile \(top [0-9]+; perf record -e cpu-clock -a: [0-9]+ samples" "show prints the profile table"
    is "$(pgrep -fc 'perf recor[d]' || true)" 0 "perf is gone after the run"
else
    for i in 1 2 3; do skip "needs perf and root"; done
fi
PATH=/nonexistent "$PM" run shmio --profile --duration 1s >/dev/null 2>"$TMP/err"
is "$?" 2 "--profile without perf: exit 2 before the run"
like "$(cat "$TMP/err")" "--profile: perf is not installed" "with one clear line"
done_testing
