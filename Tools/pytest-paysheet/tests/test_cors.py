"""What a page of another origin gets from paysheet serve: the drop-in and its bridge allow any origin,
errors included; the merchant API allows none (a page calls its own back end)."""
import json
import urllib.error
import urllib.request

import pytest


def post(url, body, content_type="text/plain;charset=UTF-8", origin="http://localhost:9"):
    request = urllib.request.Request(url, data=body.encode(), method="POST",
                                     headers={"Content-Type": content_type, "Origin": origin})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers, answer.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def test_the_drop_in_and_the_bridge_allow_any_origin_errors_included(paysheet_server):
    with urllib.request.urlopen(paysheet_server.url + "/paysheet.js", timeout=10) as answer:
        assert answer.headers["Access-Control-Allow-Origin"] == "*"
    status, headers, body = post(paysheet_server.url + "/paysheet/v1/pages", "{}")
    assert (status, headers["Access-Control-Allow-Origin"]) == (201, "*")
    page = json.loads(body)["page"]
    status, headers, body = post(f"{paysheet_server.url}/paysheet/v1/pages/{page}", '{"op": "state"}')
    assert (status, headers["Access-Control-Allow-Origin"]) == (200, "*")
    # Refusals: a page that does not exist, a body that is not JSON, an operation the engine refuses.
    for path, text, expected in [(f"/paysheet/v1/pages/pg_{'0' * 32}", '{"op": "state"}', 404),
                                 (f"/paysheet/v1/pages/{page}", "not json", 400),
                                 (f"/paysheet/v1/pages/{page}", '{"op": "configure", "clock": "sundial"}', 400)]:
        status, headers, body = post(paysheet_server.url + path, text)
        assert status == expected, body
        assert headers["Access-Control-Allow-Origin"] == "*", f"{expected} from {path} without CORS"
        assert json.loads(body)["error"]["message"]


def test_the_merchant_api_allows_no_other_origin(paysheet_server, paysheet_api_key):
    request = urllib.request.Request(paysheet_server.url + "/v1/catalog", headers={"Origin": "http://localhost:9"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200
        assert answer.headers["Access-Control-Allow-Origin"] is None


def test_a_page_of_another_origin_reads_the_engines_refusal(paysheet_page, shopper, paysheet_order, merchant_site):
    paysheet_page.goto(f"{merchant_site.url}/checkout.html?order={paysheet_order()['id']}")
    with pytest.raises(AssertionError) as failure:
        shopper.configure(clock="sundial")
    message = str(failure.value)
    assert message.startswith('paysheet.configure({"clock": "sundial"}) threw Error: Paysheet: the sheet engine refused '
                              "the call: "), message
    assert "Failed to load" not in message
