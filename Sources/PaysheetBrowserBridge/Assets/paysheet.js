/*
 * paysheet.js — a drop-in ApplePaySession for testing a checkout for Apple Pay in any browser.
 *
 * Load it before the page's own code:
 *   <script src="http://127.0.0.1:8080/paysheet.js"></script>
 *
 * It is a thin client. Every rule and every state lives in the Paysheet sheet engine on the
 * server that served this file (the same engine as `paysheet sheet test`): each call is sent to
 * it synchronously and its answer is applied here — throw the exception it names, return the
 * value it gives, dispatch the events it lists, draw the simulated sheet it describes.
 *
 * Options, as attributes of the <script> element:
 *   data-require-user-gesture="false"   let sessions be created outside a click handler
 *   data-clock="virtual"                time passes only through paysheet.advanceClock(seconds)
 *   data-wallet='{"cards": [...]}'      the simulated user's wallet (the scenario format's)
 *   data-options='{"timeoutSeconds": 30}'  the scenario format's options ({"language": "ja"} picks the
 *                                       sheet's language; by default the browser's languages do)
 *
 * Injected before the page's own scripts instead (Playwright's init scripts, the DevTools
 * protocol's Page.addScriptToEvaluateOnNewDocument), with no <script> element of its own, it reads
 * `window.PAYSHEET_CONFIG`, set before it in the same injected text:
 *   window.PAYSHEET_CONFIG = {server: "http://127.0.0.1:8080", requireUserGesture: true,
 *     clock: "virtual", wallet: {...}, options: {...}, merchantSessions: "checked"};
 * (`server` is where `paysheet serve` listens; the rest are `paysheet.configure`'s options).
 *
 * Test scripts (Selenium, Playwright, Cypress) drive the sheet through `window.paysheet`.
 * This is a simulation: no real payment sheet is shown and no real card is charged.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  // Injected: no <script src> of its own. A document's empty first page (about:blank, which every
  // tab and frame starts with) gets nothing; one copy per document (a second logs and returns).
  var fromSrc = !!(script && script.src);
  if (!fromSrc && location.href === "about:blank") return;
  var injected = fromSrc ? undefined : window.PAYSHEET_CONFIG;
  if (window.paysheet && window.paysheet.pageId) {
    console.warn("Paysheet: paysheet.js is already on this page; this copy does nothing");
    return;
  }
  var base = script && script.src ? new URL(".", script.src).href.replace(/\/$/, "") : injectedServer(injected);
  /** `PAYSHEET_CONFIG.server` without its final slash ("" without one: this document's origin). */
  function injectedServer(config) {
    if (config === undefined) return "";
    if (config === null || typeof config !== "object") throw new TypeError("Paysheet: window.PAYSHEET_CONFIG must be an object such as {server: \"http://127.0.0.1:8080\"}");
    if (config.server === undefined) return "";
    var url;
    try { url = new URL(String(config.server)); } catch (e) { url = null; }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      throw new TypeError("Paysheet: PAYSHEET_CONFIG.server must be the http(s) URL of paysheet serve, such as \"http://127.0.0.1:8080\" (got " + JSON.stringify(config.server) + ")");
    }
    return url.origin + url.pathname.replace(/\/$/, "");
  }
  // The engine issues the page's id (its only credential for this page's sheet).
  var pageId = (function () {
    var xhr = new XMLHttpRequest();
    xhr.open("POST", base + "/paysheet/v1/pages", false);
    xhr.setRequestHeader("Content-Type", "text/plain;charset=UTF-8");
    xhr.send("{}");
    var body = null;
    try { body = JSON.parse(xhr.responseText); } catch (e) { body = null; }
    if (xhr.status !== 201 || !body || !body.page) {
      throw new Error("Paysheet: the sheet engine did not open a page (HTTP " + xhr.status + ")" +
        (body && body.error ? ": " + body.error.message : ""));
    }
    return body.page;
  })();
  var endpoint = base + "/paysheet/v1/pages/" + pageId;

  // ---- The bridge --------------------------------------------------------------------------

  var lastRendered = 0;
  var requestSeq = 0;

  /**
   * Where this document sits, for the engine's frame rules (Safari's): its origin, its ancestors'
   * (parent first, top last) and whether the permissions policy allows it `payment`. The browser
   * answers; the engine decides.
   */
  function frameContext() {
    var origins = [location.protocol + "//" + location.host];
    if (window.top !== window) {
      if (location.ancestorOrigins) {
        for (var i = 0; i < location.ancestorOrigins.length; i++) origins.push(location.ancestorOrigins[i]);
      } else {
        for (var w = window; w !== w.parent; w = w.parent) {
          try { origins.push(w.parent.location.origin); } catch (e) { origins.push(null); }
        }
      }
    }
    var policy = document.permissionsPolicy || document.featurePolicy;
    var allowed = null;
    try { if (policy && typeof policy.allowsFeature === "function") allowed = !!policy.allowsFeature("payment"); } catch (e) { allowed = null; }
    return { origins: origins, paymentAllowed: allowed };
  }
  /** The browser's languages, most preferred first: the sheet speaks the first the engine can. */
  function browserLanguages() {
    var list = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
    return Array.prototype.slice.call(list);
  }
  // The operations that create a session or a request or ask about the wallet: each tells the
  // engine where the page is (its frame), its domain (for merchant sessions), the browser's
  // languages (for the sheet's words) and whether it runs under WebKit's test runner, whose mock
  // coordinator stands in for the sheet.
  var PAGE_FACT_OPS = { construct: true, "static": true, paymentRequest: true };

  // The engine's message for a call with too few arguments (ScriptError.notEnoughArguments; a
  // Swift test checks they agree). Only this check runs here, before the call reaches the engine.
  var NOT_ENOUGH_ARGUMENTS = "Not enough arguments";
  function requireArguments(list, count) {
    if (list.length < count) throw new TypeError(NOT_ENOUGH_ARGUMENTS);
  }

  /** Sends `op` to the engine and waits for the answer (synchronous, as the API is). */
  function bridge(op) {
    if (PAGE_FACT_OPS[op.op]) Object.assign(op, { frame: frameContext(), webKitMock: underWebKitRunner(), pageDomain: location.hostname, languages: browserLanguages() });
    var xhr = new XMLHttpRequest();
    xhr.open("POST", endpoint, false);
    // text/plain keeps the request "simple" so that a page on another origin needs no preflight.
    xhr.setRequestHeader("Content-Type", "text/plain;charset=UTF-8");
    var seq = ++requestSeq;
    xhr.send(JSON.stringify(op));
    return answer(xhr.status, xhr.responseText, seq);
  }

  /** The same, asynchronously (the clock's ticks). */
  function bridgeAsync(op) {
    var seq = ++requestSeq;
    return fetch(endpoint, { method: "POST", headers: { "Content-Type": "text/plain;charset=UTF-8" }, body: JSON.stringify(op) })
      .then(function (r) { return r.text().then(function (t) { return answer(r.status, t, seq); }); });
  }

  function answer(status, text, seq) {
    var body;
    try { body = JSON.parse(text); } catch (e) { body = null; }
    if (status !== 200 || !body) {
      var msg = body && body.error ? body.error.message + (body.error.field ? " (" + body.error.field + ")" : "") : "HTTP " + status;
      throw new Error("Paysheet: the sheet engine refused the call: " + msg);
    }
    if (seq > lastRendered) {
      lastRendered = seq;
      state.last = body;
      render(body);
    }
    queueEvents(body.events || []);
    return body;
  }

  /** The page's exception for the engine's `{name, message}`. */
  function exception(t) {
    if (t.name === "TypeError") return new TypeError(t.message);
    if (t.name === "RangeError") return new RangeError(t.message);
    return new DOMException(t.message, t.name);
  }

  function result(body) {
    if (body.threw) throw exception(body.threw);
    return body.returned;
  }

  /** A page value as JSON, as the engine's WebIDL binding expects it. */
  function wire(value) {
    if (value === undefined) return null;
    return JSON.parse(JSON.stringify(value, function (key, v) {
      if (v === undefined) return undefined;
      if (typeof v === "number" && !isFinite(v)) return String(v);
      return v;
    }) || "null");
  }

  function wireRequest(request) {
    if (request === null || typeof request !== "object") return wire(request);
    var copy = Object.assign({}, request);
    if (request.applicationData !== undefined && typeof request.applicationData !== "string") {
      // `applicationData` is a DOMString: convert it as the binding does (this may throw the page's own error).
      copy.applicationData = String(request.applicationData);
    }
    return wire(withMetadataText(copy));
  }

  /** The binding keeps `installmentConfiguration.applicationMetadata` as the text JSON.stringify makes of it. */
  function withMetadataText(request) {
    var ic = request.installmentConfiguration;
    if (ic !== null && typeof ic === "object") {
      var copy = Object.assign({}, ic);
      if (ic.applicationMetadata !== undefined) copy.applicationMetadata = JSON.stringify(ic.applicationMetadata);
      // A Date is an object to the binding (a sequence it cannot iterate), not the string JSON makes of it.
      if (ic.items instanceof Date) copy.items = {};
      request.installmentConfiguration = copy;
    }
    return request;
  }

  /** A PaymentRequest's method data, each Apple Pay method's data converted as `wireRequest` does. */
  function wireMethodData(methodData) {
    if (!Array.isArray(methodData)) return wire(methodData);
    return methodData.map(function (m) {
      if (m === null || typeof m !== "object" || m.data === null || typeof m.data !== "object") return wire(m);
      return Object.assign(wire(m), { data: wire(withMetadataText(Object.assign({}, m.data))) });
    });
  }

  /** Whether the page runs under WebKit's test runner, whose mock coordinator stands in for the sheet. */
  /** Whether this document is fully active: still its window's document, and each frame above it
   * in its parent's document (HTML's "fully active"); unknown across origins counts as active. */
  function fullyActive() {
    try {
      if (!document.defaultView || document !== window.document) return false;
      var w = window;
      while (w.parent && w.parent !== w) {
        var frame = w.frameElement;
        if (!frame || frame.ownerDocument !== w.parent.document || !frame.isConnected) return false;
        w = w.parent;
      }
      return true;
    } catch (e) { return true; }
  }

  /** Whether this page's simulated sheet is shown. */
  function sheetShown() { var s = state.last && state.last.sheet; return !!(s && s.visible); }

  /** Whether another same-origin document of this top-level browsing context shows a sheet. */
  function anotherDocumentShowing() {
    var found = false;
    function visit(w) {
      if (found) return;
      try {
        if (w !== window && w.paysheet && typeof w.paysheet.isShowing === "function" && w.paysheet.isShowing()) { found = true; return; }
        for (var i = 0; i < w.frames.length; i++) visit(w.frames[i]);
      } catch (e) { /* another origin */ }
    }
    try { visit(window.top); } catch (e) { return false; }
    return found;
  }

  function underWebKitRunner() { return typeof window.internals === "object" && window.internals !== null; }

  function args(list) {
    var a = Array.prototype.slice.call(list);
    while (a.length && a[a.length - 1] === undefined) a.pop();
    return a.map(wire);
  }

  // ---- User gestures (Safari's rule: a session is created in a user-gesture handler) ----------

  var gesture = 0;
  var activation = 0; // this window's trusted input events, counted
  var consumed = null; // the activation PaymentRequest.show() consumed
  ["click", "mousedown", "mouseup", "pointerdown", "pointerup", "touchstart", "touchend", "keydown", "keyup"].forEach(function (type) {
    window.addEventListener(type, function (e) {
      if (!e.isTrusted) return; // el.click() from a script is no gesture
      gesture++;
      activation++;
      setTimeout(function () { gesture--; }, 0);
    }, true);
  });
  /** Whether this window, or a same-origin window above it, is in a user gesture (HTML's
   * activation notification reaches same-origin descendants). */
  function inGesture() {
    if (gesture > 0) return true;
    try { return window.parent !== window && !!window.parent.paysheet && window.parent.paysheet.inUserGesture(); } catch (e) { return false; }
  }
  /** Which activation this window is in: its own input event, or a same-origin parent's; null. */
  function currentActivation() {
    if (gesture > 0) return "self:" + activation;
    try {
      if (window.parent !== window && window.parent.paysheet && window.parent.paysheet.inUserGesture()) {
        return "parent:" + window.parent.paysheet.activationId();
      }
    } catch (e) { /* another origin */ }
    return null;
  }
  /** `show()`'s check: a transient activation not yet consumed, which it consumes. */
  function consumeGesture() {
    var a = currentActivation();
    if (!a || a === consumed) return false;
    consumed = a;
    return true;
  }

  // ---- Events ------------------------------------------------------------------------------

  var EVENT_TYPES = ["validatemerchant", "paymentmethodselected", "shippingcontactselected", "shippingmethodselected",
    "couponcodechanged", "paymentauthorized", "cancel"];

  function eventClass(name, field) {
    var C = class extends Event {
      constructor(type, value) { super(type); if (field) Object.defineProperty(this, field, { value: value, enumerable: true }); }
    };
    Object.defineProperty(C, "name", { value: name });
    window[name] = C;
    return C;
  }
  var EVENT_CLASSES = {
    validatemerchant: [eventClass("ApplePayValidateMerchantEvent", "validationURL"), "validationURL"],
    paymentmethodselected: [eventClass("ApplePayPaymentMethodSelectedEvent", "paymentMethod"), "paymentMethod"],
    shippingcontactselected: [eventClass("ApplePayShippingContactSelectedEvent", "shippingContact"), "shippingContact"],
    shippingmethodselected: [eventClass("ApplePayShippingMethodSelectedEvent", "shippingMethod"), "shippingMethod"],
    couponcodechanged: [eventClass("ApplePayCouponCodeChangedEvent", "couponCode"), "couponCode"],
    paymentauthorized: [eventClass("ApplePayPaymentAuthorizedEvent", "payment"), "payment"],
    cancel: [eventClass("ApplePayCancelEvent", "sessionError"), "sessionError"],
  };

  var sessions = {}; // engine session number -> ApplePaySession
  var eventQueue = [];
  var delivering = false;

  // Events reach the page asynchronously and in order, each in its own task, as in WebKit.
  function queueEvents(events) {
    events.forEach(function (e) { eventQueue.push(e); });
    if (!delivering && eventQueue.length) {
      delivering = true;
      setTimeout(deliverNext, 0);
    }
  }
  function deliverNext() {
    var e = eventQueue.shift();
    if (e && e.paymentRequest) {
      deliverToRequest(e);
    } else if (e) {
      var target = sessions[e.session];
      var spec = EVENT_CLASSES[e.type];
      if (target && spec) target.dispatchEvent(new spec[0](e.type, e[spec[1]]));
    }
    if (eventQueue.length) setTimeout(deliverNext, 0); else delivering = false;
  }

  // ---- ApplePaySession ---------------------------------------------------------------------

  var STATUS = {
    STATUS_SUCCESS: 0, STATUS_FAILURE: 1, STATUS_INVALID_BILLING_POSTAL_ADDRESS: 2, STATUS_INVALID_SHIPPING_POSTAL_ADDRESS: 3,
    STATUS_INVALID_SHIPPING_CONTACT: 4, STATUS_PIN_REQUIRED: 5, STATUS_PIN_INCORRECT: 6, STATUS_PIN_LOCKOUT: 7,
  };

  // ---- Targets whose listeners the engine is told of ------------------------------------------
  // A selection event nobody listens to is completed by the sheet itself, so the engine must know
  // which `on*` handlers and `addEventListener` listeners a session or request has.

  var listened = new WeakMap(); // target -> { handlers: {type: function}, counts: {type: n} }

  class ListenedTarget extends EventTarget {
    constructor(types) {
      super();
      listened.set(this, { handlers: {}, counts: {}, added: {} });
    }

    addEventListener(type, listener, options) {
      var l = listened.get(this);
      if (l && listener) l.counts[type] = (l.counts[type] || 0) + 1;
      return super.addEventListener(type, listener, options);
    }

    removeEventListener(type, listener, options) {
      var l = listened.get(this);
      if (l && listener && l.counts[type]) l.counts[type]--;
      return super.removeEventListener(type, listener, options);
    }
  }

  /** `on<type>` properties for each of `types` on class `C`. */
  function handlerProperties(C, types) {
    types.forEach(function (type) {
      Object.defineProperty(C.prototype, "on" + type, {
        configurable: true, enumerable: true,
        get: function () { var l = listened.get(this); return l ? l.handlers[type] || null : null; },
        set: function (h) {
          var l = listened.get(this);
          if (!l) return;
          l.handlers[type] = typeof h === "function" ? h : null;
          // HTML: an event handler takes its place among the listeners when it is first set, so
          // listeners added before it run first (which matters when `updateWith` stops the rest).
          if (l.handlers[type] && !l.added[type]) {
            l.added[type] = true;
            var self = this;
            EventTarget.prototype.addEventListener.call(this, type, function (event) {
              var handler = l.handlers[type];
              if (typeof handler === "function") handler.call(self, event);
            });
          }
        },
      });
    });
  }

  /** Whether `target` has a handler or a listener for `type`. */
  function isListening(target, type) {
    var l = listened.get(target);
    return !!l && (typeof l.handlers[type] === "function" || l.counts[type] > 0);
  }

  /** A promise of `f()`'s value, rejected with what it throws. */
  function promised(f) {
    return new Promise(function (resolve, reject) {
      try { resolve(f()); } catch (e) { reject(e); }
    });
  }

  var internal = new WeakMap();

  class ApplePaySession extends ListenedTarget {
    // "[object ApplePaySession]", as in Safari (not "[object EventTarget]").
    get [Symbol.toStringTag]() { return "ApplePaySession"; }

    constructor(version, paymentRequest) {
      requireArguments(arguments, 2);
      var request = wireRequest(paymentRequest);
      super(EVENT_TYPES);
      var body = bridge({ op: "construct", version: wire(version), request: request, userGesture: inGesture() });
      var number = result(body);
      internal.set(this, { number: number });
      sessions[number] = this;
    }

    begin() { return callSession(this, "begin", arguments, true); }
    abort() { return callSession(this, "abort", arguments); }
    completeMerchantValidation(merchantSession) { return callSession(this, "completeMerchantValidation", arguments); }
    completePaymentMethodSelection() { return callSession(this, "completePaymentMethodSelection", arguments); }
    completeShippingContactSelection() { return callSession(this, "completeShippingContactSelection", arguments); }
    completeShippingMethodSelection() { return callSession(this, "completeShippingMethodSelection", arguments); }
    completeCouponCodeChange(update) { return callSession(this, "completeCouponCodeChange", arguments); }
    completePayment() { return callSession(this, "completePayment", arguments); }

    static supportsVersion(version) {
      requireArguments(arguments, 1);
      return result(bridge({ op: "static", method: "supportsVersion", args: [wire(version)] }));
    }
    static canMakePayments() { return result(bridge({ op: "static", method: "canMakePayments" })); }
    static canMakePaymentsWithActiveCard(merchantIdentifier) {
      return staticPromise("canMakePaymentsWithActiveCard", arguments, false);
    }
    static openPaymentSetup(merchantIdentifier) { return staticPromise("openPaymentSetup", arguments, inGesture()); }
    static applePayCapabilities(merchantIdentifier) { return staticPromise("applePayCapabilities", arguments, false); }
  }

  handlerProperties(ApplePaySession, EVENT_TYPES);
  Object.keys(STATUS).forEach(function (k) {
    Object.defineProperty(ApplePaySession, k, { value: STATUS[k], enumerable: true });
    Object.defineProperty(ApplePaySession.prototype, k, { value: STATUS[k], enumerable: true });
  });

  function staticPromise(method, list, userGesture) {
    return promised(function () { return result(bridge({ op: "static", method: method, args: args(list), userGesture: userGesture })); });
  }

  /** The event types the session has listeners for (on* properties or addEventListener). */
  function listeners(session) {
    if (prInternal.has(session)) return requestListeners(session);
    if (!internal.has(session)) return EVENT_TYPES;
    return EVENT_TYPES.filter(function (t) { return isListening(session, t); });
  }

  var activeSession = null;

  function callSession(session, method, list, isBegin) {
    var d = internal.get(session);
    if (!d) throw new TypeError("Can only call ApplePaySession." + method + " on instances of ApplePaySession");
    var body = bridge({ op: "call", session: d.number, method: method, args: args(list), listeners: listeners(session) });
    var value = result(body);
    if (isBegin) { activeSession = session; startClock(); }
    return value;
  }

  // ---- ApplePayError -----------------------------------------------------------------------

  class ApplePayError {
    constructor(errorCode, contactField, message) {
      var list = args(arguments), undefinedAt = [];
      for (var i = 0; i < list.length; i++) if (arguments[i] === undefined) undefinedAt.push(i);
      var value = result(bridge({ op: "static", method: "ApplePayError", args: list, undefinedAt: undefinedAt }));
      errorInternal.set(this, { code: value.code, contactField: value.contactField === undefined ? undefined : value.contactField,
        message: value.message === undefined ? "" : value.message, domain: null });
    }
    // Current WebKit's attributes are writable; an enumeration value it does not know is ignored,
    // as WebIDL's setters do (the engine's binding decides what it knows).
    get code() { return errorInternal.get(this).code; }
    set code(v) { var d = errorInternal.get(this); var e = knownError([wire(v)]); if (e) d.code = e.code; }
    get contactField() { return errorInternal.get(this).contactField; }
    set contactField(v) {
      var d = errorInternal.get(this);
      if (v === null || v === undefined) { d.contactField = null; return; }
      var e = knownError([wire(d.code), wire(v)]); if (e) d.contactField = e.contactField;
    }
    get message() { return errorInternal.get(this).message; }
    set message(v) { errorInternal.get(this).message = String(v); }
    get domain() { return errorInternal.get(this).domain; }
    set domain(v) { if (v === null || v === undefined || String(v) === "disbursement") errorInternal.get(this).domain = v === undefined ? null : v; }
  }
  var errorInternal = new WeakMap();
  /** The engine's `ApplePayError` for these arguments, or null when it refuses them. */
  function knownError(list) {
    try { return result(bridge({ op: "static", method: "ApplePayError", args: list, undefinedAt: [] })); } catch (e) { return null; }
  }
  ["code", "contactField", "message", "domain"].forEach(function (k) {
    Object.defineProperty(ApplePayError.prototype, k, Object.assign(Object.getOwnPropertyDescriptor(ApplePayError.prototype, k), { enumerable: true }));
  });
  Object.defineProperty(ApplePayError.prototype, "toJSON", {
    value: function () {
      var o = { code: this.code };
      if (this.contactField !== undefined && this.contactField !== null) o.contactField = this.contactField;
      if (this.message !== undefined) o.message = this.message;
      return o;
    },
  });

  window.ApplePaySession = ApplePaySession;
  window.ApplePayError = ApplePayError;

  // ---- ApplePaySetup -----------------------------------------------------------------------

  var setupInternal = new WeakMap();

  class ApplePaySetupFeature {
    constructor() { throw new TypeError("Illegal constructor"); }
    get [Symbol.toStringTag]() { return "ApplePaySetupFeature"; }
  }

  function setupFeature(f) {
    var o = Object.create(ApplePaySetupFeature.prototype);
    readOnly(o, { state: f.state, type: f.type, supportsInstallments: f.supportsInstallments });
    return o;
  }

  class ApplePaySetup {
    constructor(configuration) {
      requireArguments(arguments, 1);
      var bound = result(bridge({ op: "static", method: "ApplePaySetup", args: [wire(configuration)] }));
      setupInternal.set(this, bound);
    }
    get [Symbol.toStringTag]() { return "ApplePaySetup"; }
    getSetupFeatures() {
      var c = setupInternal.get(this);
      return promised(function () {
        return result(bridge({ op: "static", method: "getSetupFeatures", args: [c] })).map(setupFeature);
      });
    }
    begin(features) {
      var c = setupInternal.get(this), gesture = inGesture();
      var list = Array.isArray(features) ? features.map(function (f) { return { state: f.state, type: f.type, supportsInstallments: f.supportsInstallments }; }) : wire(features);
      return promised(function () { return result(bridge({ op: "static", method: "beginSetup", args: [c, list], userGesture: gesture })); });
    }
  }

  window.ApplePaySetup = ApplePaySetup;
  window.ApplePaySetupFeature = ApplePaySetupFeature;

  // ---- The Payment Request API, Apple Pay method -----------------------------------------------
  //
  // The engine checks and keeps each PaymentRequest (its constructor, show(), the updates, the
  // response); here are only the objects, their promises and the events it says to dispatch.

  var APPLE_PAY = "https://apple.com/apple-pay";
  var REQUEST_EVENTS = { shippingaddresschange: "shippingcontactselected", shippingoptionchange: "shippingmethodselected",
    paymentmethodchange: "paymentmethodselected", applepaypaymentmethodchanged: "paymentmethodselected" };
  // WebKit's first Payment Request support (Safari 11.1) named two events its own way; a page that
  // listens to those names gets them.
  var LEGACY_EVENTS = { merchantvalidation: "applepayvalidatemerchant", paymentmethodchange: "applepaypaymentmethodchanged" };
  var requests = {}; // engine request number -> PaymentRequest
  var prInternal = new WeakMap();
  var eventInternal = new WeakMap();

  function invalidState() { return new DOMException("The object is in an invalid state.", "InvalidStateError"); }

  function requestCall(request, method, extra) {
    var d = prInternal.get(request);
    var op = Object.assign({ op: "paymentRequestCall", request: d.number, method: method, listeners: requestListeners(request) }, extra || {});
    return bridge(op);
  }

  function requestPromise(request, method, extra) {
    return promised(function () { return result(requestCall(request, method, extra)); });
  }

  function requestListeners(request) {
    var out = ["validatemerchant", "paymentauthorized", "cancel"];
    Object.keys(REQUEST_EVENTS).forEach(function (t) {
      if (isListening(request, t)) out.push(REQUEST_EVENTS[t]);
    });
    return out;
  }

  function readOnly(target, values) {
    Object.keys(values).forEach(function (k) { Object.defineProperty(target, k, { value: values[k], enumerable: true }); });
  }

  class PaymentAddress {
    constructor(a) {
      readOnly(this, { country: a.country, addressLine: Object.freeze((a.addressLine || []).slice()), region: a.region, city: a.city,
        dependentLocality: a.dependentLocality, postalCode: a.postalCode, sortingCode: a.sortingCode, organization: a.organization,
        recipient: a.recipient, phone: a.phone });
    }
    toJSON() {
      var o = {};
      ["country", "addressLine", "region", "city", "dependentLocality", "postalCode", "sortingCode", "organization", "recipient", "phone"]
        .forEach(function (k) { o[k] = this[k]; }, this);
      return o;
    }
  }

  /** Tells the engine how the page's promise settled: its value as JSON, or rejected. */
  function whenSettled(request, promise, method) {
    Promise.resolve(promise).then(function (v) {
      var value;
      try { value = wire(v); } catch (e) { requestCall(request, method, { rejected: true }); return; }
      var body = requestCall(request, method, { value: value });
      // An update may select another shipping option: the request's attribute follows it.
      var r = body && body.returned;
      if (r && typeof r === "object" && "shippingOption" in r) prInternal.get(request).shippingOption = r.shippingOption;
    }, function () { requestCall(request, method, { rejected: true }); });
  }

  class PaymentRequestUpdateEvent extends Event {
    constructor(type, init) { super(type, init); }
    updateWith(detailsPromise) {
      var d = eventInternal.get(this);
      requireArguments(arguments, 1);
      if (!d || d.waitForUpdate) throw invalidState();
      result(requestCall(d.request, "updateWith"));
      d.waitForUpdate = true;
      this.stopPropagation();
      this.stopImmediatePropagation();
      whenSettled(d.request, detailsPromise, "detailsSettled");
    }
  }

  class PaymentMethodChangeEvent extends PaymentRequestUpdateEvent {
    constructor(type, init) {
      super(type, init);
      readOnly(this, { methodName: (init && init.methodName) || "", methodDetails: (init && init.methodDetails) || null });
    }
  }

  class MerchantValidationEvent extends Event {
    constructor(type, init) {
      super(type, init);
      readOnly(this, { methodName: (init && init.methodName) || "", validationURL: (init && init.validationURL) || "" });
    }
    complete(merchantSessionPromise) {
      var d = eventInternal.get(this);
      requireArguments(arguments, 1);
      if (!d) throw invalidState();
      result(requestCall(d.request, "completeMerchantValidation"));
      this.stopPropagation();
      this.stopImmediatePropagation();
      whenSettled(d.request, merchantSessionPromise, "merchantSessionSettled");
    }
  }

  /** `applepayvalidatemerchant`'s event: `complete(merchantSession)` takes the session itself. */
  class ApplePayMerchantValidationEvent extends Event {
    constructor(type, init) {
      super(type, init);
      readOnly(this, { validationURL: (init && init.validationURL) || "" });
    }
    complete(merchantSession) {
      var d = eventInternal.get(this);
      requireArguments(arguments, 1);
      if (!d) throw invalidState();
      var value;
      try { value = wire(merchantSession); } catch (e) { value = null; }
      result(requestCall(d.request, "completeMerchantValidationNow", { value: Array.isArray(merchantSession) ? [] : value }));
    }
  }

  /** `applepaypaymentmethodchanged`'s event: the card as `paymentMethod`. */
  class ApplePayPaymentMethodChangedEvent extends PaymentRequestUpdateEvent {
    constructor(type, init) {
      super(type, init);
      readOnly(this, { paymentMethod: (init && init.paymentMethod) || null });
    }
  }

  class PaymentResponse extends EventTarget {
    constructor(request, r) { super(); prInternal.set(this, { request: request }); setResponse(this, r); }
    get [Symbol.toStringTag]() { return "PaymentResponse"; }
    get requestId() { return prInternal.get(this).r.requestId; }
    get methodName() { return prInternal.get(this).r.methodName; }
    get details() { return prInternal.get(this).details; }
    get shippingAddress() { return prInternal.get(this).address; }
    get shippingOption() { return prInternal.get(this).r.shippingOption; }
    get payerName() { return prInternal.get(this).r.payerName; }
    get payerEmail() { return prInternal.get(this).r.payerEmail; }
    get payerPhone() { return prInternal.get(this).r.payerPhone; }
    complete(result, details) {
      var request = prInternal.get(this).request;
      if (!fullyActive()) return Promise.reject(new DOMException("Document is not fully active.", "InvalidStateError"));
      var extra = arguments.length && result !== undefined ? { value: wire(result) } : {};
      // PaymentCompleteDetails: its data carries ApplePayPaymentCompleteDetails (the order details for Wallet).
      if (details !== undefined) {
        try { extra.details = wire(details); } catch (e) {
          // WebKit serializes `data` with JSON.stringify and says so.
          return Promise.reject(new TypeError("JSON.stringify cannot serialize cyclic structures."));
        }
      }
      return requestPromise(request, "complete", extra).then(function () { return undefined; });
    }
    retry(errors) {
      var request = prInternal.get(this).request;
      var rd = prInternal.get(request);
      return new Promise(function (resolve, reject) {
        if (!fullyActive()) { reject(new DOMException("Document is not fully active.", "InvalidStateError")); return; }
        try { result(requestCall(request, "retry", errors === undefined ? {} : { value: wire(errors) })); } catch (e) { reject(e); return; }
        rd.pending = { resolve: function () { resolve(undefined); }, reject: reject, retry: true };
      });
    }
    toJSON() {
      var r = prInternal.get(this).r;
      return { requestId: r.requestId, methodName: r.methodName, details: this.details, shippingAddress: this.shippingAddress,
        shippingOption: r.shippingOption, payerName: r.payerName, payerEmail: r.payerEmail, payerPhone: r.payerPhone };
    }
  }

  function setResponse(response, r) {
    var d = prInternal.get(response);
    d.r = r;
    d.details = r.details;
    d.address = r.shippingAddress ? new PaymentAddress(r.shippingAddress) : null;
  }

  var REQUEST_EVENT_TYPES = ["merchantvalidation", "applepayvalidatemerchant"].concat(Object.keys(REQUEST_EVENTS));

  class PaymentRequest extends ListenedTarget {
    get [Symbol.toStringTag]() { return "PaymentRequest"; }

    constructor(methodData, details, options) {
      requireArguments(arguments, 2);
      var body = bridge({ op: "paymentRequest", methodData: methodData === undefined ? "undefined" : wireMethodData(methodData),
        details: wire(details), options: options === undefined ? null : wire(options) });
      var value = result(body);
      super(REQUEST_EVENT_TYPES);
      var d = { number: Number(value.request), id: value.id, shippingOption: value.shippingOption, shippingType: value.shippingType,
        shippingAddress: null, pending: null, response: null };
      prInternal.set(this, d);
      requests[d.number] = this;
    }

    get id() { return prInternal.get(this).id; }
    get shippingAddress() { return prInternal.get(this).shippingAddress; }
    get shippingOption() { return prInternal.get(this).shippingOption; }
    get shippingType() { return prInternal.get(this).shippingType; }

    show(detailsPromise) {
      var self = this, d = prInternal.get(this);
      return new Promise(function (resolve, reject) {
        // A request of a document that is not fully active aborts (its frame was navigated away).
        if (!fullyActive()) { reject(new DOMException("The operation was aborted.", "AbortError")); return; }
        // One sheet per top-level browsing context: another same-origin document of this page
        // (the top window or a frame) already showing one makes this show() abort.
        if (anotherDocumentShowing()) { consumeGesture(); reject(new DOMException("The operation was aborted.", "AbortError")); return; }
        try { result(requestCall(self, "show", { userGesture: consumeGesture() })); } catch (e) { reject(e); return; }
        d.pending = { resolve: resolve, reject: reject, retry: false };
        // show(detailsPromise): the page's events wait until it settles; then its details apply.
        if (detailsPromise !== undefined) {
          try { result(requestCall(self, "showDetailsPending")); whenSettled(self, detailsPromise, "detailsSettled"); } catch (e) { /* closed meanwhile */ }
        }
        activeSession = self;
        startClock();
      });
    }

    abort() { return requestPromise(this, "abort").then(function () { return undefined; }); }
    canMakePayment() { return requestPromise(this, "canMakePayment"); }
  }

  handlerProperties(PaymentRequest, REQUEST_EVENT_TYPES);

  /** Whether `request` listens to the old name of event `type` and not to the standard one. */
  function legacy(request, type) { return !isListening(request, type) && isListening(request, LEGACY_EVENTS[type]); }

  function deliverToRequest(e) {
    var request = requests[e.paymentRequest];
    if (!request) return;
    var d = prInternal.get(request);
    var event = null;
    switch (e.type) {
      case "merchantvalidation":
        event = legacy(request, e.type)
          ? new ApplePayMerchantValidationEvent(LEGACY_EVENTS[e.type], { validationURL: e.validationURL })
          : new MerchantValidationEvent(e.type, { methodName: e.methodName, validationURL: e.validationURL });
        break;
      case "shippingaddresschange":
        d.shippingAddress = new PaymentAddress(e.shippingAddress);
        event = new PaymentRequestUpdateEvent(e.type);
        break;
      case "shippingoptionchange":
        d.shippingOption = e.shippingOption;
        event = new PaymentRequestUpdateEvent(e.type);
        break;
      case "paymentmethodchange":
        event = legacy(request, e.type)
          ? new ApplePayPaymentMethodChangedEvent(LEGACY_EVENTS[e.type], { paymentMethod: e.methodDetails })
          : new PaymentMethodChangeEvent(e.type, { methodName: e.methodName, methodDetails: e.methodDetails });
        break;
      case "accepted":
        if (d.pending && d.pending.retry && d.response) setResponse(d.response, e.response);
        else d.response = new PaymentResponse(request, e.response);
        if (d.pending) { var ok = d.pending; d.pending = null; ok.resolve(ok.retry ? undefined : d.response); }
        return;
      case "rejected":
        if (d.pending) { var p = d.pending; d.pending = null; p.reject(exception(e.error)); }
        return;
      default:
        return;
    }
    var state = { request: request, waitForUpdate: false };
    eventInternal.set(event, state);
    request.dispatchEvent(event);
    if (event instanceof PaymentRequestUpdateEvent && !state.waitForUpdate) requestCall(request, "notUpdated");
  }

  window.PaymentRequest = PaymentRequest;
  window.PaymentResponse = PaymentResponse;
  window.PaymentAddress = PaymentAddress;
  window.PaymentRequestUpdateEvent = PaymentRequestUpdateEvent;
  window.PaymentMethodChangeEvent = PaymentMethodChangeEvent;
  window.MerchantValidationEvent = MerchantValidationEvent;
  window.ApplePayMerchantValidationEvent = ApplePayMerchantValidationEvent;
  window.ApplePayPaymentMethodChangedEvent = ApplePayPaymentMethodChangedEvent;

  // ---- The clock ---------------------------------------------------------------------------

  var clockTimer = null;
  function startClock() {
    if (clockTimer || state.clock === "virtual") return;
    clockTimer = setInterval(function () {
      var sheet = state.last && state.last.sheet;
      if (!sheet || !sheet.visible) { clearInterval(clockTimer); clockTimer = null; return; }
      if (!sheet.outstanding) return; // no deadline running
      bridgeAsync({ op: "tick" }).catch(function (e) { console.error(e); });
    }, 500);
  }

  // ---- The simulated sheet -----------------------------------------------------------------

  var state = { last: null, clock: "real", focusPay: false };
  var root = null;
  // The sheet's words in its language, by id, as the engine sends them (`texts`; the one table is
  // the engine's SheetString). `{label}` and `{url}` are filled with what the page gave.
  var texts = {};
  function t(id, values) {
    var text = Object.prototype.hasOwnProperty.call(texts, id) ? texts[id] : id;
    Object.keys(values || {}).forEach(function (k) { text = text.split("{" + k + "}").join(values[k]); });
    return text;
  }

  var CSS = [
    "#paysheet-sheet{position:fixed;inset:0;z-index:2147483646;display:flex;align-items:flex-end;justify-content:center;",
    "background:rgba(20,20,20,.45);font:15px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#111}",
    "#paysheet-sheet[hidden]{display:none}",
    "#paysheet-sheet .ps-panel{background:#fff;width:100%;max-width:440px;max-height:92vh;overflow:auto;border-radius:14px 14px 0 0;",
    "box-shadow:0 -4px 24px rgba(0,0,0,.25);padding:12px 16px 16px;box-sizing:border-box;border-top:6px solid #b45309}",
    "#paysheet-sheet .ps-label{background:#fef3c7;color:#78350f;border:1px solid #f59e0b;border-radius:6px;padding:6px 8px;font-weight:600;margin:0 0 10px}",
    "#paysheet-sheet header{display:flex;justify-content:space-between;align-items:center;gap:8px}",
    "#paysheet-sheet h2{font-size:16px;margin:0}",
    "#paysheet-sheet section{border-top:1px solid #e5e5e5;padding:8px 0}",
    "#paysheet-sheet h3{font-size:11px;letter-spacing:.08em;color:#555;margin:0 0 4px}",
    "#paysheet-sheet select,#paysheet-sheet input{font:inherit;width:100%;box-sizing:border-box;padding:6px;border:1px solid #999;border-radius:6px;background:#fff;color:#111}",
    "#paysheet-sheet .ps-row{display:flex;gap:6px}",
    "#paysheet-sheet .ps-error{color:#b91c1c;margin:4px 0 0}",
    "#paysheet-sheet .ps-error strong{display:block;font-size:12px;letter-spacing:.05em}",
    "#paysheet-sheet table{width:100%;border-collapse:collapse}#paysheet-sheet td{padding:2px 0}#paysheet-sheet td+td{text-align:right}",
    "#paysheet-sheet .ps-total td{font-weight:700;border-top:1px solid #ddd;padding-top:4px}",
    "#paysheet-sheet .ps-status{font-weight:700;text-align:center;min-height:1.4em;margin:8px 0 4px}",
    "#paysheet-sheet .ps-popup{background:#fee2e2;border:1px solid #b91c1c;border-radius:8px;padding:8px;margin:6px 0}",
    "#paysheet-sheet .ps-countdown{font-size:13px;color:#444;text-align:center}",
    "#paysheet-sheet button{font:inherit;border-radius:8px;border:1px solid #555;background:#f5f5f5;color:#111;padding:6px 12px;cursor:pointer}",
    "#paysheet-sheet button.ps-pay{width:100%;margin-top:8px;padding:12px;background:#1d4ed8;border-color:#1d4ed8;color:#fff;font-weight:700}",
    "#paysheet-sheet button:disabled{opacity:.45;cursor:not-allowed}",
    "#paysheet-sheet button:focus-visible,#paysheet-sheet select:focus-visible,#paysheet-sheet input:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}",
    "#paysheet-closed{position:fixed;left:50%;bottom:16px;transform:translateX(-50%);z-index:2147483646;background:#111;color:#fff;",
    "padding:8px 14px;border-radius:8px;font:14px system-ui,sans-serif;pointer-events:none}",
    "#paysheet-wallet-order{position:fixed;left:50%;bottom:56px;transform:translateX(-50%);z-index:2147483646;background:#fef3c7;",
    "color:#78350f;border:1px solid #f59e0b;padding:8px 14px;border-radius:8px;font:14px system-ui,sans-serif;max-width:90vw}",
  ].join("");

  function h(tag, attrs, children) {
    var el = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") el.textContent = attrs[k];
      else if (k.slice(0, 2) === "on") el.addEventListener(k.slice(2), attrs[k]);
      else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) el.setAttribute(k, attrs[k] === true ? "" : attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) el.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return el;
  }

  function ensureRoot() {
    if (root) return root;
    var style = h("style", { id: "paysheet-style", text: CSS });
    (document.head || document.documentElement).appendChild(style);
    root = h("div", { id: "paysheet-sheet", role: "dialog", "aria-modal": "true", "aria-labelledby": "paysheet-title", hidden: true });
    root.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { e.preventDefault(); userAction({ user: "cancel" }); return; }
      if (e.key !== "Enter" && e.key !== " ") state.focusPay = false;
    });
    root.addEventListener("mousedown", function () { state.focusPay = false; });
    document.body.appendChild(root);
    return root;
  }

  function contactLine(c) {
    if (!c) return "";
    var name = [c.givenName, c.familyName].filter(Boolean).join(" ");
    var place = [(c.addressLines || []).join(", "), c.locality, c.administrativeArea, c.postalCode, c.countryCode || c.country].filter(Boolean).join(", ");
    return [name, place].filter(Boolean).join(" — ");
  }

  function errorBlock(module, err) {
    if (!err) return null;
    return h("p", { class: "ps-error", "data-error": module, role: "alert" }, [h("strong", { text: err.title }), err.message]);
  }

  function money(amount, currency) { return (amount === undefined || amount === null ? "—" : amount) + " " + (currency || ""); }

  /** `id` if it is one of `ids` (the words a snapshot may name for a part), else the first. */
  function oneOf(id, ids) { return ids.indexOf(id) >= 0 ? id : ids[0]; }

  function render(body) {
    if (!document.body) return;
    var sheet = body.sheet, choices = body.choices;
    if (body.clock) state.clock = body.clock;
    if (body.texts) texts = body.texts;
    ensureRoot();
    if (!sheet || !sheet.visible) {
      var wasOpen = !root.hidden;
      root.hidden = true;
      root.innerHTML = "";
      state.drawn = null;
      if (wasOpen && sheet && sheet.result) showClosed(sheet);
      if (sheet && sheet.order) walletOrder(sheet.order);
      return;
    }
    // Draw only what changed: a tick with the same sheet keeps the user's half-typed input.
    var drawn = JSON.stringify([sheet, choices, state.clock, texts]);
    if (drawn === state.drawn && !root.hidden) return;
    state.drawn = drawn;
    var active = root.contains(document.activeElement) ? document.activeElement : null;
    var hadFocus = active ? active.getAttribute("data-focus") : null;
    var typed = active && active.tagName === "INPUT" ? active.value : null;
    var wasHidden = root.hidden;
    root.hidden = false;
    root.setAttribute("lang", sheet.language || "en");
    root.innerHTML = "";
    var cur = choices.currencyCode;
    var m = sheet.modules;
    var panel = h("div", { class: "ps-panel", tabindex: "-1" });

    panel.appendChild(h("p", { class: "ps-label", id: "paysheet-title", "data-part": "label", text: t("sheet.simulationLabel") }));
    panel.appendChild(h("header", {}, [
      h("h2", { text: (m.summary.total.label || "") + " — " + money(m.summary.total.amount, cur) }),
      h("button", { type: "button", "data-action": "cancel", "data-focus": "cancel", onclick: function () { userAction({ user: "cancel" }); } }, [t("sheet.cancel")]),
    ]));

    // CARD
    var cardSelect = h("select", { id: "paysheet-card", "data-focus": "card", "aria-label": t("label.card"),
      onchange: function (e) { userAction({ user: "selectPaymentMethod", index: Number(e.target.value) }); } },
      choices.cards.map(function (c) {
        return h("option", { value: String(c.index), selected: c.selected, disabled: !c.usable },
          [c.displayName + " (" + c.type + ")" + (c.usable ? "" : " — " + t("sheet.notAccepted"))]);
      }));
    panel.appendChild(h("section", { "data-module": "card" }, [h("h3", { text: t("module.card") }), cardSelect, errorBlock("card", m.card.error)]));

    // SHIPPING
    if (choices.requestsShipping) {
      var shipSelect = h("select", { id: "paysheet-shipping", "data-focus": "shipping", "aria-label": t("label.shippingAddress"),
        onchange: function (e) { userAction({ user: "selectShippingContact", index: Number(e.target.value) }); } },
        choices.shippingContacts.map(function (c) {
          return h("option", { value: String(c.index), selected: c.selected }, [contactLine(c.contact)]);
        }));
      // A store pickup's address is the merchant's: shown, not changed.
      var readOnly = m.shipping.editable === false;
      if (readOnly) shipSelect.disabled = true;
      panel.appendChild(h("section", { "data-module": "shipping", "data-editable": String(!readOnly) }, [h("h3", { text: t(oneOf(m.shipping.titleId, ["module.shipping", "module.delivery", "module.pickup", "module.servicePickup"])) }),
        shipSelect].concat(readOnly ? [h("div", { class: "ps-note", text: t("shipping.readOnly") })] : []).concat([errorBlock("shipping", m.shipping.error)])));
    }

    // PAYOUT (a disbursement request) and PAY LATER (the snapshot names which words)
    if (sheet.disbursement) {
      var payout = [h("h3", { text: t("module.disbursement") }), h("div", { text: t("disbursement.to") })];
      if (sheet.disbursement.instantFundsOut) payout.push(h("div", { class: "ps-note", text: t("disbursement.instant") }));
      if (sheet.disbursement.requiredRecipientContactFields.length) {
        payout.push(h("div", { class: "ps-note", text: t("disbursement.recipient").replace("{fields}", sheet.disbursement.requiredRecipientContactFields.join(", ")) }));
      }
      panel.appendChild(h("section", { "data-module": "disbursement" }, payout));
    }
    if (sheet.payLater) {
      panel.appendChild(h("section", { "data-module": "payLater", "data-availability": sheet.payLater.availability },
        [h("h3", { text: t("module.payLater") }),
          h("div", { text: t(oneOf(sheet.payLater.textId, ["payLater.available", "payLater.unavailableItemIneligible", "payLater.unavailableRecurringTransaction"])) })]));
    }

    // METHOD
    if (choices.shippingMethods.length) {
      var methodSelect = h("select", { id: "paysheet-method", "data-focus": "method", "aria-label": t("label.shippingMethod"),
        onchange: function (e) { userAction({ user: "selectShippingMethod", identifier: e.target.value }); } },
        choices.shippingMethods.map(function (x) {
          return h("option", { value: x.identifier, selected: x.selected }, [x.label + " — " + x.detail + " — " + money(x.amount, cur)]);
        }));
      panel.appendChild(h("section", { "data-module": "method" }, [h("h3", { text: t("module.method") }), methodSelect, errorBlock("method", m.method.error)]));
    }

    // CONTACT
    if (choices.requestsEmail || choices.requestsPhone || m.contact.error) {
      var fields = [];
      if (choices.requestsEmail) fields.push(h("input", { id: "paysheet-email", "data-focus": "email", type: "email", "aria-label": t("label.email"), value: m.contact.email || "",
        onchange: function (e) { userAction({ user: "editContact", email: e.target.value }); } }));
      if (choices.requestsPhone) fields.push(h("input", { id: "paysheet-phone", "data-focus": "phone", type: "tel", "aria-label": t("label.phone"), value: m.contact.phone || "",
        onchange: function (e) { userAction({ user: "editContact", phone: e.target.value }); } }));
      panel.appendChild(h("section", { "data-module": "contact" }, [h("h3", { text: t("module.contact") }), h("div", { class: "ps-row" }, fields), errorBlock("contact", m.contact.error)]));
    }

    // COUPON
    if (choices.supportsCouponCode) {
      var couponInput = h("input", { id: "paysheet-coupon", "data-focus": "coupon", "aria-label": t("label.couponCode"), value: m.coupon.code || "" });
      panel.appendChild(h("section", { "data-module": "coupon" }, [h("h3", { text: t("module.coupon") }), h("div", { class: "ps-row" }, [couponInput,
        h("button", { type: "button", "data-action": "coupon", "data-focus": "coupon-apply", onclick: function () { userAction({ user: "enterCouponCode", code: couponInput.value }); } }, [t("sheet.apply")])]),
        errorBlock("coupon", m.coupon.error)]));
    }

    // SUMMARY
    var rows = m.summary.lineItems.map(function (i) {
      return h("tr", {}, [h("td", { text: i.label }), h("td", { text: i.type === "pending" ? t("sheet.amountPending") : money(i.amount, cur) })]);
    });
    rows.push(h("tr", { class: "ps-total" }, [h("td", { text: t("sheet.total", { label: m.summary.total.label || "" }) }),
      h("td", { "data-part": "total", text: m.summary.total.type === "pending" ? t("sheet.amountPending") : money(m.summary.total.amount, cur) })]));
    panel.appendChild(h("section", { "data-module": "summary" }, [h("h3", { text: t("module.summary") }), h("table", {}, [h("tbody", {}, rows)])]));

    // BILLING: what continues after today (the engine's words; no rule here).
    if (m.billing) {
      var b = m.billing;
      var lines = [];
      ["trial", "regular", "reload", "deferred"].forEach(function (k) {
        if (b[k]) lines.push(h("p", { "data-part": "billing-" + k, text: (b[k].label ? b[k].label + ": " : "") + b[k].text }));
      });
      (b.merchants || []).forEach(function (x) { lines.push(h("p", { "data-part": "billing-merchant", text: x.text })); });
      if (b.freeCancellation) lines.push(h("p", { "data-part": "billing-cancellation", text: b.freeCancellation }));
      if (b.agreement) lines.push(h("p", { "data-part": "billing-agreement", text: b.agreement }));
      if (b.managementURL) lines.push(h("p", { "data-part": "billing-management", text: t("sheet.manageAt", { url: b.managementURL }) }));
      panel.appendChild(h("section", { "data-module": "billing", "data-kind": b.kind }, [h("h3", { text: t("module.billing") }),
        h("p", { "data-part": "billing-description", text: b.description || "" })].concat(lines)));
    }

    // Authorization area: status, popup, countdown, pay. The countdown and the reason Pay is
    // disabled are the simulator's notes for the developer (no real sheet has them): English, with
    // the engine's event names and reasons, in every language.
    panel.appendChild(h("div", { class: "ps-status", "data-part": "status", role: "status", "aria-live": "polite", text: sheet.status || "" }));
    if (sheet.popup) panel.appendChild(h("div", { class: "ps-popup", "data-part": "popup", role: "alert", text: sheet.popup }));
    if (sheet.outstanding) {
      panel.appendChild(h("div", { class: "ps-countdown", "data-part": "countdown",
        text: "Waiting for the page: " + sheet.outstanding + " — " + Math.ceil(Number(sheet.secondsLeft)) + " s left" + (state.clock === "virtual" ? " (virtual clock)" : "") }));
    }
    panel.appendChild(h("button", { type: "button", class: "ps-pay", "data-action": "authorize", "data-focus": "authorize", disabled: !sheet.canAuthorize,
      "aria-describedby": choices.authorizeBlockedBy ? "paysheet-blocked" : null,
      onclick: function () { userAction({ user: "authorize" }); } }, [t("sheet.pay")]));
    if (choices.authorizeBlockedBy && !sheet.outstanding) {
      panel.appendChild(h("p", { id: "paysheet-blocked", class: "ps-countdown", "data-part": "blocked", text: "Cannot pay yet: " + choices.authorizeBlockedBy }));
    }
    root.appendChild(panel);
    // Focus: Pay as soon as it can be used (unless the user moved focus meanwhile), else where it was.
    if (wasHidden) state.focusPay = true;
    var pay = root.querySelector(".ps-pay");
    var again = hadFocus && root.querySelector('[data-focus="' + hadFocus + '"]');
    if (state.focusPay && !pay.disabled) { pay.focus(); state.focusPay = false; }
    else if (again && !again.disabled) { again.focus(); if (typed !== null && again.tagName === "INPUT") again.value = typed; }
    else if (!root.contains(document.activeElement)) panel.focus();
  }

  function showClosed(sheet) {
    var old = document.getElementById("paysheet-closed");
    if (old) old.remove();
    var text = t({ success: "closed.success", failure: "closed.failure", timedOut: "closed.timedOut", canceled: "closed.canceled",
      aborted: "closed.aborted" }[sheet.result] || "closed.other");
    if (sheet.status) text += " — " + sheet.status;
    var note = h("div", { id: "paysheet-closed", role: "status", "data-result": sheet.result, text: text });
    document.body.appendChild(note);
    setTimeout(function () { note.remove(); }, 4000);
  }

  // ---- Orders in Wallet (simulated) -------------------------------------------------------
  // After a payment that gave the wallet an order, the engine's bridge fetches the order from its
  // web service and checks it as Wallet would; the verdict stays on the page, under the sheet.

  var walletAsked = {};
  function walletOrder(order) {
    // Under WebKit's test runner the mock coordinator stands in for the wallet: no Wallet there.
    if (underWebKitRunner()) return;
    showWalletVerdict(order);
    var key = order.webServiceURL + " " + order.orderTypeIdentifier + " " + order.orderIdentifier;
    if (order.wallet.status !== "unchecked" || walletAsked[key]) return;
    walletAsked[key] = true;
    checkWalletOrder().catch(function (e) { console.error(e); });
  }

  /** Asks the bridge to fetch and check the order of the last payment; resolves to the sheet's `order`. */
  function checkWalletOrder() {
    // Answered as the `state` operation: its events and sheet are applied as any answer's.
    var seq = ++requestSeq;
    return fetch(endpoint + "/wallet-order", { method: "POST", headers: { "Content-Type": "text/plain;charset=UTF-8" }, body: "{}" })
      .then(function (r) {
        return r.text().then(function (text) {
          var body = answer(r.status, text, seq);
          var order = body.sheet && body.sheet.order;
          if (order) showWalletVerdict(order);
          return order || null;
        });
      });
  }

  function showWalletVerdict(order) {
    if (!document.body) return;
    var old = document.getElementById("paysheet-wallet-order");
    if (old) old.remove();
    document.body.appendChild(h("div", { id: "paysheet-wallet-order", role: "status", "data-wallet": order.wallet.status,
      "data-check": order.wallet.check, text: "Simulated wallet: " + order.wallet.message }));
  }

  function userAction(action, mock) {
    var op = Object.assign({ op: "user" }, action);
    if (mock) op.mock = true;
    return sheetAction(op);
  }

  /** Sends a sheet-side operation (with the active session's listeners); `{ok, ignored, sheet}`. */
  function sheetAction(op) {
    var body = bridge(withListeners(op));
    return { ok: !body.ignored, ignored: body.ignored || null, sheet: body.sheet };
  }

  /** `op` with the listeners of the active session, which the engine needs to know who is told. */
  function withListeners(op) {
    if (activeSession) op.listeners = listeners(activeSession);
    return op;
  }

  // ---- Scripting API for end-to-end tests ---------------------------------------------------

  var config = {};
  function configure(options) {
    var keys = Object.keys(options || {});
    if (keys.length === 1 && keys[0] === "requireUserGesture") {
      // Only the gesture rule: the page's sessions and requests stay as they are.
      config.requireUserGesture = options.requireUserGesture;
      return bridge({ op: "gestureRule", requireUserGesture: !!options.requireUserGesture }).sheet;
    }
    config = Object.assign({}, config, options || {});
    var op = { op: "configure" };
    ["wallet", "options", "requireUserGesture", "clock", "merchantCertificate", "merchantSessions"].forEach(function (k) { if (config[k] !== undefined) op[k] = config[k]; });
    sessions = {};
    activeSession = null;
    eventQueue = [];
    var body = bridge(op);
    return body.sheet;
  }

  function readSheet() { return bridge({ op: "state" }); }

  var api = {
    /** The page's id on the engine. */
    pageId: pageId,
    /** Resets the page's engine with a wallet, options (the scenario format's), `requireUserGesture`, `clock` ("real" | "virtual") and a `merchantCertificate` (PEM) to encrypt tokens to. */
    configure: configure,
    selectPaymentMethod: function (index) { return userAction({ user: "selectPaymentMethod", index: index }); },
    selectShippingContact: function (index) { return userAction({ user: "selectShippingContact", index: index }); },
    editShippingContact: function (contact) { return userAction({ user: "editShippingContact", contact: contact }); },
    editContact: function (c) { c = c || {}; return userAction({ user: "editContact", email: c.email, phone: c.phone }); },
    selectShippingMethod: function (identifier) { return userAction({ user: "selectShippingMethod", identifier: identifier }); },
    enterCouponCode: function (code) { return userAction({ user: "enterCouponCode", code: code }); },
    authorize: function () { return userAction({ user: "authorize" }); },
    cancel: function () { return userAction({ user: "cancel" }); },
    /** Lets `seconds` of virtual time pass (any clock). */
    advanceClock: function (seconds) { return bridge({ op: "advance", seconds: Number(seconds) }).sheet; },
    /** The sheet as the engine describes it (the scenario format's snapshot). */
    snapshot: function () { return readSheet().sheet; },
    /** What the user can choose: cards, shipping contacts, shipping methods. */
    choices: function () { return readSheet().choices; },
    /** Every event dispatched so far and every ignored action, oldest first. */
    events: function () { return readSheet().log; },
    /** Each session's state as the page can tell it (idle, active, completed, aborted, canceled). */
    sessions: function () { return readSheet().sessions; },
    /** Whether a payment completed with STATUS_SUCCESS on this page. */
    paid: function () { return readSheet().paid; },
    /** The order the last payment gave the wallet and the wallet's verdict (`null`: none). */
    walletOrder: function () { return readSheet().sheet.order || null; },
    /** Fetches and checks that order now (once per order); resolves to walletOrder()'s value. */
    checkWalletOrder: function () { return checkWalletOrder(); },
    /** Whether the page is inside a user gesture now (for debugging the gesture rule). */
    inUserGesture: inGesture,
    /** Whether this page's simulated sheet is shown (same-origin frames ask it). */
    isShowing: function () { return sheetShown(); },
    /** Which user activation the page is in (for same-origin frames' `show()`), or null. */
    activationId: function () { return currentActivation(); },
  };

  // A shim with the names of WebKit's internals.mockPaymentCoordinator, for tests written against it.
  // As WebKit's mock does (`dispatchIfShowing`), each action reaches the page in a later task, and
  // only if the sheet it was made for is still shown: an update the page has just given settles first.
  function mockTask(action) {
    var last = state.last;
    var showing = last && last.sheet && last.sheet.visible ? last.shows : 0;
    if (!showing) return;
    setTimeout(function () {
      var now = state.last;
      if (now && now.sheet && now.sheet.visible && now.shows === showing) action();
    }, 0);
  }
  var LINE_ITEM_DEFAULTS = { type: "final", paymentTiming: "immediate", recurringPaymentIntervalUnit: "month", recurringPaymentIntervalCount: 1 };
  var DATE_MEMBERS = ["recurringPaymentStartDate", "recurringPaymentEndDate", "deferredPaymentDate", "freeCancellationDate"];
  /** A dictionary as WebKit's bindings hand it to the page: IDL defaults filled, dates as `Date`s. */
  function idlLineItem(item) {
    if (!item || typeof item !== "object") return item;
    var out = Object.assign({}, LINE_ITEM_DEFAULTS, item);
    DATE_MEMBERS.forEach(function (k) { if (typeof out[k] === "string") out[k] = new Date(out[k]); });
    return out;
  }
  function idlKinds(value) {
    if (!value || typeof value !== "object") return value === undefined ? null : value;
    var out = Object.assign({}, value);
    ["regularBilling", "trialBilling", "automaticReloadBilling", "deferredBilling"].forEach(function (k) { if (out[k]) out[k] = idlLineItem(out[k]); });
    DATE_MEMBERS.forEach(function (k) { if (typeof out[k] === "string") out[k] = new Date(out[k]); });
    return out;
  }
  function mockMember(name) { var m = readSheet().mock || {}; return m[name] === undefined ? null : m[name]; }
  api.mockPaymentCoordinator = {
    setCanMakePayments: function (b) { var o = Object.assign({}, config.options || {}, { canMakePayments: !!b }); configure({ options: o }); },
    setCanMakePaymentsWithActiveCard: function (b) { var o = Object.assign({}, config.options || {}, { activeCard: !!b }); configure({ options: o }); },
    /** Synchronous, as WebKit's: the address the mock reports after merchant validation and pays with. */
    setShippingAddress: function (address) { bridge({ op: "mockShippingAddress", address: wire(address || {}) }); },
    changeShippingOption: function (identifier) { mockTask(function () { userAction({ user: "selectShippingMethod", identifier: identifier }, true); }); },
    /** The page is told of this `ApplePayPaymentMethod` as given (WebKit's mock: no card behind it). */
    changePaymentMethod: function (m) {
      var method = wire(m || {});
      mockTask(function () { sheetAction({ op: "mockChangePaymentMethod", paymentMethod: method }); });
    },
    changeCouponCode: function (code) { mockTask(function () { userAction({ user: "enterCouponCode", code: String(code) }, true); }); },
    acceptPayment: function () { mockTask(function () { userAction({ user: "authorize" }, true); }); },
    cancelPayment: function () { mockTask(function () { userAction({ user: "cancel" }, true); }); },
    /** The total of the last update (before any, the shown summary's). */
    get total() {
      var t = mockMember("total");
      if (!t) { var s = api.snapshot(); t = s.modules ? s.modules.summary.total : null; }
      return idlLineItem(t);
    },
    get lineItems() {
      var m = readSheet().mock || {};
      var items = m.lineItems;
      if (!items) { var s = api.snapshot(); items = s.modules ? s.modules.summary.lineItems : []; }
      return items.map(idlLineItem);
    },
    get shippingMethods() {
      var m = mockMember("shippingMethods");
      if (!m) { var s = api.snapshot(); m = s.modules ? s.modules.method.options : []; }
      // ApplePayShippingMethod's dictionary defaults, as WebKit's bindings hand it out.
      return m.map(function (x) { return Object.assign({ detail: "", selected: false }, x); });
    },
    /** The errors the page passed with its last completion (as WebKit's mock reports them). */
    get errors() { return readSheet().pageErrors || []; },
    /** The shown request's `installmentConfiguration`, as the platform received it. */
    get installmentConfiguration() { return readSheet().installmentConfiguration; },
    /** The configuration of the page's last `ApplePaySetup` call. */
    get setupConfiguration() { return readSheet().setupConfiguration; },
    get requiredBillingContactFields() { return mockMember("requiredBillingContactFields"); },
    get requiredShippingContactFields() { return mockMember("requiredShippingContactFields"); },
    get supportedCountries() { return mockMember("supportedCountries") || []; },
    get supportsCouponCode() { return mockMember("supportsCouponCode"); },
    get couponCode() { return mockMember("couponCode"); },
    get shippingContactEditingMode() { return mockMember("shippingContactEditingMode"); },
    get recurringPaymentRequest() { return idlKinds(mockMember("recurringPaymentRequest")); },
    get automaticReloadPaymentRequest() { return idlKinds(mockMember("automaticReloadPaymentRequest")); },
    get multiTokenContexts() { return mockMember("multiTokenContexts"); },
    get deferredPaymentRequest() { return idlKinds(mockMember("deferredPaymentRequest")); },
    get disbursementRequest() { return mockMember("disbursementRequest"); },
    get applePayLaterAvailability() { return mockMember("applePayLaterAvailability"); },
    get merchantCategoryCode() { return mockMember("merchantCategoryCode"); },
    get isDelegatedRequest() { return mockMember("isDelegatedRequest"); },
    /** A feature the simulated wallet can set up (`ApplePaySetup.getSetupFeatures`). */
    addSetupFeature: function (state, type, supportsInstallments) {
      result(bridge({ op: "static", method: "addSetupFeature", args: [wire(state), wire(type), wire(!!supportsInstallments)] }));
    },
  };

  window.paysheet = api;

  // The page leaves: active sessions are canceled (the engine's `navigate`). A page restored from
  // the back/forward cache then receives their `cancel` events, which the engine held for it.
  window.addEventListener("pagehide", function () {
    // The page leaves: a shown request's promise rejects now, in this document's realm (a frame
    // navigated away never hears the engine's answer).
    Object.keys(requests).forEach(function (n) {
      var d = prInternal.get(requests[n]);
      if (d && d.pending) { var p = d.pending; d.pending = null; p.reject(new DOMException("The operation was aborted.", "AbortError")); }
    });
    var op = withListeners({ op: "navigate" });
    try { navigator.sendBeacon(endpoint, new Blob([JSON.stringify(op)], { type: "text/plain" })); } catch (e) { /* leaving anyway */ }
  });
  window.addEventListener("pageshow", function (e) {
    if (e.persisted) bridgeAsync({ op: "state" }).catch(function (err) { console.error(err); });
  });

  // Options from the <script> element, or (injected) from PAYSHEET_CONFIG.
  if (injected) {
    var chosen = {};
    ["wallet", "options", "requireUserGesture", "clock", "merchantCertificate", "merchantSessions"].forEach(function (k) {
      if (injected[k] !== undefined) chosen[k] = injected[k];
    });
    if (Object.keys(chosen).length) configure(chosen);
  } else if (script) {
    var initial = {};
    var g = script.getAttribute("data-require-user-gesture");
    if (g !== null) initial.requireUserGesture = g !== "false";
    var c = script.getAttribute("data-clock");
    if (c) initial.clock = c;
    var w = script.getAttribute("data-wallet");
    if (w) initial.wallet = JSON.parse(w);
    var ms = script.getAttribute("data-merchant-sessions");
    if (ms) initial.merchantSessions = ms;
    var o = script.getAttribute("data-options");
    if (o) initial.options = JSON.parse(o);
    if (Object.keys(initial).length) configure(initial);
  }
})();
