#!/bin/bash
# backend = lava's bad input, refused before anything is made, published,
# submitted or written: one line naming the file, key or option, the
# value and what is accepted, exit 2, no database. (A real LAVA lab on
# this machine, its jobs, their results and their hostile uploads are
# make lava-check's: tests/lava/.) A URL with a user or password anywhere
# in the suite (it is published with each job) is refused alike. A job
# stored in the database is data: one whose definition, results URL or
# lab is not what the suite file makes is refused in one line before the
# stand-in lab (tests/lava_fake.py) gets anything of it, and nothing is
# fetched.
. "$(dirname "$0")/lib.sh"
# Beside the tests that change the machine (the free lane): a state
# directory of its own, so its commands never undo, and report, what a
# pressmark those tests killed left (t21 asserts it sees that itself).
export PRESSMARK_STATE_DIR="$TMP/state"
mkdir -m 700 "$PRESSMARK_STATE_DIR"
cd "$TMP" || exit 1

k612=linux-image-6.12.117+deb12-cloud-amd64
printf 'secret-token-1\n' > token
chmod 600 token

suite() {  # suite GLOBAL_LINES: a two-kernel suite with backend = lava
    printf '[global]\nbackend = lava\nruns = 1\n%s\n[a]\nworkload = swapout\nkernel = running, %s\n' "$1" "$k612" > s.ini
}
refused() {  # refused DESCRIPTION REGEX COMMAND...: exit 2, one line, nothing written
    local desc=$1 re=$2; shift 2
    rm -f "$PRESSMARK_DB"
    find "$TMP" -path "$PRESSMARK_STATE_DIR" -prune -o ! -name out ! -name err ! -name before -print | sort > before
    "$@" > out 2> err
    local rc=$?
    is "$rc:$(wc -l < err)" "2:1" "$desc: exit 2, one line"
    like "$(cat err)" "$re" "  it names what and what is accepted"
    is "$(find "$TMP" -path "$PRESSMARK_STATE_DIR" -prune -o ! -name out ! -name err ! -name before -print | sort |
        diff before - | grep '^[<>]')" "" \
        "  nothing written (no database, no boots directory, no job definition)"
}

