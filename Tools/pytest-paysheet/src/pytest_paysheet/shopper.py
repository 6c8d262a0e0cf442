"""The simulated shopper: the sheet's choices and buttons through `window.paysheet`, with readable failures."""
from __future__ import annotations

import json
import time
from typing import Any, Callable, Optional

# Calls `window.paysheet[name](...args)` in the page and reports what happened as JSON, so that a
# missing drop-in or a refused call becomes a readable AssertionError here, not a driver's stack.
CALL = """(a) => {
  if (!window.paysheet) return {missing: true, url: String(location.href)};
  try { return {value: window.paysheet[a.name].apply(window.paysheet, a.args)}; }
  catch (e) { return {threw: (e && e.name ? e.name + ": " : "") + (e && e.message !== undefined ? e.message : String(e))}; }
}"""


class Shopper:
    """A shopper in front of the simulated sheet of one page (a Playwright page or a Selenium driver).

    Each choice waits until the sheet is open and not waiting for the page (as a person can only
    choose then), makes it, and raises AssertionError with the sheet's state when the sheet ignores it.
    """

    def __init__(self, evaluate: Callable[[str, Any], Any], timeout: float = 10.0):
        self._evaluate = evaluate
        self.timeout = timeout

    @classmethod
    def for_playwright(cls, page, timeout: float = 10.0) -> "Shopper":
        return cls(lambda source, arg: page.evaluate(source, arg), timeout)

    @classmethod
    def for_selenium(cls, driver, timeout: float = 10.0) -> "Shopper":
        return cls(lambda source, arg: driver.execute_script("return (" + source + ")(arguments[0]);", arg), timeout)

    # ---- Reading -------------------------------------------------------------------------------

    def _call(self, name: str, *args):
        answer = self._evaluate(CALL, {"name": name, "args": list(args)})
        if not isinstance(answer, dict) or answer.get("missing"):
            where = answer.get("url") if isinstance(answer, dict) else "?"
            raise AssertionError(f"paysheet.js is not on this page ({where}): open it with the paysheet_page or "
                                 "paysheet_selenium fixture (which inject the drop-in), or load "
                                 "<script src=\"SERVER/paysheet.js\"> before the page's own scripts")
        if "threw" in answer:
            raise AssertionError(f"paysheet.{name}({', '.join(json.dumps(a) for a in args)}) threw {answer['threw']}")
        return answer.get("value")

    def sheet(self) -> dict:
        """The sheet as the engine describes it: visible, status, canAuthorize, modules, outstanding, result, …"""
        return self._call("snapshot")

    def choices(self) -> Optional[dict]:
        """What the shopper can choose: cards, shippingContacts, shippingMethods (None while no sheet was shown)."""
        return self._call("choices")

    def events(self) -> list:
        """Every event dispatched to the page so far and every ignored action, oldest first."""
        return self._call("events")

    def event_types(self) -> list:
        return [e.get("type") for e in self.events()]

    def paid(self) -> bool:
        """Whether a payment completed with success on this page."""
        return bool(self._call("paid"))

    def configure(self, **options) -> dict:
        """Resets the page's engine (`wallet`, `options`, `clock`, `requireUserGesture`, …)."""
        return self._call("configure", options)

    # ---- Waiting -------------------------------------------------------------------------------

    def wait_for_sheet(self, timeout: Optional[float] = None) -> dict:
        """The sheet once it is shown and not waiting for the page (every event answered)."""
        return self._wait(lambda s: s.get("visible") and not s.get("outstanding"), timeout,
                          "to be open and not waiting for the page")

    def wait_for_shown(self, timeout: Optional[float] = None) -> dict:
        """The sheet once it is shown (perhaps waiting for the page)."""
        return self._wait(lambda s: s.get("visible"), timeout, "to be open")

    def wait_until(self, predicate: Callable[[dict], Any], what: str = "to be as the test expects",
                   timeout: Optional[float] = None) -> dict:
        """The sheet once `predicate(sheet)` holds (`what` completes "the sheet did not come …" on failure)."""
        return self._wait(predicate, timeout, what, closing=True)

    def wait_for_result(self, timeout: Optional[float] = None) -> str:
        """Waits until the sheet closes; its result: success, failure, canceled, timedOut or aborted."""
        sheet = self._wait(lambda s: not s.get("visible") and s.get("result"), timeout, "to close", closing=True)
        return sheet["result"]

    def _wait(self, ready, timeout, what, closing=False) -> dict:
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            sheet = self.sheet()
            if ready(sheet):
                return sheet
            if not closing and not sheet.get("visible") and sheet.get("result"):
                raise AssertionError(f"the sheet closed ({sheet['result']}) while waiting for it {what}\n"
                                     + self.describe(sheet))
            if time.monotonic() >= deadline:
                raise AssertionError(f"the sheet did not come {what} within {self.timeout if timeout is None else timeout:g} s"
                                     + self._why(sheet) + "\n" + self.describe(sheet))
            # Poll again: the page's handlers run in the browser, at their own pace.
            time.sleep(0.05)

    @staticmethod
    def _why(sheet: dict) -> str:
        if sheet.get("visible") and sheet.get("outstanding"):
            return (f": it is waiting for the page to answer `{sheet['outstanding']}` (does the page's handler "
                    "call its complete…() / updateWith()?)")
        if not sheet.get("visible"):
            return ": no sheet is shown (did the page create an ApplePaySession and begin() it, or show() a " \
                   "PaymentRequest, in a click?)"
        return ""

    def describe(self, sheet: Optional[dict] = None) -> str:
        """The sheet and the events so far, in a few lines (for assertion messages)."""
        sheet = self.sheet() if sheet is None else sheet
        lines = ["sheet: " + ("shown" if sheet.get("visible") else "not shown")
                 + (f", result {sheet['result']}" if sheet.get("result") else "")
                 + (f", status {sheet['status']!r}" if sheet.get("status") else "")
                 + (f", waiting for the page to answer {sheet['outstanding']}" if sheet.get("outstanding") else "")]
        modules = sheet.get("modules") or {}
        if modules:
            total = modules.get("summary", {}).get("total") or {}
            card = (modules.get("card") or {}).get("selected") or {}
            blocked = None
            if not sheet.get("canAuthorize") and not sheet.get("outstanding"):
                try:
                    blocked = (self.choices() or {}).get("authorizeBlockedBy")
                except AssertionError:
                    blocked = None
            lines.append(f"  total {total.get('label')!r} {total.get('amount')}; card {card.get('displayName')!r}; "
                         f"can pay: {'yes' if sheet.get('canAuthorize') else 'no'}" + (f" ({blocked})" if blocked else ""))
            for name, module in modules.items():
                if isinstance(module, dict) and module.get("error"):
                    lines.append(f"  {name} error: {module['error'].get('title')}: {module['error'].get('message')}")
        try:
            events = self.events()
        except AssertionError:
            events = []
        summary = [e.get("type") + (f" ({e.get('action')}: {e.get('reason')})" if e.get("type") == "ignored" else "")
                   for e in events[-12:]]
        lines.append("  events: " + (", ".join(summary) if summary else "none"))
        return "\n".join(lines)

    # ---- Acting --------------------------------------------------------------------------------

    def _act(self, what: str, name: str, *args, settled: bool = True, timeout: Optional[float] = None) -> dict:
        if settled:
            self.wait_for_sheet(timeout)
        else:
            self.wait_for_shown(timeout)
        answer = self._call(name, *args)
        if not answer.get("ok"):
            raise AssertionError(f"the sheet ignored the shopper's {what}: {answer.get('ignored')}\n"
                                 + self.describe(answer.get("sheet") or self.sheet()))
        return answer.get("sheet")

    def _choice(self, kind: str, key: str, value, label: Callable[[dict], str]) -> None:
        options = (self.choices() or {}).get(kind) or []
        if not any(o.get(key) == value for o in options):
            listed = "; ".join(f"{o.get(key)!r}: {label(o)}" for o in options) or "none"
            noun = {"cards": "card", "shippingContacts": "shipping contact", "shippingMethods": "shipping method"}[kind]
            raise AssertionError(f"the sheet offers no {noun} {value!r} "
                                 f"(it offers {listed})")

    def choose_card(self, index: int, timeout: Optional[float] = None) -> dict:
        """Picks the wallet's card `index` (0-based, as `choices()['cards']` lists them)."""
        self.wait_for_sheet(timeout)
        self._choice("cards", "index", index, lambda c: f"{c.get('displayName')} ({c.get('type')})"
                     + ("" if c.get("usable") else ", not accepted"))
        return self._act(f"choice of card {index}", "selectPaymentMethod", index, timeout=timeout)

    def choose_contact(self, index: int, timeout: Optional[float] = None) -> dict:
        """Picks the wallet's shipping contact `index` (0-based)."""
        self.wait_for_sheet(timeout)
        self._choice("shippingContacts", "index", index,
                     lambda c: " ".join(str(v) for v in ((c.get("contact") or {}).get("locality"),
                                                         (c.get("contact") or {}).get("countryCode")) if v))
        return self._act(f"choice of shipping contact {index}", "selectShippingContact", index, timeout=timeout)

    def choose_method(self, identifier: str, timeout: Optional[float] = None) -> dict:
        """Picks the shipping method with this identifier."""
        self.wait_for_sheet(timeout)
        self._choice("shippingMethods", "identifier", identifier, lambda m: f"{m.get('label')} {m.get('amount')}")
        return self._act(f"choice of shipping method {identifier!r}", "selectShippingMethod", identifier, timeout=timeout)

    def enter_coupon(self, code: str, timeout: Optional[float] = None) -> dict:
        """Types a coupon code and applies it (the page gets couponcodechanged)."""
        return self._act(f"coupon code {code!r}", "enterCouponCode", code, timeout=timeout)

    def edit_contact(self, email: Optional[str] = None, phone: Optional[str] = None,
                     timeout: Optional[float] = None) -> dict:
        """Edits the contact's email and/or phone on the sheet."""
        return self._act("contact edit", "editContact", {k: v for k, v in (("email", email), ("phone", phone)) if v is not None},
                         timeout=timeout)

    def authorize(self, timeout: Optional[float] = None) -> dict:
        """Presses Pay (the page gets paymentauthorized with a sandbox token)."""
        return self._act("Pay", "authorize", timeout=timeout)

    def cancel(self, timeout: Optional[float] = None) -> dict:
        """Presses Cancel (the page gets cancel)."""
        return self._act("Cancel", "cancel", settled=False, timeout=timeout)

    def advance_clock(self, seconds: float) -> dict:
        """Lets `seconds` of the sheet's time pass (with the virtual clock, the only way it passes)."""
        return self._call("advanceClock", seconds)
