"""WebKit's table-like Apple Pay LayoutTests, line by line: every `PASS` line of ApplePaySession,
ApplePaySessionV3–V5, ApplePayError, ApplePayInstallmentItems and PaymentRequest.https, re-expressed
as a row of `webkit_lines.json` (the setup and expression WebKit's page printed, and WebKit's
outcome; written by `Tools/webkit_lines.py` from WebKit's expected files, which are not part of this
repository). Each row runs in a real click on a page with `paysheet.js`, in order, in one page per
file and profile, as WebKit's page runs them; its outcome must be WebKit's exactly: the exception's
name and message, no exception, the promise's rejection, or the value.

A row recorded with an older Safari than the default profile names the profile (`"profile"`) and
why; a row no profile can honour says why (`"notHonoured"`) and is counted apart.
"""

import json
import os

from webkit_mock_cases import INSTALLMENT_REQUEST

HERE = os.path.dirname(os.path.abspath(__file__))

# What each WebKit page defines for its rows, in our words (the same values).
HELPERS = {
    "none": "",
    "session-v2": """
window.validRequest = function () {
  return {countryCode: 'US', currencyCode: 'USD', supportedNetworks: ['visa', 'masterCard'], merchantCapabilities: ['supports3DS'],
          total: {label: 'Your Label', amount: '10.00'}};
};""",
    "session-v4": """
window.validRequest = function () {
  return {countryCode: 'US', currencyCode: 'USD', supportedNetworks: ['visa', 'masterCard', 'carteBancaire'],
          merchantCapabilities: ['supports3DS'], total: {label: 'Your Label', amount: '10.00'}};
};""",
    "installments": """
window.apiVersion = 9;
window.expectedAPR = '3.875'; window.expectedCurrencyCode = 'USD'; window.expectedItemAmount = '31.45';
window.expectedItemType = 'mac'; window.expectedProgramIdentifier = 'programIdentifier';
window.expectedProgramTerms = 'programTerms'; window.expectedRetailChannel = 'web';
window.expectedApplicationMetadata = {integer: 1, float: 2.1, string: 'string', date: new Date(), bool: true, array: ['a', 'b'], null: null};
""" + INSTALLMENT_REQUEST + """
window.validRequest = function () {
  var r = __installments();
  r.installmentConfiguration.applicationMetadata = expectedApplicationMetadata;
  return r;
};""",
    "payment-request": """
window.validPaymentMethod = function () {
  return {supportedMethods: 'https://apple.com/apple-pay',
          data: {version: 2, merchantIdentifier: '', countryCode: 'US', supportedNetworks: ['visa', 'masterCard'],
                 merchantCapabilities: ['supports3DS']}};
};
window.validPaymentDetails = function () {
  return {total: {label: 'Your label', amount: {currency: 'USD', value: '10.00'}}};
};""",
}

# What the page does, between its rows, before the rows that read the mock coordinator: it begins
# a session with its valid request (not a line of its own).
PRELUDE = {"installments": "new ApplePaySession(apiVersion, validRequest()).begin(); return true;"}

# Every page under WebKit's test runner has `internals`, whose mock coordinator is paysheet's.
UNDER_RUNNER = "window.internals = {mockPaymentCoordinator: paysheet.mockPaymentCoordinator};"
# The rows are clicked in turn while a sheet may be open (as WebKit's page clicks through its mock):
# the page's button stays above the simulated sheet.
ON_TOP = "document.getElementById('go').style.cssText = 'position:fixed;top:0;right:0;z-index:2147483647';"

# Runs one row inside the click: the setup and the expression in the page's global scope.
ROW = """
var setup = args[0], expr = args[1];
function described(e) {
  return (e instanceof Error || (e && typeof e === 'object' && 'name' in e && 'message' in e))
    ? {name: String(e.name), message: String(e.message)} : {value: String(e)};
}
window.__pending = null;
try {
  if (setup) (0, eval)(setup);
  var v = (0, eval)(expr);
  if (v && typeof v.then === 'function') { window.__pending = v; return {promise: true}; }
  return {value: (typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string' || v === null) ? v : String(v)};
} catch (e) {
  return {threw: described(e)};
}
"""

