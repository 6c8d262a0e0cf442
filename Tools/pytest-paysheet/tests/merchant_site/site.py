"""A merchant's site for the plugin's tests, on its own origin: a checkout page and its back end.

The back end holds the merchant's API key and forwards the page's calls to paysheet serve's /v1
(server to server, as a merchant's back end does); the page talks only to its own origin, and to
paysheet serve only through the injected drop-in's bridge (CORS).
"""
import http.server
import json
import os
import re
import threading
import urllib.error
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = {"/checkout.html": "text/html; charset=utf-8", "/checkout.js": "text/javascript; charset=utf-8"}
FORWARDED = {"merchant-session", "payment-method", "shipping-contact", "shipping-method", "coupon-code", "authorize", "cancel"}


class MerchantSite:
    """Serves the site on `host` (a free port); `url` is its origin. `hold(step)` makes the back end keep
    that step's calls unanswered until `release()` (a slow back end, without sleeping)."""

    def __init__(self, paysheet_url, api_key, host="localhost"):
        self.paysheet_url = paysheet_url.rstrip("/")
        self.api_key = api_key
        self.held = set()
        self.released = threading.Event()
        self.calls = []
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                path = self.path.split("?")[0]
                if path in FILES:
                    with open(os.path.join(HERE, path.lstrip("/")), "rb") as f:
                        self._send(200, f.read(), FILES[path])
                    return
                m = re.fullmatch(r"/api/orders/([A-Za-z0-9_]+)", path)
                if m:
                    status, body = site.forward("GET", "/v1/orders/" + m.group(1), None)
                    if status == 200:
                        body = {k: body.get(k) for k in ("id", "amount", "currencyCode", "paymentRequest", "status")}
                    self._send(status, json.dumps(body).encode(), "application/json")
                    return
                self._send(404, b"{}", "application/json")

            def do_POST(self):
                m = re.fullmatch(r"/api/orders/([A-Za-z0-9_]+)/([a-z-]+)", self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not m or m.group(2) not in FORWARDED:
                    self._send(404, b"{}", "application/json")
                    return
                site.calls.append(m.group(2))
                if m.group(2) in site.held:
                    site.released.wait(60)
                status, answer = site.forward("POST", f"/v1/orders/{m.group(1)}/{m.group(2)}", body)
                self._send(status, json.dumps(answer).encode(), "application/json")

            def _send(self, status, data, content_type):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://{host}:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def forward(self, method, path, body):
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": "Bearer " + self.api_key}
        if data is not None:
            headers.update({"Content-Type": "application/json", "Idempotency-Key": str(uuid.uuid4())})
        request = urllib.request.Request(self.paysheet_url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def hold(self, step):
        self.held.add(step)

    def release(self):
        self.released.set()

    def close(self):
        self.release()
        self.server.shutdown()
        self.server.server_close()
