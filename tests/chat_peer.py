#!/usr/bin/env python3
"""An independent VolanoMark-protocol peer, written from
../shared/volanomark-protocol.md, to check pressmark's chat server and
client from the outside. Not a second implementation of the benchmark:
just enough to send exact frames and look at exact bytes.

  chat_peer.py frames HOST PORT    check the server's replies byte by byte
  chat_peer.py garbage HOST PORT   send an unknown id; the server must close
  chat_peer.py badserver PORTFILE [RELEASE]
                                   a server that answers Access with garbage
                                   and holds the connection until RELEASE exists
  chat_peer.py storm HOST PORT N   N connections opened and dropped, some
                                   after half a frame or a huge length; one
                                   slow sender held open meanwhile (loopback,
                                   bounded in count and in time)
  chat_peer.py relay PORTFILE OUT  a one-room server that checks every frame
                                   a client sends byte by byte and relays each
                                   chat after a known delay (20-200 ms), writing
                                   to OUT each delivery's latency as it measured
                                   it: from the send time in the message's text
                                   to the moment it handed the frame to the
                                   kernel for that receiver
"""
import heapq, os, socket, struct, sys, threading, time

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
    made = 0
    for i in range(n):
        if time.time() > deadline:
            break
        s = socket.create_connection((host, int(port)), timeout=5)
        made += 1
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
    # The deadline cuts a storm short on a slow machine: say how far it got,
    # never "ok" for connections it did not make.
    if made < n:
        print("storm cut short at %d of %d connections" % (made, n))
        return False
    print("ok storm of %d connections" % made)
    return True

def badserver(portfile, release=None):
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)
    open(portfile, "w").write(str(ls.getsockname()[1]))
    ls.settimeout(300)          # bounded, as the test's guard is (timeout 300)
    c, _ = ls.accept()
    c.settimeout(300)
    c.recv(4096)
    c.sendall(struct.pack(">Hi", 9999, 4) + b"\x01\x02")   # an id no VolanoMark peer knows
    # The connection is held open until the test says (RELEASE exists, at
    # most 300 s): a client that waited for the close, not the frame, would
    # still be running when this ends.
    deadline = time.time() + 300
    while release and not os.path.exists(release) and time.time() < deadline:
        time.sleep(0.05)
    return True

MARK40 = TEXT[:40]

def stamped(text):
    """The send time pressmark's client writes into Mark's text, or None."""
    if len(text) != 60 or text[:40] != MARK40 or text[40] != "@" or text[59] != " " or not text[41:59].isdigit():
        return None
    return int(text[41:59])

