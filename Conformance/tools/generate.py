#!/usr/bin/env python3
"""Writes the generated part of the conformance suite (Conformance/generated/*.json).

The expectations are typed here from docs/payment-sheet.md (tables §3, §4) and from
WebKit's sources and LayoutTests (ApplePaySession.cpp, PaymentRequestValidator), independently of the engine's own
tables, so that the suite checks the engine rather than repeating it. Run it after editing:
    python3 Conformance/tools/generate.py
"""
import copy, json, os, shutil

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "generated")
LABEL = "Paysheet Demo Store"
POPUP = f"{LABEL} does not allow delivery to your shipping address"

def valid(**extra):
    r = {"countryCode": "US", "currencyCode": "USD", "supportedNetworks": ["visa", "masterCard"],
         "merchantCapabilities": ["supports3DS"], "total": {"label": "Your Label", "amount": "10.00"}}
    r.update(extra)
    return r

def shipping_request():
    return valid(total={"label": LABEL, "amount": "10.00"},
                 requiredShippingContactFields=["postalAddress", "email", "phone"])

def to_authorized():
    """Steps that bring a shipping request to the paymentauthorized event."""
    upd = {"newTotal": {"label": LABEL, "amount": "10.00"}}
    return [
        {"page": "begin"},
        {"page": "completeMerchantValidation", "session": {}},
        {"page": "completePaymentMethodSelection", "update": upd},
        {"page": "completeShippingContactSelection", "update": upd},
        {"expect": {"sheet": {"canAuthorize": True}}},
        {"user": "authorize"},
        {"expect": {"session": "active", "sheet": {"outstanding": "paymentauthorized"}}},
    ]

files = {}
def add(name, title, version, request, steps, **top):
    d = {"name": title, "version": version, "request": request}
    d.update(top)
    d["steps"] = steps
    files[name] = d

# --- docs/payment-sheet.md §4: the 21 completePayment rows -------------------------------------------
VCI = {"title": "VERIFY CONTACT INFORMATION", "message": "invalid contact information"}
def sai(m): return {"title": "SHIPPING ADDRESS INVALID", "message": m}
def su(m): return {"title": "SHIPPING UNAVAILABLE", "message": m}
MSG = "Zip code doesn't match city"
rows = [
    # row, status, code, field?, fingerprint, contact, shipping, closes, popup, paid
    (1, 0, None, False, None, None, None, True, False, True),
    (2, 0, "shippingContactInvalid", True, "Try Again", None, None, False, False, False),
    (3, 1, None, False, "Payment Not Completed", None, None, True, False, False),
    (4, 1, "shippingContactInvalid", True, "Shipping Address Invalid", None, sai(MSG), False, False, False),
    (5, 1, "shippingContactInvalid", False, "Verify Contact Information", VCI, None, False, False, False),
    (6, 1, "addressUnserviceable", False, "Shipping Unavailable", None, su("Address not supported"), False, True, False),
    (7, 1, "addressUnserviceable", True, "Shipping Address Invalid", None, sai(MSG), False, True, False),
    (8, 1, "unknown", False, "Try Again", None, None, False, False, False),
    (9, 1, "unknown", True, "Try Again", None, None, False, False, False),
    (10, 4, "shippingContactInvalid", True, "Verify Contact Information", VCI, sai(MSG), False, False, False),
    (11, 4, "shippingContactInvalid", False, "Verify Contact Information", VCI, None, False, False, False),
    (12, 4, "addressUnserviceable", True, "Verify Contact Information", VCI, su(MSG), False, True, False),
    (13, 4, "addressUnserviceable", False, "Verify Contact Information", VCI, su("Address not supported"), False, True, False),
    (14, 4, "unknown", True, "Verify Contact Information", VCI, None, False, False, False),
    (15, 4, "unknown", False, "Verify Contact Information", VCI, None, False, False, False),
    (16, 3, "shippingContactInvalid", True, "Shipping Address Invalid", None, sai("invalid address"), False, False, False),
    (17, 3, "shippingContactInvalid", False, "Shipping Address Invalid", VCI, sai("invalid address"), False, False, False),
    (18, 3, "addressUnserviceable", True, "Shipping Address Invalid", None, sai("invalid address"), False, True, False),
    (19, 3, "addressUnserviceable", False, "Shipping Address Invalid", None, sai("invalid address"), False, True, False),
    (20, 3, "unknown", True, "Shipping Address Invalid", None, sai("invalid address"), False, False, False),
    (21, 3, "unknown", False, "Shipping Address Invalid", None, sai("invalid address"), False, False, False),
]
for (row, status, code, field, fp, contact, shipping, closes, popup, paid) in rows:
    result = {"status": status}
    if code:
        e = {"code": code, "message": MSG}
        if field: e["contactField"] = "postalCode"
        result["errors"] = [e]
    sheet = {"visible": not closes, "status": fp, "popup": POPUP if popup else None, "rule": row,
             "modules": {"contact": {"error": contact}, "shipping": {"error": shipping}}}
    if closes:
        sheet = {"visible": False, "status": fp, "rule": row, "result": "success" if paid else "failure"}
    steps = to_authorized() + [
        {"page": "completePayment", "result": result},
        {"expect": {"threw": None, "sheet": sheet, "paid": paid,
                    "session": "completed" if closes else "active"}},
    ]
    if not closes:
        # Non-final: the sheet stays open and the user may authorize again once the error is fixed.
        steps += [{"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"},
                                         {"type": "shippingcontactselected"}, {"type": "paymentauthorized"}]}}]
        if shipping is not None:
            steps += [{"user": "authorize"},
                      {"expect": {"events": [{"type": "ignored", "action": "authorize"}]}},
                      {"user": "selectShippingContact", "index": 0},
                      {"expect": {"events": [{"type": "shippingcontactselected"}],
                                  "sheet": {"modules": {"shipping": {"error": None}}}}},
                      {"page": "completeShippingContactSelection", "update": {"newTotal": {"label": LABEL, "amount": "10.00"}}}]
        if contact is not None:
            steps += [{"user": "editContact", "email": "jane@example.org"},
                      {"expect": {"sheet": {"modules": {"contact": {"error": None, "email": "jane@example.org"}}}}}]
        steps += [{"expect": {"sheet": {"canAuthorize": True}}},
                  {"user": "authorize"},
                  {"expect": {"events": [{"type": "paymentauthorized"}]}},
                  {"page": "completePayment", "result": {"status": 0}},
                  {"expect": {"paid": True, "session": "completed"}}]
    else:
        steps += [{"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"},
                                         {"type": "shippingcontactselected"}, {"type": "paymentauthorized"}]}},
                  {"page": "completePayment", "result": {"status": 0}},
                  {"expect": {"threw": "InvalidAccessError"}}]
    add(f"complete-payment-row-{row:02d}", f"completePayment row {row}: status {status}, {code or 'no error'}"
        f"{', with contactField' if field else ''}", 3, shipping_request(), steps, surfaces=["web", "passkit"])

