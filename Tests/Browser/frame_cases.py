"""Browser cases for Safari's rules on payments started from frames (`PaymentSession::canCreateSession`
in WebKit): a cross-origin iframe needs `allow="payment"`, a document and every frame above it must be
served securely. The browser (Chromium) reports the frame's origins and its permissions policy; the
engine decides. `shop.test` resolves to the loopback address (`--host-resolver-rules`) but, not being
a loopback name, is served over plain HTTP: an insecure origin.
"""

import urllib.parse

THIRD_PARTY = ["SecurityError", "Third-party iframes are not allowed to request payments unless explicitly allowed via Feature-Policy (payment)"]
INSECURE = ["InvalidAccessError", "Trying to start an Apple Pay session from an insecure document."]
INSECURE_PARENT = ["InvalidAccessError", "Trying to start an Apple Pay session from a document with an insecure parent frame."]

HOST_PAGE = """<!doctype html><title>host</title>
<script>
var q = new URLSearchParams(location.search), f = document.createElement("iframe");
if (q.get("allow") !== null) f.setAttribute("allow", q.get("allow"));
f.width = 900; f.height = 800; f.id = "shop";
f.src = q.get("src");
document.documentElement.appendChild(f);
</script>"""

APPLE_PAY_REQUEST = ("return new PaymentRequest([{supportedMethods: 'https://apple.com/apple-pay', data: {version: 3,"
                     " merchantIdentifier: 'merchant.com.example', countryCode: 'US', supportedNetworks: ['visa'],"
                     " merchantCapabilities: ['supports3DS']}}], {total: {label: 'Shop', amount: {currency: 'USD', value: '1.00'}}}) && true;")


def threw(r):
    return [r["threw"]["name"], r["threw"]["message"]] if r and "threw" in r else None


def register(m):
    case, check, equal = m.case, m.check, m.equal

    def framed(env, host, src_host, allow):
        """Opens the host page on `host` with the merchant page from `src_host` in an iframe, and
        switches the driver into the iframe."""
        d = env.driver
        site = env.site.server_address[1]
        src = f"http://{src_host}:{site}/index.html"
        url = f"http://{host}:{site}/frame-host.html?src=" + urllib.parse.quote(src, safe="")
        if allow is not None:
            url += "&allow=" + urllib.parse.quote(allow)
        d.switch_to.default_content()
        d.get(url)
        env.wait("document.getElementById('shop') && document.getElementById('shop').contentWindow", "the iframe")
        d.switch_to.frame(d.find_element("id", "shop"))
        env.wait("typeof ApplePaySession === 'function' && !!window.paysheet", "paysheet.js in the iframe")
        return d

    def write_host_page(env):
        import os
        with open(os.path.join(env.site_dir, "frame-host.html"), "w") as f:
            f.write(HOST_PAGE)

    @case("Frames: a cross-origin iframe without allow=\"payment\" is refused by every ApplePaySession API and by the PaymentRequest constructor; a same-origin iframe is not")
    def _(env):
        write_host_page(env)
        try:
            framed(env, "127.0.0.1", "localhost", None)
            origins = env.driver.execute_script("return [location.origin].concat(Array.from(location.ancestorOrigins || []))")
            check(len(origins) == 2 and origins[0] != origins[1], f"the iframe is cross-origin: {origins}")
            equal(threw(env.gesture("new ApplePaySession(3, __valid()); return true;")), THIRD_PARTY, "new ApplePaySession")
            equal(threw(env.script("return ApplePaySession.canMakePayments();")), THIRD_PARTY, "canMakePayments()")
            equal(threw(env.script("return ApplePaySession.supportsVersion(3);")), THIRD_PARTY, "supportsVersion(3)")
            equal(threw(env.gesture(APPLE_PAY_REQUEST)), THIRD_PARTY, "new PaymentRequest")
            r = env.driver.execute_async_script(
                "var done = arguments[0]; ApplePaySession.canMakePaymentsWithActiveCard('merchant.com.example')"
                ".then(function (v) { done({ok: v}); }, function (e) { done({threw: {name: e.name, message: e.message}}); });")
            equal(threw(r), THIRD_PARTY, "canMakePaymentsWithActiveCard() rejects")
            check(env.driver.execute_script("return document.querySelector('#paysheet-sheet:not([hidden])') === null"), "no sheet drawn")

            framed(env, "127.0.0.1", "127.0.0.1", None)
            equal(env.gesture("return !!new ApplePaySession(3, __valid());"), {"ok": True}, "same-origin iframe")
            equal(env.script("return ApplePaySession.canMakePayments();"), {"ok": True}, "same-origin canMakePayments()")
        finally:
            env.driver.switch_to.default_content()

    @case("Frames: allow=\"payment\" lets a cross-origin iframe pay; the simulated sheet opens in the iframe")
    def _(env):
        write_host_page(env)
        try:
            framed(env, "127.0.0.1", "localhost", "payment")
            equal(env.script("return ApplePaySession.canMakePayments();"), {"ok": True}, "canMakePayments()")
            equal(env.gesture("__start(3, __valid(), {}); return true;"), {"ok": True}, "begin()")
            env.wait("document.querySelector('#paysheet-sheet:not([hidden])') !== null", "the sheet drawn in the iframe")
            equal(env.sheet_text("[data-part=label]"), "Simulated payment sheet — not Apple Pay", "the sheet's label")
            env.wait("window.__events.some(function (e) { return e.type === 'paymentmethodselected'; })", "the sheet's first events")
            env.click_sheet("authorize")
            env.wait("window.__events.some(function (e) { return e.type === 'paymentauthorized'; })", "paymentauthorized")
            equal(env.script(APPLE_PAY_REQUEST), {"ok": True}, "new PaymentRequest in the allowed iframe")
        finally:
            env.driver.switch_to.default_content()

    @case("Frames: a page served over plain HTTP may not pay, nor may a secure iframe inside it")
    def _(env):
        write_host_page(env)
        d = env.driver
        try:
            d.get(f"http://shop.test:{env.site.server_address[1]}/index.html")
            env.wait("typeof ApplePaySession === 'function' && !!window.paysheet", "paysheet.js on shop.test")
            check(d.execute_script("return location.hostname") == "shop.test", "the page is on shop.test")
            equal(threw(env.gesture("new ApplePaySession(3, __valid()); return true;")), INSECURE, "new ApplePaySession on http://shop.test")
            equal(threw(env.script("return ApplePaySession.canMakePayments();")), INSECURE, "canMakePayments() on http://shop.test")
            equal(threw(env.gesture(APPLE_PAY_REQUEST)), ["SecurityError", INSECURE[1]], "new PaymentRequest on http://shop.test")

            framed(env, "shop.test", "127.0.0.1", "payment")
            equal(threw(env.gesture("new ApplePaySession(3, __valid()); return true;")), INSECURE_PARENT, "an iframe on loopback inside http://shop.test")
        finally:
            d.switch_to.default_content()
