// The demo store's own code: what a merchant's checkout page does. It knows nothing of Paysheet;
// it uses ApplePaySession (here the paysheet.js drop-in) and the merchant server's /v1 API.
(function () {
  "use strict";
  var catalog = [];
  var cart = {}; // sku -> quantity
  var order = null;
  var currency = "CNY";

  function $(id) { return document.getElementById(id); }
  function say(text) { $("message").textContent = text; }
  function key() { return window.crypto && crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random(); }

  // The order's client secret: the only credential this page holds, for this order only.
  function api(method, path, body, secret) {
    var init = { method: method, headers: {} };
    if (secret) init.headers["Authorization"] = "Bearer " + secret;
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.headers["Idempotency-Key"] = key();
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (r) {
      return r.json().then(function (json) {
        if (!r.ok) throw new Error((json.error && json.error.message) || ("HTTP " + r.status));
        return json;
      });
    });
  }

  function renderCatalog() {
    var ul = $("products");
    ul.innerHTML = "";
    catalog.forEach(function (p) {
      var li = document.createElement("li");
      var name = document.createElement("strong"); name.textContent = p.label;
      var price = document.createElement("span"); price.className = "price"; price.textContent = p.amount + " " + p.currencyCode;
      var add = document.createElement("button"); add.type = "button"; add.textContent = "Add to cart";
      add.setAttribute("data-sku", p.sku);
      add.setAttribute("aria-label", "Add " + p.label + " to cart");
      add.addEventListener("click", function () { cart[p.sku] = (cart[p.sku] || 0) + 1; renderCart(); });
      li.appendChild(name); li.appendChild(price); li.appendChild(add);
      ul.appendChild(li);
    });
  }

  function renderCart() {
    var ul = $("cart-items");
    ul.innerHTML = "";
    var total = 0;
    Object.keys(cart).forEach(function (sku) {
      var p = catalog.filter(function (x) { return x.sku === sku; })[0];
      if (!p) return;
      var li = document.createElement("li");
      li.textContent = cart[sku] + " × " + p.label + " — " + p.amount + " " + p.currencyCode;
      ul.appendChild(li);
      total += Math.round(Number(p.amount) * 100) * cart[sku];
    });
    $("cart-total").textContent = total ? "Subtotal: " + (total / 100).toFixed(2) + " " + currency : "Your cart is empty.";
    $("checkout").disabled = total === 0;
    $("checkout-panel").hidden = true;
    order = null;
  }

  // A plan is an order of its own: the server prices it and asks the sheet for a recurring payment.
  function renderPlans(plans) {
    var list = $("plans");
    list.innerHTML = "";
    plans.forEach(function (p) {
      var li = document.createElement("li");
      var text = p.trialAmount ? p.description + ": " + p.trialAmount + " " + p.currencyCode + " the first " + p.intervalUnit + ", then " + p.amount + " " + p.currencyCode + " a " + p.intervalUnit
        : p.description + ": " + p.amount + " " + p.currencyCode;
      li.appendChild(document.createTextNode(text + " "));
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = "Subscribe";
      b.setAttribute("data-plan", p.id);
      b.addEventListener("click", function () { subscribe(p.id); });
      li.appendChild(b);
      list.appendChild(li);
    });
  }

  function subscribe(plan) {
    api("POST", "/v1/orders", { plan: plan }).then(function (o) { showCheckout(o, " today"); })
      .catch(function (e) { say("Could not create the subscription: " + e.message); });
  }

  // The checkout panel for a new order (a cart's or a plan's), with the payment buttons.
  function showCheckout(o, note) {
    order = o;
    $("order-id").textContent = o.id;
    $("order-total").textContent = o.amount + " " + o.currencyCode + note;
    $("checkout-panel").hidden = false;
    renderPayButton();
  }

  // Where a paid order goes: a subscription's page (its agreement), else the order's. The
  // secret travels in the fragment, which is never sent to a server or written in its logs; a
  // subscription's is also kept in this browser for its management page.
  function afterPaid(o, secret) {
    if (o.agreementId) {
      try {
        var kept = JSON.parse(localStorage.getItem("paysheet-subscriptions") || "[]");
        kept.push({ id: o.agreementId, secret: secret });
        localStorage.setItem("paysheet-subscriptions", JSON.stringify(kept));
      } catch (e) { /* private mode: the fragment still carries it */ }
      return "/subscription.html?id=" + encodeURIComponent(o.agreementId) + "#secret=" + encodeURIComponent(secret);
    }
    return "/store/order?id=" + encodeURIComponent(o.id) + "#secret=" + encodeURIComponent(secret);
  }

  // Checkout: the page names products and a delivery choice; the server prices everything
  // (shipping included) and returns the order, its ApplePayPaymentRequest and its client secret.
  function checkout() {
    var body = {
      currencyCode: currency,
      lineItems: Object.keys(cart).map(function (sku) { return { sku: sku, quantity: cart[sku] }; }),
      delivery: $("delivery").value === "ship" ? "ship" : "none",
    };
    $("checkout").disabled = true;
    api("POST", "/v1/orders", body).then(function (o) {
      showCheckout(o, "");
      $("checkout").disabled = false;
    }).catch(function (e) { say("Could not create the order: " + e.message); $("checkout").disabled = false; });
  }

  // The payment button is shown only when the device can pay.
  function renderPayButton() {
    var area = $("pay-area");
    area.innerHTML = "";
    if (!window.ApplePaySession || !ApplePaySession.canMakePayments()) {
      var p = document.createElement("p");
      p.id = "no-wallet";
      p.textContent = "This browser cannot pay with a wallet here; choose another payment method.";
      area.appendChild(p);
      return;
    }
    function button(id, className, text, onClick) {
      var b = document.createElement("button");
      b.type = "button";
      b.id = id;
      b.className = className;
      b.textContent = text;
      b.addEventListener("click", onClick);
      area.appendChild(b);
    }
    button("pay", "pay-button", "Pay with wallet (simulated)", startPayment);
    if (window.PaymentRequest) button("pay-request", "pay-button secondary", "Pay through the Payment Request API (simulated)", startPaymentRequest);
  }

  // The same order through the W3C Payment Request API, whose Apple Pay method a cross-browser
  // checkout uses. The store's update endpoints speak the ApplePaySession shapes; this converts.
  function paymentRequestFor(req) {
    var cur = req.currencyCode;
    function amount(v) { return { currency: cur, value: v || "0.00" }; }
    function item(i) { return { label: i.label, amount: amount(i.amount), pending: i.type === "pending" }; }
    var fields = req.requiredShippingContactFields || [];
    var data = { version: 14, merchantIdentifier: req.merchantIdentifier || "merchant.paysheet.demo", countryCode: req.countryCode,
      supportedNetworks: req.supportedNetworks, merchantCapabilities: req.merchantCapabilities };
    // applicationData binds the token to this order; the server checks it.
    ["requiredBillingContactFields", "applicationData", "supportedCountries", "supportsCouponCode", "couponCode"].forEach(function (k) {
      if (req[k] !== undefined) data[k] = req[k];
    });
    // A subscription's recurring (or reload) request travels in an Apple Pay modifier, as
    // WebKit's ApplePayModifier carries it; the sheet then issues a merchant token.
    var kinds = {};
    ["recurringPaymentRequest", "automaticReloadPaymentRequest", "deferredPaymentRequest"].forEach(function (k) {
      if (req[k] !== undefined) kinds[k] = req[k];
    });
    var modifiers = Object.keys(kinds).length ? [{ supportedMethods: "https://apple.com/apple-pay", data: kinds }] : undefined;
    return {
      methods: [{ supportedMethods: "https://apple.com/apple-pay", data: data }],
      // The option the shopper chose stays selected (the first one until they choose).
      details: function (u, methods, chosen) {
        var ids = (methods || []).map(function (m) { return m.identifier; });
        var pick = ids.indexOf(chosen) >= 0 ? chosen : ids[0];
        var d = { total: item(u.newTotal), displayItems: (u.newLineItems || []).map(item),
          shippingOptions: (methods || []).map(function (m) { return { id: m.identifier, label: m.label, amount: amount(m.amount), selected: m.identifier === pick }; }) };
        if (modifiers) d.modifiers = modifiers;
        return d;
      },
      options: { requestShipping: fields.indexOf("postalAddress") >= 0, requestPayerEmail: fields.indexOf("email") >= 0,
        requestPayerPhone: fields.indexOf("phone") >= 0, requestPayerName: fields.indexOf("name") >= 0 },
    };
  }

  function startPaymentRequest() {
    if (!order) return;
    var id = order.id, secret = order.clientSecret, base = "/v1/orders/" + encodeURIComponent(id);
    var shape = paymentRequestFor(order.paymentRequest);
    var methods = order.paymentRequest.shippingMethods || [];
    var last = { newTotal: order.paymentRequest.total, newLineItems: order.paymentRequest.lineItems || [] };
    var request;
    try {
      request = new PaymentRequest(shape.methods, shape.details(last, methods), shape.options);
    } catch (e) {
      say("The payment request was refused: " + e.name + ": " + e.message);
      return;
    }
    function update(event, path, body) {
      event.updateWith(api("POST", base + path, body, secret).then(function (u) {
        last = u;
        if (u.newShippingMethods) methods = u.newShippingMethods;
        return shape.details(u, methods, request.shippingOption);
      }));
    }
    request.onmerchantvalidation = function (event) {
      event.complete(api("POST", base + "/merchant-session", { validationURL: event.validationURL }, secret));
    };
    request.onpaymentmethodchange = function (event) {
      // A coupon code reaches a Payment Request page as a method change with {couponCode}.
      if (event.methodDetails && typeof event.methodDetails.couponCode === "string") {
        update(event, "/coupon-code", { couponCode: event.methodDetails.couponCode });
        return;
      }
      update(event, "/payment-method", { paymentMethod: event.methodDetails });
    };
    request.onshippingaddresschange = function (event) {
      var a = request.shippingAddress;
      update(event, "/shipping-contact", { shippingContact: { countryCode: a.country, administrativeArea: a.region, locality: a.city,
        subLocality: a.dependentLocality, postalCode: a.postalCode, addressLines: a.addressLine.slice() } });
    };
    request.onshippingoptionchange = function (event) {
      var m = methods.filter(function (x) { return x.identifier === request.shippingOption; })[0] || { identifier: request.shippingOption };
      update(event, "/shipping-method", { shippingMethod: m });
    };
    request.show().then(function (response) {
      say("Authorizing the payment…");
      return api("POST", base + "/authorize", { payment: response.details }, secret).then(function (answer) {
        var paid = answer.result.status === 0;
        // The order details for Wallet travel in complete()'s data, as ApplePayPaymentCompleteDetails.
        var details = paid && answer.result.orderDetails ? { data: { orderDetails: answer.result.orderDetails } } : undefined;
        return response.complete(paid ? "success" : "fail", details).then(function () {
          if (paid) {
            say("Paid. Showing your order…");
            var paidOrder = order;
            setTimeout(function () { location.href = afterPaid(paidOrder, secret); }, 800);
          } else {
            say("The payment was not completed: " + ((answer.result.errors || [])[0] || {}).message);
          }
        });
      }, function (e) {
        response.complete("fail");
        say("The payment could not be authorized: " + e.message);
      });
    }, function (e) {
      // Dismissed, timed out or aborted: cancel any payment in progress, as for a session.
      api("POST", base + "/cancel", {}, secret).then(function () {
        say("Payment canceled (" + e.name + "); nothing was charged. Your cart is still here.");
        order = null;
        $("checkout-panel").hidden = true;
      }).catch(function (x) { say("Payment canceled, but the store could not confirm it: " + x.message); });
    });
  }

  // Called in the click handler: the session must be created inside the user gesture.
  function startPayment() {
    if (!order) return;
    var id = order.id;
    var session;
    try {
      session = new ApplePaySession(14, order.paymentRequest);
    } catch (e) {
      say("The payment request was refused: " + e.name + ": " + e.message);
      return;
    }
    var base = "/v1/orders/" + encodeURIComponent(id);
    var secret = order.clientSecret;
    var lastUpdate = { newTotal: order.paymentRequest.total, newLineItems: order.paymentRequest.lineItems || [] };
    function update(path, body, complete) {
      api("POST", base + path, body, secret).then(function (u) { lastUpdate = u; complete(u); })
        .catch(function (e) { say("The store could not update the sheet: " + e.message); complete(lastUpdate); });
    }
    session.onvalidatemerchant = function (event) {
      api("POST", base + "/merchant-session", { validationURL: event.validationURL }, secret)
        .then(function (merchantSession) { session.completeMerchantValidation(merchantSession); })
        .catch(function (e) { say("Merchant validation failed: " + e.message); session.abort(); });
    };
    session.onpaymentmethodselected = function (event) {
      update("/payment-method", { paymentMethod: event.paymentMethod }, function (u) { session.completePaymentMethodSelection(u); });
    };
    session.onshippingcontactselected = function (event) {
      update("/shipping-contact", { shippingContact: event.shippingContact }, function (u) { session.completeShippingContactSelection(u); });
    };
    session.onshippingmethodselected = function (event) {
      update("/shipping-method", { shippingMethod: event.shippingMethod }, function (u) { session.completeShippingMethodSelection(u); });
    };
    session.oncouponcodechanged = function (event) {
      update("/coupon-code", { couponCode: event.couponCode }, function (u) { session.completeCouponCodeChange(u); });
    };
    session.onpaymentauthorized = function (event) {
      say("Authorizing the payment…");
      api("POST", base + "/authorize", { payment: event.payment }, secret).then(function (answer) {
        session.completePayment(answer.result);
        if (answer.result.status === ApplePaySession.STATUS_SUCCESS) {
          say("Paid. Showing your order…");
          // The secret travels in the fragment, which is never sent to a server or written in its logs.
          var paidOrder = order;
          setTimeout(function () { location.href = afterPaid(paidOrder, secret); }, 800);
        } else {
          say("The payment was not completed: " + ((answer.result.errors || [])[0] || {}).message);
        }
      }).catch(function (e) {
        session.completePayment({ status: ApplePaySession.STATUS_FAILURE });
        say("The payment could not be authorized: " + e.message);
      });
    };
    // The sheet was dismissed, or its deadline passed: the merchant must cancel any payment in
    // progress. The server voids or refunds a charge that went through meanwhile.
    session.oncancel = function () {
      api("POST", base + "/cancel", {}, secret).then(function (o) {
        say(o.status === "canceled" ? "Payment canceled; nothing was charged. Your cart is still here."
          : "Payment canceled; any amount taken will be returned. Your cart is still here.");
        order = null;
        $("checkout-panel").hidden = true;
      }).catch(function (e) { say("Payment canceled, but the store could not confirm it: " + e.message); });
    };
    session.begin();
  }

  $("checkout").addEventListener("click", checkout);
  $("delivery").addEventListener("change", function () { $("checkout-panel").hidden = true; order = null; });
  api("GET", "/v1/catalog").then(function (c) {
    catalog = c.products || [];
    renderPlans(c.plans || []);
    if (catalog.length) currency = catalog[0].currencyCode;
    renderCatalog();
    renderCart();
  }).catch(function (e) { $("products").textContent = "Could not load the catalog: " + e.message; });
})();
