#!/bin/bash
# build --linux: a kernel tree from a linux-source package's tarball,
# unpacked once into the cache and configured once per config target, built
# out of tree; refused where the tarball is not one root can trust or holds
# what root must not make (a way out, a device, a link written through).
# --cold-shmem: shmem filled inside the cap before the timed make, never
# touched again, gone with the run. The real Debian source is built in
# tests/slow/t51-build-linux-real.t (minutes); here a tree of our own that
# builds as kbuild does out of tree (make O=DIR TARGET writes a Makefile
# there that includes the source's).
. "$(dirname "$0")/lib.sh"
export PRESSMARK_CACHE="$TMP/cache"
src=$TMP/src
mkdir -m 0755 "$src"
export PRESSMARK_LINUX_SOURCE=$src

# tarball NAME [MEMBER-SPEC...]: $src/NAME from the tree $TMP/tree (under
# linux-source-0.1/), plus hostile members: "link:NAME:TARGET",
# "file:NAME", "hard:NAME:TARGET", "fifo:NAME", "chr:NAME", "suid:NAME",
# each NAME as it is in the archive.
tarball() {
    python3 - "$src/$1" "$TMP/tree" "${@:2}" <<'EOF'
import io, os, sys, tarfile
out, tree, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
with tarfile.open(out, "w:xz") as t:
    t.add(tree, arcname="linux-source-0.1")
    for s in specs:
        kind, name, *rest = s.split(":")
        i = tarfile.TarInfo(name)
        i.mtime = 1700000000
        data = b""
        if kind == "link":
            i.type, i.linkname = tarfile.SYMTYPE, rest[0]
        elif kind == "hard":
            i.type, i.linkname = tarfile.LNKTYPE, rest[0]
        elif kind == "fifo":
            i.type = tarfile.FIFOTYPE
        elif kind == "chr":
            i.type, i.devmajor, i.devminor = tarfile.CHRTYPE, 1, 3
        elif kind in ("file", "suid"):
            data = b"pwned\n"
            i.mode = 0o6777 if kind == "suid" else 0o644
        i.size = len(data)
        t.addfile(i, io.BytesIO(data))
EOF
    chmod 0644 "$src/$1"
}
mkdir -p "$TMP/tree/init" "$TMP/tree/scripts"
cat > "$TMP/tree/Makefile" <<'EOF'
VERSION = 0
PATCHLEVEL = 1
SUBLEVEL = 7
srctree := $(dir $(realpath $(lastword $(MAKEFILE_LIST))))
ifneq ($(O),)
tinyconfig allnoconfig defconfig:
	printf 'include %sMakefile\n' '$(srctree)' > $(O)/Makefile
	echo '# $@' > $(O)/.config
else
vmlinux:
	cat $(srctree)init/main.c .config > vmlinux
	printf '%s\n' "$$CCACHE_DISABLE" > ccache.txt
	$(if $(COUNT),echo x >> $(COUNT))
	$(if $(SLOW),touch $(SLOW) && $(MAKE) -f $(srctree)slow.mk)
clean:
	rm -f vmlinux ccache.txt
endif
EOF
echo 'int main(void) { return 0; }' > "$TMP/tree/init/main.c"
# A sub-make that outlives its parent unless its group is killed; its
# shell names the tree, as a kernel build's compilers do (-I paths).
printf 'all:\n\t: $(CURDIR) slow-loop; while :; do sleep 1; done\n' > "$TMP/tree/slow.mk"
printf '#!/bin/sh\necho ok\n' > "$TMP/tree/scripts/run.sh" && chmod 0775 "$TMP/tree/scripts/run.sh"
ln -s ../init/main.c "$TMP/tree/scripts/main-link.c"
tarball linux-source-0.1.tar.xz

# Bad input: one line, exit 2, nothing written, nothing unpacked.
bad "--linux of a series without its package" \
    "^pressmark run build: --linux: '9\.99': $src/linux-source-9\.99\.tar\.xz: missing \(apt-get install linux-source-9\.99\)$" \
    run build --linux 9.99
bad "--linux that is not a series" "^pressmark run build: --linux: 'six' is not a kernel series \(accepted: the N\.M of an installed linux-source-N\.M package, such as 6\.1\)$" \
    run build --linux six
