#!/usr/bin/env python3
"""Fault run: thousands of payments while the sandbox UnionPay gateway injects every fault and the
merchant server is killed with SIGKILL and restarted twice. Afterwards every order must be
terminal, the server's ledger must equal the sandbox's, nothing charged twice, nothing lost.

    python3 Tools/fault_run.py BIN_DIR [--payments 2000] [--concurrency 16] [--database URL] [--instances N]

With --instances N (PostgreSQL), N servers share the database behind HAProxy (Tools/haproxy.sh,
health checks on /health); one of them is SIGKILLed and restarted twice, and one PostgreSQL backend
is terminated mid-run. Afterwards, also: no payment was queried by two servers at once (from the
gateway's log of queries).

With --db-fault, the database goes away once mid-run (at half the consumes, payments in flight)
instead of the server SIGKILLs:

  restart    PostgreSQL (a cluster of the run's own) stopped with `pg_ctl -m fast stop`, gone for
             --outage seconds, started again.
  failover   a primary and a streaming replica of the run's own (pg_basebackup -R, synchronous
             replication: synchronous_standby_names '*', synchronous_commit on), the servers reaching
             the primary through HAProxy in TCP mode (pgsql-check; the replica a backup server, with
             hot_standby off so that it takes no connection before its promotion); the primary's
             processes SIGKILLed, and --outage seconds later the replica promoted.
  disk-full  SQLite, its file on a small file system of its own (a loop-mounted ext4 image, else a
             tmpfs; --fs-mb MB), filled mid-run: new work must be refused with a JSON 503 or 4xx,
             every order the server showed before is still there with its state after the filler is
             removed (in-process, and after a SIGKILL and restart), and the run then completes.

While the database is gone every server's /health must answer 503 at least once (and answer: no
hang), new orders sent to each server must be answered 2xx, a JSON 4xx or a JSON 503 (never another
5xx, never no answer in 15 s), and every server must serve again within 30 s of the database's
return; no request of the whole run may have been answered 500 (the servers' log of them). Then the
usual checks, and in every mode: each server stops within 30 s of SIGTERM.

BIN_DIR holds `paysheet` and `paysheet-bench` (`swift build --show-bin-path`). Exit 0 on success.
"""
import argparse, errno, glob, json, os, shutil, signal, subprocess, sys, tempfile, threading, time, urllib.error, urllib.request

ap = argparse.ArgumentParser()
ap.add_argument("bin")
ap.add_argument("--payments", type=int, default=2000)
ap.add_argument("--concurrency", type=int, default=16)
ap.add_argument("--database", default=None, help="postgres://… (default: SQLite in the data folder)")
ap.add_argument("--seed", type=int, default=20261121)
ap.add_argument("--time-limit", type=float, default=900)
ap.add_argument("--instances", type=int, default=1)
ap.add_argument("--db-fault", choices=["restart", "failover", "disk-full"], default=None,
                help="the database goes away once mid-run instead of the server SIGKILLs (see above)")
ap.add_argument("--outage", type=float, default=4, help="seconds the database stays gone (restart, failover)")
ap.add_argument("--fs-mb", type=int, default=48, help="disk-full: the size of the SQLite file's file system, MB")
args = ap.parse_args()
started = time.time()
children = []
cleanups = []  # run after the children are stopped, last registered first

def stop_children():
    for p in children:
        if p.poll() is None:
            p.kill()
            p.wait()
    for cleanup in reversed(cleanups):
        try:
            cleanup()
        except Exception as e:
            print(f"cleanup: {e}", file=sys.stderr)

import atexit
atexit.register(stop_children)
# `timeout` sends SIGTERM: stop what the run started (servers, PostgreSQL, proxies, mounts) then too.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(f"fault run: SIGTERM after {time.time() - started:.0f} s; stopping what it started"))

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
if args.db_fault in ("restart", "failover") and args.database:
    sys.exit(f"--db-fault {args.db_fault} makes its own PostgreSQL clusters: no --database")
if args.db_fault == "disk-full" and (args.database or args.instances > 1):
    sys.exit("--db-fault disk-full is SQLite with one server: no --database, no --instances")
if args.instances > 1 and not args.database and args.db_fault not in ("restart", "failover"):
    sys.exit("--instances needs --database (several servers share one PostgreSQL)")
