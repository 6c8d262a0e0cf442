#!/usr/bin/env python3
"""Browser tests of paysheet.js, the simulated sheet and the demo store, in a real Chromium.

    python Tests/Browser/browser_tests.py PATH/TO/paysheet [--screenshots DIR] [--only SUBSTRING]

Starts `paysheet serve` (its defaults, a fresh data folder, loopback), serves a merchant's test
page from another origin (as a merchant's own site would load the drop-in), and drives Debian's
chromium through chromedriver with real clicks and key presses. Screenshots of the sheet in its
main states go to --screenshots (default artifacts/browser). Exit status 0 only when every case
passed.
"""
import argparse
import contextlib
import functools
import http.server
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.support.ui import Select

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Failure(AssertionError):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def equal(actual, expected, what):
    if actual != expected:
        raise Failure(f"{what}: expected {expected!r}, got {actual!r}")


CASES = []


def case(name):
    def wrap(fn):
        CASES.append((name, fn))
        return fn
    return wrap


class Env:
    def __init__(self, binary, screenshots):
        self.binary = binary
        self.screenshots = screenshots
        os.makedirs(screenshots, exist_ok=True)
        for old in os.listdir(screenshots):
            if old.endswith(".png"):
                os.remove(os.path.join(screenshots, old))
        self.data = tempfile.mkdtemp(prefix="paysheet-browser-")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = open(os.path.join(self.data, "serve.log"), "w")
        # The merchant's API key (the tests read orders as the merchant's staff would).
        self.api_key = subprocess.run([binary, "api-key", "create", "--data", self.data, "--name", "browser tests"],
                                      check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        # The sandbox acquirer serve starts (the console cases ask it for a settlement file).
        self.acquirer = f"http://127.0.0.1:{free_port()}"
        self.server = subprocess.Popen(
            [binary, "serve", "--data", self.data, "--listen", f"127.0.0.1:{self.port}", "--no-demo-order"],
            stdout=self.log, stderr=subprocess.STDOUT,
            # The whole suite is one client address making a shop's worth of anonymous orders in
            # minutes: its rate is raised here (the limit itself is tested in AnonymousGrowthTests).
            env=dict(os.environ, PAYSHEET_SANDBOX_ACQUIRER_LISTEN=self.acquirer[len("http://"):],
                     PAYSHEET_ANONYMOUS_ORDERS_PER_MINUTE="600", PAYSHEET_COUPON_ATTEMPTS_PER_MINUTE="600"))
        try:
            self._start_site_and_browser()
        except BaseException:
            # A browser or driver that cannot start must not leave the server running.
            self.server.terminate()
            self.server.wait(10)
            raise

    def _start_site_and_browser(self):
        for _ in range(300):
            try:
                urllib.request.urlopen(self.base + "/health", timeout=1).read()
                break
            except Exception:
                if self.server.poll() is not None:
                    raise RuntimeError("paysheet serve exited: " + open(self.log.name).read())
                time.sleep(0.2)
        else:
            raise RuntimeError("paysheet serve did not answer /health")
        # The merchant's own site, on another origin, loading the drop-in from the Paysheet server.
        site = tempfile.mkdtemp(prefix="paysheet-site-")
        page = open(os.path.join(HERE, "merchant_page.html")).read().replace("{{PAYSHEET}}", self.base)
        with open(os.path.join(site, "index.html"), "w") as f:
            f.write(page)
        # A page that goes straight back (the back/forward cache cases).
        with open(os.path.join(site, "back.html"), "w") as f:
            f.write("<!doctype html><title>back</title><script>setTimeout(function () { history.back(); }, 50);</script>")
        self.site_dir = site
        handler = functools.partial(QuietHandler, directory=site)
        self.site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.site.serve_forever, daemon=True).start()
        self.site_url = f"http://127.0.0.1:{self.site.server_address[1]}/index.html"
        # In English whatever the machine's locale: the cases read the sheet's English words.
        self.driver = self._chrome("en-US")

    def _chrome(self, language):
        """A headless Chromium whose language (navigator.languages, Accept-Language) is `language`."""
        options = webdriver.ChromeOptions()
        for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,1000", "--disable-gpu",
                  # shop.test is the loopback address under a name that is not loopback's (frame cases).
                  "--host-resolver-rules=MAP shop.test 127.0.0.1", "--lang=" + language]:
            options.add_argument(a)
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = webdriver.ChromeService(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
        driver = webdriver.Chrome(service=service, options=options)
        driver.set_script_timeout(30)
        return driver

    @contextlib.contextmanager
    def browser_in(self, language):
        """Runs the `with` body in a second Chromium started in `language` (env.driver is it)."""
        english = self.driver
        self.driver = self._chrome(language)
        try:
            yield self.driver
        finally:
            try:
                self.driver.quit()
            finally:
                self.driver = english

    def close(self):
        try:
            self.driver.quit()
        finally:
            self.site.shutdown()
            self.server.terminate()
            self.server.wait(10)

    # ---- helpers ----
    def page(self, configure=None):
        """A fresh merchant test page; `configure` is passed to paysheet.configure first."""
        d = self.driver
        d.set_window_size(1000, 1000)
        d.get(self.site_url)
        check(d.execute_script("return typeof ApplePaySession === 'function' && !!window.paysheet"), "paysheet.js did not load")
        if configure is not None:
            d.execute_script("paysheet.configure(arguments[0])", configure)
        return d

    def gesture(self, js, *args):
        """Runs `js` (a function body; `args` are its arguments) inside a real click handler."""
        d = self.driver
        d.execute_script("window.__result = null; window.__go = new Function('args', arguments[0]); window.__args = arguments[1];", js, list(args))
        d.find_element(By.ID, "go").click()
        return d.execute_script("return window.__result")

    def script(self, js, *args):
        """Runs `js` outside any user gesture and reports its outcome as gesture() does."""
        return self.driver.execute_script(
            "try { return {ok: (new Function('args', arguments[0]))(arguments[1])}; }"
            " catch (e) { return {threw: {name: e && e.name !== undefined ? e.name : String(e), message: e && e.message !== undefined ? e.message : String(e)}}; }",
            js, list(args))

    def wait(self, js, what, timeout=10):
        end = time.time() + timeout
        while time.time() < end:
            v = self.driver.execute_script("return " + js)
            if v:
                return v
            time.sleep(0.1)
        raise Failure("timed out waiting for " + what)

    def events(self):
        return self.driver.execute_script("return window.__events")

    def event_types(self):
        return [e["type"] for e in self.events()]

    def sheet_text(self, part):
        els = self.driver.find_elements(By.CSS_SELECTOR, f"#paysheet-sheet {part}")
        return els[0].text if els else None

    def click_sheet(self, action):
        # The sheet is redrawn whenever the engine answers: find the button again if it was replaced.
        for attempt in range(5):
            try:
                self.driver.find_element(By.CSS_SELECTOR, f'#paysheet-sheet [data-action="{action}"]').click()
                return
            except StaleElementReferenceException:
                if attempt == 4:
                    raise
                time.sleep(0.1)

    def shot(self, name):
        self.driver.save_screenshot(os.path.join(self.screenshots, name + ".png"))

    def api(self, method, path, body=None, auth=None, expect_error=False):
        req = urllib.request.Request(self.base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + (auth or self.api_key)})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                answer = json.loads(r.read())
        except urllib.error.HTTPError as e:
            if not expect_error:
                raise
            return json.loads(e.read())
        check(not expect_error, f"{method} {path} was expected to be refused: {answer}")
        return answer


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass


SHIPPING_REQUEST = {
    "countryCode": "US", "currencyCode": "USD", "supportedNetworks": ["visa", "masterCard"],
    "merchantCapabilities": ["supports3DS"], "total": {"label": "Demo Merchant", "amount": "10.00"},
    "requiredShippingContactFields": ["postalAddress", "email", "phone"],
}


def start(env, version=14, request=None, plan=None):
    """Begins a session in a real click with the test page's standard merchant handlers."""
    r = env.gesture("return __start(args[0], args[1], args[2]);", version, request or SHIPPING_REQUEST, plan or {})
    check(r and "threw" not in r, f"the session did not begin: {r}")
    if (plan or {}).get("validate") is False:
        env.wait("window.__events.some(function (e) { return e.type === 'validatemerchant'; })", "validatemerchant")
    else:
        env.wait("paysheet.snapshot().outstanding === null && paysheet.snapshot().visible", "the sheet to settle")
    env.wait("document.querySelector('#paysheet-sheet:not([hidden])') !== null", "the sheet to be drawn")


# ---------------------------------------------------------------------------------------------
# The user-gesture rule

@case("gesture: a session created outside a user gesture throws InvalidAccessError")
def _(env):
    env.page()
    r = env.script("return new ApplePaySession(3, __valid()) && 'created';")
    equal(r.get("threw"), {"name": "InvalidAccessError", "message": "Must create a new ApplePaySession from a user gesture handler."}, "exception")


@case("gesture: a session created in a real click is accepted")
def _(env):
    env.page()
    r = env.gesture("return new ApplePaySession(3, __valid()) instanceof ApplePaySession;")
    equal(r, {"ok": True}, "result")


@case("gesture: a script's element.click() is no user gesture")
def _(env):
    env.page()
    env.driver.execute_script("window.__result = null; window.__go = function(){ return new ApplePaySession(3, __valid()); };")
    env.driver.execute_script("document.getElementById('go').click()")
    r = env.driver.execute_script("return window.__result")
    equal((r or {}).get("threw", {}).get("name"), "InvalidAccessError", "exception of a synthetic click")


@case("gesture: after an await in the click handler's task is over, the gesture has ended")
def _(env):
    env.page()
    env.gesture("setTimeout(function(){ try { new ApplePaySession(3, __valid()); window.__late = 'created'; } catch (e) { window.__late = e.name; } }, 50); return true;")
    equal(env.wait("window.__late", "the late construction"), "InvalidAccessError", "construction 50 ms after the click")


@case("gesture: the switch relaxes the rule (requireUserGesture: false)")
def _(env):
    env.page({"requireUserGesture": False})
    r = env.script("return new ApplePaySession(3, __valid()) instanceof ApplePaySession;")
    equal(r, {"ok": True}, "result")


@case("gesture: openPaymentSetup outside a gesture rejects with InvalidAccessError")
def _(env):
    env.page()
    r = env.driver.execute_async_script("var done = arguments[0]; ApplePaySession.openPaymentSetup('merchant.x').then(function(v){done({ok:v})}, function(e){done({threw:{name:e.name,message:e.message}})});")
    equal(r.get("threw", {}).get("name"), "InvalidAccessError", "openPaymentSetup")


# ---------------------------------------------------------------------------------------------
# WebKit's expectations (WebKit's LayoutTests http/tests/ssl/applepay), re-expressed as our own cases.
# Each: (label, API version, JS that mutates `r` = validRequest(), expected exception or None).

