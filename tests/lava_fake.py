#!/usr/bin/python3
# tests/unit_lava.c's server on loopback: LAVA 2023.01's REST answers under
# /lava/api/v0.2/ (the fields and codes of lava_rest_app/v02) and an
# artifact store under /store/ that takes PUT and answers GET, its files in
# DIR/store. Each request is logged to DIR/requests.log as "METHOD PATH
# AUTHORIZATION"; the port is written to DIR/port once it listens.
# lava_fake.py DIR
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import yaml

DIR = sys.argv[1]
STORE = os.path.join(DIR, "store")
TOKEN = "Token goodtoken"
API = "/lava/api/v0.2/"
# Devices by type, as DeviceSerializer writes their health.
DEVICES = {"qemu": ["Retired", "Retired", "Retired", "Good"], "retired": ["Retired", "Retired"]}
JOBS = {
    42: {"id": 42, "state": "Running", "health": "Unknown", "actual_device": "qemu-01", "failure_comment": None},
    43: {"id": 43, "state": "Finished", "health": "Incomplete", "actual_device": "qemu-02",
         "failure_comment": "kernel panic\x1b[2J\nline two\u0085\u00e9" + "\u00e9" * 3000},
    44: {"id": 44, "state": "Weird", "health": "Unknown", "actual_device": None, "failure_comment": None},
    # Ended with failure_comment null (lava-run did not crash): why is in
    # the metadata of the test case "job" of the suite "lava" (below).
    47: {"id": 47, "state": "Finished", "health": "Incomplete", "actual_device": "qemu-03", "failure_comment": None},
    48: {"id": 48, "state": "Finished", "health": "Canceled", "actual_device": "qemu-03", "failure_comment": None},
    49: {"id": 49, "state": "Finished", "health": "Incomplete", "actual_device": "qemu-03", "failure_comment": None},
    50: {"id": 50, "state": "Finished", "health": "Incomplete", "actual_device": None, "failure_comment": None},
    51: {"id": 51, "state": "Finished", "health": "Complete", "actual_device": "qemu-03", "failure_comment": None},
    52: {"id": 52, "state": "Finished", "health": "Incomplete", "actual_device": "qemu-01", "failure_comment": None},
    53: {"id": 53, "state": "Finished", "health": "Incomplete", "actual_device": "qemu-01", "failure_comment": None},
    54: {"id": 54, "state": "Finished", "health": "Incomplete", "actual_device": "qemu-01", "failure_comment": None},
}

# A kernel panic's lines as LAVA 2023.01 stored them (job 4 of a lab here):
# a double-quoted scalar over several lines, with escapes.
PANIC_META = 'case: job\ndefinition: lava\nerror_msg: "[    2.653764] Kernel panic - not syncing: Fatal exception in interrupt\\r\\r\\n[\n  \\   4.441426] Shutting down cpus with NMI\\r\\r\\n[    4.442805] Kernel Offset: 0x1a00000\n  from 0xffffffff81000000 (relocation range: 0xffffffff80000000-0xffffffffbfffffff)\\r\\r\\n[\n  \\   4.460673] ---[ end Kernel panic - not syncing: Fatal exception in interrupt\n  ]---"\nerror_type: Job\nresult: fail\n'



def job_case(msg, kind):
    """The lava suite's "job" test case's metadata as LAVA writes it
    (yaml.dump of a mapping, its keys sorted; what is not printable
    escaped in a double-quoted scalar)."""
    return yaml.safe_dump({"case": "job", "definition": "lava", "error_msg": msg, "error_type": kind,
                           "result": "fail"}, default_flow_style=False)


# Each job's test cases, as (suite name, the TestCase's fields), in the
# order LAVA lists them: other cases first, so that an answer not filtered
# by name and suite would give the wrong one. Job 50 has no "job" case of
# the suite lava (one of another suite's); job 51 ended Complete, its
# cases never asked.
CASES = {
    47: [("lava", {"name": "login-action", "metadata": "case: login-action\ndefinition: lava\n"
                   "error_msg: not the job's case\nerror_type: Test\nresult: fail\n"}),
         ("lava", {"name": "job", "metadata": job_case("login-action timed out after 118 seconds", "Job")})],
    48: [("lava", {"name": "job", "metadata": job_case("The job was canceled", "Canceled")})],
    49: [("lava", {"name": "job", "metadata": job_case("auto-login-action: \x1b[31mkernel\tpanic\x1b[0m\r\x7f\u0085end",
                                                       "Bug")})],
    50: [("0_pressmark", {"name": "job", "metadata": job_case("not the lava suite's case", "Test")}),
         ("lava", {"name": "login-action", "metadata": "case: login-action\nresult: fail\n"})],
    51: [("lava", {"name": "job", "metadata": "case: job\ndefinition: lava\nresult: pass\n"})],
    52: [("lava", {"name": "job", "metadata": PANIC_META})],
    # Not LAVA's YAML: a raw ESC (YAML allows none), an alias.
    53: [("lava", {"name": "job", "metadata": "case: job\nerror_msg: \x1b[2Jpwned\nerror_type: Job\n"})],
    54: [("lava", {"name": "job", "metadata": "case: job\nerror_msg: *x\n"})],
}


