#!/usr/bin/env python3
"""UnionPay ACP 5.1.0 interoperability, written from UnionPay's published rules and the behaviour of
its official SDKs by an independent hand: Python and `cryptography`, no code of Paysheet's.

Part 1 - an SDK against `paysheet acquirer-sandbox`:
  requests signed as the SDKs sign them (signMethod 01: certId = the signing certificate's serial in
  decimal; the fields but `signature` sorted by key as `key=value&...`; SHA-256 in lowercase hex;
  SHA256withRSA; Base64) - the PHP SDK's way (empty fields sent and signed) and the Java SDK's
  (empty fields dropped) - and signMethod 11 (SHA-256 of the string, `&`, and the SHA-256 of the
  secure key); the gateway's synchronous answers parsed raw and checked as the SDKs check them
  (`signPubKeyCert` valid now, issued by the middle certificate, itself issued by the root, and the
  third `@` field of its CN `00040000:SIGN`); its notifications received on a `backUrl` of ours and
  checked the same way.
  The reconciliation file (txnType 76) downloaded as the PHP SDK downloads it (`gzuncompress` of the
  Base64 `fileContent`, a ZIP, its `INN…ZM_` file read with the SDKs' field widths).
Part 2 - a UnionPay-format gateway of our own for `paysheet serve` + `paysheet pay`:
  root -> middle -> signing certificate `041@Z12@00040000:SIGN@00000062` with an 11-digit serial, raw
  answers, form-encoded notifications, merchant requests checked by certId; the order must end paid;
  then its reconciliation file, made here, is reconciled by the server (`POST /v1/reconciliations`).

    python3 Tests/Interop/unionpay_interop.py BIN_DIR      (BIN_DIR holds `paysheet`)

Prints one line per check and `N passed, M failed`; exits 1 on any failure.
"""
import base64, datetime, hashlib, http.server, io, json, os, random, socket, subprocess, sys, tempfile, threading, time
import urllib.parse, urllib.request, zipfile, zlib

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID

BIN = sys.argv[1]
MER_ID = "777290058110048"
passed, failed, children = 0, 0, []


def check(ok, what):
    global passed, failed
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if ok:
        passed += 1
    else:
        failed += 1


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url):
    for _ in range(300):
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except Exception:
            time.sleep(0.1)
    raise RuntimeError(url + " did not answer")


def txn_time():  # Beijing time, yyyyMMddHHmmss
    return (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=8)).strftime("%Y%m%d%H%M%S")


# ---- The SDKs' rules -----------------------------------------------------------------------------

def signing_string(fields):
    return "&".join(f"{k}={fields[k]}" for k in sorted(fields) if k != "signature")


