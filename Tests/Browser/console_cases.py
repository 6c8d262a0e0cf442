"""Browser cases of the merchant console (`/console`): a static page over the merchant server's
API that asks for the merchant API key, keeps it in the tab's sessionStorage and sends it as
`Authorization: Bearer`. Orders paid through the demo store (the simulated sheet, real sandbox
tokens, the sandbox acquirer) are filtered, their payments' timeline read, refunded with a
confirmation; the tea subscription's agreement is listed and canceled; a day is reconciled
against the sandbox acquirer's settlement file, with a payment the ledger lost shown as a
difference. Nothing the console shows may be a card number, a token or a secret.
"""

import datetime
import os
import re
import sqlite3
import urllib.error
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

# A card number as people write it: 13 to 19 digits, single spaces or dashes between them.
CARD_LIKE = re.compile(r"(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])")


def register(m):
    case, check, equal = m.case, m.check, m.equal

    def visible(env, element_id):
        return env.driver.execute_script(
            "var e = document.getElementById(arguments[0]); return !!e && !e.hidden && e.offsetParent !== null;", element_id)

    def console(env, path=""):
        """Opens the console (signing in with the merchant key when it asks) at `path` (#…)."""
        d = env.driver
        d.get(env.base + "/console" + path)
        env.wait("document.getElementById('signin').hidden === false || document.getElementById('nav').hidden === false", "the console")
        if visible(env, "signin"):
            d.find_element(By.ID, "api-key").send_keys(env.api_key)
            d.find_element(By.CSS_SELECTOR, "#signin-form button[type=submit]").click()
            env.wait("document.getElementById('nav').hidden === false", "the console after signing in")
        return d

    def pay_in_store(env, plan=None):
        """An order paid through the demo store and the simulated sheet: its id and client secret."""
        d = env.driver
        if plan:
            d.get(env.base + "/")
            env.wait(f"document.querySelector('button[data-plan={plan}]')", "the plans")
            d.find_element(By.CSS_SELECTOR, f"button[data-plan={plan}]").click()
            env.wait("document.getElementById('order-id').textContent", "the plan's order")
            order_id = d.find_element(By.ID, "order-id").text
        else:
            order_id = m.store_checkout(env)
        d.find_element(By.ID, "pay").click()
        env.wait("document.querySelector('#paysheet-sheet:not([hidden]) [data-action=authorize]:not([disabled])')", "the sheet, ready to pay")
        env.click_sheet("authorize")
        env.wait("location.pathname === '/store/order' || location.pathname === '/subscription.html'", "the store's page after paying", timeout=30)
        secret = urllib.parse.parse_qs(d.execute_script("return location.hash.slice(1)")).get("secret", [""])[0]
        check(secret.startswith("pcs_"), "the client secret in the fragment")
        # The store's page follows the order until its outcome is certain (the subscription page
        # lists every subscription this browser bought: this one's box).
        box = f"[data-agreement=\"{env.api('GET', '/v1/orders/' + order_id)['agreementId']}\"] " if plan else ""
        done = "active" if plan else "paid"
        status = f"document.querySelector('{box}[data-field=status]')"
        env.wait(f"{status} && {status}.textContent === '{done}'", "the store's word that it is " + done, timeout=30)
        equal(env.api("GET", "/v1/orders/" + order_id)["status"], "paid", "the order on the server")
        return order_id, secret

    def no_secret_shown(env, secrets, identifiers):
        """The page's text and markup hold none of `secrets` and, identifiers aside, no card-like number."""
        d = env.driver
        text = d.execute_script("return document.body.innerText")
        markup = d.page_source
        for secret in secrets:
            check(secret not in text and secret not in markup, f"a secret on the console: {secret[:6]}…")
        # (The sign-in form names the key's prefix, psk_…, in words: a credential has key material after it.)
        found = re.findall(r"(?:pcs|psk)_[A-Za-z0-9_-]{8,}", markup)
        check(not found, f"a client secret or a key on the console: {[f[:6] for f in found]}")
        for identifier in identifiers:
            text = text.replace(identifier, "")
        found = CARD_LIKE.findall(re.sub(r"\b[a-z]+_[0-9a-f]+\b", "", text))
        check(not found, f"card-like numbers on the console: {found}")

    def identifiers(order):
        ids = [order["id"]]
        for p in order["payments"]:
            ids += [p.get("id") or "", p.get("acquirerOrderId") or "", p.get("acquirerReference") or ""]
        return [i for i in ids if i]

    def raw_status(env, path):
        """The status of a GET of `path` with no credential at all."""
        try:
            with urllib.request.urlopen(env.base + path, timeout=30) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code

    @case("console: refused without the key (its message), the API refuses the page's calls without it, a wrong key refused; the right key kept in the tab only")
    def _(env):
        d = env.driver
        d.get(env.base + "/console")
        d.execute_script("sessionStorage.clear()")
        d.get(env.base + "/console#orders")
        env.wait("document.getElementById('signin').hidden === false", "the sign-in form")
        check("Enter a merchant API key" in d.find_element(By.ID, "signin-message").text, "the console says why it shows nothing")
        for view in ["orders-view", "order-view", "agreements-view", "reconciliations-view"]:
            check(not visible(env, view), f"{view} shown without a key")
        check(not visible(env, "nav"), "the navigation shown without a key")
        # The page's own calls without the key: every data route refuses (401, its message).
        for path in ["/v1/orders", "/v1/orders?status=paid", "/v1/agreements", "/v1/reconciliations", "/v1/reconciliations/20260101"]:
            answer = d.execute_async_script(
                "var done = arguments[arguments.length - 1];"
                "fetch(arguments[0]).then(function (r) { return r.json().then(function (j) { done([r.status, j.error && j.error.code]); }); });", path)
            equal(answer, [401, "unauthorized"], f"{path} from the page without the key")
            equal(raw_status(env, path), 401, f"{path} without a credential")
        # A wrong key: refused with the server's words, nothing kept.
        d.find_element(By.ID, "api-key").send_keys("psk_" + "A" * 43)
        d.find_element(By.ID, "api-key").send_keys(Keys.ENTER)
        env.wait("document.getElementById('signin-message').textContent.indexOf('refused') >= 0", "the refusal")
        message = d.find_element(By.ID, "signin-message").text
        check(message.startswith("The server refused this key: the API key is not valid here (unknown or revoked)"),
              f"the refusal's message, the server's words: {message!r}")
        check("psk_" not in message, f"the refused key is not repeated: {message!r}")
        equal(d.execute_script("return sessionStorage.length"), 0, "a refused key kept")
        check(not visible(env, "orders-view"), "orders shown for a refused key")
        # The right key: the orders; the key only in this tab's sessionStorage, never in the address.
        d.find_element(By.ID, "api-key").send_keys(env.api_key)
        d.find_element(By.CSS_SELECTOR, "#signin-form button[type=submit]").click()
        env.wait("document.getElementById('orders-view').hidden === false && document.querySelector('#orders-table tbody tr')", "the orders")
        equal(d.execute_script("return sessionStorage.getItem('paysheet-console-key')"), env.api_key, "the key in sessionStorage")
        check(env.api_key not in d.current_url, "the key in the address")
        # (The demo store, on this origin, keeps its shoppers' subscriptions in localStorage.)
        equal(d.execute_script("var key = arguments[0]; return Object.keys(localStorage).filter(function (k) { return localStorage.getItem(k).indexOf(key) >= 0; }).length"
                                " + document.cookie.length", env.api_key),
              0, "the key anywhere but sessionStorage")
        check(env.api_key not in d.find_element(By.ID, "api-key").get_attribute("value"), "the key left in the form")
        check("sandbox" in d.find_element(By.ID, "mode").text, "the server's mode")
        # Accessible: every control named by a label, every table with column headers, the
        # focus visible when the keyboard moves it.
        unnamed = d.execute_script(
            "return Array.prototype.filter.call(document.querySelectorAll('main input, main select'),"
            " function (e) { return !e.labels || !e.labels.length; }).map(function (e) { return e.id; })")
        equal(unnamed, [], "controls without a label")
        headless = d.execute_script(
            "return Array.prototype.filter.call(document.querySelectorAll('table'),"
            " function (t) { return !t.querySelector('thead th[scope=col]'); }).map(function (t) { return t.id; })")
        equal(headless, [], "tables without column headers")
        d.find_element(By.ID, "filter-status").send_keys(Keys.TAB)
        focused = d.switch_to.active_element
        equal(focused.get_attribute("id"), "filter-from", "the next control")
        # The console's own ring (3 px, amber), not only the browser's default.
        equal(d.execute_script("var s = getComputedStyle(arguments[0]); return [s.outlineStyle, s.outlineWidth, s.outlineColor]", focused),
              ["solid", "3px", "rgb(245, 158, 11)"], "the focus ring")
        # Signing out forgets the key and the data.
        d.find_element(By.ID, "sign-out").click()
        env.wait("document.getElementById('signin').hidden === false", "the sign-in form after signing out")
        equal(d.execute_script("return sessionStorage.length + document.querySelectorAll('#orders-table tbody tr').length"), 0, "the key or orders after signing out")

    @case("console: an order paid in the demo store, found by the filters, its timeline; refunded with a confirmation; the refund in the timeline; no card number, token or secret shown")
    def _(env):
        order_id, secret = pay_in_store(env)
        d = console(env, "#orders")
        # Filters: by status, then by creation day (tomorrow: nothing).
        Select(d.find_element(By.ID, "filter-status")).select_by_value("paid")
        d.find_element(By.CSS_SELECTOR, "#order-filters button[type=submit]").click()
        env.wait(f"document.querySelector('#orders-table tr[data-order=\"{order_id}\"]') && Array.prototype.every.call("
                 "document.querySelectorAll('#orders-table tbody [data-field=status]'), function (e) { return e.textContent === 'paid'; })",
                 "the paid orders only, this one among them")
        Select(d.find_element(By.ID, "filter-status")).select_by_value("canceled")
        d.find_element(By.CSS_SELECTOR, "#order-filters button[type=submit]").click()
        env.wait(f"!document.querySelector('#orders-table tr[data-order=\"{order_id}\"]')", "the paid order gone under canceled")
        tomorrow = (datetime.date.today() + datetime.timedelta(days=2)).isoformat()
        Select(d.find_element(By.ID, "filter-status")).select_by_value("")
        d.execute_script("document.getElementById('filter-from').value = arguments[0]", tomorrow)
        d.find_element(By.CSS_SELECTOR, "#order-filters button[type=submit]").click()
        env.wait("document.querySelector('#orders-table tbody').textContent.indexOf('No order matches') >= 0", "no order created after tomorrow")
        d.execute_script("document.getElementById('filter-from').value = ''")
        d.find_element(By.ID, "lookup-id").send_keys(order_id)
        d.find_element(By.CSS_SELECTOR, "#order-lookup button[type=submit]").click()
        # The order's timeline: created, the charge submitted, accepted, and paid (notified or queried).
        env.wait("document.querySelector('#timeline li[data-kind=charge][data-state=succeeded]')", "the charge's outcome in the timeline", timeout=30)
        steps = [(li.get_attribute("data-kind"), li.get_attribute("data-step")) for li in d.find_elements(By.CSS_SELECTOR, "#timeline li")]
        equal(steps[0], ("order", "created"), "the timeline's first entry")
        check(("charge", "submitted") in steps, f"the charge submitted: {steps}")
        paid = d.find_element(By.CSS_SELECTOR, "#timeline li[data-kind=charge][data-state=succeeded]")
        check(paid.get_attribute("data-step") in ("notified", "queried", "answered"), "how the charge was settled")
        check("Charge paid" in paid.text, f"the charge's outcome in words: {paid.text!r}")
        equal(d.find_element(By.CSS_SELECTOR, "#order-summary [data-field=status]").text, "paid", "the order's status")
        check(d.find_element(By.CSS_SELECTOR, "#payments-table tbody").text.count("Visa ••••1234") == 1, "the card by its last digits")
        # Refund 12.00: the dialog asks; keeping it as it is does nothing.
        amount = d.find_element(By.ID, "refund-amount")
        amount.clear()
        amount.send_keys("12")
        d.find_element(By.ID, "refund").click()
        env.wait("document.getElementById('confirm').open", "the confirmation dialog")
        equal(d.find_element(By.ID, "confirm-question").text, f"Refund 12.00 CNY of order {order_id}?", "the question")
        equal(d.switch_to.active_element.get_attribute("id"), "confirm-no", "the focus on the safe answer")
        env.shot("console-refund-confirmation")
        d.find_element(By.ID, "confirm-no").click()
        env.wait("!document.getElementById('confirm').open && document.getElementById('live').textContent === 'Nothing was done.'", "nothing done")
        equal(env.api("GET", "/v1/orders/" + order_id)["refunded"], "0.00", "no refund when kept as it is")
        # Confirmed: the refund is sent, said in the live region, and its outcome joins the timeline.
        d.find_element(By.ID, "refund").click()
        env.wait("document.getElementById('confirm').open", "the confirmation dialog")
        equal(d.find_element(By.ID, "confirm-yes").text, "Refund 12.00 CNY", "the confirming button")
        d.find_element(By.ID, "confirm-yes").click()
        env.wait("document.getElementById('live').textContent.indexOf('Refund of 12.00 CNY sent for order') === 0", "the refund's word")
        equal(d.find_element(By.ID, "live").get_attribute("aria-live"), "polite", "the result in a live region")
        env.wait("document.querySelector('#timeline li[data-kind=refund][data-state=succeeded]')", "the refund's outcome in the timeline", timeout=30)
        env.wait("document.querySelector('#order-summary [data-field=status]').textContent === 'partially_refunded'", "the order partially refunded")
        refund = d.find_element(By.CSS_SELECTOR, "#timeline li[data-kind=refund][data-state=succeeded]")
        check("Refund completed" in refund.text and "12.00 CNY" in refund.text, f"the refund in words: {refund.text!r}")
        order = env.api("GET", "/v1/orders/" + order_id)
        equal(order["refunded"], "12.00", "the refund on the server")
        # Tall enough for the whole timeline (docs/images/console.png is this shot, compressed).
        d.set_window_size(1000, 1400)
        d.execute_script("window.scrollTo(0, 0)")
        env.shot("console-order")
        d.set_window_size(1000, 1000)
        no_secret_shown(env, [secret, env.api_key], identifiers(order))
        # Every view the console has, read again: still nothing secret.
        for path in ["#orders", "#agreements", "#reconciliations"]:
            d.execute_script("location.hash = arguments[0]", path)
            env.wait("document.querySelector('main section:not([hidden]) tbody tr')", "the view " + path)
            no_secret_shown(env, [secret, env.api_key], identifiers(order))

    @case("console: the tea subscription's agreement listed with its card's last digits and first payment; canceled from the console after a confirmation")
    def _(env):
        order_id, secret = pay_in_store(env, plan="tea-monthly")
        agreement_id = env.api("GET", "/v1/orders/" + order_id)["agreementId"]
        d = console(env, "#agreements")
        row = f"#agreements-table tr[data-agreement=\"{agreement_id}\"]"
        env.wait(f"document.querySelector('{row} [data-field=status]') && document.querySelector('{row} [data-field=status]').textContent === 'active'", "the active agreement", timeout=30)
        text = d.find_element(By.CSS_SELECTOR, row).text
        check("Visa ••••1234" in text, f"the funding card's last digits: {text!r}")
        check(order_id in text and "29.00 CNY every 1 month" in text, f"the first payment and the price: {text!r}")
        d.find_element(By.CSS_SELECTOR, row + " [data-action=cancel]").click()
        env.wait("document.getElementById('confirm').open", "the confirmation dialog")
        equal(d.find_element(By.ID, "confirm-question").text, f"Cancel agreement {agreement_id}?", "the question")
        env.shot("console-agreements")
        d.find_element(By.ID, "confirm-yes").click()
        env.wait(f"document.querySelector('{row} [data-field=status]') && document.querySelector('{row} [data-field=status]').textContent.indexOf('canceled') === 0", "the canceled agreement")
        equal(d.find_element(By.ID, "live").text, f"Agreement {agreement_id} canceled.", "the live region")
        equal(env.api("GET", "/v1/agreements/" + agreement_id)["status"], "canceled", "the agreement on the server")
        check(not d.find_elements(By.CSS_SELECTOR, row + " [data-action]"), "actions left on a canceled agreement")
        no_secret_shown(env, [secret, env.api_key], [order_id, agreement_id])

    @case("console: a day reconciled against the sandbox acquirer's settlement file; a payment the ledger lost is shown as a difference")
    def _(env):
        order_id, secret = pay_in_store(env)
        order = env.api("GET", "/v1/orders/" + order_id)
        charge = order["payments"][0]
        day = charge["acquirerTxnTime"][:8]
        # The ledger loses the charge behind the server's back: the acquirer's file has a
        # transaction no payment here sent.
        db = sqlite3.connect(os.path.join(env.data, "paysheet.sqlite"), timeout=30)
        with db:
            db.execute("DELETE FROM payments WHERE id = ?", (charge["id"],))
        db.close()
        clock = urllib.request.Request(env.acquirer + "/sandbox/clock", method="PUT", data=b'{"fileOffsetSeconds": 86400}')
        urllib.request.urlopen(clock, timeout=30).read()
        try:
            d = console(env, "#reconciliations")
            field = d.find_element(By.ID, "reconcile-day")
            field.clear()
            field.send_keys(day)
            d.find_element(By.CSS_SELECTOR, "#reconcile-form button[type=submit]").click()
            env.wait(f"document.getElementById('live').textContent.indexOf('Reconciled {day}') === 0", "the reconciliation's word", timeout=60)
            env.wait(f"document.getElementById('report').hidden === false && document.getElementById('report-day').textContent === '{day}'", "the day's report")
            env.wait("document.querySelector('#differences-table tr[data-kind=unknownToUs]')", "the lost payment as a difference")
            rows = [r.text for r in d.find_elements(By.CSS_SELECTOR, "#differences-table tr[data-kind=unknownToUs]")]
            check(any(charge["acquirerOrderId"] in r for r in rows), f"the lost charge's acquirer id among the differences: {rows}")
            listed = d.find_element(By.CSS_SELECTOR, f"#reconciliations-table tr[data-day=\"{day}\"] [data-field=differences]").text
            check("to look into" in listed, f"the day's differences in the list: {listed!r}")
            report = env.api("GET", "/v1/reconciliations/" + day)
            check(any(x["kind"] == "unknownToUs" and x["acquirerOrderId"] == charge["acquirerOrderId"] for x in report["differences"]), "the difference on the server")
            d.execute_script("document.getElementById('report').scrollIntoView()")
            env.shot("console-reconciliation")
            ids = identifiers(order) + [x["acquirerOrderId"] for x in report["differences"]] + [x.get("reference") or "" for x in report["differences"]]
            no_secret_shown(env, [secret, env.api_key], [i for i in ids if i] + [report["fileName"]])
        finally:
            back = urllib.request.Request(env.acquirer + "/sandbox/clock", method="PUT", data=b'{"fileOffsetSeconds": 0}')
            urllib.request.urlopen(back, timeout=30).read()