def store_name(name):
    """A name the store keeps: one plain name, or one under pressmark/
    (where pressmark publishes a job's images and its guest's results)."""
    base = name[len("pressmark/"):] if name.startswith("pressmark/") else name
    return base != "" and "/" not in base and not base.startswith(".")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, code, body, ctype="application/json"):
        if not isinstance(body, bytes):
            body = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_request_line(self):
        with open(os.path.join(DIR, "requests.log"), "a") as f:
            f.write("%s %s %s\n" % (self.command, self.path, self.headers.get("Authorization", "-")))

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def do_PUT(self):
        self.log_request_line()
        data = self.body()
        name = self.path[len("/store/"):]
        if not self.path.startswith("/store/") or not store_name(name):
            return self.answer(403, b"forbidden\n", "text/plain")
        with open(os.path.join(STORE, name), "wb") as f:
            f.write(data)
        self.answer(201, b"", "text/plain")

    def do_GET(self):
        self.log_request_line()
        url = urlsplit(self.path)
        if url.path.startswith("/store/"):
            return self.store_get(url.path[len("/store/"):])
        if url.path.startswith(API):
            return self.lava_get(url.path[len(API):], parse_qs(url.query))
        self.answer(404, b"no such page\n", "text/plain")

    def store_get(self, name):
        if name == "broken":
            return self.answer(500, b"<html>Internal Server Error</html>", "text/html")
        path = os.path.join(STORE, name)
        if not store_name(name) or not os.path.isfile(path):
            return self.answer(404, b"no such artifact here; " * 8, "text/plain")
        with open(path, "rb") as f:
            self.answer(200, f.read(), "application/octet-stream")

    def lava_get(self, path, query):
        parts = path.strip("/").split("/")
        if path == "system/version/":
            return self.answer(200, {"version": "2023.01"})
        if parts[0] == "devicetypes" and len(parts) == 2:
            if parts[1] in DEVICES:
                return self.answer(200, {"name": parts[1], "display": True})
            return self.answer(404, {"detail": "Not found."})
        if path == "devices/":
            return self.devices(query)
        if parts[0] == "jobs" and len(parts) >= 2 and parts[1].isdigit():
            return self.job(int(parts[1]), parts[2:], query)
        self.answer(404, {"detail": "Not found."})

    def devices(self, query):
        # LimitOffsetPagination, its page capped at 2 whatever the limit asked.
        health = DEVICES.get(query["device_type"][0], [])
        offset, limit = int(query.get("offset", ["0"])[0]), min(int(query.get("limit", ["50"])[0]), 2)
        page = health[offset:offset + limit]
        nxt = "http://elsewhere/api/v0.2/devices/?offset=%d" % (offset + limit) if offset + limit < len(health) else None
        self.answer(200, {"count": len(health), "next": nxt, "previous": None,
                          "results": [{"hostname": "d%d" % (offset + i), "health": h} for i, h in enumerate(page)]})

    def job(self, job_id, rest, query):
        if rest == ["tests"]:
            return self.tests(job_id, query)
        if job_id == 45:
            return self.answer(200, {"id": 45, "pad": "x" * (5 << 20)})
        if job_id == 46:
            return self.answer(500, b"<html><body>Server Error (500)</body></html>", "text/html")
        if job_id in JOBS and not rest:
            return self.answer(200, JOBS[job_id])
        self.answer(404, {"detail": "Not found."})

    def tests(self, job_id, query):
        # TestCaseViewSet under jobs/ID/tests/, filtered by django-filter's
        # name and suite__name, a LimitOffsetPagination page.
        if job_id not in JOBS:
            return self.answer(404, {"detail": "Not found."})
        found = []
        for i, (suite, case) in enumerate(CASES.get(job_id, [])):
            if query.get("name", [case["name"]])[0] == case["name"] and query.get("suite__name", [suite])[0] == suite:
                found.append(dict(case, id=1000 * job_id + i, suite=2 * job_id + (suite == "lava"),
                                  result="pass" if "result: pass" in case["metadata"] else "fail",
                                  units="", measurement=None, logged="2023-01-01T00:00:00Z"))
        self.answer(200, {"count": len(found), "next": None, "previous": None, "results": found})

    def do_POST(self):
        self.log_request_line()
        if self.path != API + "jobs/":
            return self.answer(404, {"detail": "Not found."})
        if self.headers.get("Authorization") != TOKEN:
            return self.answer(401, {"detail": "Invalid token."})
        if self.headers.get("Content-Type") != "application/json":
            return self.answer(415, {"detail": "Unsupported media type."})
        definition = json.loads(self.body())["definition"]
        try:
            yaml.safe_load(definition)
        except yaml.YAMLError as exc:
            return self.answer(400, {"message": "Problem with submitted job data: %s\x1b[31m" % exc})
        with open(os.path.join(DIR, "submitted.yaml"), "w") as f:
            f.write(definition)
        self.answer(201, {"message": "job(s) successfully submitted", "job_ids": [42]})


class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A client that hangs up on purpose (an answer over its limit) is
        # no error; anything else is shown.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


def main():
    os.makedirs(os.path.join(STORE, "pressmark"), exist_ok=True)
    server = Server(("127.0.0.1", 0), Handler)
    with open(os.path.join(DIR, "port.tmp"), "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
    server.serve_forever()


main()