instance_ports = [port] if args.instances == 1 else [p for p in free_ports(args.instances + 2) if p not in (port, gateway_port)][:args.instances]
logs = open(os.path.join(data, "processes.log"), "w")  # the gateway's and the tools'; each server has server-N.log
def server_log(i):
    return open(os.path.join(data, f"server-{i}.log"), "a")

faults = {"seed": args.seed, "processingSeconds": 0.3, "dropNotification": 0.15, "duplicateNotification": 0.15,
          "delayNotification": 0.15, "notificationDelaySeconds": 2, "timeout": 0.05, "timeoutSeconds": 3,
          "serverErrorBefore": 0.05, "serverErrorAfter": 0.05, "slowQuery": 0.1, "slowQuerySeconds": 1, "queryTimeoutCode": 0.05}
with open(os.path.join(data, "faults.json"), "w") as f:
    json.dump(faults, f)
config = {"listen": f"127.0.0.1:{port}", "dataFolder": data, "acquirer": {"gatewayURL": gateway_url, "timeout": 2},
          "lifecycle": {"resultWait": 1, "queryIntervals": [0.5, 1, 2, 4], "backoffIntervals": [5], "notFoundIsFinalAfter": 20},
          "authorizeWait": 6, "pollInterval": 0.2, "logLevel": "warning"}

def run(cmd, timeout=120, **kw):
    """A command that must succeed within `timeout` s; its output returned, its failure shown."""
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}: {(r.stderr or r.stdout).strip()[-2000:]}")
    return r.stdout

# ---- PostgreSQL clusters of the run's own (restart, failover) ----------------------------------
class Cluster:
    """A PostgreSQL cluster in a folder of the run's own, on a port of its own; run as `postgres`
    when we are root (initdb refuses root)."""
    bin = None
    root = None

    @classmethod
    def prepare(cls):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: [int(x) for x in d.split("/")[-2].split(".") if x.isdigit()])
        cls.bin = bins[-1] if bins else (os.path.dirname(shutil.which("pg_ctl") or "") or None)
        if not cls.bin or not os.path.exists(os.path.join(cls.bin, "initdb")):
            sys.exit("--db-fault restart|failover needs PostgreSQL's server binaries (Debian: apt-get install postgresql)")
        cls.root = tempfile.mkdtemp(prefix="paysheet-fault-pg-")
        os.chmod(cls.root, 0o755)
        cls.as_user = {}
        if os.geteuid() == 0:
            import pwd
            pw = pwd.getpwnam("postgres")  # Debian's package makes it; .ci/postgres.sh too
            os.chown(cls.root, pw.pw_uid, pw.pw_gid)
            cls.as_user = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": [], "cwd": cls.root,
                           "env": dict(os.environ, HOME=cls.root)}
        def remove():
            for log in glob.glob(os.path.join(cls.root, "*.log")):  # kept beside the run's other logs
                shutil.copy(log, os.path.join(data, "postgresql-" + os.path.basename(log)))
            shutil.rmtree(cls.root, ignore_errors=True)
        cleanups.append(remove)

    def __init__(self, name, port):
        self.name, self.port, self.dir = name, port, os.path.join(Cluster.root, name)
        self.running = False
        cleanups.append(self.stop_quietly)

    def pg(self, *cmd):
        return run([os.path.join(Cluster.bin, cmd[0])] + list(cmd[1:]), **Cluster.as_user)

    def configure(self, lines):
        with open(os.path.join(self.dir, "postgresql.conf"), "a") as f:
            f.write("\n# fault run\n" + "".join(line + "\n" for line in lines))

    def start(self):
        self.pg("pg_ctl", "-D", self.dir, "-l", os.path.join(Cluster.root, self.name + ".log"), "-w", "-t", "60", "start")
        self.running = True

    def stop(self, mode="fast"):
        self.pg("pg_ctl", "-D", self.dir, "-m", mode, "-w", "-t", "60", "stop")
        self.running = False

    def stop_quietly(self):
        if self.running and os.path.exists(os.path.join(self.dir, "postmaster.pid")):
            subprocess.run([os.path.join(Cluster.bin, "pg_ctl"), "-D", self.dir, "-m", "immediate", "-w", "stop"],
                           capture_output=True, **Cluster.as_user)

    def kill(self):
        """SIGKILL to the postmaster and every process of the cluster at once: the machine lost."""
        pm = int(open(os.path.join(self.dir, "postmaster.pid")).readline())
        victims = [pm]
        for stat in glob.glob("/proc/[0-9]*/stat"):
            try:
                fields = open(stat).read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pm:
                    victims.append(int(stat.split("/")[2]))
            except (OSError, IndexError, ValueError):
                pass
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.running = False
        return len(victims)

    def sql(self, text, database="postgres"):
        return run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", database, "-qtAc", text]).strip()