bad "--linux with a path in it" "^pressmark run build: --linux: '\.\./0\.1' is not a kernel series" run build --linux ../0.1
bad "--kconfig that is not one of ours" \
    "^pressmark run build: --kconfig: 'allyesconfig' is not a config target this builds \(accepted: tinyconfig, allnoconfig, defconfig\)$" \
    run build --linux 0.1 --kconfig allyesconfig
bad "--kconfig without --linux" "^pressmark run build: --kconfig 'tinyconfig': needs --linux \(it configures a kernel tree\)$" \
    run build --kconfig tinyconfig
bad "--linux and --tree" "^pressmark run build: --linux and --tree: give one tree to build$" \
    run build --linux 0.1 --tree "$TMP/tree"
bad "--cold-shmem under a page" "^pressmark run build: --cold-shmem: 100 bytes is less than a page \(accepted: 0 for none, or 4K and up\)$" \
    run build --cold-shmem 100 --mem-cap 64M
bad "--cold-shmem past memory and swap" "^pressmark run build: --cold-shmem: 100\.0 TiB is more than this machine can hold even with swap" \
    run build --cold-shmem 100T --mem-cap 64M
bad "--cold-shmem without a cap" "^pressmark run build: --cold-shmem: needs --mem-cap \(the cold shmem is the cap's, beside the build\)$" \
    run build --cold-shmem 64M
PRESSMARK_LINUX_SOURCE=relative bad "a relative PRESSMARK_LINUX_SOURCE" \
    "^pressmark run build: --linux: PRESSMARK_LINUX_SOURCE: 'relative' is not an absolute path$" run build --linux 0.1
# libarchive is opened only when needed, and --linux needs it: one that
# cannot be loaded is said before the run, with the package to install
# (an empty file stands for the library on the search path).
mkdir "$TMP/noarchive" && : > "$TMP/noarchive/libarchive.so.13"
LD_LIBRARY_PATH="$TMP/noarchive" bad "--linux without a loadable libarchive" \
    "^pressmark run build: --linux: $TMP/noarchive/libarchive\\.so\\.13: file too short; install the libarchive13 package\$" \
    run build --linux 0.1
rm -r "$TMP/noarchive"

# A tarball whose Makefile root would run must be root's (or this user's)
# and written by nobody else, in a place nobody else can change.
chmod 0664 "$src/linux-source-0.1.tar.xz"
bad "a tarball its group may write" \
    "^pressmark run build: --linux: '0\.1': $src/linux-source-0\.1\.tar\.xz: a file another user could have written \(accepted: root's or yours, written by nobody else\)$" \
    run build --linux 0.1
chmod 0644 "$src/linux-source-0.1.tar.xz"
if [ "$(id -u)" -eq 0 ]; then
    chown 65534 "$src/linux-source-0.1.tar.xz"
    bad "another user's tarball" "^pressmark run build: --linux: '0\.1': .*: a file another user could have written" \
        run build --linux 0.1
    chown 0 "$src/linux-source-0.1.tar.xz"
else
    skip "another user's tarball needs root to make"; skip "(4 checks)"; skip ""; skip ""
fi
chmod 0777 "$src"
bad "a source directory anyone can write" "^pressmark run build: --linux: '0\.1': .*: $src is .*another user could change" \
    run build --linux 0.1
chmod 0755 "$src"
mkdir -m 0755 "$TMP/linked"
ln -s "$src/linux-source-0.1.tar.xz" "$TMP/linked/linux-source-0.1.tar.xz"
PRESSMARK_LINUX_SOURCE="$TMP/linked" bad "a tarball that is a link" \
    "^pressmark run build: --linux: '0\.1': $TMP/linked/linux-source-0\.1\.tar\.xz: Too many levels of symbolic links" \
    run build --linux 0.1
ok "nothing was unpacked for any of them" test ! -e "$PRESSMARK_CACHE/linux"

# Unpacked once, configured once per target, built out of tree, the
# source never written; ccache kept out of the timed make.
# (a umask that keeps group write: what is unpacked must lose it anyway)
(umask 0002 && exec "$PM" run build --quiet --linux 0.1 --kconfig tinyconfig --jobs 1 --runs 2 --label tiny 2>"$TMP/err")
is "$?" 0 "a tree from a tarball builds"
is "$(grep -c 'unpacking' "$TMP/err")" 1 "  unpacked once"
is "$(grep -c 'configuring 0\.1\.7 (make tinyconfig)' "$TMP/err")" 1 "  configured once, naming the tree's version"
is "$(q "select group_concat(status, ' ') from run where label = 'tiny'")" "ok ok" "  both runs ok"
key=$(ls "$PRESSMARK_CACHE/linux")
like "$key" "^0\.1-[0-9]+-[0-9]+$" "  the cache is keyed by series, size and time of the tarball"
obj=$PRESSMARK_CACHE/linux/$key/tinyconfig
is "$(q "select value from run_meta m join run r on r.id = m.run_id where r.label = 'tiny' and key = 'build.tree' limit 1")" \
   "$obj" "  built in the config's own directory"
