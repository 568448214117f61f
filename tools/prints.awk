# Printing, read from the objects' symbols (tools/symbols.awk), those outside cmd/: only
# commands write to the standard streams. An object that leaves stdout or
# stderr undefined reads the stream itself (fprintf(stderr, ...), fputs(s,
# stdout)); printf, puts, putchar, perror and their kin write to one
# without naming it. fprintf to a FILE * the caller hands in names neither,
# and stays allowed: that is how a layer below says things (a report's
# writer, a say stream). A helper process's main, which is its own
# process's top, is kept in layering.txt as "print: FILE  # why"; such a
# line without its reason, for a file of cmd/, or for a file that no
# longer writes to a stream fails too. One line per file.
# awk -f prints.awk layering.txt SYMBOLS
BEGIN {
    n = split("stdout stderr printf vprintf puts putchar putchar_unlocked perror psignal psiginfo " \
              "err errx verr verrx warn warnx vwarn vwarnx error error_at_line __printf_chk __vprintf_chk " \
              "dprintf vdprintf __dprintf_chk __vdprintf_chk wprintf vwprintf putwchar __wprintf_chk __vwprintf_chk", s, " ")
    for (i = 1; i <= n; i++) stream_sym[s[i]] = 1
}
FNR == NR {
    if ($1 != "print:") next
    if ($0 !~ /#[ \t]*[^ \t]/) {
        printf "layering: layering.txt:%d keeps an exception without its reason (accepted: print: FILE  # why)\n", FNR
        bad = 1
    }
    if ($2 ~ /^cmd\//) {
        printf "layering: layering.txt:%d keeps print: %s, which cmd/ may do anyway (remove it)\n", FNR, $2
        bad = 1
    }
    keep[$2] = FNR
    next
}
{
    obj = $1
    if (obj ~ /^cmd\// || $2 != "U" || !($3 in stream_sym)) next
    if (!(obj in uses)) order[++nobj] = obj
    uses[obj] = uses[obj] (uses[obj] == "" ? "" : " ") $3
}
END {
    for (i = 1; i <= nobj; i++) {
        o = order[i]
        if (o in keep) { used[o] = 1; continue }
        printf "layering: %s uses %s: only cmd/ prints (below it: a struct pm_err, or a FILE * the caller " \
               "gives; a helper process's main: \"print: %s  # why\" in layering.txt)\n", o, uses[o], o
        bad = 1
    }
    for (k in keep) if (!(k in used) && k !~ /^cmd\//) {
        printf "layering: layering.txt:%d keeps print: %s, which writes to no standard stream (remove it)\n", keep[k], k
        bad = 1
    }
    exit bad
}
