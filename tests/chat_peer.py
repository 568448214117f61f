#!/usr/bin/env python3
"""An independent VolanoMark-protocol peer, written from
../shared/volanomark-protocol.md, to check pressmark's chat server and
client from the outside. Not a second implementation of the benchmark:
just enough to send exact frames and look at exact bytes.

  chat_peer.py frames HOST PORT    check the server's replies byte by byte
  chat_peer.py garbage HOST PORT   send an unknown id; the server must close
  chat_peer.py badserver PORTFILE  a server that answers Access with garbage
  chat_peer.py storm HOST PORT N   N connections opened and dropped, some
                                   after half a frame or a huge length; one
                                   slow sender held open meanwhile (loopback,
                                   bounded in count and in time)
"""
import socket, struct, sys, time

def utf(s):
    b = s.encode("utf-8")
    return struct.pack(">H", len(b)) + b

def frame(pid, ptype, body=b""):
    return struct.pack(">Hi", pid, ptype) + body

def access(room):
    strs = [room, "2.13.4", "http://www.volano.com/chat.html", "http://chat.volano.net/vcclient",
            "peer", "http://example.invalid/", "1.3.1", "47.0", "Linux", "6", "x86_64"]
    return frame(1, 1, b"".join(utf(s) for s in strs))

def enter(room, user):
    return frame(206, 1, utf("This is the profile for %s in %s." % (user, room)) + utf(room) + utf(user))

TEXT = "123456789 " * 6

def chat(room, user):
    return frame(203, 1, b"\x00" + struct.pack(">i", 0) + utf(room) + utf(user) + utf(TEXT))

class Conn:
    def __init__(self, host, port):
        self.s = socket.create_connection((host, port), timeout=5)
        self.buf = b""
    def send(self, data):
        self.s.sendall(data)
    def need(self, n):
        while len(self.buf) < n:
            d = self.s.recv(65536)
            if not d:
                raise EOFError("closed")
            self.buf += d
    def take(self, n):
        self.need(n)
        out, self.buf = self.buf[:n], self.buf[n:]
        return out
    def u16(self): return struct.unpack(">H", self.take(2))[0]
    def i32(self): return struct.unpack(">i", self.take(4))[0]
    def utf(self): return self.take(self.u16()).decode("utf-8")
    def head(self):
        return self.u16(), self.i32()

def check(cond, what):
    print(("ok " if cond else "FAIL ") + what)
    return cond

def frames(host, port):
    port = int(port)
    a, b = Conn(host, port), Conn(host, port)
    good = True
    for c, user in ((a, "Mark1"), (b, "Mark2")):
        c.send(access("Room1"))
        pid, ptype = c.head()
        result, n = c.i32(), c.i32()
        rooms = [c.utf() for _ in range(n)]
        nbytes = c.take(1)[0]
        good &= check((pid, ptype, result, nbytes) == (1, 4, 1, 0) and "Room1" in rooms,
                      "Access CONFIRM result 1 with the room list for %s" % user)
        c.send(enter("Room1", user))
        pid, ptype = c.head()
        profile, room, name = c.utf(), c.utf(), c.utf()
        result, rtype, count, n = c.i32(), c.i32(), c.i32(), c.i32()
        members = []
        for _ in range(n):
            members.append(c.utf()); c.utf(); c.utf(); c.utf(); c.utf()
        good &= check((pid, ptype, result, rtype, name) == (206, 4, 1, 1, user) and members[-1] == user,
                      "EnterRoom CONFIRM for %s lists %s" % (user, members))
    # Mark1 saw Mark2 enter: head + address "" + member "false" + linked "false" = 77 bytes.
    raw = a.take(77)
    good &= check(struct.unpack(">Hi", raw[:6]) == (206, 2) and raw.endswith(utf("") + utf("false") + utf("false")),
                  "EnterRoom INDICATION to the member already there is 77 bytes")
    a.send(chat("Room1", "Mark1"))
    raw = b.take(86)
    pid, ptype = struct.unpack(">Hi", raw[:6])
    text_len = struct.unpack(">H", raw[86 - 59 - 2:86 - 59])[0]
    good &= check((pid, ptype, text_len) == (203, 2, 59) and raw.endswith(TEXT.strip().encode()),
                  "Chat INDICATION is 86 bytes carrying the trimmed 59-character text")
    raw = a.take(22)
    good &= check(struct.unpack(">Hi", raw[:6]) == (203, 4) and raw.endswith(utf("") + utf("")),
                  "Chat CONFIRM to the sender is 22 bytes with empty user and text")
    a.s.settimeout(0.5)
    try:
        extra = a.s.recv(1)
        good &= check(False, "the sender got an extra frame: %r" % extra)
    except socket.timeout:
        good &= check(True, "no INDICATION echoed to the sender")
    a.s.settimeout(5)
    a.send(frame(208, 1, utf("Room1") + utf("Mark1")))
    raw = b.take(20)
    good &= check(struct.unpack(">Hi", raw[:6]) == (208, 2), "ExitRoom INDICATION (20 bytes) to the one left")
    a.send(frame(215, 1, utf("") + struct.pack(">i", 0)))
    pid, ptype = a.head()
    filt, n = a.utf(), a.i32()
    names = [a.utf() for _ in range(n)]
    good &= check((pid, ptype) == (215, 4) and "Room1" in names, "RoomList CONFIRM lists Room1")
    a.s.close()
    # Mark1 closed without ExitRoom? It did exit; Mark2 now leaves without one: the server must not close us.
    b.s.close()
    return good

def garbage(host, port):
    c = Conn(host, int(port))
    c.send(struct.pack(">Hi", 4242, 1) + b"junk")
    c.s.settimeout(5)
    try:
        d = c.s.recv(1)
        return check(d == b"", "the server closed the connection after an unknown id")
    except (ConnectionResetError, socket.timeout) as e:
        return check(isinstance(e, ConnectionResetError), "the server closed the connection (%s)" % e)

def storm(host, port, n):
    n = int(n)
    deadline = time.time() + 30
    slow = socket.create_connection((host, int(port)), timeout=5)
    half = access("Room1")
    sent = 0
    for i in range(n):
        if time.time() > deadline:
            break
        s = socket.create_connection((host, int(port)), timeout=5)
        kind = i % 4
        if kind == 1:
            s.sendall(half[: len(half) // 2])          # half a frame, then gone
        elif kind == 2:
            s.sendall(struct.pack(">Hi", 1, 1) + b"\xff\xff")  # a string that claims 64K
        elif kind == 3:
            s.sendall(b"\x00" * 7)                    # an id no packet has
        s.close()
        if i % 10 == 0 and sent < len(half):
            slow.sendall(half[sent:sent + 1])         # the slow one: a byte now and then
            sent += 1
    slow.close()
    print("ok storm of %d connections" % n)
    return True

def badserver(portfile):
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)
    open(portfile, "w").write(str(ls.getsockname()[1]))
    ls.settimeout(20)
    c, _ = ls.accept()
    c.settimeout(5)
    c.recv(4096)
    c.sendall(struct.pack(">Hi", 9999, 4) + b"\x01\x02")   # an id no VolanoMark peer knows
    time.sleep(3)
    return True

if __name__ == "__main__":
    mode = sys.argv[1]
    ok = {"frames": frames, "garbage": garbage, "badserver": badserver, "storm": storm}[mode](*sys.argv[2:])
    sys.exit(0 if ok else 1)
