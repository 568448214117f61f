# The objects' symbols, read once for every check of them (calls, prints,
# names, SQL): `nm -A -g` over the build's objects in, one line a symbol
# out, "SOURCE KIND NAME" (lib/units.c U strtod, store/sql.c T
# store_db_exec): the source of the object below the build directory,
# nm's kind letter and the name. The directory is a prefix, not a pattern
# (a path may hold + ( : or a backslash: it comes through ENVIRON, which
# awk -v would read escapes in); the object's own path below it has no
# colon.
# PM_OBJDIR=DIR awk -f symbols.awk NM-OUTPUT
BEGIN { objdir = ENVIRON["PM_OBJDIR"] "/" }
{
    line = $0
    if (index(line, objdir) == 1) line = substr(line, length(objdir) + 1)
    colon = index(line, ":")
    if (colon == 0) next
    obj = substr(line, 1, colon - 1); sub(/\.o$/, ".c", obj)
    n = split(substr(line, colon + 1), f, " ")
    if (n == 2) print obj, f[1], f[2]
    else if (n == 3) print obj, f[2], f[3]
}
