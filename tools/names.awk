# One word, one folder: the first word of every name an object exports
# (a function's or a global's, up to its first "_") belongs to the objects
# of one folder only, so a name says where it is made (run_metric is
# workloads/', harness_session_open harness/', store_run_latest store/').
# Read from the objects' symbols (tools/symbols.awk: "SOURCE KIND NAME",
# the defined ones); one line per word two folders share, with a name of
# each.
# awk -f names.awk SYMBOLS
{
    # (every kind of global that is defined: text, data, read-only, bss,
    # small data, common, weak, indirect functions; a name that begins
    # with "_" is the implementation's, as ASan's __odr_asan.NAME)
    if ($2 !~ /^[TDBRGSVWCi]$/ || $3 ~ /^_/) next
    obj = $1; dir = obj; sub(/\/.*/, "", dir)
    word = $3; sub(/_.*/, "", word)
    if (!((word, dir) in seen)) {
        seen[word, dir] = obj " " $3
        folders[word] = folders[word] " " dir
        nfolders[word]++
    }
}
END {
    # (the words in order, so two runs, or mawk and gawk, say the same)
    nw = 0
    for (word in nfolders) if (nfolders[word] > 1) {
        for (j = ++nw; j > 1 && words[j - 1] > word; j--) words[j] = words[j - 1]
        words[j] = word
    }
    for (k = 1; k <= nw; k++) {
        word = words[k]
        m = split(substr(folders[word], 2), d, " ")
        msg = ""
        for (i = 1; i <= m; i++) {
            split(seen[word, d[i]], e, " ")
            msg = msg (i > 1 ? (i == m ? " and " : ", ") : "") e[1] " (" e[2] ")"
        }
        printf "layering: the name word \"%s_\" is %d folders': %s; a name's first word says its folder (rename all but one's)\n", word, m, msg
        bad = 1
    }
    exit bad
}