def sha256_hex(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sign_01(fields, key, cert):
    fields = dict(fields, signMethod="01", certId=str(cert.serial_number))
    digest = sha256_hex(signing_string(fields)).encode()
    fields["signature"] = base64.b64encode(key.sign(digest, padding.PKCS1v15(), hashes.SHA256())).decode()
    return fields


def sign_11(fields, secure_key):
    fields = dict(fields, signMethod="11")
    fields.pop("certId", None)
    fields["signature"] = sha256_hex(signing_string(fields) + "&" + sha256_hex(secure_key))
    return fields


def parse_raw(body):
    """As the Java SDK's convertResultStringToMap: split at '&' outside {...}, key up to the first '='."""
    out, depth, start = {}, 0, 0
    for i, ch in enumerate(body + "&"):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif ch == "&" and depth == 0:
            part = body[start:i]
            start = i + 1
            if part:
                k, _, v = part.partition("=")
                out[k] = v
    return out


def owner(cert):
    cn = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    parts = cn[0].value.split("@") if cn else []
    return parts[2] if len(parts) > 2 else ""


def issued_by(cert, issuer):
    try:
        issuer.public_key().verify(cert.signature, cert.tbs_certificate_bytes, padding.PKCS1v15(), cert.signature_hash_algorithm)
        return cert.issuer == issuer.subject
    except Exception:
        return False


def verify_as_sdk(fields, root, middle, secure_key=None, owners=("00040000:SIGN", "中国银联股份有限公司")):
    """True when `fields` would pass UnionPay's SDK's validate() (ifValidateCNName off in test)."""
    if fields.get("signMethod") == "11":
        return secure_key is not None and fields.get("signature") == sha256_hex(signing_string(fields) + "&" + sha256_hex(secure_key))
    pem = fields.get("signPubKeyCert", "")
    try:
        cert = x509.load_pem_x509_certificate(pem.encode())
    except Exception:
        return False
    now = datetime.datetime.now(datetime.timezone.utc)
    if not (cert.not_valid_before_utc <= now <= cert.not_valid_after_utc):
        return False
    if not (issued_by(cert, middle) and issued_by(middle, root)):
        return False
    if owner(cert) not in owners:
        return False
    digest = sha256_hex(signing_string(fields)).encode()
    try:
        cert.public_key().verify(base64.b64decode(fields["signature"]), digest, padding.PKCS1v15(), hashes.SHA256())
        return True
    except Exception:
        return False


# The ZM file's field widths (UnionPay's file interface specification, 6.1; the SDKs' parseZMFile).
ZM_WIDTHS = [3, 11, 11, 6, 10, 19, 12, 4, 2, 21, 2, 32, 2, 6, 10, 13, 13, 4, 15, 2, 2, 6, 2, 4, 32, 1, 21, 15, 1, 15, 32, 13, 13, 8,
             32, 13, 13, 12, 2, 1, 32, 98]


def parse_zm(data):
    """The SDKs' parseFile: each line cut by the widths, one separator byte between fields."""
    rows = []
    for line in data.split(b"\r\n"):
        if not line.strip():
            continue
        at, row = 0, []
        for w in ZM_WIDTHS:
            row.append(line[at:at + w].decode("gbk"))
            at += w + 1
        rows.append(row)
    return rows


def zm_line(values):
    """A ZM line with `values` ({field index: text}), the rest blank."""
    return " ".join(values.get(i, "").ljust(w)[:w] for i, w in enumerate(ZM_WIDTHS)).encode("gbk") + b"\r\n"


def post_form(url, fields):
    body = urllib.parse.urlencode(fields).encode()
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/x-www-form-urlencoded;charset=UTF-8"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.read().decode("utf-8")


def luhn_ok(number):
    digits = [int(c) for c in number][::-1]
    return sum(d if i % 2 == 0 else (d * 2 - 9 if d * 2 > 9 else d * 2) for i, d in enumerate(digits)) % 10 == 0


def luhn_complete(prefix15):
    digits = [int(c) for c in prefix15]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 0:
            d *= 2
            d = d - 9 if d > 9 else d
        total += d
    return prefix15 + str((10 - total % 10) % 10)


def encrypt_data(text, cert):
    """The SDKs' encryptData: RSA PKCS #1 v1.5 to the encryption certificate, Base64."""
    return base64.b64encode(cert.public_key().encrypt(text.encode(), padding.PKCS1v15())).decode()


def card_trans_data(enc_cert=None):
    acc = luhn_complete('489537' + ''.join(random.choice('0123456789') for _ in range(9)))
    secret = f"expired=3012&cryptogram={base64.b64encode(os.urandom(20)).decode()}"
    if enc_cert is None:
        inner = f"accNo={acc}&{secret}&eci=07"
    else:  # as getCustomerInfoWithEncrypt: the card number by itself, the rest in encryptedInfo
        inner = f"accNo={encrypt_data(acc, enc_cert)}&eci=07&encryptedInfo={encrypt_data(secret, enc_cert)}"
    return base64.b64encode(("{" + inner + "}").encode()).decode()


class Notifications(http.server.BaseHTTPRequestHandler):
    received = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        Notifications.received.append(dict(urllib.parse.parse_qsl(body, keep_blank_values=True)))
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *a):
        pass


# ---- Part 1 --------------------------------------------------------------------------------------

