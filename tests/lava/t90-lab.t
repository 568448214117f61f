#!/bin/bash
# make lava-check: a real LAVA lab on this machine (tools/lava-lab.sh up:
# lava-server with PostgreSQL, lava-dispatcher as its worker, one qemu
# device under TCG, an artifact store), pressmark's suites as its jobs,
# then the lab taken down. A two-kernel suite (Debian's 6.1 and 6.12
# cloud kernels) runs with backend = lava, killed by SIGKILL while its
# jobs run and resumed by waiting for the same jobs; LAVA holds each
# cell's measurements; compare shows both kernels. A cancelled job, a
# kernel that never boots, an upload that is missing and one that is
# hostile each fail their cells with the reason while nothing of theirs
# enters the database. An unknown device type is refused before anything
# is written.
. "$(dirname "$0")/../lib.sh"
required_by PM_LAVA_REQUIRED   # make lava-check: a missing need fails it
vm_lane
command -v lava-server > /dev/null || [ -x /usr/bin/apt-get ] || skip_all "no LAVA and no apt-get to install it"
LAB="$TMP/lab"
cleanup_add "'$ROOT/tools/lava-lab.sh' down '$LAB'"
setup "a LAVA lab comes up (tools/lava-lab.sh up)" "$ROOT/tools/lava-lab.sh" up "$LAB"
. "$LAB/lab.env"
export PRESSMARK_LAVA_POLL_S=3
cd "$TMP" || exit 1

