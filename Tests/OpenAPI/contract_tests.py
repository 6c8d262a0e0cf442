#!/usr/bin/env python3
"""docs/openapi.yaml is the contract as the server has it, checked three ways.

1. The document is valid OpenAPI 3.0 (openapi-spec-validator), and so is the fuzzer's narrowed
   copy (Tools/openapi_fuzz_overlay.py).
2. Seed 004's order (the DJI store: six products and a -1800.00 student discount, labels in
   Chinese) validates against the document's CreateOrder schema, while the fuzzer's narrowed
   copy refuses it (so the narrowing stays out of the contract); amounts and labels the server
   refuses fail the document's schema too.
3. With a running `paysheet serve` (--server URL and PAYSHEET_API_KEY), the server creates that
   order: 201, its total 8934.00 CNY, the discount line and the Chinese labels as sent.

    python Tests/OpenAPI/contract_tests.py docs/openapi.yaml [--server http://127.0.0.1:18080]

Needs openapi-spec-validator and openapi-schema-validator (PyPI, pinned in .ci/run) and PyYAML.
"""

import argparse
import json
import os
import sys
import urllib.error
import urllib.request

import yaml
from openapi_schema_validator import OAS30Validator
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Tools"))
from openapi_fuzz_overlay import narrowed  # noqa: E402

# Seed 004's checkout (PKPaymentSummaryItem labels and its priceArray), as a merchant's back end
# sends it to POST /v1/orders: the summary's last line, the store's total, is the server's to compute.
SEED_004_ORDER = {
    "currencyCode": "CNY",
    "countryCode": "CN",
    "lineItems": [
        {"label": "DJI精灵4无人机主机", "amount": "9888.00"},
        {"label": "DJI精灵4智能电池", "amount": "230.00"},
        {"label": "DJI精灵4螺旋桨", "amount": "200.00"},
        {"label": "DJI精灵4旅行背包", "amount": "150.00"},
        {"label": "DJI精灵4第二手柄", "amount": "233.00"},
        {"label": "DJI精灵4云台盖", "amount": "33.00"},
        {"label": "大学生折扣价", "amount": "-1800.00"},
    ],
}
SEED_004_TOTAL = "8934.00"


def validator(document, schema_name):
    """An OpenAPI 3.0 schema validator for components/schemas/<schema_name>, refs resolved in `document`."""
    resource = Resource.from_contents(document, default_specification=DRAFT4)
    registry = Registry().with_resource("urn:paysheet:openapi", resource)
    schema = {"$ref": f"urn:paysheet:openapi#/components/schemas/{schema_name}"}
    return OAS30Validator(schema, registry=registry)


def errors(document, schema_name, instance):
    return [error.message for error in validator(document, schema_name).iter_errors(instance)]


def check(condition, message):
    if not condition:
        raise SystemExit(f"FAIL: {message}")
    print(f"ok: {message}")


def check_documents(document):
    validate(document)
    print("ok: docs/openapi.yaml is valid OpenAPI 3.0")
    fuzz = narrowed(document)
    validate(fuzz)
    print("ok: the fuzzer's narrowed copy is valid OpenAPI 3.0")

    found = errors(document, "CreateOrder", SEED_004_ORDER)
    check(found == [], f"seed 004's order validates against CreateOrder ({found})")
    check(
        errors(fuzz, "CreateOrder", SEED_004_ORDER) != [],
        "the fuzzer's narrowed CreateOrder refuses seed 004's order (the narrowing is not the contract)",
    )

    def line(label, amount):
        return {"currencyCode": "CNY", "lineItems": [{"label": label, "amount": amount}]}

    # What the server reads (Sources/PaysheetModel/Money/MinorUnits.swift, OrderService.line).
    for amount in ["0", "12", "12.3", "-1800.00", "0012.30", "9" * 32]:
        check(errors(document, "CreateOrder", line("Tea", amount)) == [], f"amount {amount!r} is in the grammar")
    for amount in ["", "-", "+12", "1e3", "12.", ".5", " 12", "12 ", "1,000", "١٢", "9" * 33, "--1"]:
        check(errors(document, "CreateOrder", line("Tea", amount)) != [], f"amount {amount!r} is not")
    for label in ["Tea", "大学生折扣价", "Thé vert – 2 × 50 g", "\n", "x" * 128]:
        check(errors(document, "CreateOrder", line(label, "1")) == [], f"label {label!r} is accepted")
    for label in ["", " ", "\t \u3000", "x" * 129]:
        check(errors(document, "CreateOrder", line(label, "1")) != [], f"label {label!r} is not")
    for code in ["CNY", "cny", "Jpy"]:
        check(
            errors(document, "CreateOrder", {"currencyCode": code, "lineItems": [{"sku": "green-tea"}]}) == [],
            f"currencyCode {code!r} is in the grammar",
        )
    for code in ["156", "CN", "CNYY"]:
        check(
            errors(document, "CreateOrder", {"currencyCode": code, "lineItems": [{"sku": "green-tea"}]}) != [],
            f"currencyCode {code!r} is not",
        )
    refund = document["paths"]["/v1/orders/{id}/refunds"]["post"]["requestBody"]["content"]["application/json"]
    refund_validator = OAS30Validator(refund["schema"])
    for amount in ["1000.00", "0.01", "5"]:
        check(refund_validator.is_valid({"amount": amount}), f"refund amount {amount!r} is in the grammar")
    for amount in ["0", "0.00", "-1", "1e2"]:
        check(not refund_validator.is_valid({"amount": amount}), f"refund amount {amount!r} is not")


def post_json(url, body, api_key):
    request = urllib.request.Request(
        url,
        data=json.dumps(body, ensure_ascii=False).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {api_key}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def check_server(document, server, api_key):
    status, order = post_json(server + "/v1/orders", SEED_004_ORDER, api_key)
    check(status == 201, f"the server creates seed 004's order (status {status}: {order.get('error')})")
    response_schema = document["paths"]["/v1/orders"]["post"]["responses"]["201"]["content"]["application/json"]
    check(errors(document, "Order", order) == [], "its answer validates against Order")
    check(response_schema["schema"]["$ref"].endswith("/Order"), "the document answers 201 with an Order")
    check(order["amount"] == SEED_004_TOTAL and order["currencyCode"] == "CNY", f"its total is {order['amount']}")
    sent = [(line["label"], line["amount"]) for line in SEED_004_ORDER["lineItems"]]
    got = [(line["label"], line["amount"]) for line in order["lineItems"]]
    check(got == sent, "its lines are seed 004's, the discount and the Chinese labels as sent")
    # And a line outside the grammar is what the document says: 400 with a field.
    status, answer = post_json(
        server + "/v1/orders", {"currencyCode": "CNY", "lineItems": [{"label": "茶", "amount": "1e3"}]}, api_key
    )
    check(
        status == 400 and answer["error"]["field"] == "lineItems[0].amount",
        f"an amount outside the grammar gets 400 on its field ({status})",
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("document")
    parser.add_argument("--server", help="a running paysheet serve (the merchant key in PAYSHEET_API_KEY)")
    arguments = parser.parse_args()
    with open(arguments.document, encoding="utf-8") as source:
        document = yaml.safe_load(source)
    check_documents(document)
    if arguments.server:
        api_key = os.environ.get("PAYSHEET_API_KEY")
        if not api_key:
            raise SystemExit("FAIL: --server needs PAYSHEET_API_KEY (a merchant key)")
        check_server(document, arguments.server.rstrip("/"), api_key)
    print("contract tests passed")


if __name__ == "__main__":
    main()