def part1():
    data = tempfile.mkdtemp(prefix="paysheet-interop-")
    port = free_port()
    gw = subprocess.Popen([os.path.join(BIN, "paysheet"), "acquirer-sandbox", "--data", data, "--listen", f"127.0.0.1:{port}"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children.append(gw)
    wait_http(f"http://127.0.0.1:{port}/health")
    base = f"http://127.0.0.1:{port}/gateway/api/"
    pki = os.path.join(data, "unionpay-sandbox")
    root = x509.load_pem_x509_certificate(open(os.path.join(pki, "root.pem"), "rb").read())
    middle = x509.load_pem_x509_certificate(open(os.path.join(pki, "gateway-ca.pem"), "rb").read())
    mfolder = os.path.join(pki, "merchant-" + MER_ID)
    mkey = serialization.load_pem_private_key(open(os.path.join(mfolder, "key.pem"), "rb").read(), None)
    mcert = x509.load_pem_x509_certificate(open(os.path.join(mfolder, "certificate.pem"), "rb").read())
    secure_key = open(os.path.join(mfolder, "secure-key")).read().strip()
    enc_cert = x509.load_pem_x509_certificate(open(os.path.join(pki, "encryption", "certificate.pem"), "rb").read())
    check(len(str(mcert.serial_number)) <= 12, f"the merchant certificate's serial is short ({mcert.serial_number}): every SDK reports it in decimal")

    npt = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", npt), Notifications)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    back_url = f"http://127.0.0.1:{npt}/notify"

    order_id = "INTEROP" + "".join(random.choice("0123456789") for _ in range(12))
    when = txn_time()
    consume = {"version": "5.1.0", "encoding": "UTF-8", "txnType": "01", "txnSubType": "01", "bizType": "000802",
               "accessType": "0", "channelType": "07", "merId": MER_ID, "orderId": order_id, "txnTime": when,
               "txnAmt": "100", "currencyCode": "156", "backUrl": back_url, "cardTransData": card_trans_data(enc_cert),
               "encryptCertId": str(enc_cert.serial_number), "riskRateInfo": ""}  # the PHP SDK sends (and signs) empty fields
    raw = post_form(base + "backTransReq.do", sign_01(consume, mkey, mcert))
    answer = parse_raw(raw)
    check("%" not in raw and "signPubKeyCert=-----BEGIN CERTIFICATE-----" in raw, "the synchronous answer is raw key=value (not percent-encoded)")
    check(answer.get("respCode") == "00", f"a consume signed as the PHP SDK signs it is accepted (respCode {answer.get('respCode')}, {answer.get('respMsg')})")
    check(answer.get("respMsg") == "成功[0000000]", f"respMsg is UnionPay's text ({answer.get('respMsg')})")
    check(verify_as_sdk(answer, root, middle), "the answer verifies as the SDKs verify it (middle, root, CN owner, SHA256withRSA)")
    check(not verify_as_sdk(dict(answer, txnAmt="101"), root, middle), "a changed answer does not verify")

    # The Java SDK's way: empty fields dropped before signing and sending.
    java = {k: v for k, v in dict(consume, orderId=order_id + "J", txnTime=txn_time()).items() if v != ""}  # another order
    janswer = parse_raw(post_form(base + "backTransReq.do", sign_01(java, mkey, mcert)))
    check(janswer.get("respCode") == "00" and verify_as_sdk(janswer, root, middle), "a consume signed as the Java SDK signs it is accepted")

    # A request signed badly is refused with 11, in a signed answer.
    bad = sign_01(dict(consume, orderId=order_id + "B"), mkey, mcert)
    bad["txnAmt"] = "1"
    banswer = parse_raw(post_form(base + "backTransReq.do", bad))
    check(banswer.get("respCode") == "11" and verify_as_sdk(banswer, root, middle), f"a bad signature is answered 11 ({banswer.get('respMsg')})")

    # Card data in clear (the old specification) is refused; the encryption certificate is served (txnType 95).
    clear = {k: v for k, v in dict(consume, orderId=order_id + "C", cardTransData=card_trans_data()).items() if k != "encryptCertId"}
    canswer = parse_raw(post_form(base + "backTransReq.do", sign_01(clear, mkey, mcert)))
    check(canswer.get("respCode") == "10" and "encryptCertId" in canswer.get("respMsg", ""), f"card data in clear is refused ({canswer.get('respMsg')})")
    update = {"version": "5.1.0", "encoding": "UTF-8", "txnType": "95", "txnSubType": "00", "bizType": "000000", "accessType": "0",
              "channelType": "07", "certType": "01", "merId": MER_ID, "orderId": "CERT" + txn_time(), "txnTime": txn_time()}
    u = parse_raw(post_form(base + "backTransReq.do", sign_01(update, mkey, mcert)))
    served = x509.load_pem_x509_certificate(u.get("encryptPubKeyCert", "").encode()) if u.get("encryptPubKeyCert") else None
    check(u.get("respCode") == "00" and verify_as_sdk(u, root, middle) and served is not None and served.serial_number == enc_cert.serial_number
          and issued_by(served, middle), "txnType 95 serves the encryption certificate, issued by the middle certificate, in a verified answer")

    # UnionPay's token payment (bizType 000902), as its SDK demos send a merchant-initiated charge of a
    # stored token: tokenPayData {token=…&trId=…}, no cryptogram. Accepted; a token marked deleted at the network: 63.
    token = luhn_complete("621234" + "".join(random.choice("0123456789") for _ in range(9)))
    if token[-4:-2] == "00":
        token = luhn_complete("621234" + "1" * 9)
    mit = {k: v for k, v in consume.items() if k not in ("cardTransData", "encryptCertId")}
    mit.update(orderId=order_id + "T", txnTime=txn_time(), bizType="000902", txnAmt="2900",
               tokenPayData="{token=" + token + "&trId=62000000001&tokenType=01}")
    tanswer = parse_raw(post_form(base + "backTransReq.do", sign_01(mit, mkey, mcert)))
    check(tanswer.get("respCode") == "00" and verify_as_sdk(tanswer, root, middle),
          f"a token payment (bizType 000902, tokenPayData) is accepted in a verified answer ({tanswer.get('respCode')} {tanswer.get('respMsg')})")
    req = urllib.request.Request(f"http://127.0.0.1:{port}/sandbox/merchant-tokens", method="PUT",
                                 data=json.dumps({"suffix": token[-4:], "status": "deleted"}).encode())
    urllib.request.urlopen(req, timeout=10).read()
    deleted = parse_raw(post_form(base + "backTransReq.do", sign_01(dict(mit, orderId=order_id + "D", txnTime=txn_time()), mkey, mcert)))
    check(deleted.get("respCode") == "63" and verify_as_sdk(deleted, root, middle), f"a deleted token is declined 63 ({deleted.get('respCode')})")
    notoken = parse_raw(post_form(base + "backTransReq.do", sign_01(dict(mit, orderId=order_id + "N", txnTime=txn_time(), tokenPayData="{trId=62000000001}"), mkey, mcert)))
    check(notoken.get("respCode") == "13", f"tokenPayData without a token is refused 13 ({notoken.get('respCode')})")

    # Version 5.0.0 gets a clear answer.
    old = parse_raw(post_form(base + "queryTrans.do", sign_01(dict(consume, version="5.0.0", txnType="00"), mkey, mcert)))
    check(old.get("respCode") == "10" and "5.1.0" in old.get("respMsg", ""), f"version 5.0.0 is answered clearly ({old.get('respMsg')})")

    # Query after the result is final: origRespCode 00.
    time.sleep(0.5)
    query = {"version": "5.1.0", "encoding": "UTF-8", "txnType": "00", "txnSubType": "00", "bizType": "000000", "accessType": "0",
             "channelType": "07", "merId": MER_ID, "orderId": order_id, "txnTime": when}
    q = parse_raw(post_form(base + "queryTrans.do", sign_01(query, mkey, mcert)))
    check(q.get("respCode") == "00" and q.get("origRespCode") == "00" and verify_as_sdk(q, root, middle),
          f"the query answers origRespCode 00 and verifies ({q.get('origRespCode')})")

    # signMethod 11: the query and its answer with the secure key.
    q11 = parse_raw(post_form(base + "queryTrans.do", sign_11(query, secure_key)))
    check(q11.get("signMethod") == "11" and q11.get("origRespCode") == "00" and verify_as_sdk(q11, root, middle, secure_key),
          "signMethod 11: the query is accepted and the answer verifies with the secure key")
    check(not verify_as_sdk(q11, root, middle, "0" * 64), "signMethod 11: another key does not verify the answer")

    # The notification, posted form-encoded to backUrl.
    for _ in range(50):
        if any(n.get("orderId") == order_id for n in Notifications.received):
            break
        time.sleep(0.1)
    notes = [n for n in Notifications.received if n.get("orderId") == order_id]
    check(len(notes) >= 1 and notes[0].get("respCode") == "00", "the notification arrives with respCode 00")
    check(bool(notes) and verify_as_sdk(notes[0], root, middle), "the notification verifies as the SDKs verify it")

    # The reconciliation file, downloaded as the PHP SDK does (Form_7_2_FileTransfer + deCodeFileContent).
    clock = urllib.request.Request(f"http://127.0.0.1:{port}/sandbox/clock", method="PUT", data=b'{"fileOffsetSeconds": 86400}')
    urllib.request.urlopen(clock, timeout=5).read()
    day = when[:8]
    transfer = {"version": "5.1.0", "encoding": "UTF-8", "txnType": "76", "txnSubType": "01", "bizType": "000000", "accessType": "0",
                "fileType": "00", "merId": MER_ID, "settleDate": day[4:], "txnTime": txn_time()}
    f = parse_raw(post_form(f"http://127.0.0.1:{port}/", sign_01(transfer, mkey, mcert)))
    check(f.get("respCode") == "00" and verify_as_sdk(f, root, middle), f"the file transfer is answered 00 and verifies ({f.get('respMsg')})")
    check(f.get("fileName") == f"{MER_ID}_{day}.zip", f"the archive is named merId_YYYYMMDD.zip ({f.get('fileName')})")
    rows = []
    try:
        archive = zipfile.ZipFile(io.BytesIO(zlib.decompress(base64.b64decode(f.get("fileContent", "")))))
        names = [n for n in archive.namelist() if n[:3] == "INN" and n[11:14] == "ZM_"]  # the PHP demo's test of a ZM file
        check(names == [f"INN{day[2:]}88ZM_{MER_ID}"], f"the archive holds the day's ZM file ({archive.namelist()})")
        rows = parse_zm(archive.read(names[0])) if names else []
    except Exception as e:
        check(False, f"fileContent is the Base64 of a zlib stream of a ZIP archive ({e})")
    ledger = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/sandbox/ledger", timeout=5).read())
    settled = [e for e in ledger if e["respCode"] == "00"]
    mine = [r for r in rows if r[11].strip() == order_id]
    check(len(rows) == len(settled) and len(mine) == 1, f"the file lists the day's {len(settled)} settled transactions ({len(rows)})")
    check(bool(mine) and mine[0][6] == "000000000100" and mine[0][19] == "01" and mine[0][4] == when[4:] and mine[0][27].strip() == MER_ID,
          "the consume's line has its amount, txnType, transmission time and merId where the SDKs read them")
    check(bool(mine) and mine[0][16] == "C000000000099" and mine[0][15] == "D000000000001",
          f"settlement and fee are signed amounts (C/D + 12 digits): {mine[0][16] if mine else None} {mine[0][15] if mine else None}")
    tomorrow = (datetime.datetime.strptime(day, "%Y%m%d") + datetime.timedelta(days=1)).strftime("%m%d")
    f98 = parse_raw(post_form(f"http://127.0.0.1:{port}/", sign_01(dict(transfer, settleDate=tomorrow, txnTime=txn_time()), mkey, mcert)))
    check(f98.get("respCode") == "98" and verify_as_sdk(f98, root, middle), f"a day not ended yet is answered 98, as UnionPay does ({f98.get('respMsg')})")

    # The merchant's own certificate under the same root is not UnionPay's.
    forged = dict(notes[0]) if notes else {}
    forged.pop("signature", None)
    forged["signPubKeyCert"] = mcert.public_bytes(serialization.Encoding.PEM).decode()
    digest = sha256_hex(signing_string(forged)).encode()
    forged["signature"] = base64.b64encode(mkey.sign(digest, padding.PKCS1v15(), hashes.SHA256())).decode()
    check(not verify_as_sdk(forged, root, middle), "a message signed with the merchant's certificate fails the SDK's check")
    server.shutdown()
    gw.terminate()


# ---- Part 2: a UnionPay-format gateway of our own ------------------------------------------------

def name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COUNTRY_NAME, "CN"), x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Interop Test Gateway"),
                      x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def certificate(subject, key, issuer, issuer_key, ca, serial):
    now = datetime.datetime.now(datetime.timezone.utc)
    b = (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(name(issuer) if isinstance(issuer, str) else issuer)
         .public_key(key.public_key()).serial_number(serial).not_valid_before(now - datetime.timedelta(days=1))
         .not_valid_after(now + datetime.timedelta(days=30))
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    return b.sign(issuer_key, hashes.SHA256())


class Gateway(http.server.BaseHTTPRequestHandler):
    state = {}

    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def do_POST(self):
        s = Gateway.state
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        req = dict(urllib.parse.parse_qsl(body, keep_blank_values=True))
        ok = req.get("certId") == str(s["mcert"].serial_number)
        if ok:
            try:
                s["mcert"].public_key().verify(base64.b64decode(req["signature"]), sha256_hex(signing_string(req)).encode(),
                                               padding.PKCS1v15(), hashes.SHA256())
            except Exception:
                ok = False
        fields = {k: req.get(k, "") for k in ("version", "encoding", "bizType", "txnType", "txnSubType", "accessType", "merId", "orderId", "txnTime")}
        if not ok:
            fields.update(respCode="11", respMsg="验证签名失败")
        elif req.get("txnType") == "95":
            s["certRequests"] += 1
            fields.update(respCode="00", respMsg="成功[0000000]", certType="01",
                          encryptPubKeyCert=s["ecert"].public_bytes(serialization.Encoding.PEM).decode())
        elif req.get("txnType") == "76":
            day = s.get("fileDay")
            if day is None or req.get("settleDate") != day[4:]:
                fields.update(respCode="98", respMsg="文件不存在")
            else:
                lines = b""
                for e in s["ledger"].values():
                    fee = (int(e["txnAmt"]) * 6 + 500) // 1000
                    settle = int(e["txnAmt"]) - fee
                    lines += zm_line({0: "S56", 4: e["txnTime"][4:], 6: e["txnAmt"].zfill(12), 9: e["queryId"], 11: e["orderId"],
                                      15: "D" + str(fee).zfill(12), 16: "C" + str(settle).zfill(12), 19: "01", 21: "000802",
                                      27: req["merId"], 32: "C" + str(settle).zfill(12)})
                # A transaction the merchant never sent: the reconciliation must report it.
                lines += zm_line({0: "S56", 4: day[4:] + "093000", 6: "000000012345", 9: "7" * 21, 11: "NOTOURS0001", 19: "01",
                                  27: req["merId"], 15: "D000000000074", 16: "C000000012271", 32: "C000000012271"})
                buf = io.BytesIO()
                with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
                    z.writestr(f"INN{day[2:]}88ZM_{req['merId']}", lines)
                    z.writestr(f"RD{day[2:]}01_{req['merId']}", "summary".encode("gbk"))
                fields.update(respCode="00", respMsg="成功[0000000]", fileType="00", settleDate=req["settleDate"],
                              fileName=f"{req['merId']}_{day}.zip", fileContent=base64.b64encode(zlib.compress(buf.getvalue())).decode())
        elif self.path.endswith("backTransReq.do"):
            qid = "7" + "".join(random.choice("0123456789") for _ in range(20))
            s["ledger"][(req["orderId"], req["txnTime"])] = dict(req, queryId=qid)
            s["cards"].append(Gateway.open_card(req))
            fields.update(respCode="00", respMsg="成功[0000000]", queryId=qid, txnAmt=req["txnAmt"], currencyCode=req["currencyCode"])
            note = {k: v for k, v in dict(fields, settleAmt=req["txnAmt"], settleCurrencyCode="156", settleDate=req["txnTime"][4:8],
                                          traceNo="123456", traceTime=req["txnTime"][4:]).items() if v}
            threading.Thread(target=Gateway.notify, args=(req["backUrl"], note), daemon=True).start()
        else:
            e = s["ledger"].get((req.get("orderId"), req.get("txnTime")))
            if e is None:
                fields.update(respCode="34", respMsg="查无此交易")
            else:
                fields.update(respCode="00", respMsg="成功[0000000]", origRespCode="00", origRespMsg="成功[0000000]", queryId=e["queryId"],
                              txnAmt=e["txnAmt"], currencyCode=e["currencyCode"], settleAmt=e["txnAmt"])
        answer = Gateway.sign({k: v for k, v in fields.items() if v})
        raw = "&".join(f"{k}={answer[k]}" for k in sorted(answer))  # raw, as UnionPay answers
        self.send_response(200)
        self.send_header("Content-Type", "text/plain;charset=UTF-8")
        self.end_headers()
        self.wfile.write(raw.encode("utf-8"))

    @staticmethod
    def open_card(req):
        """The card data as UnionPay's gateway reads it: decrypted with the encryption key."""
        s = Gateway.state
        try:
            text = base64.b64decode(req.get("cardTransData", "")).decode()[1:-1]
            pairs = dict(p.split("=", 1) for p in text.split("&"))
            if req.get("encryptCertId") != str(s["ecert"].serial_number):
                return {"error": "encryptCertId " + str(req.get("encryptCertId"))}
            def opened(v):
                return b"".join(s["ekey"].decrypt(base64.b64decode(piece), padding.PKCS1v15()) for piece in v.split(".")).decode()
            out = dict(pairs, accNo=opened(pairs["accNo"]))
            out.update(dict(p.split("=", 1) for p in opened(out.pop("encryptedInfo")).split("&")))
            return out
        except Exception as e:
            return {"error": repr(e)}

    @staticmethod
    def sign(fields):
        s = Gateway.state
        fields = dict(fields, signMethod="01", certId=str(s["gcert"].serial_number),
                      signPubKeyCert=s["gcert"].public_bytes(serialization.Encoding.PEM).decode())
        fields["signature"] = base64.b64encode(s["gkey"].sign(sha256_hex(signing_string(fields)).encode(), padding.PKCS1v15(), hashes.SHA256())).decode()
        return fields

    @staticmethod
    def notify(url, fields):
        time.sleep(0.2)
        try:
            post_form(url, Gateway.sign(fields))
            Gateway.state["notified"] += 1
        except Exception as e:
            print("   notification failed:", e, flush=True)

    def log_message(self, *a):
        pass


def part2():
    folder = tempfile.mkdtemp(prefix="paysheet-interop-gw-")
    keys = {n: rsa.generate_private_key(public_exponent=65537, key_size=2048) for n in ("root", "middle", "gateway", "merchant", "encrypt")}
    root = certificate("Interop Root", keys["root"], "Interop Root", keys["root"], True, 69042900001)
    middle = certificate("Interop Middle", keys["middle"], root.subject, keys["root"], True, 69042900002)
    gcert = certificate("041@Z12@00040000:SIGN@00000062", keys["gateway"], middle.subject, keys["middle"], False, 69042905377)
    mcert = certificate(f"041@Z12@{MER_ID}:SIGN@00000001", keys["merchant"], middle.subject, keys["middle"], False, 69042905378)
    ecert = certificate("041@Z12@00040000:SIGN@00000063", keys["encrypt"], middle.subject, keys["middle"], False, 69042905379)
    for fname, obj in (("root.pem", root), ("middle.pem", middle), ("merchant.pem", mcert), ("encrypt.pem", ecert)):
        open(os.path.join(folder, fname), "wb").write(obj.public_bytes(serialization.Encoding.PEM))
    key_path = os.path.join(folder, "merchant-key.pem")
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, keys["merchant"].private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    os.close(fd)
    Gateway.state = {"gkey": keys["gateway"], "gcert": gcert, "mcert": mcert, "ledger": {}, "notified": 0, "ekey": keys["encrypt"],
                     "ecert": ecert, "cards": [], "certRequests": 0}
    gport = free_port()
    gw = http.server.ThreadingHTTPServer(("127.0.0.1", gport), Gateway)
    threading.Thread(target=gw.serve_forever, daemon=True).start()

    port = free_port()
    config = {"listen": f"127.0.0.1:{port}", "dataFolder": os.path.join(folder, "data"),
              "acquirer": {"gatewayURL": f"http://127.0.0.1:{gport}", "merchantId": MER_ID, "signingKeyFile": key_path,
                           "signingCertificateFile": os.path.join(folder, "merchant.pem"),
                           "trustedRootFiles": [os.path.join(folder, "root.pem")], "intermediateFiles": [os.path.join(folder, "middle.pem")],
                           "encryptionCertificateFile": os.path.join(folder, "encrypt.pem")},
              "logLevel": "warning"}
    json.dump(config, open(os.path.join(folder, "config.json"), "w"))
    log = open(os.path.join(folder, "serve.log"), "w")
    serve = subprocess.Popen([os.path.join(BIN, "paysheet"), "serve", "--config", os.path.join(folder, "config.json"), "--no-demo-order"],
                             stdout=log, stderr=log)
    children.append(serve)
    wait_http(f"http://127.0.0.1:{port}/health")
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/orders", method="POST", headers={"Content-Type": "application/json"},
                                 data=json.dumps({"currencyCode": "CNY", "lineItems": [{"sku": "tea-set", "quantity": 1}]}).encode())
    order = json.loads(urllib.request.urlopen(req, timeout=10).read())
    pay = subprocess.run([os.path.join(BIN, "paysheet"), "pay", "--server", f"http://127.0.0.1:{port}", "--order", order["id"],
                          "--client-secret", order["clientSecret"], "--data", os.path.join(folder, "data"), "--wait", "20"],
                         capture_output=True, text=True, timeout=120)
    check(pay.returncode == 0 and f"order {order['id']}: paid" in pay.stdout,
          "paysheet serve + paysheet pay pay an order through a UnionPay-format gateway (raw answers, UnionPay-style certificates)")
    if pay.returncode != 0:
        print(pay.stdout[-1500:], pay.stderr[-1500:], open(log.name).read()[-1500:], sep="\n")
    check(len(Gateway.state["ledger"]) == 1, f"the gateway was asked for exactly one consume ({len(Gateway.state['ledger'])})")
    card = Gateway.state["cards"][0] if Gateway.state["cards"] else {}
    acc = card.get("accNo", "")
    check(len(acc) >= 13 and acc.isdigit() and luhn_ok(acc) and len(card.get("cryptogram", "")) > 0 and len(card.get("expired", "")) == 4,
          f"the card data arrives encrypted to the gateway's encryption certificate and opens with its key ({sorted(card)})")
    check(Gateway.state["certRequests"] >= 1, "the server asked for the gateway's encryption certificate (txnType 95)")

    # The day's file from this gateway, reconciled by the server with a merchant key.
    day = next(iter(Gateway.state["ledger"].values()))["txnTime"][:8] if Gateway.state["ledger"] else "20260101"
    Gateway.state["fileDay"] = day
    made = subprocess.run([os.path.join(BIN, "paysheet"), "api-key", "create", "--data", os.path.join(folder, "data"), "--name", "interop"],
                          capture_output=True, text=True, timeout=60)
    key = made.stdout.strip().splitlines()[-1] if made.returncode == 0 and made.stdout.strip() else ""
    rreq = urllib.request.Request(f"http://127.0.0.1:{port}/v1/reconciliations", method="POST", data=json.dumps({"day": day}).encode(),
                                  headers={"Content-Type": "application/json", "Authorization": "Bearer " + key})
    try:
        report = json.loads(urllib.request.urlopen(rreq, timeout=30).read())
    except Exception as e:
        report = {}
        print("   reconciliation failed:", e, getattr(e, "read", lambda: b"")()[:500], flush=True)
    kinds = [d.get("kind") for d in report.get("differences", [])]
    check(report.get("fileTransactions") == 2 and report.get("matched") == 1,
          f"the server reads this gateway's file and matches the paid consume ({report.get('matched')} of {report.get('fileTransactions')})")
    check(kinds == ["unknownToUs"] and report["differences"][0].get("acquirerOrderId") == "NOTOURS0001",
          f"the transaction the merchant never sent is reported ({kinds})")
    serve.terminate()
    gw.shutdown()


try:
    part1()
    part2()
finally:
    for p in children:
        if p.poll() is None:
            p.kill()
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
