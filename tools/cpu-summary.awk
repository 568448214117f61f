# The tests' CPU, from the files tests/lib.sh appends to under make's
# targets (PM_CPU_LOG: "SECONDS TEST" a line): each build's total and the
# tests that cost the most, so what makes CI slow is measured in every
# log. (A test's own shell and the children it waited for; what a test
# leaves running and kills without waiting for is not counted.)
# awk -f cpu-summary.awk BUILD/cpu.txt...
# (a build whose tests never ran has no file: the others are summed)
BEGIN { for (i = 1; i < ARGC; i++) if ((getline line < ARGV[i]) < 0) delete ARGV[i]; else close(ARGV[i]) }
{ if (!(FILENAME in total)) files[++nf] = FILENAME; total[FILENAME] += $1; n++; cpu[n] = $1; name[n] = $2 " (" FILENAME ")" }
END {
    if (n == 0) exit
    # the ten that cost the most, most first
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (cpu[j] > cpu[i]) {
        t = cpu[i]; cpu[i] = cpu[j]; cpu[j] = t; t = name[i]; name[i] = name[j]; name[j] = t
    }
    line = "the shell tests' CPU:"
    for (k = 1; k <= nf; k++) { line = line sprintf(" %s %.0f s;", files[k], total[files[k]]); all += total[files[k]] }
    printf "%s all %.0f s (two cores: %.0f s at best)\n", line, all, all / 2
    for (i = 1; i <= n && i <= 10; i++) printf "  %7.1f s  %s\n", cpu[i], name[i]
}