SETTLE = """
var done = arguments[0], p = window.__pending;
var timer = setTimeout(function () { done({pending: true}); }, 3000);
p.then(function (v) { clearTimeout(timer); done({resolved: true}); },
       function (e) { clearTimeout(timer); done({rejected: e && e.name !== undefined ? [String(e.name), String(e.message)] : [JSON.stringify(e), '']}); });
"""


def load():
    return json.load(open(os.path.join(HERE, "webkit_lines.json"), encoding="utf-8"))


def outcome(env, row):
    """What the row did on the current page, in the row's `expect` vocabulary."""
    r = env.gesture(ROW, row.get("setup", ""), row["expr"])
    got = r.get("ok") if r and "ok" in r else None
    if r and "threw" in r:  # the runner itself threw (it should not)
        return {"runner": r["threw"]}
    if got is None:
        return {"runner": "no result"}
    if "threw" in got:
        t = got["threw"]
        return {"threwValue": t["value"]} if "value" in t else {"threw": [t["name"], t["message"]]}
    if got.get("promise"):
        s = env.driver.execute_async_script(SETTLE)
        if "rejected" in s:
            return {"rejected": s["rejected"]}
        return {"resolved": True} if s.get("resolved") else {"pending": True}
    return {"value": got["value"]}


def matches(env, expect, got):
    if "is" in expect:
        want = env.driver.execute_script("return (0, eval)('(' + arguments[0] + ')')", expect["is"])
        return got.get("value") == want if "value" in got else False
    if "threw" in expect and expect["threw"] is None:
        return "value" in got or got.get("resolved") or got.get("pending") or "rejected" in got
    return {k: v for k, v in got.items()} == expect


def run_file(env, f, results):
    """Runs the rows of one WebKit file, grouped by profile (in their order within a group)."""
    groups = {}
    for row in f["rows"]:
        if row.get("harness") or row.get("notHonoured"):
            continue
        groups.setdefault(row.get("profile", "safari-18"), []).append(row)
    for profile, rows in groups.items():
        env.page(configure={"options": {"profile": profile}, "clock": "virtual"})
        env.driver.execute_script(UNDER_RUNNER + ON_TOP + HELPERS[f["helpers"]])
        prelude = PRELUDE.get(f["helpers"])
        for row in rows:
            if prelude and "internals.mockPaymentCoordinator" in row["expr"]:
                env.gesture(prelude)
                prelude = None
            got = outcome(env, row)
            ok = matches(env, row["expect"], got)
            results.append((f["file"], row, ok, got))


def register(m):
    case, check = m.case, m.check

    @case("WebKit's table-like LayoutTests line by line (ApplePaySession, V3-V5, ApplePayError, ApplePayInstallmentItems, PaymentRequest.https): every PASS line's outcome")
    def _(env):
        data = load()
        results = []
        for f in data["files"]:
            run_file(env, f, results)
        failures, summary = [], []
        for f in data["files"]:
            mine = [r for r in results if r[0] == f["file"]]
            passed = sum(1 for r in mine if r[2])
            skipped = sum(1 for r in f["rows"] if r.get("notHonoured"))
            harness = sum(1 for r in f["rows"] if r.get("harness"))
            summary.append(f"{f['file']}: {passed}/{len(mine)} rows as WebKit ({skipped} not honoured, {harness} js-test's own)")
            for _, row, ok, got in mine:
                if not ok:
                    failures.append(f"{f['file']} line {row['line']}: {row.get('setup', '')} {row['expr']} -> expected {row['expect']}, got {got}")
        print("   " + "\n   ".join(summary))
        check(not failures, f"{len(failures)} rows differ from WebKit:\n" + "\n".join(failures[:40]))
