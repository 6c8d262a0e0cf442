#!/usr/bin/env python3
"""Re-expresses the expected lines of WebKit's table-like Apple Pay LayoutTests as rows that our
browser tests run (`Tests/Browser/webkit_line_cases.py`): for each `PASS` line of a test's
`-expected.txt`, the setup the test printed before it, the expression it printed, and the outcome
WebKit recorded (threw NAME: MESSAGE, did not throw, rejected with NAME: MESSAGE, or is VALUE).

WebKit's files are not part of this repository (see the shared `webkit-lt` harness's README for
which files to fetch); this tool reads a folder of them and writes the rows:

    python3 Tools/webkit_lines.py WEBKIT_TESTS_DIR > Tests/Browser/webkit_lines.json

Rows keep the profile and notes already recorded in the existing output (`--keep FILE`), so that a
regenerated table keeps the per-row decisions (which Safari a line was recorded with).
"""

import json
import os
import re
import sys

# The tests whose lines are independent rows, and what each page defines for them.
FILES = [
    ("ApplePaySession.html", "session-v2"),
    ("ApplePaySessionV3.html", "session-v2"),
    ("ApplePaySessionV4.html", "session-v4"),
    ("ApplePaySessionV5.html", "session-v4"),
    ("ApplePayError.html", "none"),
    ("ApplePayInstallmentItems.https.html", "installments"),
    ("PaymentRequest.https.html", "payment-request"),
]

PASS = re.compile(r"^PASS (?P<expr>.*?) (?:(?P<threw>threw exception) (?P<tname>\w+): (?P<tmsg>.*)\.|(?P<ok>did not throw exception)\."
                  r"|(?P<rej>rejected promise  with) (?P<rname>\w+): (?P<rmsg>.*)\.|threw exception (?P<tval>.*)\.|is (?P<value>.*))$")


def rows_of(expected_path):
    rows, setup = [], ""
    lines = open(expected_path, encoding="utf-8").read().split("\n")
    for n, line in enumerate(lines, 1):
        if line.startswith("SETUP:"):
            setup = line[len("SETUP:"):].strip()
            continue
        if not line.startswith("PASS "):
            if line.strip() == "":
                continue
            setup = "" if not line.startswith("SETUP") else setup
            continue
        m = PASS.match(line)
        if not m:
            raise SystemExit(f"{expected_path}:{n}: unrecognised PASS line: {line}")
        if m["expr"] == "successfullyParsed":
            # js-test's own line: the page's script ran to its end.
            rows.append({"line": n, "expr": "successfullyParsed", "expect": {"is": m["value"]}, "harness": True})
            continue
        if m["threw"]:
            expect = {"threw": [m["tname"], m["tmsg"]]}
        elif m["tval"] is not None:
            # A value that is not an Error, as js-test prints it (a string in quotes).
            expect = {"threwValue": m["tval"]}
        elif m["ok"]:
            expect = {"threw": None}
        elif m["rej"]:
            expect = {"rejected": [m["rname"], m["rmsg"]]}
        else:
            expect = {"is": m["value"]}
        rows.append({"line": n, "setup": setup, "expr": m["expr"], "expect": expect})
        setup = ""
    return rows


def main():
    args = sys.argv[1:]
    keep = {}
    if "--keep" in args:
        i = args.index("--keep")
        old = json.load(open(args[i + 1]))
        for f in old["files"]:
            for r in f["rows"]:
                extra = {k: v for k, v in r.items() if k in ("profile", "why", "notHonoured")}
                if extra:
                    keep[(f["file"], r["line"])] = extra
        del args[i:i + 2]
    folder = args[0]
    out = {"source": "WebKit/WebKit LayoutTests/http/tests/ssl/applepay/ (the -expected.txt files), re-expressed by Tools/webkit_lines.py",
           "files": []}
    for name, helpers in FILES:
        expected = os.path.join(folder, name.replace(".html", "-expected.txt"))
        rows = rows_of(expected)
        for r in rows:
            r.update(keep.get((name, r["line"]), {}))
        out["files"].append({"file": name, "helpers": helpers, "rows": rows})
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
