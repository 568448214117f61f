#!/bin/bash
# The undo journal cannot be turned against the machine: it is acted on
# only from a private directory and only for pressmark's own places (a
# ramdisk's mount point never through a link, brd only its own load); values
# with tabs survive it; a step that fails stays for the next try; swap files
# left by a pressmark that ended with the machine are found and removed.
. "$(dirname "$0")/lib.sh"
need_root
before=$(machine_state)

# A journal planted where others can write is not acted on, not even by list.
echo precious > "$TMP/target"
mkdir -m 0777 "$TMP/shared"
printf 'file\t%s\tpwned\n' "$TMP/target" > "$TMP/shared/journal"
PRESSMARK_STATE_DIR="$TMP/shared" "$PM" list >/dev/null 2>"$TMP/err"
like "$(cat "$TMP/err")" "not acting on the undo journal $TMP/shared/journal: $TMP/shared is not a private directory" \
     "a journal in a world-writable directory is refused, saying why"
is "$(cat "$TMP/target")" precious "and the file it names is untouched"

# A private journal naming a path that is not pressmark's is left alone too.
mkdir -m 0700 "$TMP/private"
# (The decoys are the test's own files: an old pressmark would unlink the
# "swap file" whatever it is.)
echo decoy > "$TMP/decoy"
printf 'file\t%s\tpwned\nswapfile\t%s\t\n' "$TMP/target" "$TMP/decoy" > "$TMP/private/journal"
chmod 600 "$TMP/private/journal"
PRESSMARK_STATE_DIR="$TMP/private" "$PM" list >/dev/null 2>"$TMP/err"
like "$(cat "$TMP/err")" "the undo journal names $TMP/target, which is not one of pressmark's; left alone" \
     "an entry outside pressmark's places is left alone"
is "$(cat "$TMP/target")" precious "  the file is untouched"
ok "  a file named as a swap file is still there" test -s "$TMP/decoy"

# A step that cannot be undone stays in the journal, and the next pressmark tries again.
printf 'file\t/proc/sys/vm/no_such_knob_pressmark\t1\n' > "$TMP/private/journal"
PRESSMARK_STATE_DIR="$TMP/private" "$PM" list >/dev/null 2>"$TMP/err"
like "$(cat "$TMP/err")" "could not restore /proc/sys/vm/no_such_knob_pressmark.*kept in the journal; the next pressmark tries again" \
     "a failed step is said and kept"
ok "  the journal still lists it" grep -q no_such_knob_pressmark "$TMP/private/journal"
PRESSMARK_STATE_DIR="$TMP/private" "$PM" list >/dev/null 2>"$TMP/err"
like "$(cat "$TMP/err")" "could not restore /proc/sys/vm/no_such_knob_pressmark" "  the next invocation tries it again"
# Help text changes nothing on the machine: help and COMMAND --help leave
# the journal to the next command that acts.
PRESSMARK_STATE_DIR="$TMP/private" "$PM" help >/dev/null 2>"$TMP/err"
PRESSMARK_STATE_DIR="$TMP/private" "$PM" run --help >/dev/null 2>>"$TMP/err"
is "$(cat "$TMP/err")" "" "help and run --help try no step of the journal"
rm -f "$TMP/private/journal"

# run fio --ramdisk's lines. A mount point outside a scratch directory is
# not pressmark's; a scratch directory's "ramdisk" that became a link to a
# mount (a decoy tmpfs of the test's) is not unmounted through the link;
# brd with another load's identity, or not loaded at all, is left as it
# is; no other module is named.
mkdir -m 0755 "$TMP/decoy-mnt" "$TMP/pressmark-fio.t22"
setup "a decoy tmpfs of the test's" mount -t tmpfs -o size=1M pm-t22-decoy "$TMP/decoy-mnt"
cleanup_add "umount '$TMP/decoy-mnt'"
ln -s "$TMP/decoy-mnt" "$TMP/pressmark-fio.t22/ramdisk"
recover() {  # recover LINE: the journal holds LINE alone; the next invocation's words on it
    printf '%s\n' "$1" > "$TMP/private/journal"
    chmod 600 "$TMP/private/journal"
    PRESSMARK_STATE_DIR="$TMP/private" "$PM" list >/dev/null 2>"$TMP/err"
}
recover "$(printf 'ramdisk\t%s' "$TMP/decoy-mnt")"
like "$(cat "$TMP/err")" "the undo journal names $TMP/decoy-mnt, which is not one of pressmark's; left alone" \
     "a ramdisk line for a mount outside a scratch directory is refused"
