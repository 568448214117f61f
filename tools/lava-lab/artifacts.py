#!/usr/bin/python3
"""The lab's artifact store: a job's guest PUTs files here (its results as
a tar archive), pressmark GETs them back, as KernelCI's storage does.

    artifacts.py --root DIR --token-file FILE [--user USER]
                 [--guest-token-file FILE --guest-names GLOB...]
                 [--bind ADDR] [--port N] [--port-file FILE]
                 [--max-bytes N] [--max-total-bytes N]

PUT /NAME or /DIR/NAME stores the body under --root; GET and HEAD serve it.
Each path component is [A-Za-z0-9._-]+, not starting with '.', at most two
components: anything else (.., an absolute or %-encoded path, a query) is
refused with 400, before the file system is touched.

Who may write. A PUT carries "Authorization: Bearer TOKEN": the token of
--token-file writes any name (pressmark publishing a job's images and job
archive), the token of --guest-token-file only the names one of the
--guest-names globs matches (a job's guest putting its results, which
cannot so replace an image). A PUT with no token or another one is refused
with 401, a guest's token outside its names with 403, before its body is
read and before the store says whether the name exists. Tokens are
compared in constant time, as their SHA-256 digests (so not even a
token's length leaks). GET and HEAD need none: LAVA's dispatcher downloads
a job's images by their URL alone, and pressmark names results with 96
random bits. A token file is a regular file of the user starting the
store, not a link, readable by its owner only.

Who it runs as. Started as root, it reads the token files, binds its
socket, opens --root and writes --port-file, then becomes --user (its
supplementary groups dropped, the saved ids too) before it reads any
request. It refuses to serve as root, and --root must be --user's and
writable by it only: a process of that user can fill or change the store,
nothing else.

How much. A body over --max-bytes is refused with 413 (a chunked body's
sizes are checked before anything is read: a negative or over-long one is
a 400); a PUT that would take the store past --max-total-bytes is refused
with 507. Every file counts its size and 4 KiB, every directory 4 KiB,
what is there at start included; a sized body is reserved whole before
its first byte is read, a chunked one chunk by chunk. A refused or broken
PUT leaves nothing: its temporary file is removed and its bytes given back.

Every name is written once: a PUT to a name that exists (a file, a link,
a directory) is refused with 409 and changes nothing (pressmark publishes
images under digest names and checks first; results get names of their
own). A PUT writes a temporary file beside the target and links it to the
target's name once the whole body is in (link fails when the name exists,
so two PUTs of one name cannot both win), so a reader never sees half a
file; the temporary files a killed store left are removed when it starts.
No symbolic link is ever followed: every directory and file is opened
relative to the root's descriptor with O_NOFOLLOW, and only regular files
are served.

The guest of a QEMU user-mode network reaches the host's loopback as
10.0.2.2, so the default bind address is 127.0.0.1: nothing off this
machine reaches the store.
"""
import argparse
import errno
import hashlib
import hmac
import os
import pwd
import re
import stat
import sys
import threading
from fnmatch import fnmatchcase
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMPONENT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")
MAX_DEPTH = 2
CHUNK = 1 << 16
# A chunk's size: 1 to 16 hex digits (no sign, no 0x; 16 digits is 64 bits).
CHUNK_SIZE = re.compile(rb"^[0-9A-Fa-f]{1,16}$")
IDLE_TIMEOUT = 60  # seconds a client may stay silent mid-request
# What a file or directory costs besides its bytes: a block, so that many
# empty files fill the cap too.
ENTRY_COST = 4096
TMP_PREFIX = ".tmp-"
# A bearer token (RFC 6750's token68, at least 16 characters).
TOKEN = re.compile(r"^[A-Za-z0-9._~+/-]{16,512}=*$")
BAD_PATH = "bad path (accepted: /NAME or /DIR/NAME of [A-Za-z0-9._-])"

_tmp_counter = 0
_tmp_lock = threading.Lock()


def die(msg):
    sys.stderr.write("artifacts.py: %s\n" % msg)
    sys.exit(2)


def split_path(raw):
    """The components of a request path, or None when it is not one the
    store accepts."""
    if "?" in raw or "#" in raw or "%" in raw or not raw.startswith("/"):
        return None
    parts = raw[1:].split("/")
    if not 1 <= len(parts) <= MAX_DEPTH:
        return None
    for p in parts:
        if not COMPONENT.match(p) or len(p) > 255:
            return None
    return parts


class Quota:
    """The store's bytes against its cap, reserved before they are written."""

    def __init__(self, cap, used):
        self.cap, self.used = cap, used
        self.lock = threading.Lock()

    def take(self, n, force=False):
        with self.lock:
            if not force and self.used + n > self.cap:
                return False
            self.used += n
            return True

    def give(self, n):
        with self.lock:
            self.used -= n


