#!/usr/bin/python3
"""A file this user writes in a directory of its own below a directory
that another user owns, with no race that user could win.

    put-conf.py PARENT NAME FILE < TEXT     TEXT as PARENT/NAME/FILE
    put-conf.py --remove PARENT NAME FILE   that file and PARENT/NAME gone

LAVA's server reads a worker's environment only from
/etc/lava-server/dispatcher.d/WORKER/env.yaml, and dispatcher.d is the
lavaserver user's: between a check of the path and a write through it,
that user could rename WORKER and put a link or a directory of its own
there. So nothing here goes by the path twice: PARENT and then NAME are
opened relative to each other's descriptor with O_NOFOLLOW (a link is
refused), NAME's descriptor must be of a directory of this user's that no
one else can write (one of another's is refused: not written), and the
file is written under a temporary name inside it with O_EXCL|O_NOFOLLOW
and renamed onto FILE in the same directory (a link at FILE is replaced,
never written through). Whatever that user renames meanwhile, the bytes
land in this user's own directory. A refusal is one line, exit 2,
nothing written.
"""
import errno
import os
import stat
import sys

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def die(msg):
    sys.stderr.write("put-conf.py: %s\n" % msg)
    sys.exit(2)


def plain(name, what):
    if not name or "/" in name or name in (".", ".."):
        die("%s %r: accepted: one path component" % (what, name))


def open_own_dir(pfd, parent, name, create):
    """A descriptor of parent/name: a directory (not a link) of this
    user's that no one else can write; made when missing and create."""
    path = os.path.join(parent, name)
    if create:
        try:
            os.mkdir(name, 0o755, dir_fd=pfd)
        except FileExistsError:
            pass
    try:
        fd = os.open(name, DIR_FLAGS, dir_fd=pfd)
    except OSError as exc:
        if exc.errno == errno.ENOENT and not create:
            return -1
        why = "a link or not a directory" if exc.errno in (errno.ELOOP, errno.ENOTDIR) else exc.strerror
        die("%s: %s: not written" % (path, why))
    st = os.fstat(fd)
    if st.st_uid != os.geteuid() or st.st_mode & 0o022:
        os.close(fd)
        die("%s: uid %d, mode %o: not written (accepted: a directory of uid %d that no one else can write)"
            % (path, st.st_uid, stat.S_IMODE(st.st_mode), os.geteuid()))
    return fd


def put(dfd, path, name, data):
    tmp = ".%s.tmp-%d" % (name, os.getpid())
    try:
        os.unlink(tmp, dir_fd=dfd)   # a killed run's, in a directory only we write
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dfd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fchmod(fd, 0o644)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except OSError as exc:
        os.unlink(tmp, dir_fd=dfd)
        die("%s/%s: %s: not written" % (path, name, exc.strerror))
    os.fsync(dfd)


def remove(pfd, dfd, parent, name, file):
    try:
        os.unlink(file, dir_fd=dfd)
    except FileNotFoundError:
        pass
    except OSError as exc:
        die("%s/%s/%s: %s" % (parent, name, file, exc.strerror))
    try:
        # By name: what holds the name now may not be the directory
        # checked, but rmdir takes only an empty directory, and no link.
        os.rmdir(name, dir_fd=pfd)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            die("%s/%s: %s: left there" % (parent, name, exc.strerror))


def main(argv):
    removing = argv[:1] == ["--remove"]
    args = argv[1:] if removing else argv
    if len(args) != 3:
        die("usage: put-conf.py [--remove] PARENT NAME FILE")
    parent, name, file = args
    # The directory and file as the server, another user, must read them.
    os.umask(0o022)
    plain(name, "NAME")
    plain(file, "FILE")
    try:
        pfd = os.open(parent, DIR_FLAGS)
    except OSError as exc:
        why = "a link or not a directory" if exc.errno in (errno.ELOOP, errno.ENOTDIR) else exc.strerror
        die("%s: %s (accepted: a directory, not a link)" % (parent, why))
    data = b"" if removing else sys.stdin.buffer.read()
    dfd = open_own_dir(pfd, parent, name, not removing)
    if removing:
        if dfd >= 0:
            remove(pfd, dfd, parent, name, file)
    else:
        put(dfd, os.path.join(parent, name), file, data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