# stored_jobs: a job made by pressmark against the stand-in lab, then the
# database's row altered with sqlite3; each is refused before the lab gets
# any of it. A job's image is made as root (an overlay mount under $TMP),
# of a stand-in bzImage on a root debootstrap leaves empty.
stored_jobs() {
    if [ "$(id -u)" -ne 0 ]; then skip "a stored job's checks need a job made, which needs root (its image)"; return; fi
    local t
    for t in qemu-img mkfs.ext4 sqlite3; do
        command -v "$t" > /dev/null || { skip "a stored job's checks need $t to make one"; return; }
    done
    python3 -c 'import yaml' 2> /dev/null || { skip "tests/lava_fake.py needs PyYAML (python3-yaml)"; return; }
    # An image is made as the VM tests make theirs (an overlay mount, the
    # image cache): never while t80 or t82 compare what VMs leave (their
    # lock, tests/lib.sh's vm_lane; held to the end of this file).
    exec 6<"$ROOT/kernels" && flock -x 6
    mkdir -p bin lab defs
    # No network: a root file system with the directories pressmark fills.
    printf '#!/bin/sh\nmkdir -p "$4/boot" "$4/tmp" "$4/etc/initramfs-tools/conf.d"\n' > bin/debootstrap
    chmod 755 bin/debootstrap
    python3 -c 'import sys
h = bytearray(8192); h[0x1fe:0x200] = b"\x55\xaa"; h[0x202:0x206] = b"HdrS"; h[0x20e:0x210] = (0x200).to_bytes(2, "little")
v = b"6.99.0-t84 (t84@pressmark) #1 SMP\0"; h[0x400:0x400 + len(v)] = v; open(sys.argv[1], "wb").write(h)' bzImage
    python3 "$ROOT/tests/lava_fake.py" "$TMP/lab" &
    cleanup_add "stop_bg $!"
    wait_for test -s lab/port || { skip "tests/lava_fake.py did not start"; return; }
    local port; port=$(cat lab/port)
    local store="http://127.0.0.1:$port/store"
    printf 'goodtoken\n' > good-token; chmod 600 good-token
    printf '[global]\nbackend = lava\nruns = 1\nlava-url = http://127.0.0.1:%s/lava/\ndevice-type = qemu\nlava-artifacts = %s\nlava-token-file = %s\n[a]\nworkload = swapout\nkernel = %s\n' \
        "$port" "$store" "$TMP/good-token" "$TMP/bzImage" > j.ini
    export PRESSMARK_CACHE="$TMP/cache"
    local path=$TMP/bin:$PATH
    rm -f "$PRESSMARK_DB"
    setup "lava job makes a job against the stand-in lab" env PATH="$path" "$PM" lava job j.ini
    cp "$PRESSMARK_DB" good.db
    is "$("$PM" suite status | grep '^kernels:')" \
        "kernels: the running one's cells here, the others' as a LAVA job per kernel on device type qemu at http://127.0.0.1:$port/lava/ (backend lava)" \
        "suite status of it says where its kernel's cells run"
    local row="suite 1, kernel 0, attempt 1"
    uuid=$(q "select uuid from suite")
    # stored DESCRIPTION SQL REGEX COMMAND...: the row altered by SQL, then
    # the command refused in one line; the lab asked only what opening it
    # asks (its version and device type), never sent the job, never asked
    # for results; the row as it was; nothing written.
    stored() {
        local desc=$1 sql=$2 re=$3; shift 3
        cp good.db "$PRESSMARK_DB"
        sqlite3 "$PRESSMARK_DB" "$sql"
        : > lab/requests.log
        ls -A "$PRESSMARK_DB.boots" defs > boots.before
        # (bounded: a job sent by mistake would be waited for)
        timeout -k 5 60 env PATH="$path" "$@" > out 2> err
        local rc=$?
        # (after the line that says which suite it continues)
        is "$rc:$(wc -l < err):$(head -1 err)" "2:2:pressmark: continuing suite 1 (j)" "$desc: exit 2, one line"
        like "$(tail -1 err)" "$re" "  it names the row, the field and what was expected"
        is "$(grep -cv '^GET /lava/api/v0.2/\(system/version/\|devicetypes/qemu/\|devices/?device_type=qemu&\)' lab/requests.log)" 0 \
            "  the lab got no request but opening it: nothing sent, nothing fetched"
        local cols="select lab, results_url, state, job_id, definition from lava_job"
        cp good.db cmp.db && sqlite3 cmp.db "$sql"
        is "$(q "$cols")" "$(sqlite3 -batch cmp.db "$cols")" "  the row as it was"
        is "$(ls -A "$PRESSMARK_DB.boots" defs | diff boots.before -)" "" "  nothing written (no definition, no boot directory)"
    }
    local def="lava_job of $row: its definition is not the one j\\.ini makes now"
    stored "lava submit of a stored definition with its own visibility" \
        "update lava_job set definition = replace(definition, 'visibility: \"public\"', 'visibility: \"personal\"')" \
        "^pressmark suite run: .*results\\.db: $def \\(line 4: 'visibility: \"personal\"' where it makes 'visibility: \"public\"'\\); refused, nothing sent" \
        "$PM" lava submit j.ini
    stored "suite run of a stored definition with an action of its own" \
        "update lava_job set definition = definition || '- test: {definitions: [{from: inline, name: x}]}' || char(10)" \
        "$def \\(line [0-9]+: '- test: \\{definitions" "$PM" suite run j.ini
    stored "lava job --output of an altered definition (it would be written as pressmark's)" \
        "update lava_job set definition = replace(definition, '$store', 'http://10.0.0.1/internal')" \
        "$def" "$PM" lava job j.ini --output "$TMP/defs"
    local want="is not ${store//./\\.}/pressmark/results-$uuid-kernel0-<24 lowercase hex digits>\\.tar \\(under j\\.ini's lava-artifacts\\); refused, nothing sent or fetched"
    local u
    for u in "$store/pressmark/../x/results-$uuid-kernel0-0123456789abcdef01234567.tar" \
             "http://lab@evil/store/pressmark/results-$uuid-kernel0-0123456789abcdef01234567.tar" \
             "$store/pressmark/results-$uuid-kernel1-0123456789abcdef01234567.tar" "http://10.0.0.1/internal"; do
        stored "lava submit of a job whose results_url is $u" "update lava_job set results_url = '$u'" \
            "lava_job of $row: its results_url '${u//./\\.}' $want" "$PM" lava submit j.ini
    done
    # A job LAVA says completed (the stand-in's 51), its results planted in
    # the store under another name: collect fetches nothing.
    printf 'planted' > lab/store/planted.tar
    stored "lava collect of a submitted job whose results_url is another artifact" \
        "update lava_job set state = 'submitted', job_id = 51, results_url = '$store/planted.tar'" \
        "its results_url '${store//./\\.}/planted\\.tar' $want" "$PM" lava collect j.ini
    stored "lava submit of a job stored for another lab" "update lava_job set lab = 'http://evil.example.org/lava/'" \
        "lava_job of $row: its lab 'http://evil\\.example\\.org/lava/' is not j\\.ini's lava-url http://127\\.0\\.0\\.1:$port/lava/; refused, nothing sent" \
        "$PM" lava submit j.ini
    stored "lava submit of a job in a state pressmark never stores" "update lava_job set state = 'submitted'" \
        "its state 'submitted' with job_id 0 is not a job waiting" "$PM" lava submit j.ini
    stored "lava submit of a job whose lab is longer than any pressmark stores" \
        "update lava_job set lab = lab || printf('%0600d', 0)" \
        "results\\.db: a stored LAVA job's lab is longer than 511 characters \\(accepted: one pressmark made\\)$" \
        "$PM" lava submit j.ini

    # The job as pressmark made it: written, then sent, as made again now.
    cp good.db "$PRESSMARK_DB"
    : > lab/requests.log
    env PATH="$path" "$PM" lava job j.ini --output "$TMP/defs" > out 2>&1
    is "$?" 0 "lava job --output of the job as made: exit 0"
    is "$(cat defs/j-kernel0.yaml)" "$(q "select definition from lava_job")" "  the definition made again, equal to the stored one"
    env PATH="$path" "$PM" lava submit j.ini > out 2>&1
    is "$?" 0 "lava submit of it: exit 0"
    is "$(grep -c '^POST /lava/api/v0.2/jobs/ Token goodtoken$' lab/requests.log):$(q "select state || ' ' || job_id from lava_job")" \
        "1:submitted 42" "  sent once, with the token; stored as LAVA's job 42"
    is "$(cat lab/submitted.yaml)" "$(cat defs/j-kernel0.yaml)" "  what the lab got is the definition made from the suite file"
}