def wait_for(what, check, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if check():
                return
        except Exception:
            pass
        time.sleep(0.2)
    sys.exit(f"{what}: not within {seconds} s")

primary = replica = None
if args.db_fault in ("restart", "failover"):
    Cluster.prepare()
    pg_port, replica_port, proxy_port = [p for p in free_ports(len(instance_ports) + 5) if p not in instance_ports + [port, gateway_port]][:3]
    common = [f"port = {pg_port}", "listen_addresses = '127.0.0.1'", f"unix_socket_directories = '{Cluster.root}'",
              "max_connections = 200", "wal_level = replica", "max_wal_senders = 4", "max_replication_slots = 4"]
    primary = Cluster("primary", pg_port)
    primary.pg("initdb", "-D", primary.dir, "-U", "postgres", "--auth=trust", "--no-sync")
    primary.configure(common)
    primary.start()
    primary.sql("CREATE DATABASE faultrun")
    database_url = f"postgres://postgres@127.0.0.1:{pg_port}/faultrun?sslmode=disable"
    if args.db_fault == "failover":
        replica = Cluster("replica", replica_port)
        replica.pg("pg_basebackup", "-h", "127.0.0.1", "-p", str(pg_port), "-U", "postgres", "-D", replica.dir,
                   "-R", "-X", "stream", "-C", "-S", "fault_replica", "--checkpoint=fast", "--no-sync")
        # Its own port; no synchronous standby of its own once promoted (it has none: commits would
        # wait forever); hot_standby off: it refuses connections until promoted, so the proxy's
        # check sees only a primary.
        replica.configure([f"port = {replica_port}", "synchronous_standby_names = ''", "hot_standby = off"])
        replica.start()
        # Synchronous replication, once the replica streams (before, a commit would wait for it):
        # a commit returns only once the replica has flushed it, so that whatever a server was told
        # is committed survives the primary's loss and the promotion.
        primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'")
        primary.sql("ALTER SYSTEM SET synchronous_commit = 'on'")
        primary.sql("SELECT pg_reload_conf()")
        wait_for("the replica streaming synchronously",
                 lambda: primary.sql("SELECT sync_state FROM pg_stat_replication") == "sync")
        # HAProxy in TCP mode in front of both: the primary while its check passes, else the replica
        # (a backup server), which passes its check once promoted.
        if not shutil.which("haproxy"):
            sys.exit("--db-fault failover needs HAProxy (Debian: apt-get install haproxy)")
        proxy_cfg = os.path.join(data, "pg-proxy.cfg")
        with open(proxy_cfg, "w") as f:
            f.write(f"""global
  maxconn 1000
defaults
  mode tcp
  timeout connect 2s
  timeout client 1h
  timeout server 1h
listen postgresql
  bind 127.0.0.1:{proxy_port}
  option pgsql-check user postgres
  default-server inter 300ms fall 2 rise 2 on-marked-down shutdown-sessions
  server primary 127.0.0.1:{pg_port} check
  server replica 127.0.0.1:{replica_port} check backup
""")
        pidfile = os.path.join(data, "pg-proxy.pid")
        run(["haproxy", "-f", proxy_cfg, "-D", "-p", pidfile])
        proxy_pid = int(open(pidfile).read().split()[0])
        cleanups.append(lambda: os.kill(proxy_pid, signal.SIGTERM))
        database_url = f"postgres://postgres@127.0.0.1:{proxy_port}/faultrun?sslmode=disable"
        wait_for("PostgreSQL through the proxy", lambda: run(["psql", database_url, "-qtAc", "SELECT 1"]).strip() == "1")
    args.database = database_url
    print(f"PostgreSQL of the run's own: {args.db_fault}, {database_url}" +
          (f" (primary :{pg_port}, synchronous replica :{replica_port})" if replica else ""), flush=True)

# ---- SQLite on a small file system of its own (disk-full) --------------------------------------
fs_dir = fs_kind = None
if args.db_fault == "disk-full":
    fs_dir = os.path.join(data, "db")
    os.makedirs(fs_dir)
    image = os.path.join(data, "db.ext4")
    tries = []
    try:
        with open(image, "wb") as f:
            f.truncate(args.fs_mb << 20)
        run(["mkfs.ext4", "-q", "-F", "-m", "0", image])
        run(["mount", "-o", "loop", image, fs_dir])
        fs_kind = f"a loop-mounted ext4 image of {args.fs_mb} MB"
    except Exception as e:
        tries.append(f"ext4 on a loop device: {e}")
        try:
            run(["mount", "-t", "tmpfs", "-o", f"size={args.fs_mb}m,mode=0700", "tmpfs", fs_dir])
            fs_kind = f"a tmpfs of {args.fs_mb} MB"
        except Exception as e2:
            tries.append(f"tmpfs: {e2}")
    if not fs_kind:
        sys.exit("--db-fault disk-full cannot mount a small file system here (it needs root or CAP_SYS_ADMIN):\n  "
                 + "\n  ".join(tries))
    def unmount():
        subprocess.run(["umount", "-l", fs_dir], capture_output=True)
        if os.path.exists(image):
            os.remove(image)
    cleanups.append(unmount)
    args.database = "sqlite:" + os.path.join(fs_dir, "paysheet.sqlite")
    print(f"SQLite on {fs_kind} at {fs_dir}", flush=True)

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
    sys.exit(f"{what} did not start; see the logs in {data}")

def start_server(i=0):
    p = subprocess.Popen([os.path.join(args.bin, "paysheet"), "serve", "--config", os.path.join(data, f"config-{i}.json"), "--no-demo-order"],
                         stdout=server_log(i), stderr=subprocess.STDOUT)
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

def consumes():
    return len([e for e in ledger() if e["txnType"] == "01"])

fault_problems = []  # what the database faults found, reported with the usual checks

def probe(url, method="GET", body=None, timeout=15):
    """One call to a server: (status or None for no answer, the JSON body or text, seconds)."""
    headers = {"Authorization": "Bearer " + api_key}
    if body is not None:
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=body.encode() if body is not None else None, method=method, headers=headers)
    t = time.time()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, text = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read()
    except Exception as e:
        return None, f"{type(e).__name__}: {e}", time.time() - t
    try:
        return status, json.loads(text), time.time() - t
    except ValueError:
        return status, text[:200].decode(errors="replace"), time.time() - t