TOO_BIG = "Total amount is too big."
WEBKIT_CONSTRUCTOR = [
    ("#1 empty request", 2, "r = {};", ("TypeError", "Member ApplePayPaymentRequest.countryCode is required and must be an instance of DOMString")),
    ("#2 invalid countryCode", 2, "r.countryCode = 'invalid';", ("TypeError", '"invalid" is not a valid country code.')),
    ("#3 null countryCode is stringified", 2, "r.countryCode = null;", ("TypeError", '"null" is not a valid country code.')),
    ("#3 undefined countryCode is missing", 2, "r.countryCode = undefined;", ("TypeError", "Member ApplePayPaymentRequest.countryCode is required and must be an instance of DOMString")),
    ("#4 no supported network", 2, "r.supportedNetworks = [];", ("TypeError", "At least one supported network must be provided.")),
    ("#5 duplicate networks are fine", 2, "r.supportedNetworks = ['visa', 'visa'];", None),
    ("#6 unknown merchant capability", 2, "r.merchantCapabilities = ['invalidCapability', 'supports3DS'];", ("TypeError", "Type error")),
    ("#7 zero total in v2 (WebKit 259fe47 = profile safari-12.0)", 2, "r.total = {label: 'label', amount: '0'};", ("TypeError", "Total amount must be greater than zero."), "safari-12.0"),
    ("#7 zero total in v2 (current Safari accepts it)", 2, "r.total = {label: 'label', amount: '0'};", None),
    ("#7 zero total allowed in v4", 4, "r.total = {label: 'label', amount: '0'};", None),
    ("#8 total too big (profile safari-14)", 2, "r.total = {label: 'label', amount: '10000000000.00'};", ("TypeError", TOO_BIG), "safari-14"),
    ("#9 pending total and amountless pending line item", 2, "r.total = {label: 'label', amount: '10.00', type: 'pending'}; r.lineItems = [{label: 'label', type: 'pending'}];", None),
    ("#10 phoneticName is not a v2 contact field", 2, "r.requiredBillingContactFields = ['phoneticName'];", ("TypeError", '"phoneticName" is not a valid contact field.')),
    ("#11 empty requiredBillingContactFields", 2, "r.requiredBillingContactFields = [];", None),
    ("#12 negative shipping method amount", 2, "r.shippingMethods = [{amount: '-1', detail: '', identifier: '', label: ''}];", ("TypeError", "Shipping method amount must be greater than or equal to zero.")),
    ("#13 shipping method members checked alphabetically", 2, "r.shippingMethods = [{amount: ''}];", ("TypeError", "Member ApplePayShippingMethod.detail is required and must be an instance of DOMString")),
    ("V3 supportedCountries ['invalid']", 3, "r.supportedCountries = ['invalid'];", ("TypeError", '"invalid" is not a valid country code.')),
    ("V3 supportedCountries ['US', 7]", 3, "r.supportedCountries = ['US', 7];", ("TypeError", '"7" is not a valid country code.')),
    ("V3 supportedCountries ''", 3, "r.supportedCountries = '';", ("TypeError", "Value is not a sequence")),
    ("V3 supportedCountries 7", 3, "r.supportedCountries = 7;", ("TypeError", "Value is not a sequence")),
    ("V3 supportedCountries null", 3, "r.supportedCountries = null;", ("TypeError", "Value is not a sequence")),
    ("V3 supportedCountries []", 3, "r.supportedCountries = [];", None),
    ("V3 supportedCountries ['US', 'US']", 3, "r.supportedCountries = ['US', 'US'];", None),
    ("V5 constructor smoke test", 5, "", None),
]

for label, version, mutate, expected, *profile in WEBKIT_CONSTRUCTOR:
    def make(label=label, version=version, mutate=mutate, expected=expected, profile=profile):
        @case("WebKit " + label)
        def _(env):
            env.page({"options": {"profile": profile[0]}} if profile else None)
            r = env.gesture(f"var r = __valid(); {mutate} return new ApplePaySession({version}, r) instanceof ApplePaySession;")
            if expected is None:
                equal(r, {"ok": True}, "construction")
            else:
                equal(r.get("threw"), {"name": expected[0], "message": expected[1]}, "exception")
    make()


@case("A session prints as [object ApplePaySession]; paysheet.js is served with CORS for pages of other origins")
def _(env):
    env.page()
    r = env.gesture("return Object.prototype.toString.call(new ApplePaySession(3, __valid()));")
    equal((r or {}).get("ok"), "[object ApplePaySession]", "the session's string tag")
    with urllib.request.urlopen(env.base + "/paysheet.js", timeout=5) as answer:
        equal(answer.headers.get("Access-Control-Allow-Origin"), "*", "CORS header of paysheet.js")


@case("WebKit #14 applicationData whose toString throws rethrows the page's error")
def _(env):
    env.page()
    r = env.gesture("var r = __valid(); r.applicationData = { toString: function () { throw '\"Error in toString\"'; } }; return new ApplePaySession(2, r);")
    equal(r.get("threw"), {"name": '"Error in toString"', "message": '"Error in toString"'}, "rethrown value")


@case("WebKit #15 supportsVersion(0) throws InvalidAccessError; V4/V5: versions 1–5 are supported")
def _(env):
    env.page()
    r = env.script("return ApplePaySession.supportsVersion(0);")
    equal(r.get("threw"), {"name": "InvalidAccessError", "message": "The object does not support the operation or argument."}, "supportsVersion(0)")
    r = env.script("return [1,2,3,4,5].map(function (v) { return ApplePaySession.supportsVersion(v); });")
    equal(r, {"ok": [True] * 5}, "supportsVersion(1…5)")


@case("WebKit #18 ApplePayError with an empty contactField")
def _(env):
    env.page()
    r = env.script("return new ApplePayError('unknown', '');")
    equal(r.get("threw"), {"name": "TypeError", "message": "Argument 2 ('contactField') to the ApplePayError constructor must be one of: "
                                                           '"phoneNumber", "emailAddress", "name", "phoneticName", "postalAddress", "addressLines", '
                                                           '"subLocality", "locality", "postalCode", "subAdministrativeArea", "administrativeArea", '
                                                           '"country", "countryCode"'}, "exception")


@case("WebKit ApplePayError: the four codes are accepted and kept")
def _(env):
    env.page()
    r = env.script("return ['unknown','shippingContactInvalid','billingContactInvalid','addressUnserviceable'].map(function (c) { var e = new ApplePayError(c, 'postalCode', 'm'); return [e.code, e.contactField, e.message]; });")
    equal(r, {"ok": [[c, "postalCode", "m"] for c in ["unknown", "shippingContactInvalid", "billingContactInvalid", "addressUnserviceable"]]}, "errors")
    r = env.script("return new ApplePayError('bogus');")
    equal(r.get("threw", {}).get("name"), "TypeError", "an unknown code")


@case("WebKit #19 completeMerchantValidation twice throws InvalidAccessError")
def _(env):
    env.page()
    start(env, plan={"validate": False})
    r = env.script("__session.completeMerchantValidation({}); return 'once';")
    equal(r, {"ok": "once"}, "first completion")
    r = env.script("__session.completeMerchantValidation({});")
    equal(r.get("threw"), {"name": "InvalidAccessError", "message": "The object does not support the operation or argument."}, "second completion")


@case("WebKit: completeMerchantValidation after abort() throws InvalidAccessError, and no cancel is fired")
def _(env):
    env.page()
    start(env, plan={"validate": False})
    env.script("__session.abort();")
    r = env.script("__session.completeMerchantValidation({});")
    equal(r.get("threw", {}).get("name"), "InvalidAccessError", "completion after abort")
    time.sleep(0.3)
    check("cancel" not in env.event_types(), "abort() fired cancel")
    check(env.driver.find_element(By.ID, "paysheet-sheet").get_attribute("hidden") is not None, "the sheet is still shown after abort()")


@case("WebKit: completeMerchantValidation with a non-object throws TypeError")
def _(env):
    env.page()
    start(env, plan={"validate": False})
    for value in ["7", "''", "null"]:
        r = env.script(f"__session.completeMerchantValidation({value});")
        equal(r.get("threw", {}).get("name"), "TypeError", f"completeMerchantValidation({value})")


@case("WebKit: begin() twice, and a second session while one is active")
def _(env):
    # The sheet covers the page (no click reaches it), so the second session is made by a script.
    env.page({"requireUserGesture": False})
    start(env)
    r = env.script("__session.begin();")
    equal(r.get("threw"), {"name": "InvalidAccessError", "message": "Payment session is already active."}, "second begin()")
    r = env.script("var s = new ApplePaySession(3, __valid()); s.begin();")
    equal(r.get("threw"), {"name": "InvalidAccessError", "message": "Page already has an active payment session."}, "another session's begin()")


@case("WebKit: completePayment before authorization throws InvalidAccessError")
def _(env):
    env.page()
    start(env)
    r = env.script("__session.completePayment({status: ApplePaySession.STATUS_SUCCESS});")
    equal(r.get("threw", {}).get("name"), "InvalidAccessError", "completePayment")


@case("WebKit #21 the user cancels: cancel event with sessionError.code 'unknown' and empty info")
def _(env):
    env.page()
    start(env)
    env.click_sheet("cancel")
    env.wait("window.__events.some(function (e) { return e.type === 'cancel'; })", "cancel")
    ev = [e for e in env.events() if e["type"] == "cancel"][0]
    equal(ev["sessionError"], {"code": "unknown", "info": {}}, "sessionError")
    equal(env.driver.execute_script("return paysheet.sessions()"), ["canceled"], "session state")


@case("WebKit: validatemerchant first, then the selection events, in order, each with its data")
def _(env):
    env.page()
    start(env)
    env.wait("window.__events.length >= 3", "three events")
    equal(env.event_types()[:3], ["validatemerchant", "paymentmethodselected", "shippingcontactselected"], "event order")
    ev = env.events()
    check(ev[0]["validationURL"].startswith("https://"), "validationURL")
    equal(ev[1]["paymentMethod"]["network"], "Visa", "paymentMethod.network")
    contact = ev[2]["shippingContact"]
    check("givenName" not in contact and "addressLines" not in contact and contact.get("postalCode") == "95014", f"shipping contact is redacted before authorization: {contact}")


@case("WebKit: STATUS_* constants on the constructor and instances; events as on* and addEventListener")
def _(env):
    env.page()
    r = env.script("return [ApplePaySession.STATUS_SUCCESS, ApplePaySession.STATUS_FAILURE, ApplePaySession.STATUS_INVALID_BILLING_POSTAL_ADDRESS, "
                   "ApplePaySession.STATUS_INVALID_SHIPPING_POSTAL_ADDRESS, ApplePaySession.STATUS_INVALID_SHIPPING_CONTACT, ApplePaySession.STATUS_PIN_REQUIRED, "
                   "ApplePaySession.STATUS_PIN_INCORRECT, ApplePaySession.STATUS_PIN_LOCKOUT, ApplePaySession.prototype.STATUS_FAILURE];")
    equal(r, {"ok": [0, 1, 2, 3, 4, 5, 6, 7, 1]}, "constants")
    env.gesture("var s = new ApplePaySession(3, __valid()); window.__both = []; s.onvalidatemerchant = function () { __both.push('on'); };"
                " s.addEventListener('validatemerchant', function (e) { __both.push('listener:' + e.validationURL.slice(0, 8)); }); s.begin();")
    equal(env.wait("window.__both.length === 2 && window.__both", "both handlers"), ["on", "listener:https://"], "handlers called")


@case("canMakePayments follows the wallet; applePayCapabilities and canMakePaymentsWithActiveCard agree")
def _(env):
    env.page()
    equal(env.script("return ApplePaySession.canMakePayments();"), {"ok": True}, "default wallet")
    env.driver.execute_script("paysheet.configure({wallet: {cards: [], shippingContacts: []}})")
    equal(env.script("return ApplePaySession.canMakePayments();"), {"ok": False}, "empty wallet")
    r = env.driver.execute_async_script("var done = arguments[0]; Promise.all([ApplePaySession.canMakePaymentsWithActiveCard('m'), ApplePaySession.applePayCapabilities('m')]).then(done);")
    equal(r, [False, {"paymentCredentialStatus": "paymentCredentialsUnavailable"}], "promises")