class StoreFull(Exception):
    pass


class Tokens:
    """Who may PUT which name (see the module's text)."""

    def __init__(self, token, guest, guest_names):
        self.token = hashlib.sha256(token.encode()).digest()
        self.guest = hashlib.sha256(guest.encode()).digest() if guest else None
        self.guest_names = guest_names

    def refusal(self, header, name):
        """None when the Authorization header lets name be written, else
        (status, why)."""
        given = b""
        if header and header[:7].lower() == "bearer ":
            given = header[7:].strip().encode("utf-8", "replace")
        digest = hashlib.sha256(given).digest()
        # Both compared whatever the first gives: the time says nothing.
        is_main = hmac.compare_digest(digest, self.token)
        is_guest = self.guest is not None and hmac.compare_digest(digest, self.guest)
        if is_main:
            return None
        if is_guest:
            if any(fnmatchcase(name, g) for g in self.guest_names):
                return None
            return 403, "the guest's token writes only %s" % " ".join(self.guest_names)
        return 401, "a PUT needs the store's token (Authorization: Bearer TOKEN)"


def open_dir(root_fd, parts, create, quota=None):
    """A descriptor of the directory holding parts[-1] (the root's own, or a
    subdirectory one level down), never through a link. The caller closes
    it when it is not root_fd. A directory made is charged to quota (its
    PUT has reserved the file's bytes already: at most a block over)."""
    if len(parts) == 1:
        return root_fd
    name = parts[0]
    if create:
        try:
            os.mkdir(name, 0o755, dir_fd=root_fd)
            quota.take(ENTRY_COST, force=True)
        except FileExistsError:
            pass
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=root_fd)


def scan(root_fd):
    """The bytes the store holds (as Quota counts them), removing the
    temporary files of a store that was killed mid-PUT."""
    used = 0
    dirs = [(root_fd, 0)]
    while dirs:
        fd, depth = dirs.pop()
        try:
            for e in os.scandir(fd):
                st = e.stat(follow_symlinks=False)
                if e.name.startswith(TMP_PREFIX) and stat.S_ISREG(st.st_mode):
                    os.unlink(e.name, dir_fd=fd)
                    continue
                used += ENTRY_COST + (st.st_size if stat.S_ISREG(st.st_mode) else 0)
                if stat.S_ISDIR(st.st_mode) and depth + 1 < MAX_DEPTH:
                    dirs.append((os.open(e.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                                         dir_fd=fd), depth + 1))
        finally:
            if fd != root_fd:
                os.close(fd)
    return used


