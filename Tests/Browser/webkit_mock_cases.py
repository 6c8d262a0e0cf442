"""Browser cases for WebKit's LayoutTests that run under WebKit's test runner: the mock payment
coordinator (`window.internals`), installments, `ApplePaySetup`, the old event names of WebKit's
first Payment Request support and the back/forward cache. Each table row is one expected line of
the WebKit test named in the case, re-expressed in our words (WebKit's files are not copied here).
"""

# A page under WebKit's test runner has `window.internals`; its mock coordinator is paysheet's.
UNDER_RUNNER = "window.internals = {mockPaymentCoordinator: paysheet.mockPaymentCoordinator};"

INSTALLMENT_REQUEST = """
function __installments() {
  return {countryCode: 'US', currencyCode: 'USD', supportedNetworks: ['visa', 'masterCard'], merchantCapabilities: ['supports3DS'],
    total: {label: 'Your Label', amount: '10.00'},
    installmentConfiguration: {bindingTotalAmount: '1.00', currencyCode: 'USD', merchandisingImageData: 'dGVzdA==',
      merchantIdentifier: 'merchant', openToBuyThresholdAmount: '2.50', referrerIdentifier: 'referrer',
      items: [{type: 'mac', amount: '31.45', currencyCode: 'USD', programIdentifier: 'programIdentifier', apr: '3.875',
               programTerms: 'programTerms'}, {}],
      applicationMetadata: {integer: 1, float: 2.1, string: 'string', bool: true, array: ['a', 'b'], null: null},
      retailChannel: 'web'}};
}
"""

NOT_SEQ = ["TypeError", "Value is not a sequence"]
TYPE = ["TypeError", "Type error"]
METADATA = ["TypeError", "applicationMetadata must be a JSON object"]

# ApplePayInstallmentItems.https: (member, JS value, expected exception or None).
INSTALLMENT_LINES = [
    ("items", "4", NOT_SEQ), ("items", "''", NOT_SEQ), ("items", "null", NOT_SEQ), ("items", "true", NOT_SEQ),
    ("items", "new Date()", TYPE), ("items", "['a', 'b']", TYPE), ("items", "[{type: 4}]", TYPE), ("items", "[{type: 'invalid'}]", TYPE),
    ("items", "undefined", None), ("items", "[]", None), ("items", "[{}]", None), ("items", "[{type: undefined}]", None),
    ("items", "[{type: 'generic'}]", None), ("items", "[{type: 'phone'}]", None), ("items", "[{type: 'pad'}]", None),
    ("items", "[{type: 'watch'}]", None), ("items", "[{type: 'mac'}]", None),
    ("applicationMetadata", "4", METADATA), ("applicationMetadata", "''", METADATA), ("applicationMetadata", "null", METADATA),
    ("applicationMetadata", "true", METADATA), ("applicationMetadata", "new Date()", METADATA),
    ("applicationMetadata", "['a', 'b']", METADATA), ("applicationMetadata", "undefined", None),
    ("applicationMetadata", "{}", None), ("applicationMetadata", "{foo: 'bar'}", None),
    ("retailChannel", "null", TYPE), ("retailChannel", "4", TYPE), ("retailChannel", "''", TYPE),
    ("retailChannel", "'invalid'", TYPE), ("retailChannel", "undefined", None), ("retailChannel", "'unknown'", None),
    ("retailChannel", "'app'", None), ("retailChannel", "'web'", None), ("retailChannel", "'inStore'", None),
]