@case("applePayCapabilities answers its four statuses: available, unavailable, unknown in a third-party browser, unsupported")
def _(env):
    env.page()
    ask = ("var done = arguments[0]; Promise.all([ApplePaySession.canMakePaymentsWithActiveCard('m'), "
           "ApplePaySession.applePayCapabilities('m')]).then(function (r) { done([r[0], r[1].paymentCredentialStatus]); });")
    equal(env.driver.execute_async_script(ask), [True, "paymentCredentialsAvailable"], "Safari, a card in the wallet")
    env.driver.execute_script("paysheet.configure({options: {browser: 'thirdParty'}})")
    equal(env.driver.execute_async_script(ask), [False, "paymentCredentialStatusUnknown"], "a third-party browser")
    env.driver.execute_script("paysheet.configure({options: {browser: 'safari', canMakePayments: false}})")
    equal(env.driver.execute_async_script(ask), [False, "applePayUnsupported"], "a device without Apple Pay")
    bad = env.driver.execute_script("try { paysheet.configure({options: {browser: 'netscape'}}); return null; } catch (e) { return String(e.message); }")
    check(bad and "browser" in bad, f"an unknown browser is refused with a message naming the option: {bad!r}")


# ---------------------------------------------------------------------------------------------
# What the sheet shows (docs/payment-sheet.md §3 and §4), read as rendered text.

CONTACT_VERIFY = "VERIFY CONTACT INFORMATION\ninvalid contact information"
POPUP = "Demo Merchant does not allow delivery to your shipping address"
STATUS_CODES = {"SUCCESS": 0, "FAILURE": 1, "INVALID_SHIPPING_POSTAL_ADDRESS": 3, "INVALID_SHIPPING_CONTACT": 4}
# (row, status, code, contactField?, FINGERPRINT status, CONTACT shows, SHIPPING shows, closes, popup)
# {message} is the page's error message, here "Bad postcode".
TABLE4 = [
    (1, "SUCCESS", None, False, None, None, None, True, False),
    (2, "SUCCESS", "unknown", True, "Try Again", None, None, False, False),
    (3, "FAILURE", None, False, "Payment Not Completed", None, None, True, False),
    (4, "FAILURE", "shippingContactInvalid", True, "Shipping Address Invalid", None, "SHIPPING ADDRESS INVALID\nBad postcode", False, False),
    (5, "FAILURE", "shippingContactInvalid", False, "Verify Contact Information", CONTACT_VERIFY, None, False, False),
    (6, "FAILURE", "addressUnserviceable", False, "Shipping Unavailable", None, "SHIPPING UNAVAILABLE\nAddress not supported", False, True),
    (7, "FAILURE", "addressUnserviceable", True, "Shipping Address Invalid", None, "SHIPPING ADDRESS INVALID\nBad postcode", False, True),
    (8, "FAILURE", "unknown", False, "Try Again", None, None, False, False),
    (9, "FAILURE", "unknown", True, "Try Again", None, None, False, False),
    (10, "INVALID_SHIPPING_CONTACT", "shippingContactInvalid", True, "Verify Contact Information", CONTACT_VERIFY, "SHIPPING ADDRESS INVALID\nBad postcode", False, False),
    (11, "INVALID_SHIPPING_CONTACT", "shippingContactInvalid", False, "Verify Contact Information", CONTACT_VERIFY, None, False, False),
    (12, "INVALID_SHIPPING_CONTACT", "addressUnserviceable", True, "Verify Contact Information", CONTACT_VERIFY, "SHIPPING UNAVAILABLE\nBad postcode", False, True),
    (13, "INVALID_SHIPPING_CONTACT", "addressUnserviceable", False, "Verify Contact Information", CONTACT_VERIFY, "SHIPPING UNAVAILABLE\nAddress not supported", False, True),
    (14, "INVALID_SHIPPING_CONTACT", "unknown", True, "Verify Contact Information", CONTACT_VERIFY, None, False, False),
    (15, "INVALID_SHIPPING_CONTACT", "unknown", False, "Verify Contact Information", CONTACT_VERIFY, None, False, False),
    (16, "INVALID_SHIPPING_POSTAL_ADDRESS", "shippingContactInvalid", True, "Shipping Address Invalid", None, "SHIPPING ADDRESS INVALID\ninvalid address", False, False),
    (17, "INVALID_SHIPPING_POSTAL_ADDRESS", "shippingContactInvalid", False, "Shipping Address Invalid", CONTACT_VERIFY, "SHIPPING ADDRESS INVALID\ninvalid address", False, False),
    (18, "INVALID_SHIPPING_POSTAL_ADDRESS", "addressUnserviceable", True, "Shipping Address Invalid", None, "SHIPPING ADDRESS INVALID\ninvalid address", False, True),
    (19, "INVALID_SHIPPING_POSTAL_ADDRESS", "addressUnserviceable", False, "Shipping Address Invalid", None, "SHIPPING ADDRESS INVALID\ninvalid address", False, True),
    (20, "INVALID_SHIPPING_POSTAL_ADDRESS", "unknown", True, "Shipping Address Invalid", None, "SHIPPING ADDRESS INVALID\ninvalid address", False, False),
    (21, "INVALID_SHIPPING_POSTAL_ADDRESS", "unknown", False, "Shipping Address Invalid", None, "SHIPPING ADDRESS INVALID\ninvalid address", False, False),
]

SHOT_ROWS = {4: "sheet-shipping-address-invalid", 5: "sheet-verify-contact", 6: "sheet-shipping-unavailable-popup", 8: "sheet-try-again"}

for row in TABLE4:
    def make(row=row):
        n, status, code, field, fp, contact, shipping, closes, popup = row

        @case(f"sheet §4 row {n}: completePayment {status}" + (f" + {code}" if code else "") + (" with contactField" if field else ""))
        def _(env):
            env.page()
            result = {"status": STATUS_CODES[status]}
            if code:
                err = {"code": code, "message": "Bad postcode"}
                if field:
                    err["contactField"] = "postalCode"
                result["errors"] = [err]
            start(env, plan={"results": [result]})
            env.click_sheet("authorize")
            if closes:
                env.wait("document.getElementById('paysheet-closed')", "the sheet to close")
                note = env.driver.find_element(By.ID, "paysheet-closed").text
                if fp:
                    check(fp in note, f"closing status {fp!r} in {note!r}")
                check(env.driver.find_element(By.ID, "paysheet-sheet").get_attribute("hidden") is not None, "the sheet closed")
                equal(env.driver.execute_script("return paysheet.paid()"), n == 1, "paid")
                if n == 1:
                    env.shot("sheet-closed-success")
                return
            env.wait("window.__completed === 1", "completePayment")
            env.wait("document.querySelector('#paysheet-sheet [data-part=status]') && document.querySelector('#paysheet-sheet [data-part=status]').textContent !== ''", "a status")
            equal(env.sheet_text("[data-part=status]"), fp, "FINGERPRINT status")
            equal(env.sheet_text("[data-error=contact]"), contact, "CONTACT module")
            equal(env.sheet_text("[data-error=shipping]"), shipping, "SHIPPING module")
            equal(env.sheet_text("[data-part=popup]"), POPUP if popup else None, "popup")
            equal(env.driver.execute_script("return paysheet.snapshot().rule"), n, "the engine's table row")
            if n in SHOT_ROWS:
                env.shot(SHOT_ROWS[n])
    make()

TABLE3 = [
    ("addressUnserviceable", "SHIPPING UNAVAILABLE\nAddress not supported", True),
    ("shippingContactInvalid", "SHIPPING ADDRESS INVALID\nBad postcode", False),
    ("unknown", None, False),
]

for code, shipping, popup in TABLE3:
    def make(code=code, shipping=shipping, popup=popup):
        @case(f"sheet §3: completeShippingContactSelection with {code}")
        def _(env):
            env.page()
            r = env.gesture("return __start(14, args[0], {shippingErrors: [{code: args[1], contactField: args[1] === 'shippingContactInvalid' ? 'postalCode' : undefined, message: 'Bad postcode'}]});",
                            SHIPPING_REQUEST, code)
            check(r and "threw" not in r, f"begin: {r}")
            env.wait("document.querySelector('#paysheet-sheet [data-part=status]') && document.querySelector('#paysheet-sheet [data-part=status]').textContent !== ''", "a status")
            equal(env.sheet_text("[data-part=status]"), "Shipping Address Invalid", "FINGERPRINT status")
            equal(env.sheet_text("[data-error=shipping]"), shipping, "SHIPPING module")
            equal(env.sheet_text("[data-part=popup]"), POPUP if popup else None, "popup")
            # Any error on the shipping contact asks the user for another address before paying.
            pay = env.driver.find_element(By.CSS_SELECTOR, '#paysheet-sheet [data-action="authorize"]')
            equal(pay.is_enabled(), False, "Pay is enabled")
    make()


@case("sheet: choosing another address clears the shipping error and fires shippingcontactselected again")
def _(env):
    env.page({"wallet": {"cards": [{"network": "visa", "type": "credit", "displayName": "Visa 1234"}],
                         "shippingContacts": [{"givenName": "A", "locality": "Cupertino", "postalCode": "95014", "countryCode": "US", "administrativeArea": "CA", "addressLines": ["1 Loop"]},
                                              {"givenName": "B", "locality": "Austin", "postalCode": "73301", "countryCode": "US", "administrativeArea": "TX", "addressLines": ["2 Main"]}],
                         "email": "a@example.com", "phone": "+1 408 555 0100"}})
    env.gesture("return __start(14, args[0], {shippingErrors: [{code: 'shippingContactInvalid', contactField: 'postalCode', message: 'Bad postcode'}], shippingErrorsOnce: true});", SHIPPING_REQUEST)
    env.wait("document.querySelector('#paysheet-sheet [data-error=shipping]')", "the shipping error")
    Select(env.driver.find_element(By.ID, "paysheet-shipping")).select_by_index(1)
    env.wait("!document.querySelector('#paysheet-sheet [data-error=shipping]') && window.__events.filter(function (e) { return e.type === 'shippingcontactselected'; }).length === 2", "the error to clear")
    equal(env.events()[-1]["shippingContact"]["locality"], "Austin", "the new address reached the page")
    check(env.driver.find_element(By.CSS_SELECTOR, '#paysheet-sheet [data-action="authorize"]').is_enabled(), "Pay is enabled again")


# ---------------------------------------------------------------------------------------------
# Time

@case("timeout (virtual clock): no completePayment within 30 s — Payment Not Completed, cancel")
def _(env):
    env.page({"clock": "virtual"})
    start(env, plan={"results": []})
    env.click_sheet("authorize")
    env.wait("document.querySelector('#paysheet-sheet [data-part=countdown]')", "the countdown")
    countdown = env.sheet_text("[data-part=countdown]")
    check("completePayment" not in countdown and "paymentauthorized" in countdown and "30 s left" in countdown, f"countdown text: {countdown!r}")
    env.driver.execute_script("paysheet.advanceClock(12)")
    check("18 s left" in env.sheet_text("[data-part=countdown]"), "countdown after 12 virtual seconds")
    env.shot("sheet-countdown")
    env.driver.execute_script("paysheet.advanceClock(18)")
    env.wait("window.__events.some(function (e) { return e.type === 'cancel'; })", "cancel")
    note = env.driver.find_element(By.ID, "paysheet-closed").text
    check("Payment Not Completed" in note and "timed out" in note, f"closing note: {note!r}")
    env.shot("sheet-timed-out")
    r = env.script("__session.completePayment({status: 0});")
    equal(r.get("threw", {}).get("name"), "InvalidAccessError", "a late completePayment")