class Handler(BaseHTTPRequestHandler):
    server_version = "pressmark-artifacts/1"
    protocol_version = "HTTP/1.1"
    timeout = IDLE_TIMEOUT

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (self.address_string(), fmt % args))

    def handle_expect_100(self):
        # Not here, before anything is checked: do_PUT answers 100 once
        # the token, the name and the sizes are, so a refused body is
        # never sent.
        return True

    def reply(self, code, text="", headers=()):
        body = (text + "\n").encode() if text else b""
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        if code >= 400:
            # The body of a refused PUT may still be on the way: close.
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    # GET and HEAD: a regular file under the root, or 404.
    def do_GET(self):
        parts = split_path(self.path)
        if parts is None:
            return self.reply(400, BAD_PATH)
        root_fd = self.server.root_fd
        dfd = fd = -1
        try:
            dfd = open_dir(root_fd, parts, False)
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=dfd)
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return self.reply(404, "not found")
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(st.st_size))
            self.end_headers()
            if self.command == "HEAD":
                return
            left = st.st_size
            while left > 0:
                buf = os.read(fd, min(CHUNK, left))
                if not buf:
                    break
                self.wfile.write(buf)
                left -= len(buf)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                return self.reply(404, "not found")
            return self.reply(500, "cannot read: %s" % exc.strerror)
        finally:
            if fd >= 0:
                os.close(fd)
            if dfd >= 0 and dfd != root_fd:
                os.close(dfd)

    do_HEAD = do_GET

    def body_length(self):
        """The body's length, None when it comes chunked (ValueError for a
        request that gives neither, or "too large" past the cap)."""
        te = self.headers.get("Transfer-Encoding", "").lower()
        if te == "chunked":
            return None
        if te:
            raise ValueError("unsupported Transfer-Encoding")
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            raise ValueError("Content-Length required")
        if int(length) > self.server.max_bytes:
            raise ValueError("too large")
        return int(length)

    def body_chunks(self, length, reserve):
        """The request body as pieces: length bytes, or chunked when None,
        each chunk reserved first (StoreFull when the store has no room)."""
        if length is not None:
            yield from self.read_exactly(length)
            return
        total = 0
        while True:
            line = self.rfile.readline(1024)
            field = line.split(b";")[0].strip()
            # int(b, 16) alone takes "-1" (then read(-1) would buffer
            # the rest of the stream whatever the cap), "+1", "0x1".
            if not CHUNK_SIZE.match(field):
                raise ValueError("bad chunk size")
            size = int(field, 16)
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass
                return
            total += size
            if total > self.server.max_bytes:
                raise ValueError("too large")
            reserve(size)
            yield from self.read_exactly(size)
            self.rfile.readline(16)

    def read_exactly(self, left):
        """left bytes of the body, in pieces; a body cut short is an error."""
        while left:
            buf = self.rfile.read(min(CHUNK, left))
            if not buf:
                raise ConnectionError("body cut short")
            left -= len(buf)
            yield buf

    def exists(self, parts):
        """Whether parts names anything (not following a link)."""
        dfd = -1
        try:
            dfd = open_dir(self.server.root_fd, parts, False)
            os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False)
            return True
        except FileNotFoundError:
            return False
        except OSError as exc:
            # A link or file where the directory should be: the PUT fails
            # later with 409 anyway.
            return exc.errno in (errno.ENOTDIR, errno.ELOOP)
        finally:
            if dfd >= 0 and dfd != self.server.root_fd:
                os.close(dfd)

    def do_PUT(self):
        parts = split_path(self.path)
        if parts is None:
            return self.reply(400, BAD_PATH)
        refused = self.server.tokens.refusal(self.headers.get("Authorization"), "/".join(parts))
        if refused:
            code, why = refused
            return self.reply(code, why, [("WWW-Authenticate", 'Bearer realm="artifacts"')] if code == 401 else ())
        # Write-once: refused before its body is read (the link below
        # decides when two PUTs race).
        if self.exists(parts):
            return self.reply(409, "exists (a name is written once)")
        try:
            length = self.body_length()
        except ValueError as exc:
            return self.refuse_body(exc)
        quota = self.server.quota
        held = [0]

        def reserve(n):
            if not quota.take(n):
                raise StoreFull()
            held[0] += n

        try:
            reserve(ENTRY_COST + (length or 0))
            if self.headers.get("Expect", "").lower() == "100-continue":
                self.send_response_only(100)
                self.end_headers()
            if self.store(parts, length, reserve):
                held[0] = 0
        except StoreFull:
            self.reply(507, "the store is full (its cap is %d bytes)" % quota.cap)
        finally:
            quota.give(held[0])

    def refuse_body(self, exc):
        if str(exc) == "too large":
            return self.reply(413, "larger than %d bytes" % self.server.max_bytes)
        return self.reply(400, str(exc))

    def store(self, parts, length, reserve):
        """The body into a new temporary file linked to parts' name; True
        when it is there, else the refusal answered and nothing left.
        StoreFull passes up, the temporary file removed."""
        global _tmp_counter
        root_fd = self.server.root_fd
        dfd = fd = -1
        tmp = None
        try:
            dfd = open_dir(root_fd, parts, True, self.server.quota)
            with _tmp_lock:
                _tmp_counter += 1
                tmp = "%s%d-%d" % (TMP_PREFIX, os.getpid(), _tmp_counter)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dfd)
            for buf in self.body_chunks(length, reserve):
                view = memoryview(buf)
                while view:
                    view = view[os.write(fd, view):]
            os.fsync(fd)
            os.close(fd)
            fd = -1
            # link fails with EEXIST when anything has that name (a link
            # included, never followed): nothing is replaced.
            try:
                os.link(tmp, parts[-1], src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)
            except FileExistsError:
                self.reply(409, "exists (a name is written once)")
                return False
            self.reply(201)
            return True
        except ValueError as exc:
            self.refuse_body(exc)
        except ConnectionError as exc:
            self.close_connection = True
            self.log_message("PUT %s: %s", self.path, exc)
        except OSError as exc:
            if exc.errno in (errno.ENOTDIR, errno.ELOOP, errno.EISDIR):
                self.reply(409, "a directory or link is in the way")
            else:
                self.reply(507 if exc.errno == errno.ENOSPC else 500, "cannot store: %s" % exc.strerror)
        finally:
            if fd >= 0:
                os.close(fd)
            if tmp is not None and dfd >= 0:
                try:
                    os.unlink(tmp, dir_fd=dfd)
                except OSError:
                    pass
            if dfd >= 0 and dfd != root_fd:
                os.close(dfd)
        return False

    def do_POST(self):
        self.reply(405, "PUT, GET and HEAD only")

    do_DELETE = do_PATCH = do_POST


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def read_token(opt, path):
    """The token in path: a regular file of this user's, not a link, that
    only its owner can read, holding one token line."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        why = "a symbolic link" if exc.errno == errno.ELOOP else exc.strerror
        die("%s %s: %s (accepted: a file of the token, mode 0600)" % (opt, path, why))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
            die("%s %s: uid %d, mode %o: accepted: a regular file of uid %d that only its owner can read (chmod 600)"
                % (opt, path, st.st_uid, stat.S_IMODE(st.st_mode), os.geteuid()))
        text = os.read(fd, 1024).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    if not TOKEN.match(text):
        die("%s %s: not a token (accepted: one line of 16 to 512 of A-Z a-z 0-9 . _ ~ + / -)" % (opt, path))
    return text


def serving_user(name):
    """The uid and gid to serve as: --user's, or this process's when it is
    not root. Never root's."""
    if name is None:
        if os.geteuid() == 0:
            die("refuses to serve as root (accepted: --user NAME, a user of its own that owns --root)")
        return os.getuid(), os.getgid()
    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        die("--user %s: no such user" % name)
    if pw.pw_uid == 0:
        die("--user %s: uid 0 (accepted: a user that is not root)" % name)
    if os.geteuid() != 0 and pw.pw_uid != os.geteuid():
        die("--user %s: only root can become another user (this is uid %d)" % (name, os.geteuid()))
    return pw.pw_uid, pw.pw_gid


