"""`paysheet serve` as a test's server: a binary, a free port, a data folder of its own; and its API."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Optional

from .errors import PaysheetSetupError

# Where `swift build --product paysheet` puts the binary, from a Paysheet checkout's root.
BUILD_PATHS = (".build/debug/paysheet", ".build/release/paysheet")


def find_binary(explicit: Optional[str], start: Path) -> str:
    """The `paysheet` binary: `explicit` (--paysheet-bin or PAYSHEET_BIN), else `.build/debug/paysheet`
    of the Paysheet checkout at or above `start`, else `paysheet` on PATH."""
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise PaysheetSetupError(f"paysheet binary not found: {path} does not exist "
                                     "(set --paysheet-bin or PAYSHEET_BIN to the built `paysheet`, "
                                     "e.g. .build/debug/paysheet after `swift build --product paysheet`)")
        if not os.access(path, os.X_OK):
            raise PaysheetSetupError(f"paysheet binary not executable: {path}")
        return str(path)
    looked = []
    for folder in [start, *start.parents]:
        if (folder / "Package.swift").is_file():
            for relative in BUILD_PATHS:
                candidate = folder / relative
                looked.append(str(candidate))
                if candidate.is_file() and os.access(candidate, os.X_OK):
                    return str(candidate)
    on_path = shutil.which("paysheet")
    if on_path:
        return on_path
    looked.append("paysheet on PATH")
    raise PaysheetSetupError("paysheet binary not found (looked at " + ", ".join(looked) + "); build it with "
                             "`swift build --product paysheet` in the Paysheet checkout, or set --paysheet-bin "
                             "or PAYSHEET_BIN")


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def check_port_free(host: str, port: int) -> None:
    """Raises PaysheetSetupError naming the port when something already listens there."""
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError as e:
            raise PaysheetSetupError(f"port {host}:{port} is in use ({e.strerror}): paysheet serve cannot listen "
                                     "there; stop what holds it, or leave --paysheet-port / PAYSHEET_PORT unset "
                                     "for a free port") from None


class PaysheetServer:
    """A running `paysheet serve` (sandbox mode) on loopback, with its own data folder.

    `url` is where it listens; `api_key` a merchant key made for it; `log_path` its output.
    """

    def __init__(self, binary: str, port: Optional[int] = None, data: Optional[str] = None,
                 start_timeout: float = 60.0, env: Optional[dict] = None):
        self.binary = binary
        self.host = "127.0.0.1"
        if port is None:
            port = free_port(self.host)
        else:
            check_port_free(self.host, port)
        self.port = port
        self.url = f"http://{self.host}:{port}"
        self.data = data or tempfile.mkdtemp(prefix="pytest-paysheet-")
        self.log_path = os.path.join(self.data, "serve.log")
        self.start_timeout = start_timeout
        self.env = dict(os.environ)
        # Its own sandbox gateway on a free port, and a test suite's rate of anonymous orders and
        # coupon attempts from one address (the limits themselves are Paysheet's to test).
        self.env.update({"PAYSHEET_SANDBOX_ACQUIRER_LISTEN": f"{self.host}:{free_port(self.host)}",
                         "PAYSHEET_ANONYMOUS_ORDERS_PER_MINUTE": "600",
                         "PAYSHEET_COUPON_ATTEMPTS_PER_MINUTE": "600"})
        self.env.update(env or {})
        self.process: Optional[subprocess.Popen] = None
        self.api_key: Optional[str] = None

    def start(self) -> "PaysheetServer":
        self.api_key = self._create_api_key()
        log = open(self.log_path, "w")
        try:
            self.process = subprocess.Popen(
                [self.binary, "serve", "--data", self.data, "--listen", f"{self.host}:{self.port}", "--no-demo-order"],
                stdout=log, stderr=subprocess.STDOUT, env=self.env)
        except OSError as e:
            raise PaysheetSetupError(f"paysheet serve could not be started ({self.binary}): {e}") from None
        finally:
            log.close()
        self._wait_until_ready()
        return self

    def _create_api_key(self) -> str:
        try:
            done = subprocess.run([self.binary, "api-key", "create", "--data", self.data, "--name", "pytest-paysheet"],
                                  capture_output=True, text=True, env=self.env, timeout=60)
        except OSError as e:
            raise PaysheetSetupError(f"paysheet binary could not run ({self.binary}): {e}") from None
        except subprocess.TimeoutExpired:
            raise PaysheetSetupError("`paysheet api-key create` did not finish within 60 s") from None
        lines = done.stdout.strip().splitlines()
        if done.returncode != 0 or not lines or not lines[-1].startswith("psk_"):
            raise PaysheetSetupError(f"`paysheet api-key create` failed (exit status {done.returncode}): "
                                     f"{(done.stderr or done.stdout).strip()[-2000:]}")
        return lines[-1].strip()

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        while True:
            status = self.process.poll()
            if status is not None:
                raise PaysheetSetupError(f"paysheet serve did not start: it exited with status {status} before "
                                         f"answering {self.url}/health; its output ({self.log_path}):\n{self._log_tail()}")
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=1) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() >= deadline:
                self.stop()
                raise PaysheetSetupError(f"paysheet serve did not start: no answer from {self.url}/health within "
                                         f"{self.start_timeout:g} s (--paysheet-start-timeout); its output "
                                         f"({self.log_path}):\n{self._log_tail()}")
            # Poll again: the server is starting (its readiness has no other signal).
            time.sleep(0.1)

    def _log_tail(self, lines: int = 40) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                text = f.read().rstrip().splitlines()
        except OSError:
            return "(no output)"
        return "\n".join("  " + line for line in text[-lines:]) or "  (no output)"

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def __enter__(self) -> "PaysheetServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class PaysheetAPI:
    """The merchant API of a `paysheet serve` (/v1), called with a merchant key, as a back end does."""

    def __init__(self, url: str, api_key: str):
        self.url = url.rstrip("/")
        self.api_key = api_key

    def call(self, method: str, path: str, body=None, expect=(200, 201)):
        """The JSON answer of `method path`; AssertionError naming the route, status and the server's error otherwise."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": "Bearer " + self.api_key}
        if data is not None:
            headers["Content-Type"] = "application/json"
            headers["Idempotency-Key"] = str(uuid.uuid4())
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                status, text = answer.status, answer.read().decode()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode(errors="replace")
        try:
            value = json.loads(text) if text else None
        except ValueError:
            value = None
        if status not in expect:
            error = value.get("error") if isinstance(value, dict) else None
            said = f"{error.get('code')}: {error.get('message')}" if isinstance(error, dict) else text[:500]
            raise AssertionError(f"paysheet serve answered {method} {path} with HTTP {status} ({said})")
        return value

    def create_order(self, lines=None, currency: str = "CNY", **extra) -> dict:
        """A new order (its `id`, `paymentRequest`, `clientSecret`, …). `lines` are `(label, amount)`
        pairs or the API's line objects; `extra` goes into the body as is (`delivery`, `shippingMethods`, …)."""
        lines = lines if lines is not None else [("Green tea", "25.00")]
        body = {"currencyCode": currency,
                "lineItems": [{"label": l[0], "amount": l[1]} if isinstance(l, (tuple, list)) else l for l in lines]}
        body.update(extra)
        return self.call("POST", "/v1/orders", body)

    def order(self, order_id: str) -> dict:
        """The whole order as the merchant sees it."""
        return self.call("GET", "/v1/orders/" + order_id, expect=(200,))