@case("timeout (real clock): the sheet gives up on its own after timeoutSeconds")
def _(env):
    env.page({"options": {"timeoutSeconds": 2}})
    r = env.gesture("return __start(14, args[0], {validate: false});", SHIPPING_REQUEST)
    check(r and "threw" not in r, f"begin: {r}")
    env.wait("document.querySelector('#paysheet-sheet [data-part=countdown]')", "the countdown")
    env.wait("window.__events.some(function (e) { return e.type === 'cancel'; })", "cancel without any call from the page", timeout=8)
    equal(env.driver.execute_script("return paysheet.sessions()"), ["canceled"], "session state")


# ---------------------------------------------------------------------------------------------
# The Payment Request API with the Apple Pay method. WebKit's PaymentRequest.https.html expects,
# for each setup below (applied to its valid method `pm`, details `det` and options `opts`), that
# the constructor throws ("threw") or show() in a click rejects ("rejected") with this exception.

PR_SETUP = """
var pm = {supportedMethods: 'https://apple.com/apple-pay', data: {version: 2, merchantIdentifier: '', countryCode: 'US',
          supportedNetworks: ['visa', 'masterCard'], merchantCapabilities: ['supports3DS']}};
var det = {total: {label: 'Your label', amount: {currency: 'USD', value: '10.00'}}};
var opts = undefined;
"""

NOT_SEQ = ("TypeError", "Value is not a sequence")
TYPE = ("TypeError", "Type error")
AMOUNT_REQUIRED = ("TypeError", "Member PaymentItem.amount is required and must be an instance of PaymentCurrencyAmount")
MISMATCH = ("TypeError", '"EUR" does not match the expected currency of "USD". Apple Pay requires all PaymentCurrencyAmounts to use the same currency code.')


def _member(dictionary, name, t):
    return ("TypeError", f"Member {dictionary}.{name} is required and must be an instance of {t}")


PR_CASES = [
    ("pm.data.version = 0", "rejected", ("InvalidAccessError", '"0" is not a supported version.')),
    ("pm.data.version = 1000", "rejected", ("InvalidAccessError", '"1000" is not a supported version.')),
    ("delete pm.data.countryCode", "rejected", _member("ApplePayRequest", "countryCode", "DOMString")),
    ("pm.data.countryCode = 'invalid'", "rejected", ("TypeError", '"invalid" is not a valid country code.')),
    ("pm.data.countryCode = ''", "rejected", ("TypeError", '"" is not a valid country code.')),
    ("pm.data.countryCode = null", "rejected", ("TypeError", '"null" is not a valid country code.')),
    ("pm.data.countryCode = undefined", "rejected", _member("ApplePayRequest", "countryCode", "DOMString")),
    ("pm.data.countryCode = 7", "rejected", ("TypeError", '"7" is not a valid country code.')),
    ("delete pm.data.supportedNetworks", "rejected", _member("ApplePayRequest", "supportedNetworks", "sequence")),
    ("pm.data.supportedNetworks = ''", "rejected", NOT_SEQ),
    ("pm.data.supportedNetworks = null", "rejected", NOT_SEQ),
    ("pm.data.supportedNetworks = 7", "rejected", NOT_SEQ),
    ("pm.data.supportedNetworks = []", "rejected", ("TypeError", "At least one supported network must be provided.")),
    ("pm.data.supportedNetworks = ['invalidNetwork', 'visa']", "rejected", ("TypeError", '"invalidNetwork" is not a valid payment network.')),
    ("delete pm.data.merchantCapabilities", "rejected", _member("ApplePayRequest", "merchantCapabilities", "sequence")),
    ("pm.data.merchantCapabilities = 7", "rejected", NOT_SEQ),
    ("pm.data.merchantCapabilities = []", "rejected", ("TypeError", "At least one merchant capability must be provided.")),
    ("pm.data.merchantCapabilities = ['invalidCapability', 'supports3DS']", "rejected", TYPE),
    ("pm.data.requiredBillingContactFields = ''", "rejected", NOT_SEQ),
    ("pm.data.requiredBillingContactFields = { }", "rejected", TYPE),
    ("pm.data.requiredBillingContactFields = [undefined]", "rejected", TYPE),
    ("pm.data.requiredShippingContactFields = ['invalid']", "rejected", TYPE),
    ("pm.data.requiredShippingContactFields = null", "rejected", NOT_SEQ),
    ("delete det.total", "threw", _member("PaymentDetailsInit", "total", "PaymentItem")),
    ("det.total = ''", "threw", TYPE),
    ("det.total = null", "threw", AMOUNT_REQUIRED),
    ("det.total = []", "threw", AMOUNT_REQUIRED),
    ("det.total = { label: 'label' }", "threw", AMOUNT_REQUIRED),
    ("det.total = { label: 'label', amount: 'amount' }", "threw", TYPE),
    ("det.total = { label: 'label', amount: { currency: '', value: '0' } }", "threw", ("RangeError", '"" is not a valid currency code.')),
    ("det.total = { label: 'label', amount: { currency: 'USD', value: '-10.00' } }", "threw", ("TypeError", "Total currency values cannot be negative.")),
    ("det.displayItems = 7", "threw", NOT_SEQ),
    ("det.displayItems = { }", "threw", TYPE),
    ("det.displayItems = ['']", "threw", TYPE),
    ("det.displayItems = [undefined]", "threw", AMOUNT_REQUIRED),
    ("det.displayItems = [{ label: 'label', amount: '10.00', type: 'invalid' }]", "threw", TYPE),
    ("det.displayItems = [{ label: 'label', amount: { currency: 'EUR', value: '10.00' } }]", "rejected", MISMATCH),
    ("det.shippingOptions = 'invalid'", "threw", NOT_SEQ),
    ("det.shippingOptions = [{ }]", "threw", ("TypeError", "Member PaymentShippingOption.amount is required and must be an instance of PaymentCurrencyAmount")),
    ("det.shippingOptions = [{ amount: '-1', detail: '', identifier: '', label: '' }]", "threw", TYPE),
    ("det.shippingOptions = [{ amount: { currency: 'EUR', value: '10.00' }, id: '', label: '' }]", "rejected", MISMATCH),
    ("opts = {shippingType: 'invalid'}", "threw", TYPE),
    ("opts = {shippingType: null}", "threw", TYPE),
]


@case("PaymentRequest: WebKit's constructor and show() exceptions, case by case")
def _(env):
    env.page()
    failures = []
    run = """
    %s
    eval(args[0]);
    var req;
    try { req = new PaymentRequest([pm], det, opts); } catch (e) { window.__outcome = ['threw', e.name, e.message]; return; }
    req.show().then(function () { window.__outcome = ['resolved']; }, function (e) { window.__outcome = ['rejected', e.name, e.message]; });
    """ % PR_SETUP
    for setup, kind, (name, message) in PR_CASES:
        # Current WebKit checks the Apple Pay method's data in the constructor
        # (PaymentHandler::validateData); Safari 14 and earlier at show(), as WebKit's page records.
        variants = [("safari-18", kind)]
        if kind == "rejected" and "pm.data" in setup:
            variants = [("safari-18", "threw"), ("safari-14", "rejected")]
        if setup.startswith("det.shippingOptions") and kind == "rejected":
            # Without requestShipping current WebKit keeps no shipping options: only Safari 14
            # and earlier checked them at show().
            variants = [("safari-14", "rejected")]
        for profile, expected in variants:
            env.driver.execute_script("paysheet.configure({options: {profile: arguments[0]}}); window.__outcome = null;", profile)
            env.gesture(run, setup)
            got = env.wait("window.__outcome", setup)
            if got != [expected, name, message]:
                failures.append(f"{setup} ({profile}): expected {[expected, name, message]}, got {got}")
            env.driver.execute_script("if (paysheet.snapshot().visible) paysheet.cancel();")
    env.driver.execute_script("paysheet.configure({options: {profile: 'safari-18'}})")
    check(not failures, "\n".join(failures))
    r = env.script("new PaymentRequest(null, null)")
    equal(r.get("threw"), {"name": "TypeError", "message": "Value is not a sequence"}, "new PaymentRequest(null, null)")


PR_PAGE = PR_SETUP + """
window.__pr = new PaymentRequest([pm], args[0] || det, args[1]);
window.__prEvents = [];
var plan = args[2] || {};
__pr.onmerchantvalidation = function (e) {
  __prEvents.push({type: e.type, validationURL: e.validationURL, methodName: e.methodName});
  if (plan.validate !== false) e.complete(Promise.resolve({merchantSessionIdentifier: 'test'}));
};
__pr.onshippingaddresschange = function (e) {
  __prEvents.push({type: e.type, country: __pr.shippingAddress.country});
  if (plan.addressUpdate !== undefined) e.updateWith(plan.addressUpdate === 'reject' ? Promise.reject(new Error('no')) : Promise.resolve(plan.addressUpdate));
};
__pr.onpaymentmethodchange = function (e) {
  __prEvents.push({type: e.type, methodType: e.methodDetails.type});
  if (plan.methodUpdate) e.updateWith(plan.methodUpdate);
};
window.__shown = null;
__pr.show().then(function (r) { window.__response = r; window.__shown = {ok: true}; },
                 function (e) { window.__shown = {name: e.name, message: e.message}; });
return __pr.id;
"""


def pr_start(env, details=None, options=None, plan=None, drawn=True):
    r = env.gesture(PR_PAGE, details, options, plan or {})
    check(r and "ok" in r, f"the PaymentRequest was not shown: {r}")
    if drawn:
        env.wait("document.querySelector('#paysheet-sheet:not([hidden])') !== null", "the sheet to be drawn")


@case("PaymentRequest: merchant validation, the user pays, show() resolves, complete('success') closes the sheet")
def _(env):
    env.page()
    pr_start(env)
    env.wait("__prEvents.length > 0", "merchantvalidation")
    ev = env.driver.execute_script("return __prEvents[0]")
    equal(ev["methodName"], "https://apple.com/apple-pay", "methodName")
    check(ev["validationURL"].startswith("https://"), f"validationURL {ev['validationURL']!r}")
    env.wait("paysheet.snapshot().outstanding === null", "merchant validation to complete")
    env.shot("payment-request-sheet")
    env.click_sheet("authorize")
    env.wait("window.__shown", "show() to settle")
    d = env.driver
    equal(d.execute_script("return window.__shown"), {"ok": True}, "show()")
    equal(d.execute_script("return String(__response)"), "[object PaymentResponse]", "the response")
    equal(d.execute_script("return __response.methodName"), "https://apple.com/apple-pay", "methodName")
    equal(d.execute_script("return __response.requestId === __pr.id"), True, "requestId")
    check(d.execute_script("return !!__response.details.token.paymentData"), "the response's details carry the token")
    equal(d.execute_script("return __response.shippingAddress"), None, "no shipping address asked for")
    d.execute_script("window.__done = null; __response.complete('success').then(function () { window.__done = 'ok'; });")
    equal(env.wait("window.__done", "complete()"), "ok", "complete()")
    equal(d.execute_script("return paysheet.paid()"), True, "paid")
    r = d.execute_async_script("var cb = arguments[0]; __response.complete('success').then(function(){cb('resolved')}, function(e){cb(e.name)});")
    equal(r, "InvalidStateError", "a second complete()")