# --- docs/payment-sheet.md §3: completeShippingContactSelection with errors --------------------------
for code, fp, ship, popup in [
    ("addressUnserviceable", "Shipping Address Invalid", su("Address not supported"), True),
    ("shippingContactInvalid", "Shipping Address Invalid", sai(MSG), False),
    ("unknown", "Shipping Address Invalid", None, False),
]:
    err = {"code": code, "message": MSG}
    if code == "shippingContactInvalid": err["contactField"] = "postalCode"
    upd = {"newTotal": {"label": LABEL, "amount": "10.00"}}
    steps = [
        {"page": "begin"},
        {"page": "completeMerchantValidation", "session": {}},
        {"page": "completePaymentMethodSelection", "update": upd},
        {"page": "completeShippingContactSelection", "update": dict(upd, errors=[err])},
        {"expect": {"threw": None, "sheet": {"status": fp, "canAuthorize": False, "popup": POPUP if popup else None,
                                             "modules": {"shipping": {"error": ship, "selected": {"locality": "Cupertino"}}}}}},
        {"user": "authorize"},
        {"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"},
                               {"type": "shippingcontactselected"}, {"type": "ignored", "action": "authorize"}]}},
        {"user": "selectShippingContact", "index": 1},
        {"expect": {"events": [{"type": "shippingcontactselected", "shippingContact": {"locality": "Chicago", "postalCode": "60601"}}],
                    "sheet": {"status": None, "popup": None, "modules": {"shipping": {"error": None}}}}},
        {"page": "completeShippingContactSelection", "update": upd},
        {"expect": {"sheet": {"canAuthorize": True, "status": None}}},
    ]
    wallet = {"cards": [{"network": "visa", "type": "credit", "displayName": "Visa 1234"}],
              "shippingContacts": [
                  {"givenName": "Jane", "familyName": "Appleseed", "addressLines": ["1 Infinite Loop"], "locality": "Cupertino",
                   "administrativeArea": "CA", "postalCode": "95014-2083", "country": "United States", "countryCode": "US"},
                  {"givenName": "Jane", "familyName": "Appleseed", "addressLines": ["233 S Wacker Dr"], "locality": "Chicago",
                   "administrativeArea": "IL", "postalCode": "60601-1234", "country": "United States", "countryCode": "US"}],
              "email": "jane@example.com", "phone": "+1 312-555-0100"}
    add(f"shipping-contact-update-{code}", f"completeShippingContactSelection with {code}", 3, shipping_request(), steps, wallet=wallet)

# --- A: construction and validation (WebKit's ApplePaySession and PaymentRequestValidator) ------------------------------------------------
def construct_case(name, title, version, request, threw, **top):
    exp = {"threw": threw}
    steps = [{"page": "construct"}, {"expect": exp}]
    if threw is None:
        steps += [{"expect": {"session": "idle"}}]
    add(name, title, version, request, steps, **top)

TE, IAE = "TypeError", "InvalidAccessError"
def te(m): return {"name": TE, "message": m}
def iae(m): return {"name": IAE, "message": m}
def without(k):
    r = valid(); del r[k]; return r

add("A01-supportsVersion-0", "A1 supportsVersion(0) throws InvalidAccessError", 3, valid(),
    [{"page": "supportsVersion", "version": 0},
     {"expect": {"threw": iae("The object does not support the operation or argument.")}}])
add("A02-supportsVersion-range", "A2 supportsVersion(1..current) true, current+1 false", 3, valid(),
    [s for v in range(1, 16) for s in ({"page": "supportsVersion", "version": v}, {"expect": {"threw": None, "returned": True}})]
    + [{"page": "supportsVersion", "version": 16}, {"expect": {"returned": False}}])
add("A03-user-gesture", "A3 constructing outside a user gesture", 2, valid(),
    [{"page": "construct", "userGesture": False},
     {"expect": {"threw": iae("Must create a new ApplePaySession from a user gesture handler.")}}])
