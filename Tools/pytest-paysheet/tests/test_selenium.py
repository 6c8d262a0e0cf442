"""The same unmodified merchant page, paid through the drop-in injected by Selenium (DevTools protocol)."""
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait


def test_a_shopper_pays_through_the_drop_in_injected_by_selenium(paysheet_selenium, shopper, paysheet_order, paysheet_api,
                                                                 merchant_site):
    order = paysheet_order(lines=[("Puer tea", "60.00")])
    paysheet_selenium.get(f"{merchant_site.url}/checkout.html?order={order['id']}")
    assert paysheet_selenium.execute_script("return window.__foundAtFirstScript") == {"applePaySession": "function", "nativePaymentRequest": False}
    WebDriverWait(paysheet_selenium, 10).until(expected_conditions.element_to_be_clickable((By.ID, "pay"))).click()
    sheet = shopper.wait_for_sheet()
    assert sheet["modules"]["summary"]["total"]["amount"] == "60.00"
    # The simulated sheet is drawn over the page (labelled as a simulation), as paysheet.js draws it.
    label = paysheet_selenium.find_element(By.CSS_SELECTOR, "#paysheet-sheet [data-part=label]").text
    assert "Simulated" in label
    shopper.authorize()
    assert shopper.wait_for_result() == "success"
    WebDriverWait(paysheet_selenium, 10).until(
        expected_conditions.text_to_be_present_in_element((By.ID, "message"), "Paid 60.00 CNY"))
    assert paysheet_api.order(order["id"])["status"] == "paid"
    assert shopper.paid()


def test_selenium_cancel_reaches_the_pages_handler(paysheet_selenium, shopper, paysheet_order, paysheet_api, merchant_site):
    order = paysheet_order()
    paysheet_selenium.get(f"{merchant_site.url}/checkout.html?order={order['id']}")
    WebDriverWait(paysheet_selenium, 10).until(expected_conditions.element_to_be_clickable((By.ID, "pay"))).click()
    shopper.cancel()
    assert shopper.wait_for_result() == "canceled"
    WebDriverWait(paysheet_selenium, 10).until(
        expected_conditions.text_to_be_present_in_element((By.ID, "message"), "Payment canceled"))
    assert paysheet_api.order(order["id"])["status"] == "canceled"