@case("PaymentRequest: show() outside a gesture, twice, after abort(); the user cancels; canMakePayment()")
def _(env):
    env.page()
    d = env.driver
    r = d.execute_async_script("var cb = arguments[0];" + PR_SETUP.replace("\n", " ") +
                               " var q = new PaymentRequest([pm], det); q.show().then(function(){cb('resolved')}, function(e){cb([e.name, e.message])});")
    equal(r, ["SecurityError", "show() must be triggered by user activation."], "show() outside a gesture")
    r = d.execute_async_script("var cb = arguments[0];" + PR_SETUP.replace("\n", " ") +
                               " new PaymentRequest([pm], det).canMakePayment().then(cb, function(e){cb(e.name)});")
    equal(r, True, "canMakePayment()")
    pr_start(env, plan={"validate": False})
    r = d.execute_async_script("var cb = arguments[0]; __pr.show().then(function(){cb('resolved')}, function(e){cb(e.name)});")
    equal(r, "SecurityError", "show() again outside a gesture (the gesture is checked first)")
    r = d.execute_async_script("var cb = arguments[0]; __pr.canMakePayment().then(function(){cb('resolved')}, function(e){cb(e.name)});")
    equal(r, "InvalidStateError", "canMakePayment() once shown")
    r = d.execute_async_script("var cb = arguments[0]; __pr.abort().then(function(){cb('resolved')}, function(e){cb(e.name)});")
    equal(r, "resolved", "abort()")
    equal(env.wait("window.__shown", "show() to settle"), {"name": "AbortError", "message": "The operation was aborted."}, "show() after abort()")
    r = d.execute_async_script("var cb = arguments[0]; __pr.abort().then(function(){cb('resolved')}, function(e){cb(e.name)});")
    equal(r, "InvalidStateError", "abort() again")
    env.gesture("window.__again = null; __pr.show().then(function(){ window.__again = 'resolved'; }, function(e){ window.__again = e.name; });")
    equal(env.wait("window.__again", "show() again"), "InvalidStateError", "show() again in a gesture, once closed")
    pr_start(env)
    env.wait("paysheet.snapshot().outstanding === null", "merchant validation")
    env.click_sheet("cancel")
    equal(env.wait("window.__shown", "show() to settle")["name"], "AbortError", "show() when the user cancels")


@case("PaymentRequest: the merchant-validation event completes once; a rejected promise aborts")
def _(env):
    env.page()
    d = env.driver
    pr_start(env, plan={"validate": False})
    env.wait("__prEvents.length > 0", "merchantvalidation")
    d.execute_script("""__pr.onmerchantvalidation = null;""")
    # The event object is gone; use a fresh request whose listener completes twice.
    d.execute_script("paysheet.cancel()")
    env.wait("window.__shown", "show() to settle")
    r = env.gesture(PR_SETUP + """
        window.__twice = null;
        var q = new PaymentRequest([pm], det);
        q.onmerchantvalidation = function (e) {
          e.complete(Promise.reject(new Error('no session')));
          try { e.complete({}); window.__twice = 'no exception'; } catch (x) { window.__twice = x.name; }
        };
        window.__shown = null;
        q.show().then(function(){ window.__shown = 'resolved'; }, function (e) { window.__shown = e.name; });""")
    equal(env.wait("window.__twice", "the second complete()"), "InvalidStateError", "complete() twice")
    equal(env.wait("window.__shown", "show() to settle"), "AbortError", "show() when the merchant session promise rejects")


@case("PaymentRequest: shippingaddresschange with updateWith; WebKit's address and payer errors reach the sheet")
def _(env):
    env.page()
    d = env.driver
    usd = lambda v: {"currency": "USD", "value": v}
    update = {"total": {"label": "Total", "amount": usd("12.00")},
              "shippingAddressErrors": {"addressLine": "error", "city": "error", "country": "error", "dependentLocality": "error",
                                        "phone": "error", "postalCode": "error", "recipient": "error", "region": "error"}}
    pr_start(env, options={"requestShipping": True}, plan={"addressUpdate": update})
    env.wait("__prEvents.some(function (e) { return e.type === 'shippingaddresschange'; })", "shippingaddresschange")
    equal(d.execute_script("return __prEvents.filter(function (e) { return e.type === 'shippingaddresschange'; })[0].country"), "US", "shippingAddress.country")
    env.wait("paysheet.snapshot().outstanding === null", "the update")
    errors = d.execute_script("return paysheet.mockPaymentCoordinator.errors")
    equal([e["contactField"] for e in errors],
          ["addressLines", "locality", "country", "subLocality", "phoneNumber", "postalCode", "name", "administrativeArea"], "contact fields")
    check(all(e["code"] == "shippingContactInvalid" and e["message"] == "error" for e in errors), f"errors {errors}")
    equal(d.execute_script("return paysheet.snapshot().modules.summary.total.amount"), "12.00", "the update's total")
    d.execute_script("paysheet.cancel()")
    env.wait("window.__shown", "show() to settle")
    # With shipping options the address errors are not reported (WebKit's computeErrors).
    pr_start(env, options={"requestShipping": True},
             plan={"addressUpdate": {"total": {"label": "Total", "amount": usd("10.00")}, "error": "single error",
                                     "shippingOptions": [{"id": "o1", "label": "option 1", "amount": usd("1.00")}]}})
    env.wait("__prEvents.some(function (e) { return e.type === 'shippingaddresschange'; }) && paysheet.snapshot().outstanding === null", "the update")
    equal(d.execute_script("return paysheet.mockPaymentCoordinator.errors.length"), 0, "errors with shipping options")
    equal(d.execute_script("return paysheet.choices().shippingMethods.map(function (m) { return m.identifier; })"), ["o1"], "the update's shipping options")
    d.execute_script("paysheet.cancel()")
    env.wait("window.__shown", "show() to settle")
    # An update whose promise rejects aborts the request.
    pr_start(env, options={"requestShipping": True}, plan={"addressUpdate": "reject"}, drawn=False)
    equal(env.wait("window.__shown", "show() to settle")["name"], "AbortError", "show() when updateWith's promise rejects")
    # An update with a line in another currency than its total aborts it with WebKit's message.
    pr_start(env, options={"requestShipping": True}, plan={"addressUpdate": {"total": {"label": "Total", "amount": usd("10.00")},
                                     "displayItems": [{"label": "Item", "amount": {"currency": "EUR", "value": "1.00"}}]}}, drawn=False)
    equal(env.wait("window.__shown", "show() to settle"), {"name": MISMATCH[0], "message": MISMATCH[1]}, "show() when the update's currency differs")


@case("PaymentRequest: modifiers change the total for the selected card type (WebKit's mock flow)")
def _(env):
    env.page({"wallet": {"cards": [{"network": "visa", "type": "credit", "displayName": "Visa 1234"},
                                   {"network": "masterCard", "type": "debit", "displayName": "MasterCard 9876"}]}})
    usd = lambda v: {"currency": "USD", "value": v}
    details = {"total": {"label": "Total", "amount": usd("10.00")}, "displayItems": [{"label": "Item", "amount": usd("10.00")}],
               "modifiers": [{"supportedMethods": "https://apple.com/apple-pay", "total": {"label": "Credit total override", "amount": usd("15.00")},
                              "additionalDisplayItems": [{"label": "Credit surcharge", "amount": usd("5.00")}], "data": {"paymentMethodType": "credit"}},
                             {"supportedMethods": "https://apple.com/apple-pay", "total": {"label": "Debit total override", "amount": usd("13.00")},
                              "additionalDisplayItems": [{"label": "Debit surcharge", "amount": usd("3.00")}], "data": {"paymentMethodType": "debit"}}]}
    d = env.driver
    # WebKit's ApplePayPaymentDetailsModifier: the credit, the debit, and a prepaid card no modifier names.
    for kind, label, amount, lines in [("credit", "Credit total override", "15.00", [["Item", "10.00"], ["Credit surcharge", "5.00"]]),
                                       ("debit", "Debit total override", "13.00", [["Item", "10.00"], ["Debit surcharge", "3.00"]]),
                                       ("prepaid", "Total", "10.00", [["Item", "10.00"]])]:
        r = env.gesture(PR_SETUP + """
            var q = new PaymentRequest([pm], args[0]);
            window.__shown = null;
            q.show().then(function (resp) {
              var m = paysheet.mockPaymentCoordinator;
              window.__shown = {label: m.total.label, amount: m.total.amount, lines: m.lineItems.map(function (i) { return [i.label, i.amount]; })};
              resp.complete('success');
            }, function (e) { window.__shown = {name: e.name, message: e.message}; });
            paysheet.mockPaymentCoordinator.changePaymentMethod({type: args[1]});
            paysheet.mockPaymentCoordinator.acceptPayment();""", details, kind)
        check(r and "ok" in r, f"show: {r}")
        got = env.wait("window.__shown", "show() to settle")
        equal(got, {"label": label, "amount": amount, "lines": lines}, f"{kind} card")


@case("PaymentRequest: retry() shows the payer's error; the user pays again; retry() resolves")
def _(env):
    env.page()
    d = env.driver
    pr_start(env, options={"requestPayerEmail": True})
    env.wait("paysheet.snapshot().outstanding === null", "merchant validation")
    env.click_sheet("authorize")
    env.wait("window.__shown", "show()")
    equal(d.execute_script("return __response.payerEmail"), d.execute_script("return paysheet.snapshot().modules.contact.email"), "payerEmail")
    d.execute_script("window.__retried = null; __response.retry({payer: {email: 'Use your work address'}}).then(function () { window.__retried = 'resolved'; }, function (e) { window.__retried = e.name; });")
    env.wait("paysheet.snapshot().modules.contact.error", "the contact error on the sheet")
    equal(d.execute_script("return paysheet.snapshot().modules.contact.error.message"), "Use your work address", "the page's message")
    r = d.execute_async_script("var cb = arguments[0]; __response.complete('success').then(function(){cb('resolved')}, function(e){cb(e.name)});")
    equal(r, "InvalidStateError", "complete() while retrying")
    d.execute_script("paysheet.editContact({email: 'me@work.example'})")
    env.click_sheet("authorize")
    equal(env.wait("window.__retried", "retry()"), "resolved", "retry()")
    equal(d.execute_script("return __response.payerEmail"), "me@work.example", "the response's new payerEmail")
    d.execute_script("__response.complete('fail')")
    env.wait("!paysheet.snapshot().visible", "the sheet to close")
    equal(d.execute_script("return paysheet.paid()"), False, "complete('fail') does not pay")


# ---------------------------------------------------------------------------------------------
# Accessibility and layout

@case("keyboard: focus starts on Pay; Enter authorizes; Escape cancels")
def _(env):
    env.page()
    start(env, plan={"results": []})
    active = env.driver.switch_to.active_element
    equal(active.get_attribute("data-action"), "authorize", "focused control")
    active.send_keys(Keys.ENTER)
    env.wait("window.__events.some(function (e) { return e.type === 'paymentauthorized'; })", "paymentauthorized")
    ActionChains(env.driver).send_keys(Keys.ESCAPE).perform()
    env.wait("window.__events.some(function (e) { return e.type === 'cancel'; })", "cancel")


@case("labels: the dialog is named as a simulation and every control has a name")
def _(env):
    env.page()
    start(env)
    root = env.driver.find_element(By.ID, "paysheet-sheet")
    equal(root.get_attribute("role"), "dialog", "role")
    label = env.driver.find_element(By.ID, root.get_attribute("aria-labelledby")).text
    equal(label, "Simulated payment sheet — not Apple Pay", "dialog name")
    for el in env.driver.find_elements(By.CSS_SELECTOR, "#paysheet-sheet select, #paysheet-sheet input"):
        check(el.get_attribute("aria-label"), f"unlabelled control {el.get_attribute('id')}")
    for el in env.driver.find_elements(By.CSS_SELECTOR, "#paysheet-sheet button"):
        check(el.text.strip(), "a button without text")