construct_case("A04-version-0", "A4 version 0 is not supported", 0, valid(), iae('"0" is not a supported version.'))
construct_case("A05-empty-request", "A5 empty request reports countryCode first", 2, {},
               te("Member ApplePayPaymentRequest.countryCode is required and must be an instance of DOMString"))
for i, (val, shown) in enumerate([("invalid", "invalid"), ("", ""), (None, "null"), (7, "7"), ("us", "us")]):
    construct_case(f"A06-countryCode-{i}", f"A6 countryCode {json.dumps(val)}", 2, valid(countryCode=val),
                   te(f'"{shown}" is not a valid country code.'))
construct_case("A07-currencyCode", "A7 invalid currency code", 2, valid(currencyCode="invalid"), te('"invalid" is not a valid currency code.'))
construct_case("A08-networks-empty", "A8 empty supportedNetworks", 2, valid(supportedNetworks=[]), te("At least one supported network must be provided."))
construct_case("A09-network-invalid", "A9 an invalid network", 2, valid(supportedNetworks=["invalidNetwork", "visa"]), te('"invalidNetwork" is not a valid payment network.'))
construct_case("A10-networks-duplicates", "A10 duplicate networks are fine", 2, valid(supportedNetworks=["visa", "visa"]), None)
construct_case("A10-networks-case", "A10 networks match case-insensitively", 2, valid(supportedNetworks=["vIsa", "MasterCard", "JCB"]), None)
construct_case("A11-jcb-v1", "A11 jcb needs version 2", 1, valid(supportedNetworks=["jcb"]), te('"jcb" is not a valid payment network.'))
construct_case("A11-carteBancaire-v2", "A11 carteBancaire needs version 3", 2, valid(supportedNetworks=["carteBancaire"]), te('"carteBancaire" is not a valid payment network.'))
for i, val in enumerate(["", None, 7]):
    construct_case(f"A12-networks-not-sequence-{i}", f"A12 supportedNetworks {json.dumps(val)}", 2, valid(supportedNetworks=val), te("Value is not a sequence"))
construct_case("A12-networks-object", "A12 supportedNetworks {}", 2, valid(supportedNetworks={}), te("Type error"))
construct_case("A13-capabilities-empty", "A13 empty capabilities", 2, valid(merchantCapabilities=[]), te("At least one merchant capability must be provided."))
construct_case("A13-capabilities-bogus", "A13 bogus capability", 2, valid(merchantCapabilities=["bogus"]), te("Type error"))
construct_case("A13-capabilities-credit", "A13 supportsCredit alone is fine", 2, valid(merchantCapabilities=["supportsCredit"]), None)
construct_case("A14-total-missing", "A14 total missing", 2, without("total"), te("Member ApplePayPaymentRequest.total is required and must be an instance of ApplePayLineItem"))
construct_case("A14-total-no-amount", "A14 total without amount", 2, valid(total={"label": "l"}), te('"" is not a valid amount.'))
construct_case("A14-total-bad-amount", "A14 total amount 'amount'", 2, valid(total={"label": "l", "amount": "amount"}), te('"amount" is not a valid amount.'))
construct_case("A15-total-negative", "A15 negative total", 2, valid(total={"label": "l", "amount": "-10.00"}), te("Total amount must not be negative."))
construct_case("A16-total-zero-v2", "A16 zero total with version 2 (current Safari)", 2, valid(total={"label": "l", "amount": "0"}), None)
construct_case("A16-total-zero-v4", "A16 zero total with version 4", 4, valid(total={"label": "l", "amount": "0"}), None)
construct_case("A16-total-zero-safari12", "A16 zero total rejected by Safari 12.0", 2, valid(total={"label": "l", "amount": "0"}),
               te("Total amount must be greater than zero."), options={"profile": "safari-12.0"})
construct_case("A17-total-big-current", "A17 a huge total is accepted by current Safari", 2, valid(total={"label": "l", "amount": "10000000000.00"}), None)
construct_case("A17-total-big-safari14", "A17 a huge total is too big for Safari 12.1-14.1", 2, valid(total={"label": "l", "amount": "10000000000.00"}),
               te("Total amount is too big."), options={"profile": "safari-14"})
construct_case("A18-total-no-label", "A18 total without label", 2, valid(total={"amount": "10.00"}), te("Missing total label."))
construct_case("A18-total-empty-label", "A18 empty label is fine", 2, valid(total={"label": "", "amount": "10.00"}), None)
construct_case("A19-amount-3-decimals", "A19 three fraction digits (current)", 2, valid(total={"label": "l", "amount": "1.234"}), None)
construct_case("A19-amount-3-decimals-legacy", "A19 three fraction digits (Safari 14)", 2, valid(total={"label": "l", "amount": "1.234"}),
               te('"1.234" is not a valid amount.'), options={"profile": "safari-14"})
for i, a in enumerate(["10.", ".5", "+1", "1,00", " 1"]):
    construct_case(f"A19-amount-bad-{i}", f"A19 amount {json.dumps(a)}", 2, valid(total={"label": "l", "amount": a}), te(f'"{a}" is not a valid amount.'))
