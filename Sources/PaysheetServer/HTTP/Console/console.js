// The merchant console: a static page over the merchant server's /v1 API. It holds no data of its
// own. The merchant API key is asked for here, kept in this tab's sessionStorage only (gone when
// the tab closes, never in localStorage, a cookie or an address) and sent as Authorization:
// Bearer on every call. What the API answers is shown with textContent only; card numbers are
// shown as their network and last four digits, as the API gives them.
(function () {
  "use strict";
  var KEY = "paysheet-console-key";
  var state = { orders: null, agreements: null, reconciliations: null, poll: null, route: "", generation: 0, order: null };

  function $(id) { return document.getElementById(id); }
  function key() { try { return sessionStorage.getItem(KEY) || ""; } catch (e) { return ""; } }
  function idempotencyKey() { return window.crypto && crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random(); }

  // ---- the API ----

  function ApiError(status, body) {
    var error = (body && body.error) || {};
    this.status = status;
    this.code = error.code || "http_" + status;
    this.message = error.message || "the server answered " + status;
  }

  // One call with the key. A 401 signs out (the key was refused or revoked) and rejects.
  function api(method, path, body, idempotency) {
    var headers = { "Authorization": "Bearer " + key(), "Accept": "application/json" };
    var init = { method: method, headers: headers, cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" };
    if (method !== "GET") {
      headers["Content-Type"] = "application/json";
      headers["Idempotency-Key"] = idempotency || idempotencyKey();
      init.body = JSON.stringify(body || {});
    }
    return fetch(path, init).then(function (r) {
      showMode(r.headers.get("Paysheet-Mode"));
      return r.json().catch(function () { return {}; }).then(function (json) {
        if (r.ok) return json;
        var error = new ApiError(r.status, json);
        if (r.status === 401) signOut("The server refused the key: " + error.message);
        throw error;
      });
    });
  }

  function showMode(mode) {
    if (!mode) return;
    var badge = $("mode");
    badge.textContent = mode === "production" ? "production" : "sandbox: no real money";
    badge.hidden = false;
  }

  // ---- small helpers: text only, never HTML ----

  function el(tag, text, attrs) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    return e;
  }
  function link(text, hash) { return el("a", text, { href: hash }); }
  function cell(row, content, className) {
    var td = document.createElement("td");
    if (className) td.className = className;
    if (content instanceof Node) td.appendChild(content); else td.textContent = content === undefined || content === null ? "—" : String(content);
    row.appendChild(td);
    return td;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function pad(n) { return n < 10 ? "0" + n : String(n); }
  function localTime(iso) {
    var d = new Date(iso);
    if (isNaN(d.getTime())) return String(iso);
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  }
  function time(iso) { return iso ? el("time", localTime(iso), { datetime: iso }) : "—"; }
  // UnionPay's txnTime (YYYYMMDDhhmmss, Beijing) in words.
  function txnTime(t) {
    var m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(t || "");
    return m ? m[1] + "-" + m[2] + "-" + m[3] + " " + m[4] + ":" + m[5] + ":" + m[6] + " Beijing" : (t || "—");
  }
  // A card as the network and the last four digits it ends with: never more.
  function card(c) {
    if (!c) return "—";
    var network = c.network ? c.network.charAt(0).toUpperCase() + c.network.slice(1) : "Card";
    var digits = /(\d{4})\D*$/.exec(c.displayName || "");
    var last = digits ? digits[1] : String(c.suffix || c.cardSuffix || "").slice(-4);
    return network + " ••••" + last;
  }
  function yuan(minor) { return minor === undefined || minor === null ? "—" : (minor / 100).toFixed(2) + " CNY"; }
  function say(text, problem) {
    var live = $("live");
    live.className = problem ? "live problem" : "live";
    live.textContent = text;
  }

  // Amounts are decimal strings in the order's currency: compared and subtracted in minor units.
  function decimals(amount) { var i = String(amount).indexOf("."); return i < 0 ? 0 : String(amount).length - i - 1; }
  function minor(amount, digits) {
    var parts = String(amount).split(".");
    var fraction = (parts[1] || "").slice(0, digits);
    while (fraction.length < digits) fraction += "0";
    return parseInt(parts[0] + fraction, 10);
  }
  function format(units, digits) {
    var text = String(units);
    if (!digits) return text;
    while (text.length <= digits) text = "0" + text;
    return text.slice(0, text.length - digits) + "." + text.slice(text.length - digits);
  }

  // ---- confirmation ----

  // Asks `question` in the dialog; resolves true only for the confirming button.
  function confirmAction(question, detail, yes) {
    var dialog = $("confirm");
    if (dialog.open) return Promise.resolve(false);  // one question at a time
    $("confirm-question").textContent = question;
    $("confirm-detail").textContent = detail;
    $("confirm-yes").textContent = yes;
    return new Promise(function (resolve) {
      dialog.addEventListener("close", function done() {
        dialog.removeEventListener("close", done);
        resolve(dialog.returnValue === "yes");
      });
      dialog.returnValue = "";
      dialog.showModal();
      $("confirm-no").focus();
    });
  }

  // ---- views ----

  var VIEWS = ["signin", "orders-view", "order-view", "agreements-view", "reconciliations-view"];
  function show(id, section) {
    VIEWS.forEach(function (v) { $(v).hidden = v !== id; });
    $("nav").hidden = id === "signin";
    Array.prototype.forEach.call(document.querySelectorAll("[data-nav]"), function (a) {
      if (a.getAttribute("data-nav") === section) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
    });
  }

  function signOut(message) {
    try { sessionStorage.removeItem(KEY); } catch (e) { /* nothing kept */ }
    stopPolling();
    // Nothing the key read stays on the page.
    ["orders-table", "payments-table", "agreements-table", "reconciliations-table", "differences-table"].forEach(function (t) {
      clear(document.querySelector("#" + t + " tbody"));
    });
    clear($("timeline")); clear($("order-summary")); clear($("report-summary"));
    $("signin-message").textContent = message || "";
    say("");
    show("signin");
    $("api-key").value = "";
    $("api-key").focus();
  }

  function stopPolling() {
    state.generation += 1;
    if (state.poll) { clearTimeout(state.poll); state.poll = null; }
  }

  function route() {
    stopPolling();
    if (!key()) { signOut($("signin-message").textContent || "Enter a merchant API key: this console shows nothing without it."); return; }
    var hash = location.hash.slice(1) || "orders";
    var parts = hash.split("/");
    var arg = parts[1] ? decodeURIComponent(parts.slice(1).join("/")) : "";
    var moved = state.route !== "" && state.route !== hash;
    state.route = hash;
    var shown;
    if (parts[0] === "order" && arg) shown = showOrder(arg);
    else if (parts[0] === "agreements") shown = showAgreements();
    else if (parts[0] === "reconciliations" || parts[0] === "reconciliation") shown = showReconciliations(arg);
    else shown = showOrders();
    // A new view: its heading takes the focus, so that a screen reader says where it is.
    if (moved && shown) { shown.setAttribute("tabindex", "-1"); shown.focus(); }
  }

  function failed(what) {
    return function (e) { if (e && e.status !== 401) say(what + ": " + (e.message || e), true); };
  }

  // ---- orders ----

  function orderQuery(before) {
    var q = ["limit=20"];
    var status = $("filter-status").value;
    if (status) q.push("status=" + encodeURIComponent(status));
    // Dates are the browser's own days: from its midnight, to the next midnight.
    var from = $("filter-from").value, to = $("filter-to").value;
    if (from) q.push("createdFrom=" + encodeURIComponent(new Date(from + "T00:00:00").toISOString()));
    if (to) { var end = new Date(to + "T00:00:00"); end.setDate(end.getDate() + 1); q.push("createdTo=" + encodeURIComponent(end.toISOString())); }
    if (before) q.push("before=" + encodeURIComponent(before));
    return "/v1/orders?" + q.join("&");
  }

  function showOrders() {
    show("orders-view", "orders");
    loadOrders(null);
    return $("orders-title");
  }

  function loadOrders(before) {
    var body = document.querySelector("#orders-table tbody");
    return api("GET", orderQuery(before)).then(function (page) {
      if (!before) clear(body);
      page.orders.forEach(function (o) { body.appendChild(orderRow(o)); });
      if (!before && !page.orders.length) {
        var row = el("tr"); var td = cell(row, "No order matches these filters."); td.colSpan = 7; body.appendChild(row);
      }
      state.orders = page.next || null;
      $("orders-more").hidden = !page.next;
      $("orders-caption").textContent = "Orders, newest first" + ($("filter-status").value ? ", " + $("filter-status").value : "");
    }).catch(failed("The orders could not be read"));
  }

  function orderRow(o) {
    var row = el("tr", null, { "data-order": o.id });
    cell(row, link(o.id, "#order/" + encodeURIComponent(o.id)), "id");
    cell(row, time(o.createdAt));
    cell(row, o.status).setAttribute("data-field", "status");
    cell(row, o.amount + " " + o.currencyCode, "number");
    cell(row, o.paid, "number");
    cell(row, o.refunded, "number");
    var charge = (o.payments || []).filter(function (p) { return p.kind === "charge" && p.card; }).pop();
    cell(row, charge ? card(charge.card) : "—");
    return row;
  }

  // ---- one order: its payments and their timeline ----

  function showOrder(id) {
    show("order-view", "orders");
    $("order-id").textContent = id;
    loadOrder(id, 0, ++state.generation);
    return $("order-title");
  }

  // `generation`: a newer read of the order (another view, an action) ends this one's polling.
  function loadOrder(id, polls, generation) {
    return api("GET", "/v1/orders/" + encodeURIComponent(id)).then(function (o) {
      if (generation !== state.generation) return;
      renderOrder(o);
      // A payment not yet certain: read the order again until the acquirer has answered.
      var open = (o.payments || []).some(function (p) { return ["submitting", "accepted", "unknown"].indexOf(p.state) >= 0; });
      if (open && polls < 60) state.poll = setTimeout(function () { loadOrder(id, polls + 1, generation); }, 1000);
    }).catch(function (e) {
      if (e.status === 404) { clear($("order-summary")); say("There is no order " + id + ".", true); return; }
      failed("The order could not be read")(e);
    });
  }

  function renderOrder(o) {
    state.order = o;
    $("order-id").textContent = o.id;
    var dl = $("order-summary");
    clear(dl);
    var facts = [["Status", o.status, "status"], ["Amount", o.amount + " " + o.currencyCode, "amount"],
      ["Paid", o.paid + " " + o.currencyCode, "paid"], ["Refunded", o.refunded + " " + o.currencyCode, "refunded"],
      ["Created", time(o.createdAt), "created"],
      ["Items", (o.lineItems || []).map(function (i) { return i.label + " " + i.amount; }).join("; ") || "—", "items"]];
    if (o.agreementId) facts.push(["Agreement", link(o.agreementId, "#agreements"), "agreement"]);
    facts.forEach(function (f) {
      dl.appendChild(el("dt", f[0]));
      var dd = el("dd", null, { "data-field": f[2] });
      if (f[1] instanceof Node) dd.appendChild(f[1]); else dd.textContent = f[1];
      dl.appendChild(dd);
    });
    renderActions(o);
    renderPayments(o);
    renderTimeline(o);
  }

  function renderActions(o) {
    var digits = decimals(o.amount);
    var left = minor(o.paid, digits) - minor(o.refunded, digits);
    var refundable = (o.status === "paid" || o.status === "partially_refunded") && left > 0;
    $("refund-form").hidden = !refundable;
    if (refundable && $("refund-form").getAttribute("data-order") !== o.id) {
      $("refund-amount").value = format(left, digits);
      $("refund-form").setAttribute("data-order", o.id);
    }
    $("refund-currency").textContent = o.currencyCode;
    $("void").hidden = o.status !== "paid";
    $("cancel-order").hidden = !(o.status === "created" || o.status === "pending");
  }

  function renderPayments(o) {
    var body = document.querySelector("#payments-table tbody");
    clear(body);
    (o.payments || []).forEach(function (p) {
      var row = el("tr", null, { "data-payment": p.id || "" });
      cell(row, p.id, "id");
      cell(row, p.kind);
      cell(row, p.state).setAttribute("data-field", "state");
      cell(row, p.amount + " " + o.currencyCode, "number");
      cell(row, card(p.card));
      cell(row, p.acquirerReference, "id");
      cell(row, p.resultCode ? p.resultCode + (p.reason ? " — " + p.reason : "") : p.reason);
      body.appendChild(row);
    });
    if (!(o.payments || []).length) { var row = el("tr"); cell(row, "No payment yet.").colSpan = 7; body.appendChild(row); }
  }

  var NOUNS = { charge: "Charge", refund: "Refund", "void": "Void" };
  var DONE = { charge: "paid", refund: "completed", "void": "completed" };

  // One history row in words: submitted, accepted, notified, queried, and where it ended.
  function step(kind, e) {
    var noun = NOUNS[kind] || kind;
    if (!e.from) return { step: "submitted", text: noun + " submitted to the acquirer" };
    if (e.to === "accepted") return { step: "accepted", text: noun + " accepted by the acquirer" };
    if (e.to === "unknown") return { step: "unknown", text: noun + ": no certain answer; the server queries" };
    var via = /^notification/.test(e.cause) ? "notified" : /^query/.test(e.cause) ? "queried" : "answered";
    var outcome = e.to === "succeeded" ? (DONE[kind] || "succeeded") : e.to === "failed" ? "failed" : e.to === "held" ? "held for review" : e.to;
    var how = via === "notified" ? " (the acquirer's notification)" : via === "queried" ? " (the server's query)" : "";
    return { step: via, text: noun + " " + outcome + how };
  }

  function renderTimeline(o) {
    var entries = [{ at: o.createdAt, seq: 0, index: -1, step: "created", text: "Order created", detail: o.amount + " " + o.currencyCode, kind: "order", to: "created" }];
    (o.payments || []).forEach(function (p, index) {
      (p.history || []).forEach(function (e) {
        var s = step(p.kind, e);
        entries.push({ at: e.at, seq: e.sequence, index: index, step: s.step, text: s.text + " — " + p.amount + " " + o.currencyCode, detail: e.cause, kind: p.kind, to: e.to, payment: p.id });
      });
    });
    entries.sort(function (a, b) { return new Date(a.at) - new Date(b.at) || a.index - b.index || a.seq - b.seq; });
    var list = $("timeline");
    clear(list);
    entries.forEach(function (e) {
      var li = el("li", null, { "data-kind": e.kind, "data-step": e.step, "data-state": e.to });
      li.appendChild(time(e.at));
      li.appendChild(el("span", e.text, { "class": "step" }));
      li.appendChild(el("span", e.detail + (e.payment ? " · " + e.payment : ""), { "class": "cause" }));
      list.appendChild(li);
    });
  }

  function orderAction(kind) {
    var o = state.order;
    if (!o) return;
    var amount, question, detail, yes, path, body = {};
    if (kind === "refund") {
      var digits = decimals(o.amount);
      var typed = $("refund-amount").value.trim();
      if (!/^\d+(\.\d+)?$/.test(typed) || decimals(typed) > digits) { say("Enter the amount to refund as " + format(minor(o.amount, digits), digits) + " is written.", true); $("refund-amount").focus(); return; }
      amount = format(minor(typed, digits), digits);
      question = "Refund " + amount + " " + o.currencyCode + " of order " + o.id + "?";
      detail = "The money goes back to the shopper's card. A refund cannot be taken back.";
      yes = "Refund " + amount + " " + o.currencyCode;
      path = "/refunds"; body = { amount: amount };
    } else if (kind === "void") {
      question = "Void the payment of " + o.paid + " " + o.currencyCode + " of order " + o.id + "?";
      detail = "The whole charge is canceled at the acquirer: possible on its clearing day only, before any refund.";
      yes = "Void the payment"; path = "/void";
    } else {
      question = "Cancel order " + o.id + "?";
      detail = "No payment is taken after this; a payment in progress is returned when it completes.";
      yes = "Cancel the order"; path = "/cancel";
    }
    confirmAction(question, detail, yes).then(function (confirmed) {
      if (!confirmed) { say("Nothing was done."); return; }
      say("Sending…");
      api("POST", "/v1/orders/" + encodeURIComponent(o.id) + path, body, idempotencyKey()).then(function (after) {
        say(kind === "refund" ? "Refund of " + amount + " " + o.currencyCode + " sent for order " + o.id + ": order " + after.status + "."
          : kind === "void" ? "Void sent for order " + o.id + ": order " + after.status + "."
          : "Order " + o.id + " canceled: " + after.status + ".");
        $("refund-form").removeAttribute("data-order");
        stopPolling();
        loadOrder(o.id, 0, ++state.generation);
      }).catch(function (e) { if (e.status !== 401) say("Refused: " + e.message + " (" + e.code + ")", true); });
    });
  }

  // ---- agreements ----

  function showAgreements() {
    show("agreements-view", "agreements");
    loadAgreements(null);
    return $("agreements-title");
  }

  function loadAgreements(before) {
    var body = document.querySelector("#agreements-table tbody");
    return api("GET", "/v1/agreements?limit=20" + (before ? "&before=" + encodeURIComponent(before) : "")).then(function (page) {
      if (!before) clear(body);
      page.agreements.forEach(function (a) { body.appendChild(agreementRow(a)); });
      if (!before && !page.agreements.length) { var row = el("tr"); cell(row, "No agreement yet.").colSpan = 8; body.appendChild(row); }
      state.agreements = page.next || null;
      $("agreements-more").hidden = !page.next;
    }).catch(failed("The agreements could not be read"));
  }

  function agreementRow(a) {
    var row = el("tr", null, { "data-agreement": a.id });
    cell(row, a.id, "id");
    cell(row, a.description + " (" + a.plan + ")");
    cell(row, a.status + (a.canceledBecause ? ": " + a.canceledBecause : "")).setAttribute("data-field", "status");
    cell(row, a.amount + " " + a.currencyCode + (a.interval ? " every " + a.interval : ""), "number");
    var c = a.card || {};
    cell(row, card({ network: c.network, suffix: c.cardSuffix || c.tokenSuffix }) + (c.tokenStatus && c.tokenStatus !== "active" ? " (token " + c.tokenStatus + ")" : ""));
    cell(row, time(a.nextChargeDue));
    var charges = el("ul", null, { "class": "charges" });
    var first = el("li"); first.appendChild(link(a.orderId, "#order/" + encodeURIComponent(a.orderId))); first.appendChild(document.createTextNode(" first payment")); charges.appendChild(first);
    (a.charges || []).forEach(function (c) {
      var li = el("li");
      if (c.orderId) li.appendChild(link(c.orderId, "#order/" + encodeURIComponent(c.orderId)));
      li.appendChild(document.createTextNode(" " + c.status));
      charges.appendChild(li);
    });
    cell(row, charges, "id");
    var actions = cell(row, "");
    if (a.status === "active") actions.appendChild(actionButton("Charge now…", "charge", function () { agreementAction(a, "charge"); }));
    if (a.status !== "canceled") actions.appendChild(actionButton("Cancel…", "cancel", function () { agreementAction(a, "cancel"); }));
    return row;
  }

  function actionButton(text, action, onClick) {
    var b = el("button", text, { type: "button", "data-action": action });
    b.addEventListener("click", onClick);
    return b;
  }

  function agreementAction(a, kind) {
    var charge = kind === "charge";
    var question = charge ? "Charge agreement " + a.id + " " + a.amount + " " + a.currencyCode + " now?" : "Cancel agreement " + a.id + "?";
    var detail = charge ? "The stored merchant token is charged for the plan's amount; a subscription only once its period is due."
      : "No charge is made after it. The shopper keeps what was paid.";
    confirmAction(question, detail, charge ? "Charge " + a.amount + " " + a.currencyCode : "Cancel the agreement").then(function (confirmed) {
      if (!confirmed) { say("Nothing was done."); return; }
      api("POST", "/v1/agreements/" + encodeURIComponent(a.id) + (charge ? "/charges" : "/cancel"), {}, idempotencyKey()).then(function (after) {
        say(charge ? "Agreement " + a.id + " charged: order " + after.charge.id + " is " + after.charge.status + "." : "Agreement " + a.id + " canceled.");
        loadAgreements(null);
      }).catch(function (e) { if (e.status !== 401) say("Refused: " + e.message + " (" + e.code + ")", true); });
    });
  }

  // ---- reconciliation ----

  function beijingDay(offsetDays) {
    var d = new Date(Date.now() + 8 * 3600 * 1000 + offsetDays * 86400 * 1000);
    return d.toISOString().slice(0, 10).replace(/-/g, "");
  }

  function showReconciliations(day) {
    show("reconciliations-view", "reconciliations");
    if (!$("reconcile-day").value) $("reconcile-day").value = beijingDay(-1);
    loadReconciliations(null);
    if (day) showReport(day); else $("report").hidden = true;
    return $("reconciliations-title");
  }

  function loadReconciliations(before) {
    var body = document.querySelector("#reconciliations-table tbody");
    return api("GET", "/v1/reconciliations?limit=30" + (before ? "&before=" + encodeURIComponent(before) : "")).then(function (page) {
      if (!before) clear(body);
      page.reconciliations.forEach(function (r) {
        var row = el("tr", null, { "data-day": r.day });
        cell(row, link(r.day, "#reconciliation/" + encodeURIComponent(r.day)));
        cell(row, time(r.checkedAt));
        cell(row, r.fileTransactions, "number");
        cell(row, r.matched, "number");
        cell(row, r.awaitingNextFile, "number");
        cell(row, r.differenceCount ? r.differenceCount + " to look into" : "none: the day balances").setAttribute("data-field", "differences");
        body.appendChild(row);
      });
      if (!before && !page.reconciliations.length) { var row = el("tr"); cell(row, "No day reconciled yet.").colSpan = 6; body.appendChild(row); }
      state.reconciliations = page.next || null;
      $("reconciliations-more").hidden = !page.next;
    }).catch(failed("The reports could not be read"));
  }

  var KINDS = {
    unknownToUs: "Unknown to us: the acquirer settled a transaction no payment here sent",
    notSucceededHere: "Not succeeded here: the acquirer settled it, the payment here did not succeed",
    amountMismatch: "Amounts differ",
    missingAtAcquirer: "Missing at the acquirer: succeeded here, in neither that day's file nor the next",
  };

  function showReport(day) {
    return api("GET", "/v1/reconciliations/" + encodeURIComponent(day)).then(function (r) {
      $("report").hidden = false;
      $("report-day").textContent = r.day;
      var dl = $("report-summary");
      clear(dl);
      [["File", r.fileName], ["Checked", localTime(r.checkedAt)], ["Transactions in the file", r.fileTransactions], ["Matched", r.matched],
       ["Awaiting the next day's file", r.awaitingNextFile], ["Differences", r.differences.length]].forEach(function (f) {
        dl.appendChild(el("dt", f[0])); dl.appendChild(el("dd", f[1]));
      });
      var body = document.querySelector("#differences-table tbody");
      clear(body);
      r.differences.forEach(function (d) {
        var row = el("tr", null, { "data-kind": d.kind });
        cell(row, KINDS[d.kind] || d.kind);
        cell(row, d.orderId ? link(d.orderId, "#order/" + encodeURIComponent(d.orderId)) : "—", "id");
        cell(row, d.acquirerOrderId + " at " + txnTime(d.txnTime), "id");
        cell(row, yuan(d.amountHere), "number");
        cell(row, yuan(d.amountInFile), "number");
        cell(row, d.detail);
        body.appendChild(row);
      });
      if (!r.differences.length) { var row = el("tr"); cell(row, "None: the day balances.").colSpan = 6; body.appendChild(row); }
    }).catch(function (e) {
      if (e.status === 404) { $("report").hidden = true; say("No report of " + day + " is stored.", true); return; }
      failed("The report could not be read")(e);
    });
  }

  function reconcile(event) {
    event.preventDefault();
    var day = $("reconcile-day").value.trim();
    if (!/^\d{8}$/.test(day)) { say("Enter the clearing day as YYYYMMDD.", true); $("reconcile-day").focus(); return; }
    say("Reconciling " + day + "…");
    api("POST", "/v1/reconciliations", { day: day }, idempotencyKey()).then(function (r) {
      say("Reconciled " + r.day + ": " + r.fileTransactions + " transactions in the file, " + r.matched + " matched, " + r.differences.length + " difference" + (r.differences.length === 1 ? "" : "s") + ".");
      loadReconciliations(null);
      if (location.hash === "#reconciliation/" + day) showReport(day); else location.hash = "#reconciliation/" + day;
    }).catch(function (e) { if (e.status !== 401) say("Not reconciled: " + e.message + " (" + e.code + ")", true); });
  }

  // ---- wiring ----

  $("signin-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var typed = $("api-key").value.trim();
    $("api-key").value = "";
    if (!typed) return;
    // The key is tried on a listing before it is kept.
    fetch("/v1/orders?limit=1", { headers: { "Authorization": "Bearer " + typed }, cache: "no-store", credentials: "omit" }).then(function (r) {
      showMode(r.headers.get("Paysheet-Mode"));
      return r.json().catch(function () { return {}; }).then(function (json) {
        if (!r.ok) { $("signin-message").textContent = "The server refused this key: " + new ApiError(r.status, json).message; $("api-key").focus(); return; }
        try { sessionStorage.setItem(KEY, typed); } catch (e) { $("signin-message").textContent = "This browser keeps nothing for this tab (sessionStorage is off)."; return; }
        $("signin-message").textContent = "";
        state.route = "";
        if (!location.hash) history.replaceState(null, "", "#orders");
        route();
      });
    }).catch(function (e) { $("signin-message").textContent = "The server could not be reached: " + e.message; });
  });
  $("sign-out").addEventListener("click", function () { signOut("Signed out: the key was removed from this tab."); });
  $("order-filters").addEventListener("submit", function (event) { event.preventDefault(); loadOrders(null); });
  $("order-lookup").addEventListener("submit", function (event) {
    event.preventDefault();
    var id = $("lookup-id").value.trim();
    if (id) location.hash = "#order/" + encodeURIComponent(id);
  });
  $("orders-more").addEventListener("click", function () { if (state.orders) loadOrders(state.orders); });
  $("agreements-more").addEventListener("click", function () { if (state.agreements) loadAgreements(state.agreements); });
  $("reconciliations-more").addEventListener("click", function () { if (state.reconciliations) loadReconciliations(state.reconciliations); });
  $("refund-form").addEventListener("submit", function (event) { event.preventDefault(); orderAction("refund"); });
  $("void").addEventListener("click", function () { orderAction("void"); });
  $("cancel-order").addEventListener("click", function () { orderAction("cancel"); });
  $("reconcile-form").addEventListener("submit", reconcile);
  window.addEventListener("hashchange", route);
  route();
})();