ok "  the decoy is still mounted" mountpoint -q "$TMP/decoy-mnt"
recover "$(printf 'ramdisk\t%s' "$TMP/pressmark-fio.t22/ramdisk")"
like "$(cat "$TMP/err")" "the ramdisk at $TMP/pressmark-fio.t22/ramdisk was not mounted" \
     "a scratch directory's ramdisk that is a link: not a mount, and not followed"
ok "  the decoy it points at is still mounted" mountpoint -q "$TMP/decoy-mnt"
ok "  and the line is struck off" test ! -e "$TMP/private/journal"
brd_before=$(ls -d /sys/module/brd 2>/dev/null)
recover "$(printf 'module\tbrd\tino=1')"
like "$(cat "$TMP/err")" "module brd (was already unloaded|is not the load pressmark made \(ino=1; it is inode [0-9]+ now\): left alone)" \
     "brd with an identity that is not its load's: left as it is"
is "$(ls -d /sys/module/brd 2>/dev/null)" "$brd_before" "  brd is as it was"
recover "$(printf 'module\text4\t')"
like "$(cat "$TMP/err")" "the undo journal names ext4, which is not one of pressmark's; left alone" \
     "a module line names only zram or brd"
rm -f "$TMP/private/journal"

# A value with tabs (vm.lowmem_reserve_ratio) comes back whole after a SIGKILL.
ratio=$(cat /proc/sys/vm/lowmem_reserve_ratio)
"$PM" record --quiet --label tabs --sysctl "vm.lowmem_reserve_ratio=$(echo "$ratio" | awk '{ $1 = $1 + 1; print }')" -- sleep 60 &
pid=$!
ok "the run changed it" wait_for sh -c "[ \"\$(cat /proc/sys/vm/lowmem_reserve_ratio)\" != \"$ratio\" ]"
kill -KILL $pid; wait $pid 2>/dev/null
pkill -KILL -f '^sleep 60$'
"$PM" list >/dev/null 2>"$TMP/err"
like "$(cat "$TMP/err")" "restored /proc/sys/vm/lowmem_reserve_ratio" "the next invocation restores it"
is "$(cat /proc/sys/vm/lowmem_reserve_ratio)" "$ratio" "every tab-separated field as it was"

# A swap file as a crash and a reboot leave it: no journal (it was on /run), the file on disk.
if [ ! -e /var/lib/pressmark ]; then
    mkdir -p -m 0700 /var/lib/pressmark/swap
    cleanup_add "rm -rf /var/lib/pressmark"
    head -c 1048576 /dev/zero > /var/lib/pressmark/swap/run-999.swap
    # Not by a pressmark with a state directory of its own: under another
    # run lock than the machine's, it cannot tell this from a file a run
    # is making.
    PRESSMARK_STATE_DIR="$TMP/private" "$PM" list >/dev/null 2>"$TMP/err"
    ok "a pressmark with its own state directory leaves the machine's swap files alone" \
       test -e /var/lib/pressmark/swap/run-999.swap
    "$PM" list >/dev/null 2>"$TMP/err"
    like "$(cat "$TMP/err")" "removed swap file /var/lib/pressmark/swap/run-999.swap, left by a pressmark that ended with the machine" \
         "the next invocation finds and removes it"
    ok "  and the directories pressmark made for it" test ! -e /var/lib/pressmark
else
    skip "/var/lib/pressmark exists already (a run in progress?)"; skip "/var/lib/pressmark exists already"
    skip "/var/lib/pressmark exists already"
fi
is "$(machine_state)" "$before" "the machine is as it was"
done_testing