construct_case("A20-total-type-invalid", "A20 invalid total type", 2, valid(total={"label": "l", "amount": "10.00", "type": "invalid"}), te("Type error"))
construct_case("A20-total-pending", "A20 pending total", 2, valid(total={"label": "l", "amount": "10.00", "type": "pending"}), None)
construct_case("A21-pending-item-no-amount", "A21 pending item without amount", 2, valid(lineItems=[{"label": "l", "type": "pending"}]), None)
construct_case("A21-pending-item-bad-amount", "A21 pending item amount is discarded", 2, valid(lineItems=[{"label": "l", "type": "pending", "amount": "abc"}]), None)
construct_case("A21-item-no-amount", "A21 final item without amount", 2, valid(lineItems=[{"label": "l"}]), te('"" is not a valid amount.'))
construct_case("A22-lineItems-null", "A22 lineItems null", 2, valid(lineItems=None), te("Value is not a sequence"))
construct_case("A22-lineItems-empty", "A22 lineItems []", 2, valid(lineItems=[]), None)
construct_case("A22-lineItems-null-item", "A22 lineItems [null]", 2, valid(lineItems=[None]), te('"" is not a valid amount.'))
construct_case("A23-phoneticName-v2", "A23 phoneticName needs version 3", 2, valid(requiredBillingContactFields=["phoneticName"]), te('"phoneticName" is not a valid contact field.'))
construct_case("A23-phoneticName-v3", "A23 phoneticName with version 3", 3, valid(requiredBillingContactFields=["phoneticName"]), None)
construct_case("A24-field-invalid", "A24 invalid contact field", 2, valid(requiredShippingContactFields=["invalid"]), te("Type error"))
construct_case("A24-fields-empty", "A24 empty fields", 2, valid(requiredShippingContactFields=[]), None)
construct_case("A24-fields-empty-safari12", "A24 empty fields (Safari 12.0)", 2, valid(requiredShippingContactFields=[]),
               te("At least one contact field must be provided."), options={"profile": "safari-12.0"})
construct_case("A24-fields-duplicate", "A24 duplicate fields", 2, valid(requiredShippingContactFields=["email", "email"]), None)
construct_case("A25-billingContact-string", "A25 billingContact ''", 2, valid(billingContact=""), te("Type error"))
construct_case("A25-billingContact-null", "A25 billingContact null", 2, valid(billingContact=None), None)
construct_case("A25-billingContact-empty", "A25 billingContact {}", 2, valid(billingContact={}), None)
construct_case("A26-shippingType-storePickup", "A26 storePickup", 2, valid(shippingType="storePickup"), None)
for i, v in enumerate(["", "invalid", None, 7]):
    construct_case(f"A26-shippingType-bad-{i}", f"A26 shippingType {json.dumps(v)}", 2, valid(shippingType=v), te("Type error"))
construct_case("A27-method-empty", "A27 shipping method {}", 2, valid(shippingMethods=[{}]),
               te("Member ApplePayShippingMethod.amount is required and must be an instance of DOMString"))
construct_case("A27-method-amount-only", "A27 shipping method with amount only", 2, valid(shippingMethods=[{"amount": ""}]),
               te("Member ApplePayShippingMethod.detail is required and must be an instance of DOMString"))
construct_case("A27-method-empty-amount", "A27 shipping method empty amount", 2, valid(shippingMethods=[{"amount": "", "detail": "", "identifier": "", "label": ""}]),
               te('"" is not a valid amount.'))
construct_case("A27-method-negative", "A27 negative shipping method", 2, valid(shippingMethods=[{"amount": "-1", "detail": "", "identifier": "", "label": ""}]),
               te("Shipping method amount must be greater than or equal to zero."))
construct_case("A27-method-ok", "A27 shipping method with empty strings", 2, valid(shippingMethods=[{"amount": "10.00", "detail": "", "identifier": "", "label": ""}]), None)
for i, v in enumerate([7, None, {}]):
    construct_case(f"A28-applicationData-{i}", f"A28 applicationData {json.dumps(v)}", 2, valid(applicationData=v), None)
construct_case("A29-supportedCountries-invalid", "A29 invalid supported country (v3)", 3, valid(supportedCountries=["US", "invalid"]), te('"invalid" is not a valid country code.'))
construct_case("A29-supportedCountries-number", "A29 numeric supported country (v3)", 3, valid(supportedCountries=["US", 7]), te('"7" is not a valid country code.'))
construct_case("A29-supportedCountries-string", "A29 supportedCountries '' (v3)", 3, valid(supportedCountries=""), te("Value is not a sequence"))
construct_case("A29-supportedCountries-ok", "A29 supportedCountries [] and duplicates (v3)", 3, valid(supportedCountries=["US", "US"]), None)
construct_case("A30-supportedCountries-v2", "A30 supportedCountries ignored below v3", 2, valid(supportedCountries=["invalid"]), None)
rec = {"paymentDescription": "d", "regularBilling": {"label": "x", "amount": "1.00"}, "managementURL": "https://e.x/"}
construct_case("A31-recurring-timing", "A31 regularBilling must be recurring", 14, valid(recurringPaymentRequest=rec),
               te("'regularBilling' must be a 'recurring' line item."))
rec2 = copy.deepcopy(rec); rec2["regularBilling"]["paymentTiming"] = "recurring"; rec2["managementURL"] = "nope"
construct_case("A31-recurring-url", "A31 managementURL must be a URL", 14, valid(recurringPaymentRequest=rec2), te('"nope" is not a valid URL.'))
deferred = {"paymentDescription": "d", "deferredBilling": {"label": "x", "amount": "1.00", "paymentTiming": "deferred"},
            "managementURL": "https://e.x/", "freeCancellationDate": "2026-12-01T00:00:00Z"}
construct_case("A32-deferred-timezone", "A32 freeCancellationDate needs a time zone", 14, valid(deferredPaymentRequest=deferred),
               te("Missing 'freeCancellationDateTimeZone' when 'freeCancellationDate' is set."))