NEW_ORDER = '{"currencyCode":"CNY","countryCode":"CN","lineItems":[{"label":"Fault probe","amount":"1.00"}]}'

def clear_refusal(status, body):
    """A JSON 503 or 4xx with an error code: new work refused so that a client knows what happened."""
    return status is not None and (status == 503 or 400 <= status < 500) and isinstance(body, dict) \
        and isinstance(body.get("error"), dict) and bool(body["error"].get("code"))

class Watch:
    """Polls every server's /health (every 0.25 s, each answer within 5 s) and, in threads, sends each
    server a new order (POST /v1/orders, a write: new work) every second, while the database is gone."""
    def __init__(self):
        self.health = {p: [] for p in instance_ports}
        self.calls = []  # (port, status, body, seconds)
        self.threads = []
        self.lock = threading.Lock()

    def call(self, p):
        status, body, seconds = probe(f"http://127.0.0.1:{p}/v1/orders", "POST", NEW_ORDER)
        with self.lock:
            self.calls.append((p, status, body, seconds))

    def poll_health(self, p, end):
        while time.time() < end:
            status, body, _ = probe(f"http://127.0.0.1:{p}/health", timeout=5)
            with self.lock:
                self.health[p].append((status, body))
            time.sleep(0.25)

    def run(self, seconds, calls=True):
        end, next_call = time.time() + seconds, 0
        pollers = [threading.Thread(target=self.poll_health, args=(p, end), daemon=True) for p in instance_ports]
        for t in pollers:
            t.start()
        while time.time() < end:
            if calls and time.time() >= next_call:
                next_call = time.time() + 1
                for p in instance_ports:
                    t = threading.Thread(target=self.call, args=(p,), daemon=True)
                    t.start()
                    self.threads.append(t)
            time.sleep(0.1)
        for t in pollers:
            t.join(10)

    def finish(self, what):
        """Waits for the calls (each has 15 s) and reports what was wrong."""
        for t in self.threads:
            t.join(20)
        for p, seen in self.health.items():
            statuses = [s for s, _ in seen]
            if 503 not in statuses:
                fault_problems.append(f"{what}: server :{p}'s /health never answered 503 ({len(statuses)} polls: {sorted(set(map(str, statuses)))})")
            wrong = [(s, b) for s, b in seen if s not in (200, 503)]
            if wrong:
                fault_problems.append(f"{what}: server :{p}'s /health answered {len(wrong)} times neither 200 nor 503, e.g. {wrong[0]}")
        codes = {}
        for p, status, body, seconds in self.calls:
            code = body["error"].get("code") if isinstance(body, dict) and isinstance(body.get("error"), dict) else None
            codes[(status, code)] = codes.get((status, code), 0) + 1
            if status is None:
                fault_problems.append(f"{what}: POST /v1/orders to :{p} had no answer in {seconds:.1f} s ({body})")
            elif not (200 <= status < 300 or clear_refusal(status, body)):
                fault_problems.append(f"{what}: POST /v1/orders to :{p} answered {status} {json.dumps(body)[:300]} in {seconds:.1f} s "
                                      "(while the database is gone: a JSON 503 or 4xx, or success)")
        health = {p: sorted({str(s) for s, _ in seen}) for p, seen in self.health.items()}
        print(f"{what}: /health answers {health}; POST /v1/orders answers {dict((f'{k[0]} {k[1]}', v) for k, v in sorted(codes.items(), key=str))}",
              flush=True)
        return codes

