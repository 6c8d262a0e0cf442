"""An unmodified merchant checkout page, on another origin, paid and canceled through the injected
drop-in in Playwright (Debian's Chromium)."""
from decimal import Decimal
from urllib.parse import urlparse

import pytest

from pytest_paysheet import Shopper, init_script


def open_checkout(page, site, order):
    page.goto(f"{site.url}/checkout.html?order={order['id']}")
    page.wait_for_selector("#pay", state="visible")


def test_the_drop_in_is_there_before_the_pages_first_script(paysheet_page, paysheet_server, paysheet_order, merchant_site):
    open_checkout(paysheet_page, merchant_site, paysheet_order())
    assert paysheet_page.evaluate("window.__foundAtFirstScript") == {"applePaySession": "function", "nativePaymentRequest": False}
    # The page is unedited (no script of Paysheet's in it) and of another origin than the server.
    assert paysheet_page.evaluate("[...document.scripts].map(s => s.src).filter(s => s.includes('paysheet'))") == []
    page_origin = urlparse(paysheet_page.url)
    server_origin = urlparse(paysheet_server.url)
    assert (page_origin.hostname, page_origin.port) != (server_origin.hostname, server_origin.port)
    # It is the drop-in's ApplePaySession, on a page of the engine's.
    assert paysheet_page.evaluate("String(new URL(location.href).origin)") == merchant_site.url
    assert paysheet_page.evaluate("typeof window.paysheet.pageId") == "string"


CONTACT = {"givenName": "Jane", "familyName": "Appleseed", "emailAddress": "jane@example.com", "phoneNumber": "+1 408 555 0100",
           "addressLines": ["1 Infinite Loop"], "locality": "Cupertino", "administrativeArea": "CA", "postalCode": "95014",
           "country": "United States", "countryCode": "US"}
SHANGHAI = {"givenName": "Li", "familyName": "Wei", "emailAddress": "li@example.com", "phoneNumber": "+86 21 5555 0100",
            "addressLines": ["100 Century Avenue"], "locality": "Shanghai", "administrativeArea": "Shanghai", "postalCode": "200120",
            "country": "China", "countryCode": "CN"}
WALLET = {"cards": [{"network": "visa", "type": "credit", "displayName": "Visa 1234", "billingContact": CONTACT},
                    {"network": "masterCard", "type": "debit", "displayName": "Mastercard 5678", "billingContact": CONTACT}],
          "shippingContacts": [CONTACT, SHANGHAI], "email": "jane@example.com", "phone": "+1 408 555 0100"}


@pytest.mark.paysheet(wallet=WALLET)
def test_the_shopper_chooses_a_card_a_contact_a_method_and_a_coupon(paysheet_page, shopper, paysheet_order, paysheet_api,
                                                                     merchant_site):
    order = paysheet_order(lines=[("Oolong tea", "40.00")],
                           shippingMethods=[{"identifier": "standard", "label": "Standard", "detail": "3-5 days", "amount": "0.00"},
                                            {"identifier": "express", "label": "Express", "detail": "tomorrow", "amount": "15.00"}])
    open_checkout(paysheet_page, merchant_site, order)
    paysheet_page.click("#pay")
    shopper.wait_for_sheet()
    shopper.choose_card(1)
    assert shopper.sheet()["modules"]["card"]["selected"]["displayName"] == "Mastercard 5678"
    shopper.choose_contact(1)
    assert shopper.wait_for_sheet()["modules"]["shipping"]["selected"]["locality"] == "Shanghai"
    standard = Decimal(shopper.sheet()["modules"]["summary"]["total"]["amount"])
    shopper.choose_method("express")
    express = Decimal(shopper.wait_for_sheet()["modules"]["summary"]["total"]["amount"])
    assert express - standard == Decimal("15.00")
    shopper.enter_coupon("WELCOME10")
    discounted = shopper.wait_for_sheet()["modules"]["summary"]["total"]["amount"]
    assert Decimal(discounted) < express, "the merchant's coupon took nothing off"
    shopper.authorize()
    assert shopper.wait_for_result() == "success"
    types = shopper.event_types()
    for expected in ["validatemerchant", "paymentmethodselected", "shippingcontactselected", "shippingmethodselected",
                     "couponcodechanged", "paymentauthorized"]:
        assert expected in types
    paid = paysheet_api.order(order["id"])
    assert paid["status"] == "paid"
    assert paid["amount"] == discounted


def test_the_shopper_cancels(paysheet_page, shopper, paysheet_order, paysheet_api, merchant_site):
    order = paysheet_order()
    open_checkout(paysheet_page, merchant_site, order)
    paysheet_page.click("#pay")
    shopper.cancel()
    assert shopper.wait_for_result() == "canceled"
    paysheet_page.wait_for_function("document.getElementById('message').textContent.includes('canceled')")
    assert paysheet_api.order(order["id"])["status"] == "canceled"
    assert not shopper.paid()


@pytest.mark.paysheet(clock="virtual")
def test_the_virtual_clock_times_the_sheet_out_while_the_back_end_is_slow(paysheet_page, shopper, paysheet_order,
                                                                          merchant_site, slow_back_end):
    open_checkout(paysheet_page, merchant_site, paysheet_order())
    slow_back_end.hold("payment-method")
    paysheet_page.click("#pay")
    # Merchant validation answered; the card's event waits for the held back end.
    sheet = shopper.wait_until(lambda s: s["outstanding"] == "paymentmethodselected", "to wait for paymentmethodselected")
    left = float(sheet["secondsLeft"])
    assert shopper.advance_clock(left - 1)["visible"], "the sheet closed before its deadline"
    shopper.advance_clock(1)
    assert shopper.wait_for_result() == "timedOut"
    assert shopper.event_types()[-1] == "cancel"


