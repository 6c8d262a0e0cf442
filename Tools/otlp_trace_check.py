#!/usr/bin/env python3
"""One payment's trace, received over OTLP/HTTP from `paysheet serve` (docs/server.md, "Tracing").

Starts a small OTLP/HTTP receiver on loopback (opentelemetry-proto's ExportTraceServiceRequest,
protobuf over HTTP, as a collector receives it), runs `paysheet serve` with
PAYSHEET_OTLP_ENDPOINT pointing at it and JSON logs, pays one order with `paysheet pay` under a
W3C `traceparent` made here, stops the server (its exporter flushes) and checks what arrived:

- every span of the payment is in the trace the `traceparent` named, and the server's request
  spans are children of the span it named;
- merchant validation, token verification and decryption, the acquirer's consume (a client span)
  under the authorization, the gateway's span under the consume (the trace context was sent to
  it), the notification under the gateway's, and the outcome event with the final states;
- no attribute carries card data, a token, a client secret, an API key or a private key;
- the JSON log lines parse, and those written inside the payment's spans carry its trace id.

Prints the trace as a tree. Usage: otlp_trace_check.py PATH/TO/paysheet
Needs opentelemetry-proto (and protobuf) from PyPI.
"""

import gzip
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

KINDS = {v: k.replace("SPAN_KIND_", "").lower() for k, v in trace_pb2.Span.SpanKind.items()}


class Receiver(BaseHTTPRequestHandler):
    """POST /v1/traces: an ExportTraceServiceRequest (protobuf, maybe gzip); keeps every span."""

    spans = []
    lock = threading.Lock()
    requests = 0

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if self.path != "/v1/traces":
            self.send_response(404)
            self.end_headers()
            return
        request = trace_service_pb2.ExportTraceServiceRequest()
        request.ParseFromString(body)
        with Receiver.lock:
            Receiver.requests += 1
            for resource in request.resource_spans:
                service = attributes(resource.resource.attributes).get("service.name")
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        Receiver.spans.append((service, span))
        answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    if kind == "kvlist_value":
        return attributes(any_value.kvlist_value.values)
    return getattr(any_value, kind) if kind else None


def attributes(key_values):
    return {kv.key: value(kv.value) for kv in key_values}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


TRACE = {}  # what fail() prints: the trace received so far


def fail(message):
    print(f"FAIL: {message}")
    if TRACE:
        print_tree(TRACE["spans"], TRACE["parent"])
        for span in TRACE["others"]:
            print(f"  (another trace) {span.name} [{KINDS[span.kind]}] parent {span.parent_span_id.hex() or '-'}")
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)
    print(f"ok   {message}")