# --- B: ApplePayError ---------------------------------------------------------------------------
CODES6 = '"unknown", "shippingContactInvalid", "billingContactInvalid", "addressUnserviceable", "couponCodeInvalid", "couponCodeExpired"'
FIELDS = ('"phoneNumber", "emailAddress", "name", "phoneticName", "postalAddress", "addressLines", "subLocality", "locality", '
          '"postalCode", "subAdministrativeArea", "administrativeArea", "country", "countryCode"')
add("B01-ApplePayError", "B1 ApplePayError constructor arguments", 3, valid(), [
    {"page": "newApplePayError", "args": []}, {"expect": {"threw": te("Not enough arguments")}},
    {"page": "newApplePayError", "args": [""]},
    {"expect": {"threw": te(f"Argument 1 ('errorCode') to the ApplePayError constructor must be one of: {CODES6}")}},
    {"page": "newApplePayError", "args": ["unknown", ""]},
    {"expect": {"threw": te(f"Argument 2 ('contactField') to the ApplePayError constructor must be one of: {FIELDS}")}},
    {"page": "newApplePayError", "args": ["unknown", "phoneNumber"]},
    {"expect": {"threw": None, "returned": {"code": "unknown", "contactField": "phoneNumber", "message": ""}}},
])
add("B02-ApplePayError-coupon", "B2 couponCodeExpired is a valid code", 14, valid(), [
    {"page": "newApplePayError", "args": ["couponCodeExpired"]}, {"expect": {"threw": None, "returned": {"code": "couponCodeExpired"}}}])


# --- C: the state machine (WebKit's ApplePaySession.cpp) -----------------------
UPD = {"newTotal": {"label": LABEL, "amount": "10.00"}}
OPENED = [{"page": "begin"}, {"page": "completeMerchantValidation", "session": {}},
          {"page": "completePaymentMethodSelection", "update": UPD}]
def IA(): return {"expect": {"threw": "InvalidAccessError"}}
def OK(): return {"expect": {"threw": None}}
add("C01-abort-before-begin", "C1 abort() before begin()", 3, valid(), [{"page": "construct"}, {"page": "abort"}, IA()])
add("C02-begin-twice", "C2 begin() twice", 3, valid(), [{"page": "begin"}, OK(), {"page": "begin"},
    {"expect": {"threw": iae("Payment session is already active.")}}])
add("C03-second-session", "C3 a second session while one is active", 3, valid(), [
    {"page": "begin"}, {"page": "construct", "instance": 2}, OK(), {"page": "begin", "instance": 2},
    {"expect": {"threw": iae("Page already has an active payment session.")}},
    {"page": "abort"}, OK(), {"page": "begin", "instance": 2}, OK(), {"expect": {"session": "active"}}])
add("C04-merchant-validation", "C4 completeMerchantValidation: before the event, twice, not an object", 3, valid(), [
    {"page": "construct"}, {"page": "completeMerchantValidation", "session": {}}, IA(),
    {"page": "begin"}, {"page": "completeMerchantValidation", "session": "x"}, {"expect": {"threw": te("Type error")}},
    {"page": "completeMerchantValidation", "session": {}}, OK(),
    {"page": "completeMerchantValidation", "session": {}}, {"expect": {"threw": iae("The object does not support the operation or argument.")}}])
add("C05-validation-url", "C5 validatemerchant carries the validation URL", 3, valid(), [
    {"page": "begin"}, {"expect": {"events": [{"type": "validatemerchant", "validationURL": "https://apple-pay-gateway.apple.com/paymentservices/startSession"}]}}])
add("C06-wrong-completion", "C6 wrong completion, missing newTotal, then valid, then twice", 3, shipping_request(), OPENED + [
    {"expect": {"sheet": {"outstanding": "shippingcontactselected"}}},
    {"page": "completePaymentMethodSelection", "update": UPD}, IA(),
    {"page": "completeShippingContactSelection", "update": {}},
    {"expect": {"threw": te("Member ApplePayShippingContactUpdate.newTotal is required and must be an instance of ApplePayLineItem")}},
    {"expect": {"sheet": {"outstanding": "shippingcontactselected"}}},
    {"page": "completeShippingContactSelection", "update": UPD}, OK(),
    {"page": "completeShippingContactSelection", "update": UPD}, IA()])
add("C07-negative-newTotal", "C7 a negative newTotal is a TypeError and the event stays outstanding", 3, shipping_request(), OPENED + [
    {"page": "completeShippingContactSelection", "update": {"newTotal": {"label": "T", "amount": "-1"}}},
    {"expect": {"threw": te("Total amount must not be negative."), "sheet": {"outstanding": "shippingcontactselected"}}}])
add("C08-no-listener", "C8 without listeners the sheet completes selections itself", 3, shipping_request(), [
    {"page": "begin"}, {"page": "completeMerchantValidation", "session": {}},
    {"expect": {"events": [{"type": "validatemerchant"}], "sheet": {"canAuthorize": True, "outstanding": None}}},
    {"user": "selectShippingContact", "index": 0}, {"expect": {"events": [], "session": "active"}}],
    options={"listeners": ["validatemerchant", "paymentauthorized", "cancel"]})
add("C09-completePayment-early", "C9 completePayment before paymentauthorized", 3, valid(), [
    {"page": "begin"}, {"page": "completePayment", "result": {"status": 0}}, IA()])
