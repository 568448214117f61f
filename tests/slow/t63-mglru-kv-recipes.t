#!/bin/bash
# MGLRU's Redis and memcached recipes, whole (make test-slow): each quick
# suite boots Debian's 6.12 cloud kernel (the host's may lack MGLRU) and
# runs its server under a 64M cap with swap, lru-gen off and on, three runs
# a cell. Asserted: every run ok with the figures its own counts fix
# (keys loaded, GETs that hit), the kernel's lru_gen as each cell asked,
# every run marked emulated under TCG, compare --suite refusing them
# without --allow-emulated and showing lru-gen on against off with it,
# --long and the HTML report carrying the server's own figures; and the
# machine as it was.
. "$(dirname "$0")/../lib.sh"
required_by PM_SLOW_REQUIRED   # make test-slow: a missing need fails it
vm_lane
before=$(machine_state)

keys=$(( 96 * 1048576 / 4000 ))   # the data set over the value size
per_label() { # per_label SQL-EXPR WORKLOAD: "label:value,value,..." per label
    q "select group_concat(x, ' ') from (select label || ':' || group_concat(v, ',') as x from
       (select r.label, $1 as v from run r where r.workload = '$2' order by r.label, r.id) group by label order by label)"
}
meta_of() { # meta_of KEY WORKLOAD: the key's values per label
    per_label "(select value from run_meta m where m.run_id = r.id and m.key = '$1')" "$2"
}
metric_of() { # metric_of NAME WORKLOAD: the metric's integer values per label
    per_label "(select cast(value as int) from metric m where m.run_id = r.id and m.name = '$1')" "$2"
}

recipe() { # recipe WORKLOAD SUITE-ID HEADLINE KEYS-METRIC HITS-METRIC
    local w=$1 id=$2 head=$3 keys_m=$4 hits_m=$5
    "$PM" suite run "$ROOT/suites/mglru-$w-quick.ini" >"$TMP/$w.out" 2>"$TMP/$w.err"
    is "$?" 0 "suites/mglru-$w-quick.ini runs in a 6.12 guest"
    is "$(per_label status "$w")" "$w lru-gen off:ok,ok,ok $w lru-gen on:ok,ok,ok" "  each cell's three runs ok"
    is "$(meta_of mglru.enabled "$w")" \
       "$w lru-gen off:0x0000,0x0000,0x0000 $w lru-gen on:0x0007,0x0007,0x0007" \
       "  the kernel's lru_gen is what each cell asked"
    is "$(q "select count(distinct m.kernel) || ' ' || min(m.kernel) from run r join machine m on m.id = r.machine_id
             where r.workload = '$w'")" "1 $r612" \
       "  every run on the 6.12 guest's kernel"
    # Under TCG (no KVM here) every run is marked emulated and compare
    # refuses it until told; with KVM, neither.
    accel=$(q "select group_concat(distinct m.value) from run_meta m join run r on r.id = m.run_id
               where r.workload = '$w' and m.key = 'vm.accel'")
    like "$accel" '^(tcg|kvm)$' "  every run's boot names one accelerator ($accel)"
    em=$([ "$accel" = tcg ] && echo yes || echo no)
    is "$(meta_of emulated "$w")" "$w lru-gen off:$em,$em,$em $w lru-gen on:$em,$em,$em" "  every run marked emulated: $em"
    is "$(q "select count(*) from run r where workload = '$w' and not exists
             (select 1 from metric m where m.run_id = r.id and m.name = '$head' and m.value > 0)")" 0 \
       "  every run has its headline, $head, above 0"
    is "$(metric_of "$keys_m" "$w")" "$w lru-gen off:$keys,$keys,$keys $w lru-gen on:$keys,$keys,$keys" \
       "  the server held every key loaded ($keys_m)"
    is "$(metric_of "$hits_m" "$w")" "$w lru-gen off:20000,20000,20000 $w lru-gen on:20000,20000,20000" \
       "  each of the 20,000 GETs hit ($hits_m)"
    is "$(q "select count(*) from run r where r.workload = '$w' and not exists
             (select 1 from metric m where m.run_id = r.id and m.name = 'swap.out_kb' and m.value >= 16384)")" 0 \
       "  every run swapped out 16 MiB at least (96M of data under a 64M cap)"

    if [ "$accel" = tcg ]; then
        "$PM" compare --suite "$id" >"$TMP/$w.cmp" 2>"$TMP/$w.cmp.err"
        is "$?" 2 "compare --suite $id refuses emulated runs"
        like "$(cat "$TMP/$w.cmp.err")" "ran under QEMU's TCG emulation .*--allow-emulated" "  and says why and what accepts them"
        cmp=$("$PM" compare --suite "$id" --allow-emulated 2>&1)
        is "$?" 0 "compare --suite $id --allow-emulated"
        like "$cmp" "^caveat: the runs of $w lru-gen off, $w lru-gen on ran under QEMU's TCG emulation" "  with the caveat first"
    else
        cmp=$("$PM" compare --suite "$id" 2>&1)
        is "$?" 0 "compare --suite $id judges KVM runs as they are"
        unlike "$cmp" "^caveat" "  without a caveat"
        skip "TCG's refusal: these runs booted with KVM"
        skip "TCG's caveat: these runs booted with KVM"
    fi
    like "$cmp" "^$w lru-gen off +[0-9,.]+ ±[0-9,.]+ +base " "  lru-gen off is the baseline"
    like "$cmp" "^$w lru-gen on +[0-9,.]+ ±[0-9,.]+ +[-+][0-9.]+% p[=<][0-9.]+( \*)? " "  lru-gen on against it, its change and p"
    long=$("$PM" compare --suite "$id" --allow-emulated --long 2>&1)
    like "$long" "^$keys_m \(count, neither is better\) +n +3 +3$" "  --long has the server's $keys_m"
    like "$(grep -A1 "^$hits_m " <<<"$long")" "mean +20,000 +20,000$" "  and $hits_m, each cell's mean 20,000"

    "$PM" report --suite "$id" --allow-emulated --out "$TMP/$w-report" >/dev/null 2>"$TMP/$w.rep.err"
    is "$?" 0 "report --suite $id"
    text=$(python3 -c 'import html, re, sys; print(html.unescape(re.sub("<[^>]+>", " ", open(sys.argv[1]).read())))' \
        "$TMP/$w-report/report.html")
    like "$text" "$keys_m \(count, neither is better\)" "  its every-statistic table has the server's figures"
    is "$(grep -cE "^$w: .*${hits_m#"$w".} 20,000(, |$)" <<<"$text")" 6 "  each run's details have them, the hits exact"
}

recipe redis 1 redis_benchmark.get.requests_per_s redis.keys redis.keyspace_hits
recipe memcached 2 memcached.ops_per_s memcached.curr_items memcached.get_hits
is "$(machine_state)" "$before" "the machine is as it was"
done_testing
