#!/usr/bin/python3
"""The lab's artifact store: a job's guest PUTs files here (its results as
a tar archive), pressmark GETs them back, as KernelCI's storage does.

    artifacts.py --root DIR [--bind ADDR] [--port N] [--port-file FILE]
                 [--max-bytes N]

PUT /NAME or /DIR/NAME stores the body under --root; GET and HEAD serve it.
Each path component is [A-Za-z0-9._-]+, not starting with '.', at most two
components: anything else (.., an absolute or %-encoded path, a query) is
refused with 400, before the file system is touched. A body larger than
--max-bytes is refused with 413 (a chunked body's sizes are checked before
anything is read: a negative or over-long one is a 400). Every name is
written once: a PUT to a name that exists (a file, a link, a directory)
is refused with 409 and changes nothing (pressmark publishes images under
digest names and checks first; results get names of their own). A PUT
writes a temporary file beside the target and links it to the target's
name once the whole body is in (link fails when the name exists, so two
PUTs of one name cannot both win), so a reader never sees half a file.
No symbolic link is ever followed: every
directory and file is opened relative to the root's descriptor with
O_NOFOLLOW, and only regular files are served.

The guest of a QEMU user-mode network reaches the host's loopback as
10.0.2.2, so the default bind address is 127.0.0.1: nothing off this
machine reaches the store.
"""
import argparse
import errno
import os
import re
import stat
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMPONENT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")
MAX_DEPTH = 2
CHUNK = 1 << 16
# A chunk's size: 1 to 16 hex digits (no sign, no 0x; 16 digits is 64 bits).
CHUNK_SIZE = re.compile(rb"^[0-9A-Fa-f]{1,16}$")
IDLE_TIMEOUT = 60  # seconds a client may stay silent mid-request

_tmp_counter = 0
_tmp_lock = threading.Lock()


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


def open_dir(root_fd, parts, create):
    """A descriptor of the directory holding parts[-1] (the root's own, or a
    subdirectory one level down), never through a link. The caller closes
    it when it is not root_fd."""
    if len(parts) == 1:
        return root_fd
    name = parts[0]
    if create:
        try:
            os.mkdir(name, 0o755, dir_fd=root_fd)
        except FileExistsError:
            pass
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=root_fd)


class Handler(BaseHTTPRequestHandler):
    server_version = "pressmark-artifacts/1"
    protocol_version = "HTTP/1.1"
    timeout = IDLE_TIMEOUT

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (self.address_string(), fmt % args))

    def reply(self, code, text=""):
        body = (text + "\n").encode() if text else b""
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
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
            return self.reply(400, "bad path (accepted: /NAME or /DIR/NAME of [A-Za-z0-9._-])")
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

    def body_chunks(self):
        """The request body as chunks, Content-Length or chunked, capped
        at the server's limit (ValueError "too large" past it)."""
        cap = self.server.max_bytes
        te = self.headers.get("Transfer-Encoding", "").lower()
        if te == "chunked":
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
                if total > cap:
                    raise ValueError("too large")
                yield from self.read_exactly(size)
                self.rfile.readline(16)
        elif te:
            raise ValueError("unsupported Transfer-Encoding")
        else:
            length = self.headers.get("Content-Length")
            if length is None or not length.isdigit():
                raise ValueError("Content-Length required")
            if int(length) > cap:
                raise ValueError("too large")
            yield from self.read_exactly(int(length))

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
        global _tmp_counter
        parts = split_path(self.path)
        if parts is None:
            return self.reply(400, "bad path (accepted: /NAME or /DIR/NAME of [A-Za-z0-9._-])")
        # Write-once: refused before its body is read (the link below
        # decides when two PUTs race).
        if self.exists(parts):
            return self.reply(409, "exists (a name is written once)")
        if self.headers.get("Expect", "").lower() == "100-continue":
            length = self.headers.get("Content-Length", "")
            if length.isdigit() and int(length) > self.server.max_bytes:
                return self.reply(413, "larger than %d bytes" % self.server.max_bytes)
            self.send_response_only(100)
            self.end_headers()
        root_fd = self.server.root_fd
        dfd = fd = -1
        tmp = None
        try:
            dfd = open_dir(root_fd, parts, True)
            with _tmp_lock:
                _tmp_counter += 1
                tmp = ".tmp-%d-%d" % (os.getpid(), _tmp_counter)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dfd)
            for buf in self.body_chunks():
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
                return self.reply(409, "exists (a name is written once)")
            self.reply(201)
        except ValueError as exc:
            code = 413 if str(exc) == "too large" else 400
            self.reply(code, "larger than %d bytes" % self.server.max_bytes if code == 413 else str(exc))
        except ConnectionError as exc:
            self.close_connection = True
            self.log_message("PUT %s: %s", self.path, exc)
        except OSError as exc:
            if exc.errno in (errno.ENOTDIR, errno.ELOOP, errno.EISDIR):
                return self.reply(409, "a directory or link is in the way")
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

    def do_POST(self):
        self.reply(405, "PUT, GET and HEAD only")

    do_DELETE = do_PATCH = do_POST


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", required=True, help="the directory the files go to")
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0: a free port")
    ap.add_argument("--port-file", help="where to write the port once listening")
    ap.add_argument("--max-bytes", type=int, default=256 << 20)
    opts = ap.parse_args()

    os.umask(0o022)
    srv = Server((opts.bind, opts.port), Handler)
    srv.root_fd = os.open(opts.root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    srv.max_bytes = opts.max_bytes
    port = srv.server_address[1]
    if opts.port_file:
        tmp = opts.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.rename(tmp, opts.port_file)
    sys.stderr.write("artifacts: serving %s on %s:%d\n" % (opts.root, opts.bind, port))
    sys.stderr.flush()
    srv.serve_forever()


if __name__ == "__main__":
    main()