def wait_serving(what, seconds=30):
    """Every server answers /health 200 and takes a new order within `seconds`."""
    deadline = time.time() + seconds
    for p in instance_ports:
        while True:
            status, _, _ = probe(f"http://127.0.0.1:{p}/health", timeout=5)
            created = probe(f"http://127.0.0.1:{p}/v1/orders", "POST", NEW_ORDER)[0] if status == 200 else None
            if created == 201:
                break
            if time.time() > deadline:
                fault_problems.append(f"{what}: server :{p} did not serve again within {seconds} s (/health {status}, new order {created})")
                return False
            time.sleep(0.25)
    return True

def all_orders(base):
    """Every order the server shows, with its status (GET /v1/orders, pages of 100)."""
    found, before = {}, None
    for _ in range(1000):
        page = get(f"{base}/v1/orders?limit=100" + (f"&before={before}" if before else ""))
        for o in page["orders"]:
            found[o["id"]] = o["status"]
        before = page.get("next")
        if not before:
            return found
    raise RuntimeError("more than 100,000 orders?")

# What an order's status may become after it was seen: itself, or what follows it.
LATER = {"created": {"created", "pending", "paid", "failed", "canceling", "canceled", "refunded", "partially_refunded", "voided"},
         "pending": {"pending", "paid", "failed", "canceling", "canceled", "refunded", "partially_refunded", "voided"},
         "paid": {"paid", "partially_refunded", "refunded", "voided", "canceling", "canceled"},
         "partially_refunded": {"partially_refunded", "refunded"},
         "canceling": {"canceling", "canceled"}}

def compare(what, before, after):
    lost = [o for o in before if o not in after]
    if lost:
        fault_problems.append(f"{what}: {len(lost)} orders the server showed before are gone, e.g. {lost[:3]}")
    went_back = [(o, before[o], after[o]) for o in before if o in after and after[o] not in LATER.get(before[o], {before[o]})]
    if went_back:
        fault_problems.append(f"{what}: {len(went_back)} orders went back, e.g. {went_back[:3]} (order, before, after)")
    paid = sum(1 for v in before.values() if v == "paid")
    print(f"{what}: {len(before)} orders shown before ({paid} paid), every one still there, none gone back" if not lost and not went_back
          else f"{what}: orders lost or gone back", flush=True)

def fill(folder):
    """Writes a filler file until the file system says it is full (1 MiB, then 4 KiB writes)."""
    path = os.path.join(folder, "filler")
    written = 0
    with open(path, "wb", buffering=0) as f:
        for size in (1 << 20, 4096, 512):
            chunk = b"\0" * size
            while True:
                try:
                    written += f.write(chunk)
                except OSError as e:
                    if e.errno not in (errno.ENOSPC, errno.EDQUOT):
                        raise
                    break
        try:
            os.fsync(f.fileno())
        except OSError:
            pass
    return path, written