r61=${k61#linux-image-}
r612=${k612#linux-image-}
e61=$(re "$k61"); e612=$(re "$k612"); s61=$(re "${r61%-cloud-amd64}"); s612=$(re "${r612%-cloud-amd64}")
lab="backend = lava
lava-url = $LAVA_URL
lava-token-file = $LAVA_TOKEN_FILE
device-type = $LAVA_DEVICE_TYPE
lava-artifacts = $ARTIFACTS_HOST_URL
lava-artifacts-guest = $ARTIFACTS_URL
lava-artifacts-token-file = $ARTIFACTS_TOKEN_FILE
vm-memory = 512M
vm-timeout = 8m
interval = 200ms
order-seed = 3"
suite() {  # suite FILE RUNS KERNELS [GLOBAL LINES, which replace the lab's of the same key]
    local l base=""
    while IFS= read -r l; do
        grep -q "^${l%% =*} =" <<< "${4:-}" || base+="$l"$'\n'
    done <<< "$lab"
    printf '[global]\n%sruns = %s\nkernel = %s\n%s\n\n%s\n' "$base" "$2" "$3" "${4:-}" "$KERNEL_CHAT_CELL" > "$1"
}
rest() {  # rest PATH: GET a LAVA API path with the lab's token
    curl -sf -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" "${LAVA_URL}api/v0.2/$1"
}
jobs_of() {  # jobs_of SUITE_NAME: its LAVA job ids, by kernel group
    q "select j.job_id from lava_job j join suite s on s.id = j.suite_id where s.name = '$1' order by j.grp, j.attempt"
}
finished() {  # finished JOB: wait (at most 15 min) until LAVA says it is finished
    local i
    for ((i = 0; i < 300; i++)); do
        [ "$(rest "jobs/$1/" | python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])')" = Finished ] && return 0
        sleep 3
    done
    return 1
}

# Bad input, judged by the lab before anything is written.
suite nosuch.ini 1 "$k612" "device-type = nosuch-board"
"$PM" suite run nosuch.ini > out 2> err
is "$?:$(wc -l < err)" "2:1" "an unknown device type: exit 2, one line"
like "$(cat err)" "device-type = nosuch-board: the lab at ${LAVA_URL//./\\.} has no device of that type" "  naming it and the lab"
ok "  nothing written" test ! -e "$PRESSMARK_DB"

# The two kernels as two jobs, killed while they run and resumed.
suite two.ini 2 "$k61, $k612" "name = lava-two"
"$PM" suite run two.ini > run1.out 2>&1 &
pid=$!
for ((i = 0; i < 600; i++)); do
    [ "$(grep -c 'LAVA job [0-9]* submitted' run1.out)" -ge 2 ] && break
    sleep 1
done
kill -KILL "$pid"; wait "$pid" 2> /dev/null
is "$(grep -c 'LAVA job [0-9]* submitted' run1.out)" 2 "suite run submits a job per kernel (then SIGKILL)"
read -r -d '' j61 j612 < <(jobs_of lava-two; printf '\0')
timeout 40m "$PM" suite run two.ini > run2.out 2>&1
rc=$?
is "$rc" 0 "suite run again: exit 0"
[ "$rc" -eq 0 ] || sed 's/^/#   /' run2.out | tail -20
is "$(grep -c 'submitted' run2.out)" 0 "  it submitted nothing again: it waited for the same jobs"
is "$(jobs_of lava-two | tr '\n' ' ')" "$j61 $j612 " "  one job per kernel in the database, the same two"
is "$(q "select count(*) from run where status = 'ok' and label like 'linux-image-%'")" 4 "  4 runs came back, ok"
is "$(q "select count(*) from run r join machine m on m.id = r.machine_id where m.kernel = substr(r.label, 13)")" 4 \
    "  each ran on its own kernel (the guest machine's release)"
is "$(q "select count(*) from run_meta where key = 'emulated' and value = 'yes'")" 4 "  each marked emulated (TCG)"
is "$(q "select group_concat(distinct value) from run_meta where key = 'lava.device_type'")" "$LAVA_DEVICE_TYPE" \
    "  each carries the lab's device type"
for j in "$j61" "$j612"; do
    is "$(rest "jobs/$j/" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["state"], d["health"])')" \
        "Finished Complete" "LAVA: job $j finished complete"
    cases=$(rest "jobs/$j/tests/?limit=200" | python3 -c '
import json, sys
for t in json.load(sys.stdin)["results"]:
    if t["name"][:1] == "c" and "-" in t["name"]: print(t["name"], t["result"], t["measurement"], t["unit"])')
    like "$cases" "^c[01]-linux-image-[^ ]+ pass [0-9.]+ msg/s" "  its cell's headline is a test case with a measurement in msg/s"
    like "$cases" "c[01]-linux-image-[^ ]+\\.vmstat\\.pgmajfault pass [0-9.]+ " "  and its key metrics"
done
# PM_LAVA_SCREENSHOT=FILE: LAVA's results page of the first job, as a browser shows it.
if [ -n "${PM_LAVA_SCREENSHOT:-}" ] && command -v chromium > /dev/null; then
    chromium --headless --no-sandbox --disable-gpu --window-size=1400,900 --screenshot="$PM_LAVA_SCREENSHOT" \
        "${LAVA_URL}results/$j61/0_pressmark" > /dev/null 2>&1
fi
cmp=$("$PM" compare --suite --allow-emulated 2>&1)
like "$cmp" "caveat: the runs of $e61, $e612 ran under QEMU's TCG emulation" "compare --suite --allow-emulated: both kernels, with the caveat"
like "$cmp" "^$s612 +[0-9.,]+ ±[0-9.,]+ +[-+][0-9.]+%" "  a row for 6.12 against the baseline kernel, as the VM backend's"
like "$cmp" "short names: $s61 = $e61, $s612 = $e612" "  the package names in the legend"

# lava job alone: the definitions written, valid to the lab (strict), nothing submitted.
suite jobdef.ini 1 "$k612" "name = lava-jobdef"
mkdir -m 700 defs
"$PM" lava job jobdef.ini --output "$TMP/defs" > jd.out 2>&1
is "$?" 0 "lava job: exit 0"
def="$TMP/defs/lava-jobdef-kernel0.yaml"
like "$(cat jd.out)" "job definition ${def//./\\.}" "  it names the definition it wrote"
valid=$(python3 -c 'import json, sys; print(json.dumps({"definition": open(sys.argv[1]).read(), "strict": True}))' "$def" |
    curl -sf -H 'Content-Type: application/json' --data-binary @- "${LAVA_URL}api/v0.2/jobs/validate/")
is "$valid" '{"message":"Job valid."}' "  LAVA's own validator takes it (strict)"
is "$(jobs_of lava-jobdef):$(q "select j.state from lava_job j join suite s on s.id = j.suite_id where s.name = 'lava-jobdef'")" \
    ":made" "  made, not submitted"

# A job LAVA cancels: its cells fail with LAVA's word for it.
suite cancel.ini 1 "$k612" "name = lava-cancel"
"$PM" lava submit cancel.ini > sub.out 2>&1
is "$?" 0 "lava submit: exit 0"
jc=$(jobs_of lava-cancel)
like "$(cat sub.out)" "LAVA job $jc submitted: ${LAVA_URL//./\\.}scheduler/job/$jc" "  it names the job and its page"
like "$(rest "jobs/$jc/cancel/")" "cancel signal sent" "LAVA takes the cancel"
"$PM" lava collect cancel.ini "$jc" > col.out 2>&1
is "$?" 1 "lava collect of a cancelled job: exit 1"
like "$(q "select reason from run where status = 'failed' and id = (select max(id) from run)")" \
    "LAVA job $jc was canceled" "  its cell's run failed with that reason"

# A kernel that never reaches its shell (no init): LAVA ends the job
# incomplete, at the boot's timeout or at the kernel's panic (which 6.12
# under TCG met first, here), and says so.
suite noboot.ini 1 "$k612" "name = lava-noboot
vm-append = init=/nonexistent
vm-timeout = 2m"
"$PM" suite run noboot.ini > nb.out 2>&1
is "$?" 1 "a kernel that never boots: exit 1"
reason=$(q "select reason from run where id = (select max(id) from run)")
like "$reason" "LAVA job [0-9]+ is incomplete: Job error: .*(login-action timed out|Kernel panic - not syncing)" \
    "  its cell failed with LAVA's reason (its job test case's error_msg)"
ok "  not the fallback" test "${reason#*LAVA gave no reason}" = "$reason"

# Uploads that are missing or hostile: the job completes, what it left is
# checked as a VM's results are, and nothing of it is taken. (The store
# takes no second PUT of a name: the test changes its files directly.)
echo decoy > "$TMP/decoy"; ln -s "$TMP/decoy" "$TMP/evil-link"
tamper() {  # tamper KIND FILE: what the store holds of the job, made hostile
    case $1 in
        missing) rm -f "$2" ;;
        link) (cd "$TMP" && tar -cf "$2" --transform='s,^evil-link$,results.db,' evil-link) ;;
        traversal) (cd "$TMP" && tar -cf "$2" --transform='s,^decoy$,../../escaped,' decoy) ;;
        foreign)   # the job's own runs, relabelled as a cell no job planned
            rm -rf "$TMP/unpack" && mkdir "$TMP/unpack" && tar -xf "$2" -C "$TMP/unpack" &&
                sqlite3 "$TMP/unpack/results.db" "update run set label = 'foreign cell'" &&
                tar -cf "$2" -C "$TMP/unpack" . ;;
    esac
}
declare -A want=(
    [missing]="its guest put no results at ${ARTIFACTS_HOST_URL//./\\.}/pressmark/results-"
    [link]="member 'results\\.db' is a symbolic link \\(accepted: regular files\\)"
    [traversal]="member '\\.\\./\\.\\./escaped' is not one the guest writes"
    [foreign]="ended with runs left"
)
for kind in missing link traversal foreign; do
    suite "$kind.ini" 1 "$k612" "name = lava-$kind"
    "$PM" lava submit "$kind.ini" > /dev/null 2>&1
    j=$(jobs_of "lava-$kind")
    ok "$kind upload: job $j finished" finished "$j"
    file="$ARTIFACTS_DIR/$(q "select substr(results_url, length('$ARTIFACTS_HOST_URL') + 2) from lava_job where job_id = $j")"
    ok "  its guest put its results in the store" test -s "$file"
    ok "  made hostile ($kind)" tamper "$kind" "$file"
    ok_before=$(q "select count(*) from run where status = 'ok'")
    "$PM" lava collect "$kind.ini" > "$kind.out" 2>&1
    is "$?" 1 "  lava collect: exit 1"
    like "$(q "select reason from run where id = (select max(id) from run)")" "^kernel $e612: LAVA job $j .*${want[$kind]}" \
        "  its cell failed with why"
    is "$(q "select count(*) from run where status = 'ok'"):$(q "select count(*) from run where label = 'foreign cell'")" \
        "$ok_before:0" "  no run of it was taken"
done
like "$(cat "$(dirname "$PRESSMARK_DB")"/results.db.boots/suite*-kernel0-lava*/host.log 2>/dev/null)" \
    "refused run [0-9a-f-]+, label 'foreign cell': " "the foreign run is named in its job's host.log"
is "$(cat "$TMP/decoy")" decoy "the decoy behind the hostile link is untouched"
is "$(find "$TMP" -name escaped)" "" "  and nothing escaped the job's directory"
done_testing