def relay(portfile, outfile):
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(64)
    open(portfile, "w").write(str(ls.getsockname()[1]))
    ls.settimeout(30)
    lock = threading.Condition()
    queue, members, lat, bad = [], [], [], []
    state = {"seq": 0, "open": 0, "seen": 0, "chats": 0, "stop": False}
    LATER = 0.25          # exits and room lists wait until every delayed chat is out

    def at(due, conn, data, stamp=None):
        with lock:
            state["seq"] += 1
            heapq.heappush(queue, (due, state["seq"], conn, data, stamp))
            lock.notify()

    def sender():
        while True:
            with lock:
                while not queue and not state["stop"]:
                    lock.wait()
                if not queue:
                    return
                due, _, conn, data, stamp = queue[0]
                now = time.monotonic()
                if due > now:
                    lock.wait(due - now)
                    continue
                heapq.heappop(queue)
            t = time.monotonic_ns()
            try:
                conn.sendall(data)
            except OSError:
                continue
            if stamp is not None:
                lat.append(t - stamp)

    def bytes_ok(cond, what):
        if not cond:
            bad.append(what)

    def serve(c):
        room_user = None
        try:
            while True:
                pid, ptype = c.head()
                if (pid, ptype) == (1, 1):
                    strs = [c.utf() for _ in range(11)]
                    bytes_ok(strs[0] == "Room1" and strs[1:4] == ["2.13.4", "http://www.volano.com/chat.html",
                             "http://chat.volano.net/vcclient"], "Access request %r" % strs[:4])
                    at(time.monotonic(), c.s, frame(1, 4, struct.pack(">ii", 1, 1) + utf("Room1") + b"\x00"))
                elif (pid, ptype) == (206, 1):
                    profile, room, user = c.utf(), c.utf(), c.utf()
                    bytes_ok(profile == "This is the profile for %s in %s." % (user, room), "EnterRoom %r" % profile)
                    with lock:
                        others = [m for m in members]
                        members.append((c.s, user, profile))
                        everyone = list(members)
                    room_user = (room, user)
                    now = time.monotonic()
                    ind = frame(206, 2, utf(profile) + utf(room) + utf(user) + utf("") + utf("false") + utf("false"))
                    for m in others:
                        at(now, m[0], ind)
                    body = utf(profile) + utf(room) + utf(user) + struct.pack(">iiii", 1, 1, len(everyone), len(everyone))
                    for s_, u, p in everyone:
                        body += utf(u) + utf(p) + utf("") + utf("false") + utf("false")
                    at(now, c.s, frame(206, 4, body))
                elif (pid, ptype) == (203, 1):
                    question, rid = c.take(1), c.i32()
                    room, user, text = c.utf(), c.utf(), c.utf()
                    stamp = stamped(text)
                    bytes_ok(question == b"\x00" and rid == 0 and (room, user) == room_user and stamp is not None,
                             "Chat request %r %r %r" % (room, user, text))
                    with lock:
                        state["chats"] += 1
                        n = state["chats"]
                        others = [m for m in members if m[0] is not c.s]
                    delay = (20 + (n * 53) % 181) / 1000.0
                    now = time.monotonic()
                    ind = frame(203, 2, b"\x00" + struct.pack(">i", 0) + utf(room) + utf(user) + utf(text.strip()))
                    for m in others:
                        at(now + delay, m[0], ind, stamp)
                    at(now, c.s, frame(203, 4, b"\x00" + struct.pack(">i", 0) + utf(room) + utf("") + utf("")))
                elif (pid, ptype) == (208, 1):
                    room, user = c.utf(), c.utf()
                    bytes_ok((room, user) == room_user, "ExitRoom %r %r" % (room, user))
                    with lock:
                        members[:] = [m for m in members if m[0] is not c.s]
                        others = list(members)
                    later = time.monotonic() + LATER
                    for m in others:
                        at(later, m[0], frame(208, 2, utf(room) + utf(user)))
                elif (pid, ptype) == (215, 1):
                    filt, n = c.utf(), c.i32()
                    bytes_ok((filt, n) == ("", 0), "RoomList request %r %d" % (filt, n))
                    at(time.monotonic() + LATER, c.s, frame(215, 4, utf("") + struct.pack(">i", 1) + utf("Room1")))
                else:
                    bytes_ok(False, "unexpected frame %d/%d" % (pid, ptype))
                    return
        except (EOFError, OSError):
            pass
        finally:
            with lock:
                state["open"] -= 1
                lock.notify_all()

    threading.Thread(target=sender, daemon=True).start()
    threads = []
    ls.settimeout(0.2)
    deadline = time.time() + 60
    while time.time() < deadline:
        with lock:
            if state["seen"] and state["open"] == 0:
                break
        try:
            s, _ = ls.accept()
        except socket.timeout:
            continue
        s.settimeout(None)
        # As pressmark's server: without it Nagle holds a small frame until
        # the client's delayed ACK (up to 40 ms) after the time taken here.
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        c = Conn.__new__(Conn)
        c.s, c.buf = s, b""
        with lock:
            state["seen"] += 1
            state["open"] += 1
        t = threading.Thread(target=serve, args=(c,), daemon=True)
        t.start()
        threads.append(t)
    with lock:
        state["stop"] = True
        lock.notify_all()
    with open(outfile, "w") as f:
        for v in lat:
            f.write("%d\n" % v)
    for b in bad[:5]:
        print("FAIL " + b)
    print("%s relay: %d connections, %d chats checked byte by byte, %d deliveries timed"
          % ("ok" if not bad else "FAIL", state["seen"], state["chats"], len(lat)))
    return not bad

if __name__ == "__main__":
    mode = sys.argv[1]
    ok = {"frames": frames, "garbage": garbage, "badserver": badserver, "storm": storm,
          "relay": relay}[mode](*sys.argv[2:])
    sys.exit(0 if ok else 1)