if not args.db_fault:
    # Kill the server twice while payments are in flight.
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
else:
    target = args.payments // 2
    while consumes() < target and client.poll() is None:
        time.sleep(0.2)
    if client.poll() is not None:
        fault_problems.append(f"the load ended before the database fault (at {target} consumes): nothing was in flight")
    fault_started = time.time()
    if args.db_fault in ("restart", "failover"):
        watch = Watch()
        if args.db_fault == "restart":
            primary.stop("fast")
            print(f"PostgreSQL stopped (fast shutdown) with {consumes()} consumes at the acquirer; {args.outage:.0f} s gone", flush=True)
            watch.run(args.outage)
            primary.start()
            print("PostgreSQL started again", flush=True)
        else:
            killed = primary.kill()
            print(f"primary SIGKILLed ({killed} processes) with {consumes()} consumes at the acquirer; "
                  f"{args.outage:.0f} s before the replica is promoted", flush=True)
            watch.run(args.outage)
            replica.pg("pg_ctl", "-D", replica.dir, "-w", "-t", "60", "promote")
            print(f"replica promoted after {time.time() - fault_started:.1f} s", flush=True)
        watch.run(1.0, calls=False)  # the last polls of the outage: its calls may still be waiting
        watch.finish(args.db_fault)
        if wait_serving(f"after the {args.db_fault}"):
            print(f"every server serves again {time.time() - fault_started:.1f} s after the fault began", flush=True)
        if replica:
            lag = replica.sql("SELECT pg_is_in_recovery()")
            if lag != "f":
                fault_problems.append(f"the promoted replica says pg_is_in_recovery() = {lag}")
    else:
        filler, written = fill(fs_dir)
        print(f"the file system is full: {written >> 20} MB of filler with {consumes()} consumes at the acquirer", flush=True)
        # New work is refused, clearly: the SQLite log may still have room of its own for a while
        # (a WAL file reuses its space), so new orders are sent until one is refused (30 s at most).
        refused, answers, deadline = None, {}, time.time() + 30
        while refused is None and time.time() < deadline:
            status, body, seconds = probe(f"{server_url}/v1/orders", "POST", NEW_ORDER)
            code = body["error"].get("code") if isinstance(body, dict) and isinstance(body.get("error"), dict) else None
            answers[(status, code)] = answers.get((status, code), 0) + 1
            if status is None:
                fault_problems.append(f"disk full: POST /v1/orders had no answer in {seconds:.1f} s ({body})")
                break
            if status >= 300:
                refused = (status, body)
                if not clear_refusal(status, body):
                    fault_problems.append(f"disk full: a new order was refused with {status} {json.dumps(body)[:300]} "
                                          "(a JSON 503 or 4xx with an error code says what happened)")
                break
            time.sleep(0.2)
        print(f"disk full: POST /v1/orders answers {dict((f'{k[0]} {k[1]}', v) for k, v in answers.items())}"
              + (f"; refused: {refused[0]} {json.dumps(refused[1])[:300]}" if refused else ""), flush=True)
        if refused is None and not any(p.startswith("disk full") for p in fault_problems):
            fault_problems.append("disk full: new orders were still taken 30 s after the file system filled")
        watch = Watch()
        watch.run(3, calls=False)  # in-flight payments meet the full disk; /health must answer
        full_health = sorted({str(s) for s, _ in watch.health[port]})
        if any(s not in ("200", "503") for s in full_health):
            fault_problems.append(f"disk full: /health answered {full_health}")
        if servers[0].poll() is not None:
            fault_problems.append(f"disk full: the server exited ({servers[0].returncode}); see {data}/server-0.log")
            servers[0] = start_server(0)
        before = all_orders(server_url)
        print(f"disk full: /health {full_health}; the server shows {len(before)} orders", flush=True)
        os.remove(filler)
        print("filler removed", flush=True)
        if wait_serving("after the disk was freed"):
            print(f"the server takes new orders again {time.time() - fault_started:.1f} s after the disk filled (no restart)", flush=True)
        compare("after the disk was freed", before, all_orders(server_url))
        servers[0].send_signal(signal.SIGKILL)
        servers[0].wait()
        servers[0] = start_server(0)
        compare("after a SIGKILL and restart", before, all_orders(server_url))
    print(f"database fault over: {time.time() - fault_started:.1f} s", flush=True)