# A port nobody listens on.
dead_port; dead=$DEAD_PORT
lab="lava-url = http://127.0.0.1:$dead/
device-type = qemu
lava-artifacts = http://127.0.0.1:$dead/store
lava-token-file = $TMP/token"

# suite plan names LAVA and where each kernel's cells run (no lab asked).
suite "$lab"
"$PM" suite plan s.ini > out 2> err
is "$?:$(cat err)" "0:" "suite plan of a LAVA suite: exit 0, nothing on standard error"
is "$(sed -n '/^kernels/,/^$/p' out)" "$(printf 'kernels (backend lava):\n  %-40s %s\n  %-40s %s\n' \
    running "the running kernel: runs here: cells 0" \
    "$k612" "runs as a LAVA job on device type qemu at http://127.0.0.1:$dead/ (1.0 GiB, 2 CPUs): cells 1")" \
    "  its kernels: backend lava, the other kernel a LAVA job on the suite's device type at its lab"
unlike "$(cat out)" "backend host|backend vm|runs after a boot|boots in a VM" "  not another backend's words"

# A password in lava-url: suite plan refuses it rather than print it.
suite "${lab/lava-url = http:\/\/127.0.0.1:$dead\//lava-url = https://me:s3cret@lab.example/}"
refused "suite plan of a lava-url with user:password" \
    "^pressmark suite plan: s\\.ini: lava-url = https://lab\\.example/ \\(with a user:password\\): accepted:" \
    "$PM" suite plan s.ini
unlike "$(cat out err)" "s3cret" "  the password is printed nowhere"

suite "device-type = qemu
lava-artifacts = http://127.0.0.1:$dead/store"
refused "no lava-url" "s\\.ini: backend = lava needs lava-url in \\[global\\] \\(the LAVA server" "$PM" suite run s.ini
suite "lava-url = http://127.0.0.1:$dead/
device-type = qemu
lava-artifacts = http://127.0.0.1:$dead/store"
refused "no token file to submit with" "needs lava-token-file in \\[global\\] to submit jobs" "$PM" lava submit s.ini