is "$(q "select value from run_meta m join run r on r.id = m.run_id where r.label = 'tiny' and key = 'build.kernel' limit 1")" \
   "0.1.7" "  the tree's version is the run's"
like "$(q "select params from run where label = 'tiny' limit 1")" "^--linux 0\.1 \(0\.1\.7\) --kconfig tinyconfig --target vmlinux --jobs 1" \
     "  and its parameters"
is "$(cat "$obj/vmlinux")" "$(printf 'int main(void) { return 0; }\n# tinyconfig')" "  vmlinux from the source and the config"
is "$(cat "$obj/ccache.txt")" "1" "  with CCACHE_DISABLE=1 in make's recipes"
s=$PRESSMARK_CACHE/linux/$key/src
ok "  the unpacked tree is marked whole" test -f "$s/.pressmark-complete"
is "$(cd "$s" && find . -newer "$s/.pressmark-complete" | sort | tr '\n' ' '; echo "find:$?")" "find:0" \
   "  nothing in the source written after it was unpacked"
is "$(stat -c %a "$s/scripts/run.sh")" 755 "  a member's mode, without group write"
is "$(readlink "$s/scripts/main-link.c")" "../init/main.c" "  a link inside the tree is kept"
"$PM" run build --quiet --linux 0.1 --kconfig tinyconfig --jobs 1 --label tiny2 --make-arg "COUNT=$TMP/count" 2>"$TMP/err"
is "$(q "select status from run where label = 'tiny2'")" ok "the same config again, in another pressmark"
is "$(grep -c 'unpacking\|configuring' "$TMP/err")" 0 "  neither unpacked nor configured again"
is "$(cat "$TMP/count" 2>/dev/null)" "x" "  nor primed again: make ran once, the timed one"
is "$(cat "$obj/.pressmark-primed")" "vmlinux" "  (primed for vmlinux, once for every pressmark after)"
"$PM" run build --quiet --linux 0.1 --kconfig defconfig --jobs 1 --label def 2>"$TMP/err"
is "$?" 0 "another config target"
is "$(grep -c 'unpacking' "$TMP/err")" 0 "  not unpacked again"
is "$(grep -c 'configuring 0\.1\.7 (make defconfig)' "$TMP/err")" 1 "  configured once more, in a directory of its own"
is "$(cat "$PRESSMARK_CACHE/linux/$key/defconfig/.config")" "# defconfig" "  with its own .config"
# A newer tarball is unpacked again, and the older one's cache goes; what a
# killed pressmark left half made goes, what a live one is making stays.
touch -d '2020-01-01' "$src/linux-source-0.1.tar.xz"
newkey=0.1-$(stat -c %s "$src/linux-source-0.1.tar.xz")-$(stat -c %Y "$src/linux-source-0.1.tar.xz")
mkdir -p "$PRESSMARK_CACHE/linux/$newkey/src.tmp999999/init" "$PRESSMARK_CACHE/linux/$newkey/tinyconfig.tmp$$"
"$PM" run build --quiet --linux 0.1 --kconfig tinyconfig --jobs 1 --label newer 2>"$TMP/err"
is "$(q "select status from run where label = 'newer'")" ok "a tarball with another time builds"
is "$(grep -c 'unpacking' "$TMP/err")" 1 "  unpacked again"
like "$(cat "$TMP/err")" "removed .*/linux/$key, the cache of another linux-source-0\.1 tarball" "  the older one's cache removed, saying so"
is "$(ls "$PRESSMARK_CACHE/linux")" "$newkey" "  only the newer one's is left"
ok "  the half-made one of a gone pressmark is removed" test ! -e "$PRESSMARK_CACHE/linux/$newkey/src.tmp999999"
ok "  a live one's is not" test -d "$PRESSMARK_CACHE/linux/$newkey/tinyconfig.tmp$$"
rmdir "$PRESSMARK_CACHE/linux/$newkey/tinyconfig.tmp$$"

