#!/usr/bin/env python3
"""CI check of `paysheet token decrypt` on every real vector: exit 0 and the exact expected
plaintext at the signing time; a chain error in the JSON error shape at the current time;
a sandbox round trip through `keys create` and `token issue`."""
import json, os, subprocess, sys, tempfile

paysheet = sys.argv[1]
V = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "vectors")
cases = [
    ("gala/2015-seatgeek/token.json", ["--certificate", "gala/2015-seatgeek/certificate.pem", "--private-key", "gala/2015-seatgeek/private_key.pem"]),
    ("gala/2021-spreedly/token.json", ["--certificate", "gala/2021-spreedly/certificate.pem", "--private-key", "gala/2021-spreedly/private_key.pem"]),
    ("gala/2023-spreedly/token.json", ["--certificate", "gala/2021-spreedly/certificate.pem", "--private-key", "gala/2021-spreedly/private_key.pem"]),
    ("apple-pay-js/ec-old/token.old.json", ["--certificate", "apple-pay-js/ec-old/apple_pay.old.pem", "--private-key", "apple-pay-js/ec-old/private.old.key"]),
    ("apple-pay-js/ec-new/token.new.json", ["--certificate", "apple-pay-js/ec-new/apple_pay.new.pem", "--private-key", "apple-pay-js/ec-new/private.new.key"]),
    ("apple-pay-js/rsa/token.json", ["--certificate", "apple-pay-js/rsa/apple_pay.pem", "--private-key", "apple-pay-js/rsa/private.key"]),
    ("payu-apple-pay/sandbox-2018/token.json", ["--merchant-id", "merchant.sandbox.payu", "--private-key", "payu-apple-pay/sandbox-2018/private_key.pem"]),
]
failures = 0
def run(args):
    return subprocess.run([paysheet] + args, capture_output=True, text=True)

for token, keys in cases:
    folder = os.path.dirname(os.path.join(V, token))
    expected = json.load(open(os.path.join(folder, "expected.json")))
    plaintext = json.load(open(os.path.join(folder, "expected_plaintext.json")))
    args = ["token", "decrypt", "--token", os.path.join(V, token)] + [a if a.startswith("--") or a.startswith("merchant.") else os.path.join(V, a) for a in keys]
    ok = run(args + ["--at", expected["signingTime"]])
    if ok.returncode != 0 or json.loads(ok.stdout) != plaintext:
        print("FAIL decrypt", token, ok.returncode, ok.stderr.strip()); failures += 1
    else:
        print("ok   decrypt", token)
    now = run(args + ["--json"])
    err = json.loads(now.stdout or "{}").get("error", {})
    if now.returncode == 0 or err.get("code") != "chain":
        print("FAIL expired", token, now.returncode, now.stdout.strip()); failures += 1

with tempfile.TemporaryDirectory() as d:
    data = ["--data", d]
    made = run(["keys", "create", "--merchant-id", "merchant.ci.example", "--type", "rsa"] + data)
    cert = os.path.join(d, "merchants", "merchant.ci.example", "certificate.pem")
    key = os.path.join(d, "merchants", "merchant.ci.example", "key.pem")
    issued = run(["token", "issue", "--certificate", cert, "--amount", "7.25", "--out", os.path.join(d, "t.json")] + data)
    back = run(["token", "decrypt", "--token", os.path.join(d, "t.json"), "--certificate", cert, "--private-key", key,
                "--root", os.path.join(d, "sandbox-ca", "root.pem")])
    if made.returncode or issued.returncode or back.returncode or json.loads(back.stdout)["transactionAmount"] != 725:
        print("FAIL sandbox round trip", made.stderr, issued.stderr, back.stderr); failures += 1
    else:
        print("ok   sandbox RSA_v1 round trip")
    # A merchant token: the same MPAN for the same card and merchant, its identifier and metadata decrypted.
    mpans = []
    for n in range(2):
        out = os.path.join(d, f"m{n}.json")
        issued = run(["token", "issue", "--certificate", cert, "--amount", "29.00", "--currency", "CNY", "--merchant-token",
                      "--card", "ci-card", "--out", out] + data)
        back = run(["token", "decrypt", "--token", out, "--certificate", cert, "--private-key", key,
                    "--root", os.path.join(d, "sandbox-ca", "root.pem")])
        plain = json.loads(back.stdout or "{}") if back.returncode == 0 else {}
        mpans.append(plain.get("applicationPrimaryAccountNumber"))
        if issued.returncode or not plain.get("merchantTokenIdentifier", "").startswith("SBXMT") \
                or "fpanSuffix" not in json.dumps(plain.get("merchantTokenMetadata", {})) and "cardArt" not in plain.get("merchantTokenMetadata", {}):
            print("FAIL merchant token round trip", issued.stderr, back.stderr, sorted(plain)); failures += 1
    if mpans[0] is None or mpans[0] != mpans[1]:
        print("FAIL merchant token: not the same MPAN for the same card and merchant"); failures += 1
    else:
        print("ok   merchant token round trip (MPAN stable per card and merchant, identifier and metadata decrypted)")
    if oct(os.stat(key).st_mode & 0o777) != "0o600":
        print("FAIL key mode", oct(os.stat(key).st_mode)); failures += 1
sys.exit(1 if failures else 0)