@case("phone-sized viewport: the sheet fits 375 px without sideways scrolling")
def _(env):
    env.page()
    env.driver.set_window_size(375, 740)
    start(env)
    width = env.driver.execute_script("return document.querySelector('#paysheet-sheet .ps-panel').getBoundingClientRect().width")
    inner = env.driver.execute_script("return window.innerWidth")
    check(width <= inner, f"panel {width}px wider than the viewport {inner}px")
    check(env.driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"), "horizontal scrolling")
    env.shot("sheet-phone")


# ---------------------------------------------------------------------------------------------
# Scripting API and tokens

@case("scripting API: select a card, a method, enter a coupon, read the snapshot and event log")
def _(env):
    env.page({"wallet": {"cards": [{"network": "visa", "type": "credit", "displayName": "Visa 1234"},
                                   {"network": "masterCard", "type": "debit", "displayName": "MasterCard 9876"},
                                   {"network": "amex", "type": "credit", "displayName": "AmEx 0005"}],
                         "shippingContacts": [{"givenName": "A", "locality": "Cupertino", "postalCode": "95014", "countryCode": "US", "administrativeArea": "CA", "addressLines": ["1 Loop"]}],
                         "email": "a@example.com", "phone": "+1 408 555 0100"}})
    req = dict(SHIPPING_REQUEST, supportsCouponCode=True,
               shippingMethods=[{"label": "Ground", "detail": "5 days", "amount": "0.00", "identifier": "ground"},
                                {"label": "Air", "detail": "1 day", "amount": "9.00", "identifier": "air"}])
    start(env, request=req, plan={"couponTotal": "7.50"})
    d = env.driver
    cards = d.execute_script("return paysheet.choices().cards")
    equal([c["usable"] for c in cards], [True, True, False], "usable cards (amex is not accepted)")
    equal(d.execute_script("return paysheet.selectPaymentMethod(2)")["ok"], False, "selecting a card the request does not accept")
    equal(d.execute_script("return paysheet.selectPaymentMethod(1)")["ok"], True, "selecting the MasterCard")
    env.wait("window.__events.filter(function (e) { return e.type === 'paymentmethodselected'; }).length === 2", "paymentmethodselected")
    equal(env.events()[-1]["paymentMethod"]["type"], "debit", "the page saw the debit card")
    env.wait("paysheet.snapshot().outstanding === null", "the page's completion")
    d.execute_script("paysheet.selectShippingMethod('air')")
    env.wait("window.__events.some(function (e) { return e.type === 'shippingmethodselected' && e.shippingMethod.identifier === 'air'; })", "shippingmethodselected")
    env.wait("paysheet.snapshot().outstanding === null", "the page's completion")
    d.execute_script("paysheet.enterCouponCode('SAVE')")
    env.wait("paysheet.snapshot().modules.summary.total.amount === '7.50'", "the coupon's total")
    equal(env.sheet_text("[data-part=total]"), "7.50 USD", "rendered total")
    equal(d.execute_script("return paysheet.mockPaymentCoordinator.total.amount"), "7.50", "mockPaymentCoordinator.total")
    log = d.execute_script("return paysheet.events()")
    check([e for e in log if e["type"] == "ignored"], "the refused selection is in the event log")
    env.shot("sheet-open")


@case("token: the authorized payment carries a real sandbox token a merchant's own key decrypts")
def _(env):
    keydir = tempfile.mkdtemp(prefix="paysheet-merchant-")
    subprocess.run([env.binary, "keys", "create", "--merchant-id", "merchant.com.example.browser", "--out", keydir, "--data", env.data],
                   check=True, capture_output=True)
    pem = open(os.path.join(keydir, "certificate.pem")).read()
    env.page({"merchantCertificate": pem})
    start(env, plan={"results": []})
    env.click_sheet("authorize")
    env.wait("window.__events.some(function (e) { return e.type === 'paymentauthorized'; })", "paymentauthorized")
    payment = [e for e in env.events() if e["type"] == "paymentauthorized"][0]["payment"]
    equal(payment["token"]["paymentData"]["version"], "EC_v1", "token version")
    token_file = os.path.join(keydir, "payment.json")
    json.dump(payment, open(token_file, "w"))
    out = subprocess.run([env.binary, "token", "decrypt", "--token", token_file, "--certificate", os.path.join(keydir, "certificate.pem"),
                          "--private-key", os.path.join(keydir, "key.pem"), "--root", os.path.join(env.data, "sandbox-ca", "root.pem")],
                         capture_output=True, text=True)
    equal(out.returncode, 0, "paysheet token decrypt exit status (" + out.stderr.strip() + ")")
    data = json.loads(out.stdout)
    equal(data.get("transactionAmount"), 1000, "decrypted amount (10.00 USD in cents)")
    equal(data.get("currencyCode"), "840", "decrypted currency")


# ---------------------------------------------------------------------------------------------
# The demo store, end to end

def store_checkout(env, delivery="ship", configure=None):
    d = env.driver
    d.get(env.base + "/")
    if configure is not None:
        env.wait("window.paysheet", "paysheet.js")
        d.execute_script("paysheet.configure(arguments[0])", configure)
    env.wait("document.querySelectorAll('button[data-sku]').length >= 2", "the catalog")
    buttons = d.find_elements(By.CSS_SELECTOR, "button[data-sku]")
    buttons[0].click()
    buttons[1].click()
    Select(d.find_element(By.ID, "delivery")).select_by_value(delivery)
    d.find_element(By.ID, "checkout").click()
    env.wait("document.getElementById('order-id').textContent", "the order")
    return d.find_element(By.ID, "order-id").text


@case("demo store: products, cart, checkout, the simulated sheet, authorization, confirmation 'Visa ••••1234'")
def _(env):
    d = env.driver
    order_id = store_checkout(env)
    env.shot("store-checkout")
    d.find_element(By.ID, "pay").click()
    env.wait("document.querySelector('#paysheet-sheet:not([hidden]) [data-action=authorize]:not([disabled])')", "the sheet, ready to pay")
    check("Simulated payment sheet — not Apple Pay" in d.find_element(By.ID, "paysheet-sheet").text, "the simulation label")
    env.shot("store-sheet")
    Select(d.find_element(By.ID, "paysheet-method")).select_by_value("express")
    env.wait("document.querySelector('#paysheet-sheet [data-action=authorize]:not([disabled])') && paysheet.snapshot().modules.method.selected.identifier === 'express' && paysheet.snapshot().outstanding === null", "express shipping")
    coupon = d.find_element(By.ID, "paysheet-coupon")
    coupon.send_keys("WELCOME10")
    env.click_sheet("coupon")
    env.wait("paysheet.snapshot().modules.coupon.code === 'WELCOME10' && paysheet.snapshot().outstanding === null", "the coupon")
    shown_total = d.execute_script("return paysheet.snapshot().modules.summary.total.amount")
    env.click_sheet("authorize")
    env.wait("location.pathname === '/store/order'", "the confirmation page", timeout=30)
    env.wait("document.querySelector('[data-field=status]') && document.querySelector('[data-field=status]').textContent === 'paid'", "the order to be paid", timeout=30)
    equal(d.find_element(By.CSS_SELECTOR, "[data-field=card]").text, "Visa ••••1234", "payment method in the guidelines' form")
    env.shot("store-confirmation")
    order = env.api("GET", "/v1/orders/" + order_id)
    equal(order["status"], "paid", "the order on the server")
    equal(order["amount"], shown_total, "charged the total the sheet showed")
    check(any(i["label"] == "Express" for i in order["lineItems"]), "express shipping on the order")
    check(any("WELCOME10" in i["label"] or "iscount" in i["label"] for i in order["lineItems"]), f"the coupon on the order: {order['lineItems']}")


@case("demo store through the Payment Request API: a coupon entered on the sheet reaches the page as paymentmethodchange {couponCode}, the server prices it, the sheet and the charge agree")
def _(env):
    d = env.driver
    order_id = store_checkout(env)
    d.execute_script("window.__methodDetails = []; var P = window.PaymentRequest; var add = P.prototype.addEventListener;"
                     " Object.defineProperty(P.prototype, 'onpaymentmethodchange', {configurable: true, get: function () { return this.__h; },"
                     " set: function (h) { this.__h = h; add.call(this, 'paymentmethodchange', function (e) { __methodDetails.push(e.methodDetails); h.call(this, e); }); }});")
    d.find_element(By.ID, "pay-request").click()
    env.wait("document.querySelector('#paysheet-sheet:not([hidden]) [data-action=authorize]:not([disabled])') && paysheet.snapshot().outstanding === null", "the sheet, ready to pay")
    before = d.execute_script("return paysheet.snapshot().modules.summary.total.amount")
    d.find_element(By.ID, "paysheet-coupon").send_keys("WELCOME10")
    env.click_sheet("coupon")
    env.wait("paysheet.snapshot().modules.coupon.code === 'WELCOME10' && paysheet.snapshot().outstanding === null", "the coupon's update")
    details = d.execute_script("return __methodDetails")
    check({"couponCode": "WELCOME10"} in details, f"the page's paymentmethodchange carried the code: {details!r}")
    after = d.execute_script("return paysheet.snapshot().modules.summary.total.amount")
    check(after != before, f"the coupon changed the total on the sheet ({before} -> {after})")
    env.shot("store-payment-request-coupon")
    env.click_sheet("authorize")
    env.wait("location.pathname === '/store/order'", "the confirmation page", timeout=30)
    order = env.api("GET", "/v1/orders/" + order_id)
    equal(order["status"], "paid", "the order on the server")
    equal(order["amount"], after, "charged the total the sheet showed after the coupon")
    check(any("WELCOME10" in i["label"] or "iscount" in i["label"] for i in order["lineItems"]), f"the coupon on the order: {order['lineItems']}")


def open_tea_subscription(env, pay_button):
    """Orders the tea subscription in the demo store and opens the sheet with `pay_button`
    (`pay`: ApplePaySession, `pay-request`: the Payment Request API); the order's id and the
    sheet's billing module text."""
    d = env.driver
    d.get(env.base + "/")
    env.wait("document.querySelector('button[data-plan=tea-monthly]')", "the plans")
    d.find_element(By.CSS_SELECTOR, "button[data-plan=tea-monthly]").click()
    env.wait("document.getElementById('order-id').textContent", "the subscription's order")
    order_id = d.find_element(By.ID, "order-id").text
    d.find_element(By.ID, pay_button).click()
    env.wait("document.querySelector('#paysheet-sheet:not([hidden]) [data-action=authorize]:not([disabled])') && paysheet.snapshot().outstanding === null", "the sheet, ready to pay")
    return order_id, d.find_element(By.CSS_SELECTOR, "#paysheet-sheet [data-module=billing]").text


@case("demo store through the Payment Request API: the tea subscription's recurring request in an ApplePayModifier, paid with its merchant token; the agreement charges it")
def _(env):
    order_id, billing = open_tea_subscription(env, "pay-request")
    check("Tea of the month club" in billing, f"the modifier's recurring request on the sheet: {billing!r}")
    env.click_sheet("authorize")
    env.wait("location.pathname === '/subscription.html'", "the subscription page", timeout=30)
    order = env.api("GET", "/v1/orders/" + order_id)
    box = f'[data-agreement="{order.get("agreementId")}"]'
    env.wait(f"document.querySelector('{box} [data-field=status]') && document.querySelector('{box} [data-field=status]').textContent === 'active'", "an active subscription", timeout=30)
    equal(order["status"], "paid", "the first month on the server")
    agreement = env.api("GET", "/v1/agreements/" + order["agreementId"])
    equal(agreement["status"], "active", "the agreement paid with the merchant token")
    # The card's suffix comes from the merchant token's metadata (fpanSuffix): a device token has none.
    equal(agreement["card"].get("cardSuffix"), "1234", "the merchant token's card, from its metadata")
    early = env.api("POST", "/v1/agreements/" + order["agreementId"] + "/charges", {}, expect_error=True)
    equal(early.get("error", {}).get("code"), "charge_not_due", "the agreement charges by its plan (not before the next period)")


@case("demo store: the same checkout through the Payment Request API, paid; a canceled one leaves the order unpaid")
def _(env):
    d = env.driver
    order_id = store_checkout(env)
    d.find_element(By.ID, "pay-request").click()
    env.wait("document.querySelector('#paysheet-sheet:not([hidden]) [data-action=authorize]:not([disabled])')", "the sheet, ready to pay")
    Select(d.find_element(By.ID, "paysheet-method")).select_by_value("express")
    env.wait("document.querySelector('#paysheet-sheet [data-action=authorize]:not([disabled])') && paysheet.snapshot().modules.method.selected.identifier === 'express' && paysheet.snapshot().outstanding === null", "express shipping")
    shown_total = d.execute_script("return paysheet.snapshot().modules.summary.total.amount")
    env.shot("store-payment-request-sheet")
    env.click_sheet("authorize")
    env.wait("location.pathname === '/store/order'", "the confirmation page", timeout=30)
    env.wait("document.querySelector('[data-field=status]') && document.querySelector('[data-field=status]').textContent === 'paid'", "the order to be paid", timeout=30)
    order = env.api("GET", "/v1/orders/" + order_id)
    equal(order["status"], "paid", "the order on the server")
    equal(order["amount"], shown_total, "charged the total the sheet showed")
    check(any(i["label"] == "Express" for i in order["lineItems"]), "express shipping on the order")
    second = store_checkout(env)
    d.find_element(By.ID, "pay-request").click()
    env.wait("document.querySelector('#paysheet-sheet:not([hidden]) [data-action=cancel]')", "the sheet")
    env.click_sheet("cancel")
    env.wait("document.getElementById('message').textContent.indexOf('AbortError') >= 0", "the store's cancel message")
    equal(env.api("GET", "/v1/orders/" + second)["status"], "canceled", "the canceled order")


@case("demo store: the tea subscription — the sheet shows the billing agreement, the first month is paid with a merchant token, the subscription page cancels it")
def _(env):
    d = env.driver
    order_id, billing = open_tea_subscription(env, "pay")
    check("Tea of the month club" in billing, f"the description on the sheet: {billing!r}")
    check("29.00 CNY every month" in billing, f"the regular billing on the sheet: {billing!r}")
    check("First month: 1.00 CNY every month" in billing, f"the trial on the sheet: {billing!r}")
    check("then 29.00 CNY a month" in billing, f"the billing agreement on the sheet: {billing!r}")
    check("/subscription.html" in billing, f"the management URL on the sheet: {billing!r}")
    env.shot("store-subscription-sheet")
    env.click_sheet("authorize")
    env.wait("location.pathname === '/subscription.html'", "the subscription page", timeout=30)
    order = env.api("GET", "/v1/orders/" + order_id)
    # The page lists every subscription of this browser: this one is its own box.
    box = f'[data-agreement="{order.get("agreementId")}"]'
    env.wait(f"document.querySelector('{box} [data-field=status]') && document.querySelector('{box} [data-field=status]').textContent === 'active'", "an active subscription", timeout=30)
    equal(d.find_element(By.CSS_SELECTOR, f"{box} [data-field=card]").text, "Visa ••••1234", "the funding card's last digits")
    equal(order["status"], "paid", "the first month on the server")
    equal(order["amount"], "1.00", "the trial's amount")
    agreement_id = order["agreementId"]
    # The next month is not due yet: the server refuses to charge it early.
    early = env.api("POST", "/v1/agreements/" + agreement_id + "/charges", {}, expect_error=True)
    equal(early.get("error", {}).get("code"), "charge_not_due", "a charge before its period")
    env.shot("store-subscription-page")
    d.find_element(By.CSS_SELECTOR, f"{box} [data-action=cancel]").click()
    env.wait(f"document.querySelector('{box} [data-field=status]') && document.querySelector('{box} [data-field=status]').textContent === 'canceled'", "the canceled subscription")
    equal(env.api("GET", "/v1/agreements/" + agreement_id)["status"], "canceled", "the agreement on the server")
    refused = env.api("POST", "/v1/agreements/" + agreement_id + "/charges", {}, expect_error=True)
    equal(refused.get("error", {}).get("code"), "agreement_canceled", "a charge after the cancel")


@case("demo store: the tea subscription's merchant token deleted — the sandbox notifies the server as Apple Pay does, the agreement ends and its charge is refused")
def _(env):
    d = env.driver
    d.get(env.base + "/")
    env.wait("document.querySelector('button[data-plan=tea-monthly]')", "the plans")
    d.find_element(By.CSS_SELECTOR, "button[data-plan=tea-monthly]").click()
    env.wait("document.getElementById('order-id').textContent", "the subscription's order")
    order_id = d.find_element(By.ID, "order-id").text
    # The page's session on the sandbox's sheet engine: the sheet that issues the merchant token.
    page_id = d.execute_script("return paysheet.pageId")
    d.find_element(By.ID, "pay").click()
    env.wait("document.querySelector('#paysheet-sheet:not([hidden]) [data-action=authorize]:not([disabled])')", "the sheet, ready to pay")
    env.click_sheet("authorize")
    env.wait("location.pathname === '/subscription.html'", "the subscription page", timeout=30)
    order = env.api("GET", "/v1/orders/" + order_id)
    agreement_id = order["agreementId"]
    env.wait(f"document.querySelector('[data-agreement=\"{agreement_id}\"] [data-field=status]') && document.querySelector('[data-agreement=\"{agreement_id}\"] [data-field=status]').textContent === 'active'", "an active subscription", timeout=30)
    equal(env.api("GET", "/v1/orders/" + order_id)["status"], "paid", "the first month on the server")
    notification_base = order["paymentRequest"]["recurringPaymentRequest"]["tokenNotificationURL"]
    equal(notification_base, env.base + "/v1/merchant-token-events", "the request's tokenNotificationURL")
    equal(env.api("GET", "/v1/agreements/" + agreement_id)["card"]["tokenStatus"], "active", "the token before")
    # The shopper removes the card from Wallet: the sheet's session asks the sandbox, which sends
    # Apple Pay's notification (a GET naming the event) to the token's notification URL; the
    # server asks the sandbox's token gateway what the event is, and acts.
    req = urllib.request.Request(env.base + "/paysheet/v1/pages/" + page_id + "/merchant-token-events", method="POST",
                                 data=json.dumps({"eventType": "UNLINK", "reason": "USER"}).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        sent = json.loads(r.read())
    notification = sent["notificationURL"]
    check(notification.startswith(notification_base + "/notification/merchantToken/"), f"the notification: {notification}")
    equal(sent["merchantAnswer"]["status"], 200, "the server's answer to the notification")
    equal(sent["merchantAnswer"]["body"]["result"], "applied", "what the notification did")
    agreement = env.api("GET", "/v1/agreements/" + agreement_id)
    equal(agreement["status"], "canceled", "the agreement after the deletion")
    equal(agreement["canceledBecause"], "its merchant token was deleted by the user", "why it ended")
    equal(agreement["card"]["tokenStatus"], "deleted", "the token after")
    # The subscription page (the management URL) shows it ended, and why (this browser may show
    # other subscriptions of the store: the same card's merchant token is the same there).
    d.refresh()
    box = f'[data-agreement="{agreement_id}"]'
    env.wait(f"document.querySelector('{box} [data-field=status]') && document.querySelector('{box} [data-field=status]').textContent === 'canceled'", "the ended subscription", timeout=30)
    equal(d.find_element(By.CSS_SELECTOR, box + " [data-field=ended]").text, "its merchant token was deleted by the user", "the page's reason")
    equal(d.find_element(By.CSS_SELECTOR, box + " [data-field=token]").text, "deleted", "the page's card status")
    check(not d.find_elements(By.CSS_SELECTOR, box + " [data-action=cancel]"), "a cancel button on an ended subscription")
    env.shot("store-subscription-token-deleted")
    # A charge on the dead token is refused before anything reaches the acquirer.
    refused = env.api("POST", "/v1/agreements/" + agreement_id + "/charges", {}, expect_error=True)
    equal(refused.get("error", {}).get("code"), "merchant_token_deleted", "a charge after the deletion")
    # The same notification again (a replay) is refused and changes nothing.
    try:
        urllib.request.urlopen(notification, timeout=30).read()
        raise Failure("a replayed notification was accepted")
    except urllib.error.HTTPError as e:
        equal(e.code, 409, "a replayed notification's status")
        equal(json.loads(e.read())["error"]["code"], "token_event_replayed", "a replayed notification's code")


@case("demo store: a declined card shows Try Again on the sheet, the order stays unpaid")
def _(env):
    d = env.driver
    # The sandbox acquirer accepts a device account number ending 0064, then the issuer declines it
    # (insufficient funds) in the asynchronous notification.
    card = {"network": "visa", "type": "credit", "displayName": "Visa 1234",
            "paymentPass": {"primaryAccountIdentifier": "X", "primaryAccountNumberSuffix": "1234", "deviceAccountIdentifier": "D",
                            "deviceAccountNumberSuffix": "0064", "activationState": "activated"}}
    order_id = store_checkout(env, delivery="none", configure={"wallet": {"cards": [card]}})
    d.find_element(By.ID, "pay").click()
    # This wallet has no email: the sheet says why Pay is disabled, and the user types one.
    env.wait("document.querySelector('#paysheet-sheet [data-part=blocked]')", "the reason Pay is disabled")
    check("email" in env.sheet_text("[data-part=blocked]"), "the reason names the email: " + str(env.sheet_text("[data-part=blocked]")))
    email = d.find_element(By.ID, "paysheet-email")
    email.send_keys("shopper@example.com")
    email.send_keys(Keys.TAB)
    env.wait("document.querySelector('#paysheet-sheet:not([hidden]) [data-action=authorize]:not([disabled])')", "the sheet, ready to pay")
    env.click_sheet("authorize")
    env.wait("document.querySelector('#paysheet-sheet [data-part=status]') && document.querySelector('#paysheet-sheet [data-part=status]').textContent === 'Try Again'", "Try Again", timeout=30)
    order = env.api("GET", "/v1/orders/" + order_id)
    check(order["status"] != "paid", f"order status {order['status']}")


@case("demo store: the shopper cancels the sheet; the store cancels the order on the server, which then takes no payment")
def _(env):
    d = env.driver
    order_id = store_checkout(env)
    d.find_element(By.ID, "pay").click()
    env.wait("document.querySelector('#paysheet-sheet:not([hidden]) [data-action=authorize]:not([disabled])')", "the sheet, ready")
    env.click_sheet("cancel")
    env.wait("document.getElementById('message').textContent.indexOf('nothing was charged') >= 0", "the store's word that it canceled")
    order = env.api("GET", "/v1/orders/" + order_id)
    equal(order["status"], "canceled", "the order on the server")
    equal(order["payments"], [], "no payment")


@case("demo store: no payment button when the wallet has no card")
def _(env):
    d = env.driver
    store_checkout(env, configure={"wallet": {"cards": []}})
    check(not d.find_elements(By.ID, "pay"), "a payment button was shown")
    check(d.find_element(By.ID, "no-wallet").text, "the store's explanation")


# ---------------------------------------------------------------------------------------------
# Orders in Wallet

def paid_order(env):
    """An order of the server paid by `paysheet pay` (a shopper's checkout); returns its id and the
    simulated wallet's verdict that `paysheet pay` printed."""
    out = subprocess.run([env.binary, "pay", "--server", env.base, "--data", env.data],
                         check=True, capture_output=True, text=True, timeout=120).stdout
    order = next(line.split()[1].rstrip(":") for line in out.splitlines() if line.startswith("order ord_") and ": paid" in line)
    verdict = next((line for line in out.splitlines() if line.startswith("wallet (simulated): ")), None)
    return order, verdict


def checked_by_openssl(env, details):
    """Fetches the order package as Wallet does and checks it with tools that are not ours: the ZIP
    (Python's zipfile), the manifest's SHA-256s (hashlib), the detached signature and its chain to
    the sandbox's root (openssl cms)."""
    import hashlib
    import io
    import zipfile
    url = f"{details['webServiceURL']}/v1/orders/{details['orderTypeIdentifier']}/{details['orderIdentifier']}"
    req = urllib.request.Request(url, headers={"Authorization": "AppleOrder " + details["authenticationToken"]})
    with urllib.request.urlopen(req, timeout=30) as r:
        equal(r.headers.get("Content-Type"), "application/vnd.apple.order", "the package's type")
        package = r.read()
    files = {n: zipfile.ZipFile(io.BytesIO(package)).read(n) for n in zipfile.ZipFile(io.BytesIO(package)).namelist()}
    manifest = json.loads(files["manifest.json"])
    equal(sorted(manifest), sorted(n for n in files if n not in ("manifest.json", "signature")), "the manifest's files")
    for name, digest in manifest.items():
        equal(hashlib.sha256(files[name]).hexdigest(), digest, f"SHA-256 of {name}")
    order = json.loads(files["order.json"])
    equal((order["orderTypeIdentifier"], order["orderIdentifier"], order["status"]),
          (details["orderTypeIdentifier"], details["orderIdentifier"], "open"), "order.json")
    folder = tempfile.mkdtemp(prefix="paysheet-order-")
    for name in ("manifest.json", "signature"):
        with open(os.path.join(folder, name), "wb") as f:
            f.write(files[name])
    proc = subprocess.run(["openssl", "cms", "-verify", "-inform", "DER", "-binary", "-purpose", "any",
                           "-in", os.path.join(folder, "signature"), "-content", os.path.join(folder, "manifest.json"),
                           "-CAfile", os.path.join(env.data, "sandbox-ca", "root.pem"), "-out", os.devnull],
                          capture_output=True, text=True)
    check(proc.returncode == 0, f"openssl cms -verify refused the signature: {proc.stderr}")


@case("orders in Wallet: the test page completes a payment with the server's orderDetails (both APIs); the simulated wallet fetches the package and says whether the order would appear, and why not")
def _(env):
    d = env.driver
    order_id, cli_verdict = paid_order(env)
    equal(cli_verdict, "wallet (simulated): This order would appear in Wallet", "paysheet pay's wallet line")
    # The merchant issues the order's details twice: the first token is then stale.
    stale = env.api("POST", f"/v1/orders/{order_id}/wallet-order", {})["orderDetails"]
    details = env.api("POST", f"/v1/orders/{order_id}/wallet-order", {})["orderDetails"]
    equal(details["webServiceURL"], env.base + "/wallet-orders", "the order service's URL")
    checked_by_openssl(env, details)

    # ApplePaySession: completePayment({status: STATUS_SUCCESS, orderDetails}).
    env.page()
    start(env, plan={"results": [{"status": 0, "orderDetails": details}]})
    env.click_sheet("authorize")
    env.wait("document.querySelector('#paysheet-wallet-order[data-wallet=appears]')", "the simulated wallet's verdict", timeout=30)
    equal(d.find_element(By.ID, "paysheet-wallet-order").text, "Simulated wallet: This order would appear in Wallet", "the verdict under the sheet")
    order = d.execute_script("return paysheet.walletOrder()")
    equal((order["orderIdentifier"], order["wallet"]["status"], order["wallet"]["check"]), (order_id, "appears", None), "paysheet.walletOrder()")
    check("authenticationToken" not in order, "the snapshot shows no token")
    env.shot("wallet-order-appears")

    # The Payment Request API: complete('success', {data: {orderDetails}}) with the stale token.
    env.page()
    pr_start(env)
    env.wait("paysheet.snapshot().outstanding === null", "merchant validation")
    env.click_sheet("authorize")
    env.wait("window.__shown", "show() to settle")
    d.execute_script("window.__done = null; __response.complete('success', {data: {orderDetails: arguments[0]}}).then(function () { window.__done = 'ok'; }, function (e) { window.__done = e.name; });", stale)
    equal(env.wait("window.__done", "complete()"), "ok", "complete() with the order details")
    env.wait("document.querySelector('#paysheet-wallet-order[data-wallet=refused]')", "the simulated wallet's verdict", timeout=30)
    order = d.execute_script("return paysheet.walletOrder()")
    equal(order["wallet"]["check"], "fetch", "the failed check")
    text = d.find_element(By.ID, "paysheet-wallet-order").text
    check(text.startswith("Simulated wallet: This order would not appear in Wallet: the web service answered 401"), f"the verdict: {text!r}")
    check("replaced by a newer one" in text, f"the reason names the stale token: {text!r}")
    # Incomplete order details: complete() rejects with the binding's TypeError.
    env.page()
    pr_start(env)
    env.wait("paysheet.snapshot().outstanding === null", "merchant validation")
    env.click_sheet("authorize")
    env.wait("window.__shown", "show() to settle")
    r = d.execute_async_script("var cb = arguments[1]; __response.complete('success', {data: {orderDetails: {orderIdentifier: arguments[0]}}}).then(function(){cb('resolved')}, function(e){cb([e.name, e.message])});", order_id)
    equal(r, ["TypeError", "Member ApplePayPaymentOrderDetails.authenticationToken is required and must be an instance of DOMString"], "complete() with incomplete order details")
    equal(d.execute_script("return paysheet.walletOrder()"), None, "no order kept")


import console_cases  # noqa: E402 (the merchant console; its cases use the demo store above)

console_cases.register(sys.modules[__name__])
import webkit_mock_cases  # noqa: E402 (its cases use the helpers above)

webkit_mock_cases.register(sys.modules[__name__])
# ---------------------------------------------------------------------------------------------
# The sheet in the shopper's language: Chromium started in Simplified Chinese and in Japanese
# (--lang and intl.accept_languages), the sheet's own words in that language (the engine's
# SheetString table), the merchant's words as given.

LANGUAGE_CASES = [
    # (Chromium's language, the sheet's, §4 row, error, status, SHIPPING module, popup, headings, screenshot)
    ("zh-CN", "zh-Hans", 6, {"code": "addressUnserviceable", "message": "Bad postcode"},
     "无法送货", "无法送货\n不支持此地址", "Demo Merchant不支持配送到你的送货地址",
     {"card": "付款方式", "shipping": "送货地址", "contact": "联系信息", "summary": "账单列表"},
     {"label": "模拟付款单 — 不是 Apple Pay", "pay": "支付（模拟）", "cancel": "取消", "total": "支付 Demo Merchant"},
     "sheet-zh-Hans"),
    ("ja", "ja", 7, {"code": "addressUnserviceable", "contactField": "postalCode", "message": "Bad postcode"},
     "配送先住所が無効です", "配送先住所が無効\nBad postcode", "Demo Merchantはこの配送先住所への配送に対応していません",
     {"card": "カード", "shipping": "配送先", "contact": "連絡先", "summary": "支払い内容"},
     {"label": "シミュレーションのペイメントシート — Apple Pay ではありません", "pay": "支払う（シミュレーション）",
      "cancel": "キャンセル", "total": "Demo Merchant に支払う"},
     "sheet-ja"),
]

for lang_case in LANGUAGE_CASES:
    def make(c=lang_case):
        browser, language, row, error, status, shipping, popup, headings, chrome, shot = c

        @case(f"languages: Chromium in {browser} shows the sheet in {language} (§4 row {row}); the merchant's words as given")
        def _(env):
            with env.browser_in(browser) as d:
                env.page()
                check(d.execute_script("return navigator.languages[0]").startswith(browser),
                      "navigator.languages: " + str(d.execute_script("return navigator.languages")))
                start(env, plan={"results": [{"status": STATUS_CODES["FAILURE"], "errors": [error]}]})
                env.wait("document.querySelector('#paysheet-sheet[lang]')", "the sheet")
                equal(d.find_element(By.ID, "paysheet-sheet").get_attribute("lang"), language, "the sheet's lang")
                for module, heading in headings.items():
                    equal(env.sheet_text(f"[data-module={module}] h3"), heading, f"the {module} heading")
                equal(env.sheet_text("[data-part=label]"), chrome["label"], "the simulation label")
                equal(env.sheet_text("[data-action=authorize]"), chrome["pay"], "the Pay button")
                equal(env.sheet_text("[data-action=cancel]"), chrome["cancel"], "the Cancel button")
                equal(env.sheet_text(".ps-total td"), chrome["total"], "the total's row")
                env.click_sheet("authorize")
                env.wait("window.__completed === 1", "completePayment")
                env.wait("document.querySelector('#paysheet-sheet [data-part=status]') && document.querySelector('#paysheet-sheet [data-part=status]').textContent !== ''", "a status")
                equal(env.sheet_text("[data-part=status]"), status, "the status line")
                equal(env.sheet_text("[data-error=shipping]"), shipping, "the SHIPPING module's error")
                equal(env.sheet_text("[data-part=popup]"), popup, "the popup")
                snap = d.execute_script("return paysheet.snapshot()")
                equal((snap["language"], snap["rule"], snap["result"]), (language, row, None), "the snapshot's codes")
                equal(snap["statusId"], "status.shippingUnavailable" if row == 6 else "status.shippingAddressInvalid", "statusId")
                d.set_window_size(430, 900)
                env.shot(shot)
    make()


@case("languages: the page's options.language comes before the browser's; other languages fall back to English")
def _(env):
    with env.browser_in("zh-CN") as d:
        env.page({"options": {"language": "ja-JP"}})
        start(env)
        equal(d.execute_script("return paysheet.snapshot().language"), "ja", "the page's choice")
        equal(env.sheet_text("[data-module=shipping] h3"), "配送先", "the SHIPPING heading")
    env.page({"options": {"language": ["fr-FR", "de"]}})
    start(env)
    equal(env.driver.execute_script("return paysheet.snapshot().language"), "en", "no language the sheet speaks")
    equal(env.sheet_text("[data-module=shipping] h3"), "SHIPPING", "the SHIPPING heading")
    equal(env.sheet_text("[data-action=authorize]"), "Pay (simulated)", "the Pay button")


import frame_cases  # noqa: E402
frame_cases.register(sys.modules[__name__])
import webkit_line_cases  # noqa: E402
webkit_line_cases.register(sys.modules[__name__])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--screenshots", default="artifacts/browser")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    env = Env(os.path.abspath(a.binary), a.screenshots)
    failed = []
    ran = 0
    try:
        for name, fn in CASES:
            if a.only and a.only not in name:
                continue
            ran += 1
            t = time.time()
            try:
                fn(env)
                print(f"PASS {name} ({time.time() - t:.1f}s)", flush=True)
            except Exception as e:
                failed.append(name)
                print(f"FAIL {name}: {e}", flush=True)
                if not isinstance(e, Failure):
                    traceback.print_exc(limit=3)
                try:
                    env.shot("failed-" + "".join(c if c.isalnum() else "-" for c in name)[:60])
                    for entry in env.driver.get_log("browser")[-5:]:
                        print("   browser:", entry.get("message"))
                except Exception:
                    pass
    finally:
        env.close()
    print(f"{ran - len(failed)} of {ran} browser cases passed; screenshots in {a.screenshots}")
    if failed or ran == 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
