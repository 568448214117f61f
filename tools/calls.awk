# Calls between object files, read from their symbols (tools/symbols.awk): a file that
# leaves a symbol undefined calls the file that defines it. Two rules:
# a folder calls only itself and the folders layering.txt lists for it
# (the include rule, now for calls), and no files of one folder call each
# other in a circle. "call:" and "cycle:" lines in layering.txt keep an
# exception, each with its reason. One line per violation.
# awk -f calls.awk layering.txt SYMBOLS
FNR == NR {
    if ($1 == "sql:") next    # (tools/sqlnames.awk's)
    if (($1 == "call:" || $1 == "cycle:") && $0 !~ /#[ \t]*[^ \t]/) {
        printf "layering: layering.txt:%d keeps an exception without its reason (accepted: ... # why)\n", FNR; bad = 1
    }
    if ($1 == "call:") { keep_call[$2 " " $3] = FNR; next }
    if ($1 == "cycle:") {
        m = 0; for (i = 2; i <= NF && $i !~ /^#/; i++) c[++m] = $i
        sort_names(c, m); k = ""; for (i = 1; i <= m; i++) k = k c[i] " "
        keep_cycle[k] = FNR; next
    }
    if ($0 ~ /^[ \t]*(#|$)/ || $1 == "print:") next    # (print: is tools/prints.awk's)
    dir = $1; sub(/:$/, "", dir)
    for (i = 2; i <= NF && $i !~ /^#/; i++) allow[dir " " $i] = 1
    allow_list[dir] = substr($0, index($0, ":") + 1); sub(/#.*/, "", allow_list[dir])
    next
}
{
    obj = $1
    if ($2 == "U") { nuse++; use_file[nuse] = obj; use_sym[nuse] = $3 }
    else if ($2 ~ /^[TDBRVWG]$/) def[$3] = obj
    files[obj] = 1
}
function folder(file,   d) { d = file; sub(/\/.*/, "", d); return d }
function base(file,   b) { b = file; sub("^" folder(file) "/", "", b); return b }
END {
    for (i = 1; i <= nuse; i++) {
        a = use_file[i]; s = use_sym[i]
        if (!(s in def) || def[s] == a) continue
        b = def[s]; fa = folder(a); fb = folder(b)
        if (fa != fb) {
            if ((a " " b) in keep_call) used[keep_call[a " " b]] = 1
            if (!(fa in allow_list) && !reported[fa]) {
                printf "layering: %s/ has no line in layering.txt (say which folders it may use)\n", fa
                reported[fa] = 1; bad = 1
            }
            if (!(fb in allow_list) && !reported[fb]) {
                printf "layering: %s/ has no line in layering.txt (say which folders it may use)\n", fb
                reported[fb] = 1; bad = 1
            }
            if ((fa in allow_list) && (fb in allow_list) && !((fa " " fb) in allow) && !((a " " b) in keep_call) &&
                !reported[a " " b]) {
                list = allow_list[fa]; gsub(/^[ \t]+|[ \t]+$/, "", list); gsub(/[ \t]+/, " ", list)
                printf "layering: %s calls %s (%s): %s/ may call only %s\n", a, s, b, fa, list
                reported[a " " b] = 1; bad = 1
            }
        } else if (!((a SUBSEP b) in edge)) {
            edge[a, b] = 1; nout[a]++; out[a, nout[a]] = b
        }
    }
    # Tarjan's strongly connected components over each folder's files.
    for (v in files) if (!(v in index_of)) strong(v)
    # An exception that nothing needs any more goes, so none outlives its reason.
    for (k in keep_call) if (!(keep_call[k] in used) || ((folder(substr(k, 1, index(k, " ") - 1)) " " folder(substr(k, index(k, " ") + 1))) in allow)) {
        printf "layering: layering.txt:%d keeps call: %s, which no object makes or its folders may make (remove it)\n", keep_call[k], k; bad = 1
    }
    for (k in keep_cycle) if (!(keep_cycle[k] in used)) {
        printf "layering: layering.txt:%d keeps cycle: %s, which is no circle (remove it)\n", keep_cycle[k], k; bad = 1
    }
    exit bad
}
function strong(v,   i, w, comp, k, n, names) {
    index_of[v] = low[v] = ++counter; stack[++sp] = v; on_stack[v] = 1
    for (i = 1; i <= nout[v]; i++) {
        w = out[v, i]
        if (!(w in index_of)) { strong(w); if (low[w] < low[v]) low[v] = low[w] }
        else if (on_stack[w] && index_of[w] < low[v]) low[v] = index_of[w]
    }
    if (low[v] != index_of[v]) return
    n = 0
    do { w = stack[sp--]; on_stack[w] = 0; comp[++n] = w } while (w != v)
    if (n < 2) return
    sort_names(comp, n)
    names = ""; for (k = 1; k <= n; k++) names = names comp[k] " "
    if (names in keep_cycle) { used[keep_cycle[names]] = 1; return }
    printf "layering: files of %s/ call each other in a circle:", folder(v)
    for (k = 1; k <= n; k++) printf " %s", base(comp[k])
    printf " (keep it in layering.txt as \"cycle: %s\" with the reason, or break it)\n", substr(names, 1, length(names) - 1)
    bad = 1
}
function sort_names(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
}