add("C10-final-failure", "C10 a final failure closes the sheet, no cancel follows", 3, shipping_request(), to_authorized() + [
    {"page": "completePayment", "result": {"status": 1}}, OK(), {"expect": {"session": "completed", "paid": False}},
    {"page": "completePayment", "result": {"status": 1}}, IA(), {"wait": 60},
    {"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"}, {"type": "shippingcontactselected"}, {"type": "paymentauthorized"}]}}])
add("C11-failure-with-errors", "C11 failure with errors keeps the sheet open; the user re-authorizes", 3, shipping_request(), to_authorized() + [
    {"page": "completePayment", "result": {"status": 1, "errors": [{"code": "shippingContactInvalid", "contactField": "postalCode", "message": "Bad ZIP"}]}},
    {"expect": {"threw": None, "session": "active", "sheet": {"visible": True, "modules": {"shipping": {"error": sai("Bad ZIP")}}}}},
    {"user": "selectShippingContact", "index": 0}, {"page": "completeShippingContactSelection", "update": UPD},
    {"user": "authorize"}, {"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"}, {"type": "shippingcontactselected"},
        {"type": "paymentauthorized"}, {"type": "shippingcontactselected"}, {"type": "paymentauthorized"}]}}])
add("C12-legacy-status-3", "C12 legacy completePayment(3) is non-final with a postal-address error", 2, shipping_request(), to_authorized() + [
    {"page": "completePayment", "args": [3]},
    {"expect": {"threw": None, "session": "active", "sheet": {"status": "Shipping Address Invalid", "rule": 16,
                "modules": {"shipping": {"error": sai("invalid address")}}}}}])
add("C13-status-8", "C13 status 8 throws and the session stays authorized", 3, shipping_request(), to_authorized() + [
    {"page": "completePayment", "result": {"status": 8}}, IA(), {"expect": {"sheet": {"outstanding": "paymentauthorized"}}},
    {"page": "completePayment", "result": {"status": 0}}, {"expect": {"threw": None, "paid": True}}])
add("C14-pin-required", "C14 PIN statuses are never final", 3, shipping_request(), to_authorized() + [
    {"page": "completePayment", "result": {"status": 5}}, {"expect": {"session": "active", "sheet": {"status": "PIN Required", "canAuthorize": True}}},
    {"user": "authorize"}, {"page": "completePayment", "result": {"status": 6}}, {"expect": {"sheet": {"status": "Incorrect PIN"}}},
    {"user": "authorize"}, {"page": "completePayment", "result": {"status": 7}}, {"expect": {"sheet": {"status": "PIN Locked"}}}])
add("C15-legacy-fatal-method", "C15 legacy completeShippingMethodSelection(1, …) cancels the sheet", 2,
    valid(total={"label": LABEL, "amount": "10.00"}, shippingMethods=[{"label": "A", "detail": "", "amount": "1.00", "identifier": "a"},
                                                                      {"label": "B", "detail": "", "amount": "2.00", "identifier": "b"}]), [
    {"page": "begin"}, {"page": "completeMerchantValidation", "session": {}}, {"page": "completePaymentMethodSelection", "args": [{"label": LABEL, "amount": "10.00"}, []]},
    {"user": "selectShippingMethod", "identifier": "b"},
    {"page": "completeShippingMethodSelection", "args": [1, {"label": LABEL, "amount": "12.00"}, []]},
    {"expect": {"threw": None, "session": "canceled", "events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"},
        {"type": "shippingmethodselected", "shippingMethod": {"identifier": "b"}}, {"type": "cancel", "sessionError": {"code": "unknown", "info": {}}}]}}])
add("C16-legacy-contact-failure", "C16 legacy completeShippingContactSelection(1, …) applies one unknown error", 2, shipping_request(), OPENED[:2] + [
    {"page": "completePaymentMethodSelection", "args": [{"label": LABEL, "amount": "10.00"}, []]},
    {"page": "completeShippingContactSelection", "args": [1, [], {"label": LABEL, "amount": "11.00"}, []]},
    {"expect": {"threw": None, "session": "active", "sheet": {"visible": True, "status": "Shipping Address Invalid", "canAuthorize": False,
                "modules": {"summary": {"total": {"amount": "11.00"}}}}}}])
add("C17-abort-authorized", "C17 abort() while authorized: no cancel, later completePayment throws", 3, shipping_request(), to_authorized() + [
    {"page": "abort"}, OK(), {"expect": {"session": "aborted", "sheet": {"visible": False, "result": "aborted"}}},
    {"page": "completePayment", "result": {"status": 0}}, IA(),
    {"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"}, {"type": "shippingcontactselected"}, {"type": "paymentauthorized"}]}}])
add("C18-user-cancel", "C18 the user cancels while a shipping contact is selected", 3, shipping_request(), [
    {"page": "begin"}, {"page": "completeMerchantValidation", "session": {}}, {"page": "completePaymentMethodSelection", "update": UPD},
    {"user": "cancel"},
    {"expect": {"session": "canceled", "events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"}, {"type": "shippingcontactselected"},
        {"type": "cancel", "sessionError": {"code": "unknown", "info": {}}}]}},
    {"page": "completeShippingContactSelection", "update": UPD}, IA()])
add("C19-timeout-authorized", "C19 no completePayment within 30 s: Payment Not Completed, cancel", 3, shipping_request(), to_authorized() + [
    {"wait": 29.5}, {"expect": {"sheet": {"visible": True, "secondsLeft": 0.5}}},
    {"wait": 0.5}, {"expect": {"session": "canceled", "sheet": {"visible": False, "status": "Payment Not Completed", "result": "timedOut"}}},
    {"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"}, {"type": "shippingcontactselected"},
        {"type": "paymentauthorized"}, {"type": "cancel", "sessionError": {"code": "unknown"}}]}},
    {"page": "completePayment", "result": {"status": 0}}, IA(), {"expect": {"paid": False}}])
