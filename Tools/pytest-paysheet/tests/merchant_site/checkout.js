// A merchant's checkout page: ApplePaySession and the Payment Request API's Apple Pay method, and
// the merchant's own back end (/api, same origin), which holds the API key. No word of Paysheet.
(function () {
  "use strict";
  var orderId = new URLSearchParams(location.search).get("order");
  var order = null;
  function $(id) { return document.getElementById(id); }
  function say(text) { $("message").textContent = text; }

  function api(path, body) {
    var init = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
    return fetch("/api/orders/" + encodeURIComponent(orderId) + path, init).then(function (r) {
      return r.json().then(function (json) {
        if (!r.ok) throw new Error((json.error && json.error.message) || "HTTP " + r.status);
        return json;
      });
    });
  }

  api("").then(function (o) {
    order = o;
    $("summary").textContent = "Order " + o.id + ": " + o.amount + " " + o.currencyCode;
    if (window.ApplePaySession && ApplePaySession.canMakePayments()) $("buttons").hidden = false;
    else say("This browser cannot pay with a wallet.");
  }).catch(function (e) { $("summary").textContent = "Could not load the order: " + e.message; });

  function paid(answer) {
    var ok = answer.result.status === 0;
    say(ok ? "Paid " + answer.order.amount + " " + answer.order.currencyCode + ". Thank you!"
      : "The payment was declined: " + ((answer.result.errors || [])[0] || {}).message);
    return ok;
  }

  // Called in the click handler: the session is created inside the user gesture.
  $("pay").addEventListener("click", function () {
    var session = new ApplePaySession(14, order.paymentRequest);
    var last = { newTotal: order.paymentRequest.total, newLineItems: order.paymentRequest.lineItems || [] };
    function update(path, body, complete) {
      api(path, body).then(function (u) { last = u; complete(u); }, function () { complete(last); });
    }
    session.onvalidatemerchant = function (e) {
      api("/merchant-session", { validationURL: e.validationURL })
        .then(function (s) { session.completeMerchantValidation(s); }, function () { session.abort(); });
    };
    session.onpaymentmethodselected = function (e) {
      update("/payment-method", { paymentMethod: e.paymentMethod }, function (u) { session.completePaymentMethodSelection(u); });
    };
    session.onshippingcontactselected = function (e) {
      update("/shipping-contact", { shippingContact: e.shippingContact }, function (u) { session.completeShippingContactSelection(u); });
    };
    session.onshippingmethodselected = function (e) {
      update("/shipping-method", { shippingMethod: e.shippingMethod }, function (u) { session.completeShippingMethodSelection(u); });
    };
    session.oncouponcodechanged = function (e) {
      update("/coupon-code", { couponCode: e.couponCode }, function (u) { session.completeCouponCodeChange(u); });
    };
    session.onpaymentauthorized = function (e) {
      api("/authorize", { payment: e.payment }).then(function (answer) {
        session.completePayment(answer.result);
        paid(answer);
      }, function (err) {
        session.completePayment({ status: ApplePaySession.STATUS_FAILURE });
        say("The payment could not be authorized: " + err.message);
      });
    };
    session.oncancel = function () {
      api("/cancel", {}).then(function () { say("Payment canceled; nothing was charged."); });
    };
    session.begin();
  });

  // The same order through the Payment Request API.
  $("pay-request").addEventListener("click", function () {
    var r = order.paymentRequest;
    function amount(v) { return { currency: r.currencyCode, value: v }; }
    var data = { version: 14, merchantIdentifier: r.merchantIdentifier || "merchant.tea.shop", countryCode: r.countryCode,
      supportedNetworks: r.supportedNetworks, merchantCapabilities: r.merchantCapabilities, applicationData: r.applicationData };
    var request = new PaymentRequest([{ supportedMethods: "https://apple.com/apple-pay", data: data }],
      { total: { label: r.total.label, amount: amount(r.total.amount) },
        displayItems: (r.lineItems || []).map(function (i) { return { label: i.label, amount: amount(i.amount) }; }) });
    request.onmerchantvalidation = function (e) { e.complete(api("/merchant-session", { validationURL: e.validationURL })); };
    request.show().then(function (response) {
      return api("/authorize", { payment: response.details }).then(function (answer) {
        return response.complete(paid(answer) ? "success" : "fail");
      });
    }, function (e) {
      api("/cancel", {}).then(function () { say("Payment canceled (" + e.name + "); nothing was charged."); });
    });
  });
})();
