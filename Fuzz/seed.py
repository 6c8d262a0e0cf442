#!/usr/bin/env python3
"""Seeds the fuzz corpus: every real token's JSON and its decoded CMS signature."""
import base64, json, os, sys

vectors, corpus = sys.argv[1], sys.argv[2]
n = 0
for folder, _, files in os.walk(vectors):
    for name in files:
        if not name.endswith(".json") or "expected" in name:
            continue
        text = open(os.path.join(folder, name), "rb").read()
        try:
            doc = json.loads(text)
        except ValueError:
            continue
        token = doc.get("token", doc).get("paymentData", doc.get("paymentData", doc)) if isinstance(doc, dict) else None
        if not isinstance(token, dict) or "signature" not in token:
            continue
        open(os.path.join(corpus, "token-%d.json" % n), "wb").write(text)
        open(os.path.join(corpus, "cms-%d.der" % n), "wb").write(base64.b64decode(token["signature"]))
        n += 1
print("seeded %d tokens" % n)
