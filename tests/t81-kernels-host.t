#!/bin/bash
# Kernels under test on this machine itself: a suite with backend = host
# runs the running kernel's cells here, resumes after a (simulated)
# reboot without running anything twice, names the next kernel, and with
# --reboot kexec --dry-run prints the kexec steps and the systemd unit it
# would install, refusing a database path a unit cannot carry. (The VM
# backend is t80's; this one changes the host, so it runs in make test's
# lane of such tests.)
. "$(dirname "$0")/lib.sh"
need_root
cd "$TMP" || exit 1
before=$(machine_state)
apt_cache_memo   # the test asks apt-cache once, each suite run below again

# The newest 6.1 cloud kernel this machine's apt knows: the other kernel.
k61=$(apt-cache pkgnames linux-image-6.1.0- | grep -E '^linux-image-6\.1\.0-[0-9]+-cloud-amd64$' | sort -V | tail -1)
[ -n "$k61" ] || skip_all "apt knows no Debian 6.1 cloud kernel (apt-get update)"
r61=${k61#linux-image-}
e61=$(re "$k61"); er61=$(re "$r61")

chat_cell=$KERNEL_CHAT_CELL

# The host backend: the running kernel's cells run here; the other
# kernel's wait for a boot into it.
cat > host.ini <<INI
[global]
runs = 2
backend = host
kernel = running, $k61
name = hostk

$chat_cell
INI
"$PM" suite run host.ini > out 2> err
is "$?" 0 "host backend: suite run exits 0"
is "$(q "select count(*) from run r join run_meta m on m.run_id = r.id and m.key = 'suite.name' and m.value = 'hostk' where r.status = 'ok' and r.label = 'running'")" 2 "  the running kernel's 2 runs ran here"
is "$(q "select count(*) from run r join run_meta m on m.run_id = r.id and m.key = 'suite.name' and m.value = 'hostk' where r.label = '$k61'")" 0 "  none of the other kernel's"
like "$(cat err)" "this kernel's cells are done; boot $e61 \($er61\) next" "  and it names the kernel to boot next"
is "$("$PM" suite next-kernel host.ini)" "$k61" "suite next-kernel prints it"
"$PM" suite status > status
like "$(cat status)" "unfinished" "the suite is unfinished"
is "$(grep '^kernels:' status)" "kernels: the running one's cells here, the others' on this machine after a reboot into each kernel (backend host)" \
    "  and where its kernels' cells run, as its backend says"
is "$(q "select value from run_meta m join run r on r.id = m.run_id where m.key = 'kernel.release' and r.label = 'running' limit 1")" "$(uname -r)" "the running kernel's release recorded"
# Simulated reboot: start again; nothing runs twice, the suite goes on.
"$PM" suite run host.ini > out 2> err
is "$?" 0 "started again after a (simulated) reboot"
like "$(cat err)" "continuing suite" "  it continues the suite"
is "$(q "select count(*) from run where label = 'running'")" 2 "  running nothing twice"
"$PM" suite run --reboot kexec --dry-run host.ini > dry 2> err
is "$?" 0 "--reboot kexec --dry-run"
like "$(cat dry)" "would run: kexec -l /boot/vmlinuz-$er61 --initrd=/boot/initrd.img-$er61 --reuse-cmdline" "  prints the kexec load"
like "$(cat dry)" "would run: systemctl kexec" "  and the reboot into it"
like "$(cat dry)" "would write /etc/systemd/system/pressmark-suite-hostk.service:" "  and the unit it would install"
like "$(cat dry)" "ExecStart=\"[^\"]*pressmark\" \"suite\" \"run\" \"--reboot\" \"kexec\" \"$TMP/host.ini\"" "  the unit continues the suite"
like "$(cat dry)" "Environment=\"PRESSMARK_DB=$PRESSMARK_DB\"" "  with its database"
like "$(cat dry)" "Environment=\"PRESSMARK_CACHE=/" "  and its cache said (a service has no HOME)"
like "$(cat dry)" "would run: systemctl enable pressmark-suite-hostk.service" "  enabled for the next boot"
ok "  installing nothing" test ! -e /etc/systemd/system/pressmark-suite-hostk.service
# A database path a unit cannot carry (a control character: systemd would
# drop the assignment and the suite would go on in another database) is
# refused before anything is written or run.
weird="$TMP/db"$'\n'"x.db"
cp "$PRESSMARK_DB" "$weird"
PRESSMARK_DB=$weird "$PM" suite run --reboot kexec --dry-run host.ini > dry 2> err
is "$?" 2 "--reboot with a database path a systemd unit cannot carry: exit 2"
like "$(cat err)" "--reboot: .*db\\\\x0ax\.db cannot be carried by a systemd unit \(accepted: a path in UTF-8 without control characters\)" \
    "  saying which path and what is accepted"
is "$(grep -c 'would' dry)" 0 "  nothing would be run or written"

is "$(machine_state)" "$before" "the machine is as it was"
done_testing
