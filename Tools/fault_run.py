#!/usr/bin/env python3
"""Fault run: thousands of payments while the sandbox UnionPay gateway injects every fault and the
merchant server is killed with SIGKILL and restarted twice. Afterwards every order must be
terminal, the server's ledger must equal the sandbox's, nothing charged twice, nothing lost.

    python3 Tools/fault_run.py BIN_DIR [--payments 2000] [--concurrency 16] [--database URL] [--instances N]

With --instances N (PostgreSQL), N servers share the database behind HAProxy (Tools/haproxy.sh,
health checks on /health); one of them is SIGKILLed and restarted twice, and one PostgreSQL backend
is terminated mid-run. Afterwards, also: no payment was queried by two servers at once (from the
gateway's log of queries).

BIN_DIR holds `paysheet` and `paysheet-bench` (`swift build --show-bin-path`). Exit 0 on success.
"""
import argparse, json, os, signal, subprocess, sys, tempfile, time, urllib.request

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("--payments", type=int, default=2000)
ap.add_argument("--concurrency", type=int, default=16)
ap.add_argument("--database", default=None, help="postgres://… (default: SQLite in the data folder)")
ap.add_argument("--seed", type=int, default=20261121)
ap.add_argument("--time-limit", type=float, default=900)
ap.add_argument("--instances", type=int, default=1)
args = ap.parse_args()
started = time.time()
children = []

def stop_children():
    for p in children:
        if p.poll() is None:
            p.kill()
            p.wait()

import atexit
atexit.register(stop_children)