suite "$lab"
chmod 644 token
refused "a token file others can read" \
    "^pressmark suite run: s\\.ini: lava-token-file = $TMP/token: readable by others \\(mode 0644\\); accepted: .*chmod 600" \
    "$PM" suite run s.ini
chmod 600 token
ln -s token token-link
suite "${lab/\/token/\/token-link}"
refused "a token file that is a link" "^pressmark suite run: s\\.ini: lava-token-file = $TMP/token-link: a symbolic link" \
    "$PM" suite run s.ini
: > empty-token; chmod 600 empty-token
suite "${lab/\/token/\/empty-token}"
refused "an empty token file" "lava-token-file = $TMP/empty-token: empty; accepted: one line" "$PM" suite run s.ini
mkfifo fifo-token; chmod 600 fifo-token
suite "${lab/\/token/\/fifo-token}"
refused "a FIFO as the token file (judged before it is opened)" "fifo-token: not a regular file" "$PM" suite run s.ini
printf 'abc def\n' > bad-token; chmod 600 bad-token
suite "${lab/\/token/\/bad-token}"
refused "a token with a blank" "bad-token: not one line of the token's characters" "$PM" suite run s.ini
is "$(grep -c 'abc\|def' err)" 0 "  the token's text is not echoed"
suite "$lab"
refused "a LAVA URL that does not answer" "^pressmark suite run: s\\.ini: lava-url = http://127\\.0\\.0\\.1:$dead/: no answer \\(connection refused" \
    "$PM" suite run s.ini
suite "${lab/lava-token-file = $TMP\/token/}"
refused "  also for lava job, which needs no token" "s\\.ini: lava-url = http://127\\.0\\.0\\.1:$dead/: no answer \\(connection refused" \
    "$PM" lava job s.ini
refused "  and for lava collect, which needs none either" "lava-url = http://127\\.0\\.0\\.1:$dead/: no answer" \
    "$PM" lava collect s.ini
suite "${lab/http:\/\/127.0.0.1:$dead\//ftp://127.0.0.1/}"
refused "a LAVA URL that is not http" "lava-url = ftp://127\\.0\\.0\\.1/: not http or https" "$PM" suite run s.ini
suite "${lab/http:\/\/127.0.0.1:$dead\//http://user:pw@127.0.0.1:$dead/}"
refused "a LAVA URL with a password in it" "lava-url = http://127\\.0\\.0\\.1:$dead/ \\(with a user:password\\)" \
    "$PM" suite run s.ini
is "$(grep -c ':pw@' err)" 0 "  the password is not echoed"
suite "${lab/http:\/\/127.0.0.1:$dead\//http://192.0.2.1/}"
refused "a token to another host over plain http" \
    "lava-url = http://192\\.0\\.2\\.1/: the token would cross the network unencrypted \\(accepted: https.*lava-allow-plain-http = yes\\)" \
    "$PM" suite run s.ini
suite "${lab/lava-artifacts = http:\/\/127.0.0.1:$dead\/store/lava-artifacts = http://u:p@127.0.0.1:$dead/store}"
refused "a store URL with a password (it would be in the public job)" "lava-artifacts: a user:password in it" \
    "$PM" suite run s.ini
suite "${lab/device-type = qemu/device-type = qemu$'\e'[2J}"
refused "a control character in a value" "device-type: a control character in its value" "$PM" suite run s.ini
is "$(grep -c $'\e' err)" 0 "  not echoed to the terminal"

# The suite file goes into each job's archive, which the lab's public job
# names: a URL with a user or password anywhere in it is refused, not
# published, and the password is not echoed.
suite "$lab
question = is it faster than https://alice:s3cr3tpw@db.example.org/x"
refused "a question naming a URL with a password" \
    "^pressmark suite run: s\\.ini:8: question: a URL with a user or password in it \\(https://db\\.example\\.org/x\\) would be public: backend = lava publishes the suite file" \
    "$PM" suite run s.ini
is "$(grep -c 'alice\|s3cr3tpw' err)" 0 "  neither the user nor the password is echoed"
suite "$lab"
printf 'push = http://ops@influx.example.org:8086/write\n' >> s.ini
refused "a push URL with a user" "s\\.ini:11: push: a URL with a user or password in it \\(http://influx\\.example\\.org:8086/write\\)" \
    "$PM" lava job s.ini
