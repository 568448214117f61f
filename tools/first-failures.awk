# first-failures.awk FAILURES...: for each test file named in the failures
# files (tests/lib.sh's diag writes "tNN-x.t: LINE" there), how many of its
# checks failed and, in full, the first failure with what it said. Printed
# last by make's test targets: a CI log cut to its last lines keeps the
# first failure, which is usually the cause of the ones after it. Tests
# run side by side, so their lines interleave: each file's are taken apart.
# A long diagnostic keeps its first line and its last ones (a build log's
# tail says why the build failed).
BEGIN { if (KEEP == "") KEEP = 14 }
{
    file = $1
    sub(/:$/, "", file)
    rest = substr($0, length($1) + 2)
    if (!(file in nfail)) {
        order[++nfiles] = file
        nfail[file] = 0
    }
    if (rest ~ /^not ok /)
        nfail[file]++
    if (nfail[file] == 1)
        first[file, ++nl[file]] = rest
}
END {
    for (f = 1; f <= nfiles; f++) {
        file = order[f]
        if (nfail[file] == 0)
            continue
        printf "%s: %d failed check(s); the first:\n", file, nfail[file]
        n = nl[file]
        print "  " first[file, 1]
        from = 2
        if (n > KEEP) {
            print "  [" n - KEEP " lines left out]"
            from = n - KEEP + 2
        }
        for (i = from; i <= n; i++)
            print "  " first[file, i]
    }
}
