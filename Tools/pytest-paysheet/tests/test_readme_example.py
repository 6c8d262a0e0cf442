# The README's "Test your real checkout page in pytest" example, as CI runs it.
def test_a_shopper_pays_on_my_checkout_page(paysheet_page, shopper, paysheet_order, paysheet_api, merchant_site):
    order = paysheet_order(lines=[("Green tea", "25.00")])
    paysheet_page.goto(f"{merchant_site.url}/checkout.html?order={order['id']}")
    paysheet_page.click("#pay")  # the page's own code: new ApplePaySession(…) in the click
    assert shopper.wait_for_sheet()["modules"]["summary"]["total"]["amount"] == "25.00"
    shopper.authorize()
    assert shopper.wait_for_result() == "success"
    assert shopper.event_types() == ["validatemerchant", "paymentmethodselected", "paymentauthorized"]
    assert paysheet_page.text_content("#message") == "Paid 25.00 CNY. Thank you!"
    assert paysheet_api.order(order["id"])["status"] == "paid"