add("C20-navigation", "C20 navigation cancels an active session; an idle one survives", 1, valid(), [
    {"page": "construct", "instance": 2}, {"page": "begin"}, {"page": "navigate"},
    {"expect": {"session": "canceled", "events": [{"type": "validatemerchant"}, {"type": "cancel"}]}},
    {"page": "begin", "instance": 2}, OK(), {"page": "abort", "instance": 2}, OK(), {"expect": {"session": "aborted"}}])

# --- timeouts for every outstanding completion --------------------------------------------------
coupon_req = dict(shipping_request(), supportsCouponCode=True,
                  shippingMethods=[{"label": "A", "detail": "", "amount": "0.00", "identifier": "a"}, {"label": "B", "detail": "", "amount": "5.00", "identifier": "b"}])
reach = {
    "validatemerchant": [{"page": "begin"}],
    "paymentmethodselected": [{"page": "begin"}, {"page": "completeMerchantValidation", "session": {}}],
    "shippingcontactselected": OPENED,
    "shippingmethodselected": OPENED + [{"page": "completeShippingContactSelection", "update": UPD}, {"user": "selectShippingMethod", "identifier": "b"}],
    "couponcodechanged": OPENED + [{"page": "completeShippingContactSelection", "update": UPD}, {"user": "enterCouponCode", "code": "SAVE10"}],
}
for ev, steps in reach.items():
    add(f"timeout-{ev}", f"Timeout while {ev} is outstanding", 14, coupon_req, steps + [
        {"expect": {"sheet": {"outstanding": ev, "secondsLeft": 12}}}, {"wait": 11.9}, {"expect": {"session": "active"}},
        {"wait": 0.1}, {"expect": {"session": "canceled", "sheet": {"visible": False, "status": "Payment Not Completed"}}},
        {"user": "authorize"}, {"expect": {"sheet": {"result": "timedOut"}}}], options={"timeoutSeconds": 12})

# --- coupon codes (v12+) ------------------------------------------------------------------------
add("coupon-invalid", "A coupon update with couponCodeInvalid blocks authorization until the code changes", 14, coupon_req, OPENED + [
    {"page": "completeShippingContactSelection", "update": UPD},
    {"user": "enterCouponCode", "code": "BOGUS"},
    {"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"}, {"type": "shippingcontactselected"},
                           {"type": "couponcodechanged", "couponCode": "BOGUS"}]}},
    {"page": "completeCouponCodeChange", "update": dict(UPD, errors=[{"code": "couponCodeInvalid", "message": "Code not recognised"}])},
    {"expect": {"threw": None, "sheet": {"canAuthorize": False, "modules": {"coupon": {"code": "BOGUS", "error": {"title": "INVALID CODE", "message": "Code not recognised"}}}}}},
    {"user": "enterCouponCode", "code": "SAVE10"},
    {"page": "completeCouponCodeChange", "update": {"newTotal": {"label": LABEL, "amount": "9.00"}, "newLineItems": [{"label": "Discount", "amount": "-1.00"}]}},
    {"expect": {"sheet": {"canAuthorize": True, "modules": {"coupon": {"error": None}, "summary": {"total": {"amount": "9.00"}}}}}}])
add("coupon-unsupported", "Entering a code is ignored when the request does not support coupons", 14, shipping_request(), OPENED + [
    {"page": "completeShippingContactSelection", "update": UPD}, {"user": "enterCouponCode", "code": "X"},
    {"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"}, {"type": "shippingcontactselected"},
                           {"type": "ignored", "action": "enterCouponCode", "reason": "the request does not support coupon codes"}]}}])

# --- D: contacts before and after authorization -------------------------------------------------
def contact_wallet(c):
    return {"cards": [{"network": "visa", "type": "debit", "displayName": "Visa 9876",
                       "billingContact": dict(c)}], "shippingContacts": [c], "email": "a@example.com", "phone": "+44 20 7946 0000"}
uk = {"givenName": "Ada", "familyName": "Lovelace", "phoneticGivenName": "エイダ", "phoneticFamilyName": "ラブレス",
      "addressLines": ["10 Downing St"], "locality": "London", "postalCode": "SW1A 1AA", "country": "United Kingdom", "countryCode": "GB"}
ca = {"givenName": "Jean", "familyName": "Tremblay", "addressLines": ["80 Wellington St"], "locality": "Ottawa",
      "administrativeArea": "ON", "postalCode": "K1A 0B1", "country": "Canada", "countryCode": "CA"}
jp = {"givenName": "太郎", "familyName": "山田", "phoneticGivenName": "タロウ", "phoneticFamilyName": "ヤマダ",
      "addressLines": ["丸の内1-1", "ビル101"], "locality": "千代田区", "administrativeArea": "東京都", "postalCode": "100-0005", "country": "日本", "countryCode": "JP"}
full_req = dict(shipping_request(), requiredShippingContactFields=["postalAddress", "name", "phoneticName", "email", "phone"],
                requiredBillingContactFields=["postalAddress"])
