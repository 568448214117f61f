# The objects' symbols, read once for every check of them (calls, prints,
# names, SQL): `nm -A -g` over the build's objects in, one line a symbol
# out to the file PM_SYMBOLS, "SOURCE KIND NAME" (lib/units.c U strtod,
# store/sql.c T store_db_exec): the source of the object below the build
# directory, nm's kind letter and the name. The directory is a prefix,
# not a pattern (a path may hold + ( : or a backslash: it comes through
# ENVIRON, which awk -v would read escapes in); the object's own path
# below it has no colon and no blank (layering.sh names, and does not
# read, one that has).
# First the objects nm was handed, a line each: one with no line in the
# listing was not read (nm told a wrong target lists nothing and exits
# 0), and is named on stdout, "layering: nm listed no symbols of OBJ",
# exit 1.
# PM_OBJDIR=DIR PM_SYMBOLS=FILE awk -f symbols.awk OBJECT-LIST NM-OUTPUT
BEGIN { objdir = ENVIRON["PM_OBJDIR"] "/"; out = ENVIRON["PM_SYMBOLS"] }
FNR == NR { nobj++; obj_path[nobj] = $0; next }
{
    line = $0
    if (index(line, objdir) == 1) line = substr(line, length(objdir) + 1)
    colon = index(line, ":")
    if (colon == 0) next
    obj = substr(line, 1, colon - 1); listed[obj] = 1; sub(/\.o$/, ".c", obj)
    n = split(substr(line, colon + 1), f, " ")
    if (n == 2) print obj, f[1], f[2] > out
    else if (n == 3) print obj, f[2], f[3] > out
}
END {
    printf "" > out
    for (i = 1; i <= nobj; i++) {
        o = obj_path[i]; rel = o
        if (index(rel, objdir) == 1) rel = substr(rel, length(objdir) + 1)
        if (!(rel in listed)) { printf "layering: nm listed no symbols of %s\n", o; bad = 1 }
    }
    exit bad
}