# Hostile members: each tarball refused whole, nothing of it kept, nothing
# written outside the cache.
mkdir "$TMP/victim" && echo mine > "$TMP/victim/file"
hostile() {  # hostile DESCRIPTION REGEX SPEC...
    local desc=$1 re=$2; shift 2
    rm -f "$src/linux-source-0.1.tar.xz" && tarball linux-source-0.1.tar.xz "$@"
    local before; before=$(db_sum)
    "$PM" run build --quiet --linux 0.1 --kconfig tinyconfig --jobs 1 --label hostile >"$TMP/out" 2>"$TMP/err"
    is "$?" 2 "$desc: refused, exit 2"
    like "$(tail -1 "$TMP/err")" "^pressmark: build: $src/linux-source-0\.1\.tar\.xz: cannot unpack it: $re" "  saying why"
    is "$(db_sum)" "$before" "  no run stored"
    local k; k=0.1-$(stat -c %s "$src/linux-source-0.1.tar.xz")-$(stat -c %Y "$src/linux-source-0.1.tar.xz")
    is "$(ls -A "$PRESSMARK_CACHE/linux/$k" 2>&1)" "" "  nothing of it kept in the cache"
    is "$(ls -A "$TMP/victim")" "file" "  nothing written in the victim's directory"
    is "$(cat "$TMP/victim/file")" "mine" "  its file untouched"
}
hostile "a member outside the tree" "a member outside linux-source-0\.1/" "file:escape"
hostile "an absolute member" "a member outside linux-source-0\.1/" "file:$TMP/victim/abs"
hostile "a member climbing out with .." "a member outside linux-source-0\.1/, or naming it with an empty, '\.' or '\.\.' part" \
    "file:linux-source-0.1/../../../../victim/dots"
hostile "a member written through a link" "Cannot extract through symlink" \
    "link:linux-source-0.1/out:$TMP/victim" "file:linux-source-0.1/out/through"
hostile "a hard link to a file outside" "a member outside linux-source-0\.1/" "hard:linux-source-0.1/h:$TMP/victim/file"
hostile "a hard link climbing out with .." "a member outside linux-source-0\.1/, or naming it with an empty, '\.' or '\.\.' part" \
    "hard:linux-source-0.1/h:linux-source-0.1/../../../../victim/file"
is "$(stat -c %h "$TMP/victim/file")" 1 "  the victim's file has no new link"
hostile "a link in the tree's own place (top/.)" "a member outside linux-source-0\.1/, or naming it with an empty, '\.' or '\.\.' part" \
    "link:linux-source-0.1/.:$TMP/victim"
hostile "a member through top/./" "a member outside linux-source-0\.1/, or naming it with an empty, '\.' or '\.\.' part" \
    "file:linux-source-0.1/./x"
hostile "a member through top//" "a member outside linux-source-0\.1/, or naming it with an empty, '\.' or '\.\.' part" \
    "file:linux-source-0.1//x"
hostile "a FIFO" "a member that is neither a file, a directory nor a symbolic link" "fifo:linux-source-0.1/fifo"
hostile "a device" "a member that is neither a file, a directory nor a symbolic link" "chr:linux-source-0.1/null"
rm -f "$src/linux-source-0.1.tar.xz" && tarball linux-source-0.1.tar.xz "suid:linux-source-0.1/scripts/suid"
rm -rf "$PRESSMARK_CACHE/linux"
(umask 0 && exec "$PM" run build --quiet --linux 0.1 --kconfig tinyconfig --jobs 1 --label suid 2>/dev/null)
is "$?" 0 "a tarball with a set-id member, writable by all, unpacked under umask 0"
is "$(stat -c %a "$PRESSMARK_CACHE"/linux/*/src/scripts/suid)" 755 "  without its set-id bits or anyone's write"

# Interrupted while priming: SIGINT stops make's whole group, the run is
# an interrupted one (130), nothing stored; SIGKILL of pressmark: the
# next invocation kills what the group left (a sub-make, its sleep).
rm -rf "$PRESSMARK_CACHE/linux"
slow() { pgrep -f '[s]low\.mk|[s]low-loop' >/dev/null; }
before_db=$(db_sum)
"$PM" run build --quiet --linux 0.1 --kconfig tinyconfig --jobs 1 --make-arg "SLOW=$TMP/started" --label slow \
    >/dev/null 2>"$TMP/err" &