suite "$lab"
printf 'label = {kernel} https://h.example.org/a@b?x=c@d\n' >> s.ini
"$PM" suite run s.ini > out 2> err
like "$(cat err)" "lava-url = http://127\\.0\\.0\\.1:$dead/: no answer" "an '@' in a URL's path or query is no user: the lab is asked next"

# The suite's own keys: a device type is a name, a value has no blank or quote.
suite "${lab/device-type = qemu/device-type = qemu;reboot}"
refused "a device type that is not a name" "device-type = qemu;reboot: not a device type's name \\(accepted: letters" \
    "$PM" suite run s.ini
blank="device-type = qemu' x"
suite "${lab/device-type = qemu/$blank}"
refused "a value with a quote or blank" "$blank: not a value it takes" "$PM" suite run s.ini
quoted='lava-artifacts = http://x/a"b'
suite "${lab/lava-artifacts = http:\/\/127.0.0.1:$dead\/store/$quoted}"
refused "a store URL with a quote" "$quoted: not a value it takes" "$PM" suite run s.ini
printf '[global]\nruns = 1\n[a]\nworkload = swapout\nkernel = running, %s\n' "$k612" > v.ini
refused "pressmark lava of a suite of another backend (it would boot VMs)" \
    "^pressmark suite run: v\\.ini: backend = vm: pressmark lava takes a suite with backend = lava$" "$PM" lava submit v.ini
suite "${lab/lava-artifacts = http:\/\/127.0.0.1:$dead\/store/lava-artifacts = http://127.0.0.1:$dead/st$'\xff'}"
refused "a store URL that is not UTF-8" "lava-artifacts: not valid UTF-8 \\(accepted:" "$PM" lava submit s.ini
printf '[global]\nbackend = lava\nruns = 1\n%s\n[a]\nworkload = swapout\n' "$lab" > nk.ini
for cmd in job submit collect; do
    refused "pressmark lava $cmd of a suite without kernels" \
        "^pressmark suite run: nk\\.ini: pressmark lava takes a suite with kernels \\(accepted: a kernel = key" \
        "$PM" lava $cmd nk.ini
done
printf '[global]\nbackend = fleet\n[a]\nworkload = swapout\n' > b.ini
refused "an unknown backend" "backend = fleet: not a backend \\(accepted: vm.*lava, a job per kernel" "$PM" suite run b.ini

# libcurl is opened only when needed: one that cannot be loaded is said
# so in one line, with the package to install (an empty file stands for
# the library on the search path) ...
mkdir nocurl && : > nocurl/libcurl.so.4
suite "$lab"
refused "libcurl that cannot be loaded" \
    "^pressmark suite run: $TMP/nocurl/libcurl\\.so\\.4: file too short; install the libcurl4 package\$" \
    env LD_LIBRARY_PATH="$TMP/nocurl" "$PM" suite run s.ini
# ... and a right URL it was reading is not blamed for it (lava-url
# without its scheme: the first URL read is lava-artifacts's then).
suite "${lab/lava-url = http:\/\//lava-url = }"
refused "libcurl that cannot be loaded, reading lava-artifacts" \
    "^pressmark suite run: s\\.ini: lava-artifacts = http://127\\.0\\.0\\.1:$dead/store: $TMP/nocurl/libcurl\\.so\\.4: file too short; install the libcurl4 package\$" \
    env LD_LIBRARY_PATH="$TMP/nocurl" "$PM" suite run s.ini
rm -r nocurl

# The commands' own words.
suite "$lab"
refused "collect: a job id that is not one" "'12x': not a LAVA job id \\(accepted: a whole number above 0\\)" \
    "$PM" lava collect s.ini 12x
refused "job: an output that is no directory" "--output $TMP/none: not a directory" "$PM" lava job s.ini --output "$TMP/none"
refused "an unknown lava command" "'cancel' is not a lava command \\(accepted: job, submit, collect\\)" "$PM" lava cancel
"$PM" lava --help > help.out 2>&1
is "$?" 0 "lava --help: exit 0"
like "$(cat help.out)" "lava-token-file \\(a file only its owner can read" "  it says where the token comes from"

stored_jobs
done_testing