for key, c, redacted in [("gb", uk, "SW1A"), ("ca", ca, "K1A"), ("jp", jp, "100-0005")]:
    add(f"D-redaction-{key}", f"D1/D2 redaction before authorization and full contact after ({key.upper()})", 3, full_req, OPENED + [
        {"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"},
            {"type": "shippingcontactselected", "shippingContact": {"postalCode": redacted, "locality": c["locality"], "countryCode": c["countryCode"],
             "addressLines": {"$absent": True}, "givenName": {"$absent": True}, "phoneticGivenName": {"$absent": True},
             "phoneNumber": {"$absent": True}, "emailAddress": {"$absent": True}}}]}},
        {"page": "completeShippingContactSelection", "update": UPD}, {"user": "authorize"},
        {"expect": {"events": [{"type": "paymentauthorized", "payment": {"shippingContact": {
            "postalCode": c["postalCode"], "addressLines": c["addressLines"], "givenName": c["givenName"],
            "phoneticFamilyName": c.get("phoneticFamilyName", {"$absent": True}), "emailAddress": "a@example.com"},
            "billingContact": {"postalCode": c["postalCode"], "emailAddress": {"$absent": True}}}}]}}], wallet=contact_wallet(c))
add("D3-no-phonetics-v2", "D3 version 2 never sees phonetic names", 2, dict(full_req, requiredShippingContactFields=["postalAddress", "name", "email"]), OPENED + [
    {"page": "completeShippingContactSelection", "update": UPD}, {"user": "authorize"},
    {"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"}, {"type": "shippingcontactselected"},
        {"type": "paymentauthorized", "payment": {"shippingContact": {"givenName": "太郎", "phoneticGivenName": {"$absent": True}, "phoneticFamilyName": {"$absent": True}}}}]}}],
    wallet=contact_wallet(jp))
add("D4-payment-shape", "D4 the authorized payment's token shape", 3, shipping_request(), to_authorized() + [
    {"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"}, {"type": "shippingcontactselected"},
        {"type": "paymentauthorized", "payment": {"token": {"paymentMethod": {"displayName": "Visa 1234", "network": "Visa", "type": "credit",
            "paymentPass": {"primaryAccountNumberSuffix": "1234", "activationState": "activated"}},
            "transactionIdentifier": {"$present": True},
            "paymentData": {"version": {"$present": True}, "header": {"transactionId": {"$present": True}}}},
            "billingContact": {"$absent": True}}}]}}])
add("D-only-requested-fields", "Only requested fields reach the page after authorization", 3,
    dict(shipping_request(), requiredShippingContactFields=["email"]), [
    {"page": "begin"}, {"page": "completeMerchantValidation", "session": {}}, {"page": "completePaymentMethodSelection", "update": UPD},
    {"user": "authorize"},
    {"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"},
        {"type": "paymentauthorized", "payment": {"shippingContact": {"emailAddress": "jane@example.com", "postalCode": {"$absent": True},
                                                                      "givenName": {"$absent": True}, "phoneNumber": {"$absent": True}}}}]}}])
add("D-billing-before-auth-v10", "Version 10+: paymentmethodselected carries the redacted billing contact", 10, valid(total={"label": LABEL, "amount": "1.00"}), [
    {"page": "begin"}, {"page": "completeMerchantValidation", "session": {}},
    {"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected", "paymentMethod": {"billingContact": {
        "postalCode": "95014", "locality": "Cupertino", "addressLines": {"$absent": True}, "givenName": {"$absent": True}}}}]}}])
add("contact-error-phone", "An error on phoneNumber shows on CONTACT and clears when the user edits it", 3, shipping_request(), to_authorized() + [
    {"page": "completePayment", "result": {"status": 1, "errors": [{"code": "shippingContactInvalid", "contactField": "phoneNumber", "message": "Phone number is required"}]}},
    {"expect": {"sheet": {"status": "Verify Contact Information", "canAuthorize": False,
                          "modules": {"contact": {"error": {"title": "VERIFY CONTACT INFORMATION", "message": "Phone number is required"}}, "shipping": {"error": None}}}}},
    {"user": "editContact", "phone": "+1 415-555-0199"}, {"expect": {"sheet": {"canAuthorize": True, "modules": {"contact": {"error": None}}}}},
    {"user": "authorize"}, {"page": "completePayment", "result": {"status": 0}}, {"expect": {"paid": True}}])
add("ignored-while-outstanding", "User actions wait while a completion is outstanding", 3, shipping_request(), OPENED + [
    {"user": "selectShippingContact", "index": 0}, {"user": "authorize"},
    {"expect": {"events": [{"type": "validatemerchant"}, {"type": "paymentmethodselected"}, {"type": "shippingcontactselected"},
        {"type": "ignored", "action": "selectShippingContact", "reason": "waiting for the page to complete shippingcontactselected"},
        {"type": "ignored", "action": "authorize"}]}}])
add("pending-items", "Pending line items lose their amount and show as pending", 3,
    valid(total={"label": LABEL, "amount": "10.00", "type": "pending"}, lineItems=[{"label": "Tip", "type": "pending", "amount": "abc"}, {"label": "Fare", "amount": "10.00"}]), [
    {"page": "begin"}, {"expect": {"sheet": {"modules": {"summary": {"lineItems": [{"label": "Tip", "type": "pending", "amount": {"$absent": True}},
                                                                                   {"label": "Fare", "amount": "10.00", "type": "final"}],
                                                                     "total": {"type": "pending", "amount": "10.00"}}}}}}])

os.makedirs(OUT, exist_ok=True)
for f in os.listdir(OUT):
    if f.endswith(".json"): os.remove(os.path.join(OUT, f))
for name, d in files.items():
    with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8") as fh:
        json.dump(d, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
print(f"wrote {len(files)} scenarios to {os.path.normpath(OUT)}")