pid=$!
cleanup_add "kill -KILL $pid 2>/dev/null; pkill -f 'slow\.mk|slow-loop'"
ok "the priming build runs its slow sub-make" wait_for test -e "$TMP/started"
kill -INT $pid; wait $pid
is "$?" 130 "SIGINT while priming: exit 130"
is "$(db_sum)" "$before_db" "  nothing stored"
ok "  make's whole group is gone" wait_for sh -c "$(declare -f slow); ! slow"
rm -f "$TMP/started"
"$PM" run build --quiet --linux 0.1 --kconfig tinyconfig --jobs 1 --make-arg "SLOW=$TMP/started" --label slow \
    >/dev/null 2>&1 &
pid=$!
ok "again, to kill" wait_for test -e "$TMP/started"
kill -KILL $pid; wait $pid 2>/dev/null
ok "  the sub-make outlived pressmark and its make (its own process, same group)" slow
"$PM" list >/dev/null 2>"$TMP/recover"
like "$(cat "$TMP/recover")" "killed [0-9]+ left in its process group" "  the next invocation kills what its group left"
ok "  nothing of it runs" wait_for sh -c "$(declare -f slow); ! slow"

# --cold-shmem: filled in the cap before the timed make, held while it
# runs, gone with the run.
if [ "$(id -u)" -ne 0 ] || ! memcg_hierarchy; then
    skip "--cold-shmem under a cap needs root and a memory cgroup hierarchy"
    done_testing; exit
fi
before=$(machine_state)
holder() { pgrep -f '^/.*pressmark __cold-shmem '; }
# The cgroup's shmem and swap, in bytes: v2's memory.swap.current, v1's
# memory.stat swap (with swap accounting).
charged() {
    local cg=$1 shmem swapped
    shmem=$(awk '$1 == "shmem" { print $2 }' "$CG_ROOT$cg/memory.stat")
    if [ "$CG_VERSION" = 2 ]; then swapped=$(cat "$CG_ROOT$cg/memory.swap.current")
    else swapped=$(awk '$1 == "swap" { print $2 }' "$CG_ROOT$cg/memory.stat"); fi
    echo "$shmem $swapped"
}
cold=(--files 8 --unit-size 400 --headers 1 --jobs 1 --mem-cap 32M --swap 256M --cold-shmem 48M)
"$PM" run build --quiet "${cold[@]}" --label cold 2>"$TMP/cold.err" &
pid=$!
cleanup_add "kill -INT $pid 2>/dev/null; wait $pid 2>/dev/null"
ok "the holder is up" wait_for sh -c "$(declare -f holder); holder >/dev/null"
h=$(holder | head -1)
cg=$(memcg_path "/proc/$h/cgroup")
like "$cg" "^/pressmark/run-[0-9]+(/workload)?$" "  in the run's cgroup ($cg)"
# Filled, its 48M are the cap's: as shmem in memory, or swapped (they do
# not fit in 32M). wait_for: the fill takes its time.
full() { set -- $(charged "$cg"); [ "$(( $1 + $2 ))" -ge $((48 << 20)) ] && [ "$2" -ge $((16 << 20)) ]; }
ok "  its 48M are the cgroup's, 16M or more of them swapped" wait_for full
diag "  shmem and swap: $(charged "$cg")"
wait $pid
is "$?" 0 "the run ends ok"
is "$(q "select status from run where label = 'cold'")" ok "  stored ok"
is "$(metric cold build.cold_shmem_mb)" 48.0 "  build.cold_shmem_mb is what was asked"
ok "  the fill took time" awk "BEGIN { exit !($(metric cold build.cold_shmem_fill_s) > 0) }"
like "$(q "select params from run where label = 'cold'")" " --cold-shmem 48M$" "  --cold-shmem is in its parameters"
is "$(holder)" "" "  the holder is gone"
is "$(machine_state)" "$before" "  the machine is as it was"
# pressmark killed: the holder dies with it, the next invocation removes the rest.
"$PM" run build --quiet "${cold[@]}" --label killed 2>/dev/null &
pid=$!
cleanup_add "kill -KILL $pid 2>/dev/null"
ok "a run to kill holds its cold shmem" wait_for sh -c "$(declare -f holder); holder >/dev/null"
kill -KILL $pid; wait $pid 2>/dev/null
ok "the holder died with pressmark" wait_for sh -c "$(declare -f holder); ! holder >/dev/null"
"$PM" list >/dev/null 2>&1
is "$(machine_state)" "$before" "the next invocation leaves the machine as it was"
done_testing