server = servers[0]

if client.wait() != 0:
    sys.exit("the load client failed")
records = json.load(open(out))
orders = sorted({r["order"] for r in records})

# Every order terminal (the server settles by notification or query, also after the restarts).
terminal = {"paid", "failed", "refunded", "partially_refunded", "voided", "canceled"}
deadline = time.time() + 180
def order_state(o):
    """The order as the server shows it; one the client was answered for and the server no longer
    has (a commit lost with a database) is shown as status "gone"."""
    try:
        return get(f"{server_url}/v1/orders/{o}")
    except urllib.error.HTTPError as e:
        if e.code != 404:
            raise
        return {"id": o, "status": "gone", "payments": []}
while True:
    states = {o: order_state(o) for o in orders}
    open_orders = [o for o, s in states.items() if s["status"] not in terminal]
    if not open_orders or time.time() > deadline:
        break
    time.sleep(2)

problems = list(fault_problems)
gone = [o for o, s in states.items() if s["status"] == "gone"]
if gone:
    problems.append(f"{len(gone)} orders the server created for the client are gone (404), e.g. {gone[:3]}")
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

# While the database was gone, every request a server could not serve is a clear refusal (503), not
# a 500: the error middleware logs each 500 it answers as "METHOD PATH failed: …".
if args.db_fault:
    import re
    answered_500 = {}
    for line in (line for log in sorted(glob.glob(os.path.join(data, "server-*.log"))) for line in open(log, errors="replace")):
        m = re.search(r"\] (GET|POST|PUT|DELETE|PATCH) (\S+) failed: (.*)$", line)
        if m:
            route = re.sub(r"/(ord|pay|agr)_[0-9a-f]+", r"/{\1}", m.group(2))
            what = (f"{m.group(1)} {route}", m.group(3)[:160])
            answered_500[what] = answered_500.get(what, 0) + 1
    for (route, error), n in sorted(answered_500.items(), key=lambda kv: -kv[1]):
        problems.append(f"{args.db_fault}: {n} × {route} answered 500 internal_error, logged as: {error}")

counts = {}
for s in states.values():
    counts[s["status"]] = counts.get(s["status"], 0) + 1
print(f"orders: {dict(sorted(counts.items()))}; acquirer transactions {len(ledger())}, successes {len(sandbox_ledger)}; "
      f"server successes {len(server_ledger)}; {time.time() - started:.0f} s")
# Every server stops on SIGTERM (drains, then ends its services) within 30 s.
for p in servers:
    p.terminate()
for i, p in enumerate(servers):
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        # What it still holds: its sockets (an HTTP connection with a request it never answered?).
        sockets = subprocess.run(["ss", "-tnp"], capture_output=True, text=True).stdout.splitlines()
        held = [l.strip() for l in sockets if f"pid={p.pid}," in l]
        activity = ""
        if args.database and args.database.startswith("postgres"):
            # And what its database sessions were doing (a transaction left open by a stuck request?).
            activity = subprocess.run(["psql", args.database, "-qtAc",
                                       "SELECT client_port, state, wait_event_type, now() - xact_start, left(query, 120) FROM pg_stat_activity "
                                       "WHERE datname = current_database() AND pid <> pg_backend_pid()"],
                                      capture_output=True, text=True, timeout=20).stdout.strip().replace("\n", "; ")
        problems.append(f"server :{instance_ports[i]} (pid {p.pid}) did not stop within 30 s of SIGTERM (SIGKILLed; see {data}/server-{i}.log); "
                        f"its TCP connections then: {held}" + (f"; the database's sessions then: {activity}" if activity else ""))
        p.kill()
        p.wait()
gateway.terminate()
gateway.wait()
if time.time() - started > args.time_limit:
    problems.append(f"the run took {time.time() - started:.0f} s, over the {args.time_limit:.0f} s limit")
if problems:
    print("FAULT RUN FAILED:\n  " + "\n  ".join(problems[:20]))
    print(f"logs: {data} (server-N.log, processes.log)")
    sys.exit(1)
print(f"fault run passed: every order terminal, ledgers equal, nothing charged twice, nothing lost; "
      f"{len(canceled_orders)} canceled orders keep no money; {len(queries)} queries, none of a payment at once")
