#!/usr/bin/env python3
"""The fuzzer's narrowing of docs/openapi.yaml, kept out of the document.

docs/openapi.yaml says what the server accepts (signed amounts, labels in any script). For
schemathesis, CI narrows a copy so that most generated orders are ones the server creates
(201), and the fuzz reaches the routes behind them instead of stopping at 400s: a few currencies,
whole positive amounts of up to five digits, ASCII labels, at most 20 lines, every line a
`{label, amount}`. Nothing here changes what the server accepts; the document stays the contract.

    python Tools/openapi_fuzz_overlay.py docs/openapi.yaml /tmp/openapi-fuzz.yaml

Needs PyYAML (schemathesis installs it).
"""

import copy
import sys

import yaml

# JSON Pointer-like paths into the document and what the fuzzer sees there instead.
NARROWING = {
    ("components", "schemas", "CreateOrder", "required"): ["currencyCode", "lineItems"],
    ("components", "schemas", "CreateOrder", "properties", "currencyCode"): {
        "type": "string",
        "enum": ["CNY", "USD", "EUR", "JPY", "GBP", "HKD"],
    },
    ("components", "schemas", "CreateOrder", "properties", "countryCode"): {
        "type": "string",
        "pattern": "^[A-Z]{2}$",
    },
    ("components", "schemas", "CreateOrder", "properties", "lineItems", "maxItems"): 20,
    ("components", "schemas", "CreateOrder", "properties", "shippingMethods", "items"): {
        "$ref": "#/components/schemas/ShippingMethod"
    },
    ("components", "schemas", "CreateOrderLine", "required"): ["label", "amount"],
    ("components", "schemas", "CreateOrderLine", "properties", "label"): {
        "type": "string",
        "minLength": 1,
        "maxLength": 64,
        "pattern": "^[A-Za-z][A-Za-z ]*$",
    },
    ("components", "schemas", "CreateOrderLine", "properties", "amount"): {
        "type": "string",
        "pattern": "^[1-9][0-9]{0,4}$",
    },
    (
        "paths", "/v1/orders/{id}/refunds", "post", "requestBody", "content", "application/json",
        "schema", "properties", "amount",
    ): {"type": "string"},
}


def narrowed(document):
    """A copy of `document` with every NARROWING applied; each path's parent must exist."""
    result = copy.deepcopy(document)
    for path, value in NARROWING.items():
        node = result
        for key in path[:-1]:
            if key not in node:
                raise SystemExit(f"openapi_fuzz_overlay: {'/'.join(path)}: no {key!r} in the document")
            node = node[key]
        node[path[-1]] = copy.deepcopy(value)
    return result


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    with open(argv[1], encoding="utf-8") as source:
        document = yaml.safe_load(source)
    with open(argv[2], "w", encoding="utf-8") as out:
        yaml.safe_dump(narrowed(document), out, allow_unicode=True, sort_keys=False)


if __name__ == "__main__":
    main(sys.argv)