def register(m):
    case, check, equal = m.case, m.check, m.equal

    @case("WebKit ApplePayInstallmentItems: items, applicationMetadata and retailChannel, line by line (v9)")
    def _(env):
        env.page()
        failures = []
        for member, value, expected in INSTALLMENT_LINES:
            r = env.gesture(INSTALLMENT_REQUEST + "var r = __installments(); r.installmentConfiguration[args[0]] = eval('(' + args[1] + ')');"
                            " new ApplePaySession(9, r); return true;", member, value)
            got = [r["threw"]["name"], r["threw"]["message"]] if "threw" in r else None
            if got != expected:
                failures.append(f"{member} = {value}: expected {expected}, got {got}")
        check(not failures, "\n".join(failures))

    @case("WebKit ApplePayInstallmentItems and ApplePayInstallmentConfiguration: the mock reports the configuration as the platform got it")
    def _(env):
        env.page()
        env.driver.execute_script(UNDER_RUNNER)
        r = env.gesture(INSTALLMENT_REQUEST + "new ApplePaySession(9, __installments()).begin(); return true;")
        equal(r, {"ok": True}, "begin")
        c = env.driver.execute_script("return internals.mockPaymentCoordinator.installmentConfiguration")
        equal(len(c["items"]), 2, "items.length")
        equal(c["items"][0], {"type": "mac", "amount": "31.45", "currencyCode": "USD", "programIdentifier": "programIdentifier",
                              "apr": "3.875", "programTerms": "programTerms"}, "items[0]")
        equal(c["items"][1]["type"], "generic", "items[1].type (the default)")
        equal(env.driver.execute_script("return JSON.stringify(internals.mockPaymentCoordinator.installmentConfiguration.applicationMetadata)"),
              '{"array":["a","b"],"bool":true,"float":2.1,"integer":1,"null":null,"string":"string"}', "applicationMetadata, keys sorted")
        equal(c["retailChannel"], "web", "retailChannel")
        for key, want in [("bindingTotalAmount", "1.00"), ("currencyCode", "USD"), ("featureType", "appleCard"), ("isInStorePurchase", False),
                          ("merchandisingImageData", "dGVzdA=="), ("merchantIdentifier", "merchant"), ("openToBuyThresholdAmount", "2.50"),
                          ("referrerIdentifier", "referrer")]:
            equal(c[key], want, key)

    @case("WebKit ApplePaySetup: features from the mock, the configuration kept; begin() only in a user gesture")
    def _(env):
        env.page()
        env.driver.execute_script(UNDER_RUNNER + """
            window.__setup = new ApplePaySetup({merchantIdentifier: 'merchant', referrerIdentifier: 'referrer', signature: 'signature',
                                                signedFields: ['field1']});
            internals.mockPaymentCoordinator.addSetupFeature('supported', 'appleCard', true);""")
        features = env.driver.execute_async_script(
            "var done = arguments[0]; __setup.getSetupFeatures().then(function (f) { window.__features = f;"
            " done(f.map(function (x) { return {state: x.state, type: x.type, supportsInstallments: x.supportsInstallments,"
            " proto: Object.prototype.toString.call(x)}; })); });")
        equal(features, [{"state": "supported", "type": "appleCard", "supportsInstallments": True, "proto": "[object ApplePaySetupFeature]"}],
              "features")
        want = {"merchantIdentifier": "merchant", "referrerIdentifier": "referrer", "signature": "signature", "signedFields": ["field1"]}
        equal(env.driver.execute_script("return internals.mockPaymentCoordinator.setupConfiguration"), want, "setupConfiguration")
        outside = env.driver.execute_async_script(
            "var done = arguments[0]; __setup.begin(__features).then(function (v) { done({ok: v}); },"
            " function (e) { done({threw: [e.name, e.message]}); });")
        equal(outside, {"threw": ["InvalidAccessError", "Must call ApplePaySetup.begin from a user gesture handler."]}, "begin outside a gesture")
        env.gesture("window.__begun = null; __setup.begin(__features).then(function (v) { window.__begun = {ok: v}; },"
                    " function (e) { window.__begun = {threw: [e.name, e.message]}; }); return true;")
        equal(env.wait("window.__begun", "begin() to settle"), {"ok": True}, "begin in a gesture")
        equal(env.driver.execute_script("return internals.mockPaymentCoordinator.setupConfiguration"), want, "setupConfiguration after begin")
        bad = env.script("internals.mockPaymentCoordinator.addSetupFeature('sometimes', 'appleCard', true)")
        equal(bad.get("threw"), {"name": "TypeError", "message": "Type error"}, "an unknown feature state")

    @case("WebKit ApplePayMerchantValidationEvent (applepayvalidatemerchant): complete() takes the session, once, while the request is showing")
    def _(env):
        env.page()
        env.driver.execute_script(UNDER_RUNNER)
        outcomes = []
        for test in ["e.complete(undefined)", "e.complete(null)", "e.complete([])", "e.complete('')", "e.complete(7)",
                     "e.complete({}); e.complete({})", "pr.abort(); e.complete({})", "e.complete({})", "RESULT = e.validationURL"]:
            env.gesture(m.PR_SETUP + """
                var pr = new PaymentRequest([pm], det);
                window.__legacy = null;
                pr.onapplepayvalidatemerchant = function (e) {
                  var RESULT = 'did not throw';
                  try { eval(args[0]); } catch (x) { RESULT = x.name + ': ' + x.message; }
                  window.__legacy = {type: e.type, cls: e.constructor.name, result: RESULT};
                  pr.abort().catch(function () {});
                };
                pr.show().catch(function () {});
                return true;""", test)
            outcomes.append(env.wait("window.__legacy", "applepayvalidatemerchant"))
        equal([o["result"] for o in outcomes], ["TypeError: Type error"] * 5 + ["InvalidStateError: The object is in an invalid state."] * 2
              + ["did not throw", "https://webkit.org/"], "complete() outcomes")
        equal({(o["type"], o["cls"]) for o in outcomes}, {("applepayvalidatemerchant", "ApplePayMerchantValidationEvent")}, "the event")

    @case("WebKit ApplePayPaymentMethodUpdateEvent (applepaypaymentmethodchanged): the mock's method reaches the page as given")
    def _(env):
        env.page()
        env.driver.execute_script(UNDER_RUNNER)
        method = {"displayName": "test", "network": "test", "type": "prepaid",
                  "paymentPass": {"primaryAccountIdentifier": "test", "primaryAccountNumberSuffix": "test", "deviceAccountIdentifier": "test",
                                  "deviceAccountNumberSuffix": "test", "activationState": "requiresActivation"}}
        env.gesture(m.PR_SETUP + """
            var pr = new PaymentRequest([pm], det);
            window.__changed = null;
            pr.onapplepaypaymentmethodchanged = function (e) { window.__changed = {type: e.type, paymentMethod: e.paymentMethod}; };
            pr.show().catch(function () {});
            internals.mockPaymentCoordinator.changePaymentMethod(args[0]);
            return true;""", method)
        got = env.wait("window.__changed", "applepaypaymentmethodchanged")
        equal(got, {"type": "applepaypaymentmethodchanged", "paymentMethod": method}, "the event's paymentMethod")

    @case("WebKit ApplePayBillingAddress: the mock's billing contact reaches paymentmethodchange unredacted")
    def _(env):
        env.page()
        env.driver.execute_script(UNDER_RUNNER)
        billing = {"phoneNumber": "12345678910", "emailAddress": "wpt@w3.org", "givenName": "Web", "familyName": "Test",
                   "phoneticGivenName": "Web", "phoneticFamilyName": "Test", "addressLines": ["1 wpt street"], "subLocality": "AA",
                   "locality": "BB", "postalCode": "12345", "subAdministrativeArea": "CC", "administrativeArea": "DD",
                   "country": "United States", "countryCode": "US"}
        env.gesture(m.PR_SETUP + """
            var pr = new PaymentRequest([pm], det, {requestBillingAddress: true});
            window.__change = null;
            pr.onpaymentmethodchange = function (e) { window.__change = {methodName: e.methodName, details: e.methodDetails}; pr.abort(); };
            pr.show().catch(function () {});
            internals.mockPaymentCoordinator.changePaymentMethod({type: 'credit', network: 'visa', billingContact: args[0]});
            return true;""", billing)
        got = env.wait("window.__change", "paymentmethodchange")
        equal(got["methodName"], "https://apple.com/apple-pay", "methodName")
        equal(got["details"], {"type": "credit", "network": "visa", "billingContact": billing}, "methodDetails")

    def shipping_contact_run(env, version, contact, options):
        env.page()
        env.driver.execute_script(UNDER_RUNNER)
        env.gesture(m.PR_SETUP + """
            pm.data.version = args[0];
            pm.data.shippingContact = args[1];
            var pr = new PaymentRequest([pm], det, args[2]);
            window.__resp = null;
            pr.show().then(function (r) {
              window.__resp = {details: r.details, shippingAddress: r.shippingAddress && r.shippingAddress.toJSON(),
                               payerName: r.payerName, payerEmail: r.payerEmail, payerPhone: r.payerPhone};
              r.complete('success');
            });
            internals.mockPaymentCoordinator.acceptPayment();
            return true;""", version, contact, options)
        return env.wait("window.__resp", "show() to resolve")

    FULL = {"phoneNumber": "+12345678910", "emailAddress": "wpt@w3.org", "givenName": "Web", "familyName": "Test",
            "phoneticGivenName": "Web", "phoneticFamilyName": "Test", "addressLines": ["1 wpt street"], "subLocality": "AA",
            "locality": "BB", "postalCode": "12345", "subAdministrativeArea": "CC", "administrativeArea": "DD",
            "country": "United States", "countryCode": "US"}
    ALL = {"requestPayerName": True, "requestPayerEmail": True, "requestPayerPhone": True, "requestShipping": True}

    @case("WebKit ApplePayRequestShippingContact: the request's default shipping contact is what the mock pays with (v2, v3)")
    def _(env):
        r = shipping_contact_run(env, 2, FULL, ALL)
        want = dict(FULL)
        del want["phoneticGivenName"], want["phoneticFamilyName"]
        equal(r["details"]["shippingContact"], want, "details.shippingContact (no phonetic names before v3)")
        equal(r["shippingAddress"], {"country": "US", "addressLine": ["1 wpt street"], "region": "DD", "city": "BB", "dependentLocality": "AA",
                                     "postalCode": "12345", "sortingCode": "", "organization": "", "recipient": "Web Test",
                                     "phone": "+12345678910"}, "shippingAddress")
        equal([r["payerName"], r["payerEmail"], r["payerPhone"]], ["Web Test", "wpt@w3.org", "+12345678910"], "payer")
        for contact, options, want in [({"emailAddress": "wpt@w3.org"}, {"requestPayerEmail": True}, [None, None, "wpt@w3.org", None]),
                                       ({"phoneNumber": "+12345678910"}, {"requestPayerPhone": True}, [None, None, None, "+12345678910"]),
                                       ({"givenName": "Web", "familyName": "Test"}, {"requestPayerName": True}, [None, "Web Test", None, None])]:
            r = shipping_contact_run(env, 2, contact, options)
            equal([r["shippingAddress"], r["payerName"], r["payerEmail"], r["payerPhone"]], want, f"only {list(contact)}")
        r = shipping_contact_run(env, 3, FULL, ALL)
        equal([r["details"]["shippingContact"].get("phoneticGivenName"), r["details"]["shippingContact"].get("phoneticFamilyName")],
              ["Web", "Test"], "phonetic names from v3")

    def errors_after_update(env, options, update):
        env.gesture(m.PR_SETUP + """
            det.displayItems = [{label: 'Item', amount: {currency: 'USD', value: '10.00'}}];
            var pr = new PaymentRequest([pm], det, args[0]);
            window.__updated = false;
            pr.onmerchantvalidation = function (e) { e.complete({}); };
            pr.onshippingaddresschange = function (e) {
              var update = args[1];
              if (update.paymentMethodErrors === 'apple-pay-errors') {
                update.paymentMethodErrors = [new ApplePayError('addressUnserviceable'),
                                              new ApplePayError('shippingContactInvalid', 'phoneticName', 'Apple Pay error')];
              }
              var p = Promise.resolve(update);
              e.updateWith(p);
              p.then(function () { window.__updated = true; pr.abort(); });
            };
            pr.show().catch(function () {});
            return true;""", options, update)
        env.wait("window.__updated", "the shipping address update")
        return env.driver.execute_script("return internals.mockPaymentCoordinator.errors.map(function (e) {"
                                         " return [e.code, e.message, e.contactField === undefined ? null : e.contactField]; })")

    @case("WebKit ApplePayShippingAddressChangeEventErrors (+V3): after merchant validation the mock reports its contact; which errors reach the sheet")
    def _(env):
        env.page()
        env.driver.execute_script(UNDER_RUNNER)
        total = {"label": "Total", "amount": {"currency": "USD", "value": "10.00"}}
        payer = {"name": "error", "email": "error", "phone": "error"}
        equal(errors_after_update(env, {}, {"total": total, "payerErrors": payer}), [], "payer errors nobody asked for")
        equal(errors_after_update(env, {"requestPayerName": True, "requestPayerPhone": True, "requestPayerEmail": True},
                                  {"total": total, "payerErrors": payer}),
              [["shippingContactInvalid", "error", "name"], ["shippingContactInvalid", "error", "emailAddress"],
               ["shippingContactInvalid", "error", "phoneNumber"]], "payer errors")
        equal(errors_after_update(env, {}, {"total": total, "paymentMethodErrors": None}), [], "null paymentMethodErrors")
        equal(errors_after_update(env, {}, {"total": total, "paymentMethodErrors": [{}, None]}), [], "invalid paymentMethodErrors are ignored")
        equal(errors_after_update(env, {}, {"total": total, "paymentMethodErrors": "apple-pay-errors"}),
              [["addressUnserviceable", "", None], ["shippingContactInvalid", "Apple Pay error", "phoneticName"]], "Apple Pay errors")

    @case("WebKit page-cache-active/inactive-apple-pay-session: a restored page gets its active session's cancel; an idle one can begin")
    def _(env):
        for active in (True, False):
            env.page({"requireUserGesture": False})
            env.driver.execute_script("""
                window.__log = [];
                window.addEventListener('pageshow', function (e) { __log.push('pageshow ' + e.persisted); });
                var s = new ApplePaySession(1, __valid());
                window.__s = s;
                s.addEventListener('cancel', function () { __log.push('cancel'); });
                if (arguments[0]) s.begin();
                sessionStorage.setItem('back', '1');
                location.href = location.href.replace('index.html', 'back.html');""", active)
            env.wait("window.__log && window.__log.indexOf('pageshow true') >= 0", "the page to come back from the back/forward cache")
            if active:
                equal(env.wait("__log.indexOf('cancel') >= 0 && __log", "cancel"), ["pageshow true", "cancel"], "events after restore")
                equal(env.driver.execute_script("return paysheet.sessions()"), ["canceled"], "the session")
            else:
                r = env.script("__s.begin(); __s.abort(); return paysheet.sessions();")
                equal(r, {"ok": ["aborted"]}, "the idle session begins and aborts")

    # ---- Merchant sessions checked as the wallet checks them (paysheet.configure({merchantSessions: "checked"})) ----

    def sandbox_session(env):
        order = env.api("POST", "/v1/orders", {"currencyCode": "CNY", "lineItems": [{"sku": "tea-set", "quantity": 1}]})
        return env.api("POST", f"/v1/orders/{order['id']}/merchant-session",
                       {"validationURL": "https://apple-pay-gateway.apple.com/paymentservices/startSession"})

    def checked_page(env, host, clock="real"):
        env.driver.get(env.site_url.replace("127.0.0.1", host))
        env.driver.execute_script("paysheet.configure({merchantSessions: 'checked', clock: arguments[0]})", clock)

    def begin(env, request, plan):
        r = env.gesture("return __start(args[0], args[1], args[2]);", 14, request, plan)
        check(r and "threw" not in r, f"the session did not begin: {r}")
        env.wait("__events.some(function (e) { return e.type === 'validatemerchant'; })", "validatemerchant")

    def outcome(env):
        """After merchant validation: the session's state, the sheet's status, the reason in events()."""
        return env.driver.execute_script("""
            var reasons = paysheet.events().filter(function (e) { return e.type === 'ignored' && e.action === 'completeMerchantValidation'; })
                                           .map(function (e) { return e.reason; });
            return {sessions: paysheet.sessions(), status: paysheet.snapshot().status || null, reasons: reasons,
                    cancel: __events.some(function (e) { return e.type === 'cancel'; })};""")

    @case("merchant sessions (checked): a sandbox session for the page's domain is accepted once; a hand-made, reused, other-domain or expired one ends the payment, with the reason on the sheet and in events()")
    def _(env):
        request = m.SHIPPING_REQUEST
        # Accepted: issued by the sandbox for `localhost` (the merchant's configured domain), on a localhost page.
        session = sandbox_session(env)
        equal(session["domainName"], "localhost", "the sandbox session's domain")
        checked_page(env, "localhost")
        begin(env, request, {"session": session})
        env.wait("paysheet.snapshot().outstanding === null && paysheet.snapshot().visible", "the sheet to settle")
        o = outcome(env)
        equal([o["sessions"], o["reasons"], o["cancel"]], [["active"], [], False], "a fresh sandbox session")
        env.driver.execute_script("paysheet.cancel()")

        def refused(host, plan, why, clock="real", advance=0):
            checked_page(env, host, clock)
            if advance:
                # Time passes on the page before the payment starts (the sheet's own 30 s deadline is not running).
                env.driver.execute_script("paysheet.advanceClock(arguments[0]);", advance)
            begin(env, request, plan)
            env.wait("__events.some(function (e) { return e.type === 'cancel'; })", "cancel after " + why)
            o = outcome(env)
            equal(o["sessions"], ["canceled"], why + ": the session")
            check(len(o["reasons"]) == 1 and why in o["reasons"][0], f"{why}: the reason in events(): {o['reasons']}")
            check(o["status"] and why in o["status"], f"{why}: the sheet's status: {o['status']!r}")

        refused("localhost", {"session": session}, "already used")
        refused("localhost", {"session": {"merchantSessionIdentifier": "test"}}, "malformed")
        forged = dict(sandbox_session(env), domainName="127.0.0.1")
        refused("127.0.0.1", {"session": forged}, "not issued by merchant validation")
        refused("127.0.0.1", {"session": sandbox_session(env)}, "not for this page's domain 127.0.0.1")
        refused("localhost", {"session": sandbox_session(env)}, "expired", clock="virtual", advance=301)
