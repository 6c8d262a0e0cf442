#!/usr/bin/env python3
"""Hostile traffic against a real `paysheet serve`, on loopback only, with bounded numbers.

    python3 Tools/hostile_traffic.py BIN_DIR [--idle 3000] [--slow 300] [--seconds 25]

Starts the server in a fresh data folder with an open-file limit of 2048 (so its connection cap,
2048 less 256, is far below what the attack opens: a server without caps runs out of files), then, from other loopback addresses (127.0.1.x,
127.0.2.x, ...): thousands of idle connections, byte-a-second heads, slow bodies, and one
address opening far more than its cap. Meanwhile a new client (127.0.0.1) must keep getting
`/health` and a new order, and the sandbox gateway must keep answering. Then a body over the
limit from a client that writes all before reading (urllib, `Connection: close`) must get its 413.
Prints one line per check and `N passed, M failed`; exits non-zero on any failure.
"""
import argparse, errno, json, os, resource, socket, subprocess, sys, tempfile, time, urllib.error, urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("bin")
parser.add_argument("--idle", type=int, default=3600, help="idle connections, 40 per address")
parser.add_argument("--slow", type=int, default=300, help="byte-a-second heads")
parser.add_argument("--seconds", type=float, default=25, help="how long the attack is held")
args = parser.parse_args()

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

passed, failed = 0, 0
def check(ok, what):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if ok: passed += 1
    else: failed += 1

port, gateway = free_port(), free_port()
data = tempfile.mkdtemp(prefix="paysheet-hostile-")
log = open(os.path.join(data, "serve.log"), "w")
def limit_files():
    resource.setrlimit(resource.RLIMIT_NOFILE, (2048, 2048))
server = subprocess.Popen(
    [os.path.join(args.bin, "paysheet"), "serve", "--data", data, "--listen", f"127.0.0.1:{port}", "--no-demo-order"],
    stdout=log, stderr=subprocess.STDOUT, preexec_fn=limit_files,
    env=dict(os.environ, PAYSHEET_SANDBOX_ACQUIRER_LISTEN=f"127.0.0.1:{gateway}", PAYSHEET_HEADER_TIMEOUT="10",
             PAYSHEET_ANONYMOUS_ORDERS_PER_MINUTE="600"))
base = f"http://127.0.0.1:{port}"

def call(url, method="GET", body=None, timeout=5, headers=None):
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    t = time.time()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read(), time.time() - t
    except urllib.error.HTTPError as e:
        return e.code, e.read(), time.time() - t
    except Exception as e:
        return None, str(e).encode(), time.time() - t

try:
    for _ in range(300):
        if call(base + "/health", timeout=1)[0] == 200: break
        time.sleep(0.1)
    check(call(base + "/health")[0] == 200, "the server started")

    opened = []
    def open_from(address, target_port=port):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((address, 0))
        s.setblocking(False)
        code = s.connect_ex(("127.0.0.1", target_port))
        if code not in (0, errno.EINPROGRESS):
            s.close()
            return None
        opened.append(s)
        return s

    t0 = time.time()
    # Idle connections from many addresses, 40 each: more than the server's cap in all.
    for i in range(args.idle):
        open_from(f"127.0.1.{1 + i // 40}")
    # One address far over its cap, on the server and on the sandbox gateway.
    greedy = [open_from("127.0.3.1") for _ in range(400)] + [open_from("127.0.3.1", gateway) for _ in range(400)]
    # Byte-a-second heads and slow bodies.
    slow = [open_from(f"127.0.2.{1 + i // 40}") for i in range(args.slow)]
    head = b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 200 + b"\r\n\r\n"
    bodies = [open_from(f"127.0.4.{1 + i // 40}") for i in range(50)]
    time.sleep(0.5)
    for s in bodies:
        try: s.send(b"POST /v1/orders HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
        except OSError: pass
    print(f"opened {len(opened)} attack connections in {time.time() - t0:.1f} s", flush=True)
    time.sleep(3)  # the server has accepted what it will

    # While they are held: a new client's health and order, and the gateway, every second.
    worst, answered, rounds, sent = 0.0, 0, 0, 0
    deadline = time.time() + args.seconds
    while time.time() < deadline:
        rounds += 1
        for s in slow:
            if sent < len(head) - 4:
                try: s.send(head[sent:sent + 1])
                except OSError: pass
        for s in bodies:
            try: s.send(b" ")
            except OSError: pass
        sent += 1
        h = call(base + "/health")
        o = call(base + "/v1/orders", "POST",
                 b'{"currencyCode":"CNY","lineItems":[{"sku":"green-tea","quantity":1}]}',
                 headers={"Content-Type": "application/json"})
        g = call(f"http://127.0.0.1:{gateway}/sandbox/ledger")
        ok = h[0] == 200 and o[0] == 201 and g[0] is not None
        answered += ok
        worst = max(worst, h[2], o[2], g[2])
        if not ok: print(f"  round {rounds}: health {h[0]}, order {o[0]} {o[1][:120]!r}, gateway {g[0]} {g[1][:80]!r}")
        time.sleep(max(0, 1 - (h[2] + o[2] + g[2])))
    check(answered == rounds, f"a new client's /health and order, and the gateway, answered in all {rounds} rounds "
          f"({answered} of {rounds}; slowest call {worst:.2f} s) while the attack was held")

    # Every slow head has had the header time (10 s) by now, counted from its acceptance.
    time.sleep(12)

    def drain(s):
        try:
            return s.recv(4096)
        except BlockingIOError:
            return None
        except OSError:
            return b""
    outcomes = [drain(s) if s is not None else b"" for s in greedy]
    refused = sum(1 for o in outcomes if (o or b"").startswith(b"HTTP/1.1 503"))
    print(f"  over-cap address: {refused} answered 503, {sum(1 for o in outcomes if o == b'')} closed, "
          f"{sum(1 for o in outcomes if o is None)} still open", flush=True)
    check(refused >= 400, f"one address over its cap was answered 503 ({refused} of 800 connections, cap 128 each server)")
    closed_slow = sum(1 for s in slow if drain(s) == b"")
    check(closed_slow >= len(slow) * 0.9, f"byte-a-second heads were closed ({closed_slow} of {len(slow)})")
    log.flush()
    text = open(os.path.join(data, "serve.log")).read()
    check("too many connections from this address" in text, "the refusals were logged")
    check(server.poll() is None, "the server is still running")
    for s in opened:
        s.close()

    # A body over the limit from a client that writes all before reading (finding 16).
    status, body, seconds = call(base + "/v1/orders", "POST", b"x" * (8 << 20), timeout=20,
                                 headers={"Content-Type": "application/json", "Connection": "close"})
    check(status == 413, f"an 8 MB body with Connection: close got {status} in {seconds:.1f} s")
    check(call(base + "/health")[0] == 200, "/health answers after the attack")
finally:
    server.terminate()
    try: server.wait(10)
    except subprocess.TimeoutExpired: server.kill()
    print(f"hostile traffic: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