def become(uid, gid):
    """uid and gid for good: real, effective and saved, no other group."""
    if os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (gid, gid, gid):
        die("could not become uid %d, gid %d" % (uid, gid))


def open_root(path, uid):
    """--root's descriptor: a directory (not a link) of uid's that no one
    else can write, opened while the store may still be root (its parents
    may be root's only)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        die("--root %s: %s (accepted: a directory)" % (path, exc.strerror))
    st = os.fstat(fd)
    if st.st_uid != uid or st.st_mode & 0o022:
        die("--root %s: uid %d, mode %o: accepted: a directory of uid %d (the store's user) that no one else can write"
            % (path, st.st_uid, stat.S_IMODE(st.st_mode), uid))
    return fd


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", required=True, help="the directory the files go to (--user's)")
    ap.add_argument("--token-file", required=True, help="the token a PUT of any name carries")
    ap.add_argument("--guest-token-file", help="the token a PUT of a --guest-names name may carry instead")
    ap.add_argument("--guest-names", nargs="+", default=[], metavar="GLOB",
                    help="the names the guest's token writes (pressmark/results-*.tar)")
    ap.add_argument("--user", help="who to serve as, once the socket and files are open (when started as root)")
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0: a free port")
    ap.add_argument("--port-file", help="where to write the port once listening")
    ap.add_argument("--max-bytes", type=int, default=256 << 20, help="the largest body")
    ap.add_argument("--max-total-bytes", type=int, default=4 << 30, help="the store's cap")
    opts = ap.parse_args()
    if opts.max_bytes < 1 or opts.max_total_bytes < ENTRY_COST:
        die("--max-bytes %d, --max-total-bytes %d: accepted: at least 1 and %d"
            % (opts.max_bytes, opts.max_total_bytes, ENTRY_COST))
    if bool(opts.guest_token_file) != bool(opts.guest_names):
        die("--guest-token-file and --guest-names: accepted: both or neither")
    return opts


def write_port_file(path, port):
    """The port, as root: into a new file (a link or a file planted under
    the temporary name is removed, never followed), renamed into place."""
    tmp = path + ".tmp"
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, path)


def main():
    opts = parse_args()
    uid, gid = serving_user(opts.user)
    tokens = Tokens(read_token("--token-file", opts.token_file),
                    read_token("--guest-token-file", opts.guest_token_file) if opts.guest_token_file else None,
                    opts.guest_names)
    os.umask(0o022)
    srv = Server((opts.bind, opts.port), Handler)
    srv.tokens = tokens
    srv.root_fd = open_root(opts.root, uid)
    srv.max_bytes = opts.max_bytes
    port = srv.server_address[1]
    if opts.port_file:
        write_port_file(opts.port_file, port)
    become(uid, gid)
    srv.quota = Quota(opts.max_total_bytes, scan(srv.root_fd))
    sys.stderr.write("artifacts: serving %s on %s:%d as uid %d, %d of %d bytes used\n"
                     % (opts.root, opts.bind, port, uid, srv.quota.used, srv.quota.cap))
    sys.stderr.flush()
    srv.serve_forever()


if __name__ == "__main__":
    main()