data = tempfile.mkdtemp(prefix="paysheet-fault-")
def free_port():
    """A port nobody listens on now (the kernel's choice), not one of the ephemeral range's picks
    that an outgoing connection may hold (a random one collided with a PostgreSQL client's)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def free_ports(n):
    ports = []
    while len(ports) < n:
        p = free_port()
        if p not in ports:
            ports.append(p)
    return ports

port, gateway_port = free_ports(2)
server_url, gateway_url = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{gateway_port}"
if args.instances > 1 and not args.database:
    sys.exit("--instances needs --database (several servers share one PostgreSQL)")
instance_ports = [port] if args.instances == 1 else [p for p in free_ports(args.instances + 2) if p not in (port, gateway_port)][:args.instances]
logs = open(os.path.join(data, "processes.log"), "w")

faults = {"seed": args.seed, "processingSeconds": 0.3, "dropNotification": 0.15, "duplicateNotification": 0.15,
          "delayNotification": 0.15, "notificationDelaySeconds": 2, "timeout": 0.05, "timeoutSeconds": 3,
          "serverErrorBefore": 0.05, "serverErrorAfter": 0.05, "slowQuery": 0.1, "slowQuerySeconds": 1, "queryTimeoutCode": 0.05}
with open(os.path.join(data, "faults.json"), "w") as f:
    json.dump(faults, f)
config = {"listen": f"127.0.0.1:{port}", "dataFolder": data, "acquirer": {"gatewayURL": gateway_url, "timeout": 2},
          "lifecycle": {"resultWait": 1, "queryIntervals": [0.5, 1, 2, 4], "backoffIntervals": [5], "notFoundIsFinalAfter": 20},
          "authorizeWait": 6, "pollInterval": 0.2, "logLevel": "warning"}
if args.database:
    config["databaseURL"] = args.database
for i, p in enumerate(instance_ports):
    # Every server's notifications come through the load balancer's address.
    with open(os.path.join(data, f"config-{i}.json"), "w") as f:
        json.dump(dict(config, listen=f"127.0.0.1:{p}", publicURL=server_url), f)

# The merchant's API key: created before the server starts (only its hash is stored).
key_cmd = [os.path.join(args.bin, "paysheet"), "api-key", "create", "--data", data, "--name", "fault run"]
if args.database:
    key_cmd += ["--database", args.database]
api_key = subprocess.run(key_cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]

def get(url):
    req = urllib.request.Request(url, headers={"Authorization": "Bearer " + api_key})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())

def wait_up(url, what):
    for _ in range(600):
        try:
            urllib.request.urlopen(url + "/health", timeout=2).read()
            return
        except Exception:
            time.sleep(0.1)
    sys.exit(f"{what} did not start; see {logs.name}")

def start_server(i=0):
    p = subprocess.Popen([os.path.join(args.bin, "paysheet"), "serve", "--config", os.path.join(data, f"config-{i}.json"), "--no-demo-order"],
                         stdout=logs, stderr=logs)
    children.append(p)
    wait_up(f"http://127.0.0.1:{instance_ports[i]}", f"merchant server {i}")
    return p

gateway = subprocess.Popen([os.path.join(args.bin, "paysheet"), "acquirer-sandbox", "--data", data, "--listen", f"127.0.0.1:{gateway_port}",
                            "--faults", os.path.join(data, "faults.json")], stdout=logs, stderr=logs)
children.append(gateway)
wait_up(gateway_url, "the sandbox gateway")
servers = [start_server(i) for i in range(len(instance_ports))]
if args.instances > 1:
    here = os.path.dirname(os.path.abspath(__file__))
    lb_pid = int(subprocess.run(["bash", os.path.join(here, "haproxy.sh"), data, str(port)] + [str(p) for p in instance_ports],
                                check=True, capture_output=True, text=True).stdout.strip())
    atexit.register(lambda: os.kill(lb_pid, signal.SIGTERM))
    wait_up(server_url, "the load balancer")
out = os.path.join(data, "client.json")
print(f"fault run: {args.payments} payments, concurrency {args.concurrency}, {args.instances} server(s), faults {faults}", flush=True)
client = subprocess.Popen([os.path.join(args.bin, "paysheet-bench"), "load", "--server", server_url, "--data", data,
                           "--payments", str(args.payments), "--concurrency", str(args.concurrency), "--declines", "0.1",
                           "--refunds", "0.1", "--cancels", "0.1", "--out", out, "--api-key", api_key])
children.append(client)

# Kill the server twice while payments are in flight.
def ledger():
    return get(gateway_url + "/sandbox/ledger")

for kill in (1, 2):
    target = args.payments * kill // 3
    while len([e for e in ledger() if e["txnType"] == "01"]) < target and client.poll() is None:
        time.sleep(0.2)
    victim = (kill - 1) % len(servers)
    servers[victim].send_signal(signal.SIGKILL)
    servers[victim].wait()
    print(f"SIGKILL {kill} of server {victim} with {len(ledger())} acquirer transactions; restarting", flush=True)
    if args.instances > 1 and kill == 1:
        # One PostgreSQL backend of the servers' pools, terminated mid-payment.
        killed = subprocess.run(["psql", args.database, "-qtAc",
                                 "SELECT count(pg_terminate_backend(pid)) FROM (SELECT pid FROM pg_stat_activity "
                                 "WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' LIMIT 1) AS one"],
                                capture_output=True, text=True)
        print(f"pg_terminate_backend: {killed.stdout.strip() or killed.stderr.strip()} backend(s)", flush=True)
    time.sleep(0.5)
    servers[victim] = start_server(victim)
server = servers[0]

if client.wait() != 0:
    sys.exit("the load client failed")
records = json.load(open(out))
orders = sorted({r["order"] for r in records})

# Every order terminal (the server settles by notification or query, also after the restarts).
terminal = {"paid", "failed", "refunded", "partially_refunded", "voided", "canceled"}
deadline = time.time() + 180
while True:
    states = {o: get(f"{server_url}/v1/orders/{o}") for o in orders}
    open_orders = [o for o, s in states.items() if s["status"] not in terminal]
    if not open_orders or time.time() > deadline:
        break
    time.sleep(2)

problems = []
if open_orders:
    problems.append(f"{len(open_orders)} orders are not terminal, e.g. {open_orders[:3]}")

# The server's ledger: every succeeded payment (charges, refunds) by acquirer identity.
server_ledger, charges_by_order = {}, {}
for o, s in states.items():
    succeeded_charges = [p for p in s["payments"] if p["kind"] == "charge" and p["state"] == "succeeded"]
    if len(succeeded_charges) > 1:
        problems.append(f"order {o} was charged {len(succeeded_charges)} times")
    for p in s["payments"]:
        if p["state"] == "succeeded":
            server_ledger[(p["acquirerOrderId"], p["acquirerTxnTime"])] = (p["kind"], round(float(p["amount"]) * 100))
        if p["state"] in ("held",):
            problems.append(f"payment {p['id']} of order {o} is held: {p.get('reason')}")
sandbox_ledger = {}
for e in ledger():
    if e["respCode"] in ("00", "A6"):
        kind = {"01": "charge", "04": "refund", "31": "void"}[e["txnType"]]
        sandbox_ledger[(e["orderId"], e["txnTime"])] = (kind, e["amount"])
missing = set(sandbox_ledger) - set(server_ledger)
extra = set(server_ledger) - set(sandbox_ledger)
if missing:
    problems.append(f"{len(missing)} acquirer successes the server does not show as succeeded (lost), e.g. {sorted(missing)[:3]}")
if extra:
    problems.append(f"{len(extra)} server successes the acquirer does not have, e.g. {sorted(extra)[:3]}")
for k in set(server_ledger) & set(sandbox_ledger):
    if server_ledger[k] != sandbox_ledger[k]:
        problems.append(f"{k}: server {server_ledger[k]} vs acquirer {sandbox_ledger[k]}")
# Nothing charged twice at the acquirer either: one successful consume per order at most.
charged_orders = [s for s in states.values() if s["status"] in ("paid", "partially_refunded", "refunded", "voided")
                  or (s["status"] == "canceled" and any(p["kind"] == "charge" and p["state"] == "succeeded" for p in s["payments"]))]
consumes = [v for v in sandbox_ledger.values() if v[0] == "charge"]
if len(consumes) != len(charged_orders):
    problems.append(f"{len(consumes)} successful consumes at the acquirer for {len(charged_orders)} charged orders")
# A canceled order keeps no money: at the acquirer, what its consumes took its voids and refunds returned.
canceled_orders = {o: s for o, s in states.items() if s["status"] == "canceled"}
for o, s in canceled_orders.items():
    net = 0
    for p in s["payments"]:
        entry = sandbox_ledger.get((p["acquirerOrderId"], p["acquirerTxnTime"]))
        if entry:
            net += entry[1] if entry[0] == "charge" else -entry[1]
    if net != 0:
        problems.append(f"canceled order {o} keeps {net} fen at the acquirer")
if args.payments >= 100 and not canceled_orders:
    problems.append("no order was canceled: the shoppers who cancel did not run")

# No payment queried by two servers at once: each claim holds it until its query is answered.
queries = get(gateway_url + "/sandbox/queries")
spans = {}
for q in queries:
    spans.setdefault(q["transaction"], []).append((int(q["receivedMs"]), int(q["answeredMs"])))
overlaps = 0
for t, qs in spans.items():
    qs.sort()
    overlaps += sum(1 for a, b in zip(qs, qs[1:]) if b[0] < a[1])
if overlaps:
    problems.append(f"{overlaps} queries began before the previous query of the same payment was answered (worked twice)")

counts = {}
for s in states.values():
    counts[s["status"]] = counts.get(s["status"], 0) + 1
print(f"orders: {dict(sorted(counts.items()))}; acquirer transactions {len(ledger())}, successes {len(sandbox_ledger)}; "
      f"server successes {len(server_ledger)}; {time.time() - started:.0f} s")
for p in servers:
    p.terminate()
gateway.terminate()
for p in servers:
    p.wait()
gateway.wait()
if time.time() - started > args.time_limit:
    problems.append(f"the run took {time.time() - started:.0f} s, over the {args.time_limit:.0f} s limit")
if problems:
    print("FAULT RUN FAILED:\n  " + "\n  ".join(problems[:20]))
    print(f"logs: {logs.name}")
    sys.exit(1)
print(f"fault run passed: every order terminal, ledgers equal, nothing charged twice, nothing lost; "
      f"{len(canceled_orders)} canceled orders keep no money; {len(queries)} queries, none of a payment at once")
