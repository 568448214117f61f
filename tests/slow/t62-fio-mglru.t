#!/bin/bash
# MGLRU's fio recipe for real (make test-slow): suites/mglru-fio-quick.ini
# whole, in Debian's newest 6.12 cloud kernel in a VM, where MGLRU is on
# by default and brd is a module: each run loads brd itself, makes an
# ext4 on /dev/ram0, mounts it in its scratch directory, lays out fio's
# file there and reads it back at random under a 128M cap, then unmounts
# the ramdisk and unloads brd. The report shows fio's headline for each
# cell, each run's mglru.enabled is what its lru-gen cell asked for, runs
# from a TCG guest are marked emulated, and compare --suite sets lru-gen
# on against off; the guest's kernel log shows a brd loaded, mounted,
# unmounted and unloaded for every run, and the host has nothing left.
. "$(dirname "$0")/../lib.sh"
required_by PM_SLOW_REQUIRED   # make test-slow: a missing need fails it
vm_lane
before=$(machine_state)

start=$(date +%s)
"$PM" suite run "$ROOT/suites/mglru-fio-quick.ini" >"$TMP/suite.out" 2>"$TMP/suite.err"
rc=$?
echo "# the quick suite took $(($(date +%s) - start)) s"
is "$rc" 0 "suites/mglru-fio-quick.ini runs in Debian's 6.12 guest"
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$TMP/suite.err" | tail -20
is "$(q "select group_concat(x, ' ') from (select label || ':' || group_concat(status, ',') as x from run
          group by label order by label)")" "fio lru-gen off:ok,ok,ok fio lru-gen on:ok,ok,ok" "  each cell's three runs ok"
like "$(q "select distinct value from run_meta where key = 'kernel.release'")" '^6\.12\.[0-9]+.*-cloud-amd64$' \
     "  in a 6.12 cloud kernel"

# Every run's file was on a ramdisk of its own, and the cap was reached.
is "$(q "select count(*) from run r where exists (select 1 from run_meta m where m.run_id = r.id and
          m.key = 'fio.target_fs' and m.value like 'ext4 on a brd ramdisk of 448.0 MiB made for the run (/dev/ram0, %')")" 6 \
   "every run's file system is ext4 on a brd ramdisk of 448M made for it (fio.target_fs)"
is "$(q "select count(*) from run r where (select value from run_meta where run_id = r.id and key = 'fio.layout_job')
          like '%filename=/var/tmp/pressmark-fio.%/ramdisk/pm-fio.data%'")" 6 "  fio's file on its mount point in the scratch directory"
# (the kernel's own counts: memory.events' max, memory.stat's refaults;
# a sampled peak of memory.current may fall a few pages short of the cap)
is "$(q "select count(*) from metric where name = 'memcg.limit_hits' and value >= 1")" 6 \
   "  the 128M cap reached in every run (the file is 2.75 times it)"
is "$(q "select count(*) from metric where name = 'memcg.refaults' and value >= 1")" 6 \
   "  and pages of the file it evicted read back in every run"

# The headline per cell: fio's read IOPS in every run, and the report's
# summary has each cell's mean of them.
is "$(q "select count(*) from metric where name = 'fio.read_iops' and value >= 1")" 6 "every run has fio's read IOPS"
"$PM" report --suite --allow-emulated --out "$TMP/report" >/dev/null 2>"$TMP/report.err"
is "$?" 0 "report --suite --allow-emulated"
for cell in off on; do
    mean=$(q "select printf('%,d', cast(round(avg(m.value)) as int)) from metric m join run r on r.id = m.run_id
              where r.label = 'fio lru-gen $cell' and m.name = 'fio.read_iops'")
    is "$(python3 - "$TMP/report/report.html" "fio lru-gen $cell" <<'PY'
import html, re, sys
page = open(sys.argv[1]).read()
summary = page[page.index('id="summary"'):page.index('</table>', page.index('id="summary"'))]
for row in re.findall(r'<tr>(.*?)</tr>', summary, re.S):
    cells = [html.unescape(re.sub(r'<[^>]+>', '', c)).strip() for c in re.findall(r'<td[^>]*>(.*?)</td>', row, re.S)]
    if cells and cells[0] == sys.argv[2]:
        print(cells[1])
PY
)" "$mean ops/s" "  the report's summary: fio lru-gen $cell's mean read IOPS ($mean)"
done

# mglru.enabled is what the cell asked for: 0x0000 off, a mask with the
# multi-gen LRU's bit (0x0001) on.
is "$(q "select count(*) from run r join run_meta a on a.run_id = r.id and a.key = 'axis.lru-gen'
          join run_meta m on m.run_id = r.id and m.key = 'mglru.enabled'
          where (a.value = 'off' and m.value = '0x0000') or (a.value = 'on' and m.value glob '0x000[13579bdf]')")" 6 \
   "each run's mglru.enabled matches its lru-gen cell (off 0x0000, on a mask with 0x0001)"
is "$(q "select group_concat(distinct r.label || '=' || m.value) from run r join run_meta m on m.run_id = r.id
          and m.key = 'mglru.enabled' where r.label like '%off'")" "fio lru-gen off=0x0000" "  off is off in all three"

# Emulated: a guest under TCG says so in its runs (and compare needs leave).
if grep -q 'TCG emulation' "$TMP/suite.err"; then want=yes; else want=no; fi
is "$(q "select group_concat(distinct value) from run_meta where key = 'emulated'")" "$want" \
   "every run is marked emulated = $want, as its boot was"
"$PM" compare --suite >"$TMP/cmp.out" 2>"$TMP/cmp.err"
rc=$?
if [ "$want" = yes ]; then
    is "$rc" 2 "compare --suite refuses emulated timings without --allow-emulated"
    like "$(cat "$TMP/cmp.err")" "TCG emulation.*--allow-emulated" "  saying why and what is accepted"
else
    is "$rc" 0 "compare --suite"; skip "(not emulated)"
fi
cmp=$("$PM" compare --suite --allow-emulated 2>"$TMP/cmp.err")
is "$?" 0 "compare --suite --allow-emulated"
like "$cmp" "^fio lru-gen off +[0-9,]+ ±[0-9,.]+ +base" "  lru-gen off is the baseline"
like "$cmp" "^fio lru-gen on +[0-9,]+ ±[0-9,.]+ +[-+][0-9.]+% p=[0-9.]+" "  lru-gen on against it, with its change and p"
like "$cmp" "lru-gen on and fio lru-gen off" "  and the ratio sentence"
echo "$cmp" | sed -n '/^label/,/power$/p' | sed 's/^/# /'

# The guest's kernel log: each of the 6 runs loaded brd, mounted its ext4,
# unmounted it and unloaded brd (a brd left loaded would fail the next
# run's modprobe --first-time; the log shows the last run's too).
dmesg=$(cat "$PRESSMARK_DB".boots/*/dmesg.txt 2>/dev/null)
is "$(grep -c 'brd: module loaded' <<<"$dmesg")" 6 "the guest loaded brd once for each run"
is "$(grep -c 'brd: module unloaded' <<<"$dmesg")" 6 "  and unloaded it after each"
is "$(grep -c 'EXT4-fs (ram0): mounted filesystem' <<<"$dmesg")" 6 "  its ext4 mounted once a run"
is "$(grep -c 'EXT4-fs (ram0): unmounting filesystem' <<<"$dmesg")" 6 "  and unmounted each time"
is "$(machine_state)" "$before" "the machine is as it was (no VM, scratch or image build left)"
done_testing