def test_the_payment_request_api_through_the_drop_in(paysheet_page, shopper, paysheet_order, paysheet_api, merchant_site):
    order = paysheet_order(lines=[("Jasmine tea", "18.00")])
    open_checkout(paysheet_page, merchant_site, order)
    paysheet_page.click("#pay-request")
    shopper.authorize()
    assert shopper.wait_for_result() == "success"
    paysheet_page.wait_for_function("document.getElementById('message').textContent.startsWith('Paid')")
    assert paysheet_api.order(order["id"])["status"] == "paid"


def test_a_choice_the_sheet_does_not_offer_fails_with_what_it_offers(paysheet_page, shopper, paysheet_order, merchant_site):
    open_checkout(paysheet_page, merchant_site, paysheet_order())
    paysheet_page.click("#pay")
    with pytest.raises(AssertionError) as failure:
        shopper.choose_card(99)
    message = str(failure.value)
    assert message.startswith("the sheet offers no card 99 (it offers 0: ")
    for card in shopper.choices()["cards"]:
        assert card["displayName"] in message
    with pytest.raises(AssertionError, match=r"the sheet offers no shipping method 'express' \(it offers none\)"):
        shopper.choose_method("express")


def test_waiting_for_a_sheet_that_never_opens_says_so(paysheet_page, shopper, paysheet_order, merchant_site):
    open_checkout(paysheet_page, merchant_site, paysheet_order())
    with pytest.raises(AssertionError) as failure:
        shopper.wait_for_sheet(timeout=0)
    assert "the sheet did not come to be open and not waiting for the page within 0 s: no sheet is shown" in str(failure.value)


def test_a_page_without_the_drop_in_is_named(paysheet_playwright_browser, merchant_site, paysheet_order):
    context = paysheet_playwright_browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{merchant_site.url}/checkout.html?order={paysheet_order()['id']}")
        page.wait_for_selector("#message:has-text('cannot pay')")
        # Chromium's own Payment Request API, and no ApplePaySession: what the injection replaces.
        assert page.evaluate("window.__foundAtFirstScript") == {"applePaySession": "undefined", "nativePaymentRequest": True}
        with pytest.raises(AssertionError, match=r"paysheet.js is not on this page \(http://localhost:\d+/checkout.html"):
            Shopper.for_playwright(page).sheet()
    finally:
        context.close()


def test_a_bad_server_in_the_configuration_is_named_in_the_page(paysheet_playwright_browser, paysheet_drop_in, merchant_site,
                                                                paysheet_order):
    context = paysheet_playwright_browser.new_context()
    try:
        context.add_init_script(script='window.PAYSHEET_CONFIG = {server: "127.0.0.1:8080"};\n' + paysheet_drop_in)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{merchant_site.url}/checkout.html?order={paysheet_order()['id']}")
        page.wait_for_selector("#message:has-text('cannot pay')")
        assert any('PAYSHEET_CONFIG.server must be the http(s) URL of paysheet serve' in e and '"127.0.0.1:8080"' in e
                   for e in errors), errors
    finally:
        context.close()


def test_the_init_script_refuses_an_unknown_option(paysheet_server, paysheet_drop_in):
    from pytest_paysheet import PaysheetSetupError
    with pytest.raises(PaysheetSetupError, match="unknown paysheet option.* clok; known: wallet"):
        init_script(paysheet_server.url, {"clok": "virtual"}, paysheet_drop_in)


def test_a_sheet_left_waiting_by_the_page_is_described(paysheet_page, shopper, paysheet_order, merchant_site, slow_back_end):
    open_checkout(paysheet_page, merchant_site, paysheet_order(lines=[("White tea", "33.00")]))
    slow_back_end.hold("payment-method")
    paysheet_page.click("#pay")
    shopper.wait_until(lambda s: s["outstanding"] == "paymentmethodselected", "to wait for paymentmethodselected")
    with pytest.raises(AssertionError) as failure:
        shopper.authorize(timeout=0)
    assert str(failure.value).splitlines() == [
        "the sheet did not come to be open and not waiting for the page within 0 s: it is waiting for the page to answer "
        "`paymentmethodselected` (does the page's handler call its complete…() / updateWith()?)",
        "sheet: shown, waiting for the page to answer paymentmethodselected",
        "  total 'Paysheet Demo Store' 33.00; card 'Visa 1234'; can pay: no",
        "  events: validatemerchant, paymentmethodselected",
    ]


@pytest.mark.paysheet(wallet={"cards": [WALLET["cards"][0], {"network": "jcb", "type": "credit", "displayName": "JCB 3566"}],
                              "shippingContacts": [CONTACT]})
def test_a_choice_the_sheet_ignores_says_why(paysheet_page, shopper, paysheet_order, merchant_site):
    open_checkout(paysheet_page, merchant_site, paysheet_order())
    paysheet_page.click("#pay")
    with pytest.raises(AssertionError) as failure:
        shopper.choose_card(1)
    first, *rest = str(failure.value).splitlines()
    assert first.startswith("the sheet ignored the shopper's choice of card 1: "), first
    reason = [e for e in shopper.events() if e["type"] == "ignored"][-1]["reason"]
    assert first.endswith(reason)
    assert rest[0] == "sheet: shown"
    assert shopper.sheet()["modules"]["card"]["selected"]["displayName"] == "Visa 1234"