# What no attribute may hold: a card-like run of 13-19 digits, a long base64 blob (token data,
# signatures, keys), the prefixes of client secrets and API keys, a PEM block, a cryptogram's
# base64 (28 characters ending in '=').
FORBIDDEN = [
    (re.compile(r"(?<!\d)\d{13,19}(?!\d)"), "a card-like number"),
    (re.compile(r"[A-Za-z0-9+/]{60,}={0,2}"), "a long base64 value"),
    (re.compile(r"pcs_|psk_"), "a client secret or API key"),
    (re.compile(r"-----BEGIN"), "a PEM block"),
    (re.compile(r"^[A-Za-z0-9+/]{27}=$"), "a cryptogram-like value"),
]
FORBIDDEN_KEYS = re.compile(r"pan|cryptogram|token\.data|secret|authorization|private", re.IGNORECASE)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    binary = os.path.abspath(sys.argv[1])
    otlp_port, port = free_port(), free_port()
    receiver = ThreadingHTTPServer(("127.0.0.1", otlp_port), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()

    data = tempfile.mkdtemp(prefix="paysheet-otlp-")
    url = f"http://127.0.0.1:{port}"
    environment = dict(
        os.environ,
        PAYSHEET_OTLP_ENDPOINT=f"http://127.0.0.1:{otlp_port}",
        PAYSHEET_LOG_FORMAT="json",
        PAYSHEET_LOG_LEVEL="debug",
        PAYSHEET_DATA=data,
    )
    stderr_path = os.path.join(data, "serve.stderr")
    with open(os.path.join(data, "serve.stdout"), "wb") as out, open(stderr_path, "wb") as err:
        serve = subprocess.Popen(
            [binary, "serve", "--listen", f"127.0.0.1:{port}", "--no-demo-order"],
            env=environment, stdout=out, stderr=err,
        )
    try:
        for _ in range(300):
            try:
                if urllib.request.urlopen(url + "/health", timeout=2).status == 200:
                    break
            except OSError:
                time.sleep(0.1)
        else:
            fail("paysheet serve did not answer /health")

        trace_id = secrets.token_hex(16)
        parent_id = secrets.token_hex(8)
        traceparent = f"00-{trace_id}-{parent_id}-01"
        print(f"paysheet pay with TRACEPARENT={traceparent}")
        pay = subprocess.run(
            [binary, "pay", "--server", url, "--data", data],
            env=dict(os.environ, TRACEPARENT=traceparent), capture_output=True, text=True, timeout=120,
        )
        print(pay.stdout.strip().splitlines()[-1] if pay.stdout.strip() else "(no output)")
        check(pay.returncode == 0, f"paysheet pay paid its order (exit status {pay.returncode})")
        # The notification follows the consume's answer: wait until its span is exported or the
        # server stops (which flushes what is left).
        deadline = time.time() + 15
        while time.time() < deadline:
            with Receiver.lock:
                if any(s.name == "payment.notification" and s.trace_id.hex() == trace_id for _, s in Receiver.spans):
                    break
            time.sleep(0.2)
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(timeout=60)
        except subprocess.TimeoutExpired:
            serve.kill()
            fail("paysheet serve did not stop on SIGTERM")
    receiver.shutdown()

    with Receiver.lock:
        received = list(Receiver.spans)
    print(f"received {len(received)} spans in {Receiver.requests} OTLP requests")
    spans = [s for _, s in received if s.trace_id.hex() == trace_id]
    services = {service for service, s in received if s.trace_id.hex() == trace_id}
    check(len(spans) >= 8, f"{len(spans)} spans in the payment's trace {trace_id}")
    check(services == {"paysheet"}, f"service.name is paysheet ({sorted(services)})")
    by_id = {s.span_id.hex(): s for s in spans}
    TRACE.update(spans=spans, parent=parent_id, others=[s for _, s in received if s.trace_id.hex() != trace_id])

    def named(name):
        return [s for s in spans if s.name == name]

    def one(name):
        found = named(name)
        check(len(found) >= 1, f"a span {name!r}")
        return found[0]

    def parent(span):
        return by_id.get(span.parent_span_id.hex())

    roots = [s for s in spans if s.parent_span_id.hex() == parent_id]
    check(roots and all(KINDS[s.kind] == "server" for s in roots),
          f"{len(roots)} request spans are children of the traceparent's span {parent_id}")
    orphans = [s.name for s in spans if s.parent_span_id.hex() not in by_id and s.parent_span_id.hex() != parent_id]
    check(not orphans, f"every other span's parent is in the trace ({orphans})")

    validate = one("merchant.validate")
    check(parent(validate) is not None and parent(validate).name == "/v1/orders/{id}/merchant-session",
          "merchant.validate is under POST /v1/orders/{id}/merchant-session")
    authorize = one("payment.authorize")
    check(parent(authorize) is not None and parent(authorize).name == "/v1/orders/{id}/authorize",
          "payment.authorize is under POST /v1/orders/{id}/authorize")
    for name in ["token.verify", "token.decrypt", "acquirer.charge"]:
        check(parent(one(name)) is authorize, f"{name} is under payment.authorize")
    consume = one("unionpay consume")
    check(KINDS[consume.kind] == "client" and parent(consume).name == "acquirer.charge",
          "unionpay consume is a client span under acquirer.charge")
    check(attributes(consume.attributes).get("unionpay.resp_code") == "00", "the consume answered respCode 00")
    def under(span, ancestor):
        while span is not None:
            if span.span_id == ancestor.span_id:
                return True
            span = parent(span)
        return False

    # The gateway's request span (AsyncHTTPClient's own client span may sit between).
    gateway = [s for s in spans if KINDS[s.kind] == "server" and s is not consume and under(s, consume)
               and s.name != "/v1/notifications/unionpay"]
    check(len(gateway) == 1,
          f"the gateway's request span is under the consume (the traceparent reached the acquirer: {[g.name for g in gateway]})")
    notification = one("payment.notification")
    http_notification = parent(notification)
    check(http_notification is not None and http_notification.name == "/v1/notifications/unionpay"
          and under(http_notification, gateway[0]),
          "the notification's request is under the gateway's span (the gateway sent the trace context back)")
    outcome = [e for e in authorize.events if e.name == "payment.outcome"]
    check(len(outcome) == 1, "payment.authorize has one payment.outcome event")
    final = attributes(outcome[0].attributes)
    check(final.get("paysheet.payment.state") == "succeeded" and final.get("paysheet.order.status") == "paid",
          f"the outcome: payment {final.get('paysheet.payment.state')}, order {final.get('paysheet.order.status')}")
    order_id = attributes(authorize.attributes).get("paysheet.order.id")
    check(attributes(notification.attributes).get("paysheet.order.id") == order_id,
          "the notification names the authorization's order")

    # No card data, token or secret: every attribute and event attribute of every span received.
    scanned = 0
    for _, span in received:
        pairs = list(attributes(span.attributes).items())
        for event in span.events:
            pairs += [(f"{event.name}.{k}", v) for k, v in attributes(event.attributes).items()]
        for key, v in pairs:
            scanned += 1
            text = str(v)
            if FORBIDDEN_KEYS.search(key):
                fail(f"span {span.name!r}: attribute {key} must not exist")
            for pattern, what in FORBIDDEN:
                if pattern.search(text):
                    fail(f"span {span.name!r}: attribute {key} holds {what}")
    check(scanned > 50, f"no card data, token or secret in {scanned} attributes")

    # JSON log lines: each parses; those written inside the payment's spans carry its trace id.
    lines = [line for line in open(stderr_path, encoding="utf-8").read().splitlines() if line.strip()]
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            if line.startswith("{"):
                fail(f"a log line is not JSON: {line[:120]}")
    check(records, f"{len(records)} JSON log lines")
    traced = [r for r in records if r.get("trace_id") == trace_id]
    check(traced and all(r.get("span_id") in by_id for r in traced),
          f"{len(traced)} log lines carry the payment's trace_id and one of its span ids")

    print_tree(spans, parent_id)


def print_tree(spans, root_parent):
    children = {}
    for s in spans:
        children.setdefault(s.parent_span_id.hex(), []).append(s)
    start = min(s.start_time_unix_nano for s in spans)
    shown = {"paysheet.order.id", "paysheet.payment.id", "paysheet.payment.state", "paysheet.order.status",
             "paysheet.amount.minor_units", "paysheet.amount.currency", "http.response.status_code",
             "unionpay.txn_type", "unionpay.resp_code", "paysheet.acquirer.answer", "paysheet.merchant.validation"}

    def show(span, depth):
        attrs = attributes(span.attributes)
        note = " ".join(f"{k.split('.', 1)[-1]}={attrs[k]}" for k in sorted(attrs) if k in shown)
        offset = (span.start_time_unix_nano - start) / 1e6
        took = (span.end_time_unix_nano - span.start_time_unix_nano) / 1e6
        print(f"{'  ' * depth}{span.name} [{KINDS[span.kind]}] +{offset:.1f} ms, {took:.1f} ms  {note}".rstrip())
        for event in span.events:
            e = attributes(event.attributes)
            print(f"{'  ' * (depth + 1)}event {event.name}: " + " ".join(
                f"{k.split('.', 1)[-1]}={e[k]}" for k in sorted(e)))
        for child in sorted(children.get(span.span_id.hex(), []), key=lambda s: s.start_time_unix_nano):
            show(child, depth + 1)

    print(f"\ntrace {spans[0].trace_id.hex()} (parent span {root_parent}, the traceparent paysheet pay sent):")
    for span in sorted(children.get(root_parent, []), key=lambda s: s.start_time_unix_nano):
        show(span, 1)


if __name__ == "__main__":
    main()
