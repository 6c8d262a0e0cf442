import Foundation

/// The sheet's own words, each by a stable id, in every ``SheetLanguage``: the status line, the
/// module errors' titles and fixed messages, the popup, and what the browser's simulated sheet
/// draws around them (module headings, buttons, the simulation label).
///
/// This is the one table of them: the engine resolves statuses and errors into the snapshot in the
/// configured language, and hands the browser's renderer (`paysheet.js`) the rest
/// (``SheetMachine/sheetTexts()``), so no other copy exists. `{label}` and `{url}` stand for what
/// the merchant gave, inserted as given. `docs/sheet.md` lists the table with the source of each
/// translation.
public enum SheetString: String, Sendable, Hashable, CaseIterable {
    // The status line (FINGERPRINT).
    /// “Payment Not Completed”.
    case statusPaymentNotCompleted = "status.paymentNotCompleted"
    /// “Try Again”.
    case statusTryAgain = "status.tryAgain"
    /// “Shipping Address Invalid”.
    case statusShippingAddressInvalid = "status.shippingAddressInvalid"
    /// “Verify Contact Information”.
    case statusVerifyContactInformation = "status.verifyContactInformation"
    /// “Shipping Unavailable”.
    case statusShippingUnavailable = "status.shippingUnavailable"
    /// “Billing Address Invalid”.
    case statusBillingAddressInvalid = "status.billingAddressInvalid"
    /// “PIN Required”.
    case statusPINRequired = "status.pinRequired"
    /// “Incorrect PIN”.
    case statusPINIncorrect = "status.pinIncorrect"
    /// “PIN Locked”.
    case statusPINLocked = "status.pinLocked"
    // Module errors: titles.
    /// “VERIFY CONTACT INFORMATION”.
    case errorVerifyContactInformation = "error.verifyContactInformation"
    /// “SHIPPING ADDRESS INVALID”.
    case errorShippingAddressInvalid = "error.shippingAddressInvalid"
    /// “SHIPPING UNAVAILABLE”.
    case errorShippingUnavailable = "error.shippingUnavailable"
    /// “BILLING ADDRESS INVALID”.
    case errorBillingAddressInvalid = "error.billingAddressInvalid"
    /// “INVALID CODE”.
    case errorInvalidCode = "error.invalidCode"
    /// “CODE EXPIRED”.
    case errorCodeExpired = "error.codeExpired"
    // Module errors: the sheet's own messages (a page's message is shown as given).
    /// “invalid contact information”.
    case messageInvalidContactInformation = "message.invalidContactInformation"
    /// “invalid address”.
    case messageInvalidAddress = "message.invalidAddress"
    /// “Address not supported”.
    case messageAddressNotSupported = "message.addressNotSupported"
    /// “invalid billing address”.
    case messageInvalidBillingAddress = "message.invalidBillingAddress"
    // The popup.
    /// “{label} does not allow delivery to your shipping address”.
    case popupNoDelivery = "popup.noDelivery"
    // Module headings.
    /// “CARD”.
    case moduleCard = "module.card"
    /// “SHIPPING”.
    case moduleShipping = "module.shipping"
    /// “DELIVERY” (the shipping module of a `delivery` request).
    case moduleDelivery = "module.delivery"
    /// “PICKUP” (the shipping module of a `storePickup` request).
    case modulePickup = "module.pickup"
    /// “SERVICE PICKUP” (the shipping module of a `servicePickup` request).
    case moduleServicePickup = "module.servicePickup"
    /// “METHOD”.
    case moduleMethod = "module.method"
    /// “CONTACT”.
    case moduleContact = "module.contact"
    /// “COUPON”.
    case moduleCoupon = "module.coupon"
    /// “SUMMARY”.
    case moduleSummary = "module.summary"
    /// “BILLING”.
    case moduleBilling = "module.billing"
    /// “PAY LATER”.
    case modulePayLater = "module.payLater"
    /// “PAYOUT” (a disbursement request's module).
    case moduleDisbursement = "module.disbursement"
    /// “Pay Later available”.
    case payLaterAvailable = "payLater.available"
    /// “Pay Later not available for these items”.
    case payLaterItemIneligible = "payLater.unavailableItemIneligible"
    /// “Pay Later not available for recurring payments”.
    case payLaterRecurring = "payLater.unavailableRecurringTransaction"
    /// “Money is sent to this card”.
    case disbursementTo = "disbursement.to"
    /// “Instant transfer”.
    case disbursementInstant = "disbursement.instant"
    /// “The recipient's details requested: {fields}”.
    case disbursementRecipient = "disbursement.recipient"
    /// “Pickup address (cannot be changed)”.
    case shippingReadOnly = "shipping.readOnly"
    // The simulated sheet's controls and notes.
    /// “Simulated payment sheet — not Apple Pay”.
    case sheetSimulationLabel = "sheet.simulationLabel"
    /// “Cancel”.
    case sheetCancel = "sheet.cancel"
    /// “Pay (simulated)”.
    case sheetPay = "sheet.pay"
    /// “Apply”.
    case sheetApply = "sheet.apply"
    /// “Pay {label}”.
    case sheetTotal = "sheet.total"
    /// “Amount pending”.
    case sheetAmountPending = "sheet.amountPending"
    /// “not accepted”.
    case sheetNotAccepted = "sheet.notAccepted"
    /// “Manage at {url}”.
    case sheetManageAt = "sheet.manageAt"
    /// “Card”.
    case labelCard = "label.card"
    /// “Shipping address”.
    case labelShippingAddress = "label.shippingAddress"
    /// “Shipping method”.
    case labelShippingMethod = "label.shippingMethod"
    /// “Email”.
    case labelEmail = "label.email"
    /// “Phone”.
    case labelPhone = "label.phone"
    /// “Coupon code”.
    case labelCouponCode = "label.couponCode"
    /// “Simulated sheet closed: payment done”.
    case closedSuccess = "closed.success"
    /// “Simulated sheet closed: payment not completed”.
    case closedFailure = "closed.failure"
    /// “Simulated sheet closed: timed out”.
    case closedTimedOut = "closed.timedOut"
    /// “Simulated sheet closed: canceled”.
    case closedCanceled = "closed.canceled"
    /// “Simulated sheet closed: aborted by the page”.
    case closedAborted = "closed.aborted"
    /// “Simulated sheet closed”.
    case closed = "closed.other"

    /// The text in `language`, with its placeholders (`{label}`, `{url}`) as they are.
    public func text(in language: SheetLanguage) -> String {
        let row = self.row
        switch language {
        case .english: return row.en
        case .simplifiedChinese: return row.zhHans
        case .japanese: return row.ja
        }
    }

    /// The text in `language` with each `{name}` replaced by `arguments[name]`, inserted as given.
    public func text(in language: SheetLanguage, _ arguments: [String: String]) -> String {
        var text = text(in: language)
        for (name, value) in arguments { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
        return text
    }

    /// Whether the browser's renderer draws this string itself (headings, controls, notes); the
    /// others reach it resolved in the snapshot.
    public var isDrawnByRenderer: Bool {
        !(rawValue.hasPrefix("status.") || rawValue.hasPrefix("error.") || rawValue.hasPrefix("message.")
            || rawValue.hasPrefix("popup."))
    }
}

/// Where a translation's wording comes from (`docs/sheet.md` names each source in full).
enum SheetStringSource: String, Sendable, CaseIterable {
    /// No public source shows the real sheet's wording: Paysheet chose the natural one.
    case unsourced = "Paysheet's wording (unsourced)"
    /// Seed 002 (Classmethod's article on the Japanese sheet): its cells 配送先 and 連絡先, and
    /// ペイメントシート, メールアドレス, 電話番号.
    case seed002 = "seed 002"
    /// Seed 003 (the Chinese translation of Apple's Human Interface Guidelines): 付款单, “支付” before
    /// the merchant's name, 送货地址, 优惠券码.
    case seed003 = "seed 003"
    /// Seed 004 (a Chinese guide to the sheet's API): 配送方式, 账单列表.
    case seed004 = "seed 004"
    /// Apple's iPhone User Guide in Simplified Chinese, “Use Apple Pay in apps and websites”: 付款方式,
    /// 账单邮寄地址和送货地址, 联系信息.
    case appleGuideZh = "Apple iPhone User Guide (zh-cn)"
    /// Apple's Safari User Guide in Japanese, “Pay with Apple Pay in third-party browsers”: 配送先住所.
    case appleGuideJa = "Apple Safari User Guide (ja-jp)"
    /// Japanese shoppers' pages quoting the sheet's message 請求先住所が無効です.
    case quotedJa = "quoted by shoppers (ja)"
}

/// One row of the table: the three texts and where the two translations come from.
struct SheetStringRow: Sendable {
    var en: String
    var zhHans: String
    var ja: String
    var zhHansSource: SheetStringSource = .unsourced
    var jaSource: SheetStringSource = .unsourced
}

extension SheetString {
    /// The row of this string (exhaustive: a new id does not build without its three texts).
    var row: SheetStringRow {
        typealias R = SheetStringRow
        switch self {
        case .statusPaymentNotCompleted: return R(en: "Payment Not Completed", zhHans: "付款未完成", ja: "支払いが完了しませんでした")
        case .statusTryAgain: return R(en: "Try Again", zhHans: "重试", ja: "再試行")
        case .statusShippingAddressInvalid:
            return R(en: "Shipping Address Invalid", zhHans: "送货地址无效", ja: "配送先住所が無効です")
        case .statusVerifyContactInformation:
            return R(en: "Verify Contact Information", zhHans: "请验证联系信息", ja: "連絡先情報を確認してください")
        case .statusShippingUnavailable: return R(en: "Shipping Unavailable", zhHans: "无法送货", ja: "配送できません")
        case .statusBillingAddressInvalid:
            return R(
                en: "Billing Address Invalid",
                zhHans: "账单邮寄地址无效",
                ja: "請求先住所が無効です",
                jaSource: .quotedJa
            )
        case .statusPINRequired: return R(en: "PIN Required", zhHans: "需要 PIN 码", ja: "PIN が必要です")
        case .statusPINIncorrect: return R(en: "Incorrect PIN", zhHans: "PIN 码不正确", ja: "PIN が正しくありません")
        case .statusPINLocked: return R(en: "PIN Locked", zhHans: "PIN 码已锁定", ja: "PIN がロックされています")
        case .errorVerifyContactInformation:
            return R(en: "VERIFY CONTACT INFORMATION", zhHans: "验证联系信息", ja: "連絡先情報を確認")
        case .errorShippingAddressInvalid:
            return R(en: "SHIPPING ADDRESS INVALID", zhHans: "送货地址无效", ja: "配送先住所が無効")
        case .errorShippingUnavailable: return R(en: "SHIPPING UNAVAILABLE", zhHans: "无法送货", ja: "配送不可")
        case .errorBillingAddressInvalid:
            return R(
                en: "BILLING ADDRESS INVALID",
                zhHans: "账单邮寄地址无效",
                ja: "請求先住所が無効です",
                jaSource: .quotedJa
            )
        case .errorInvalidCode: return R(en: "INVALID CODE", zhHans: "优惠券码无效", ja: "無効なコード")
        case .errorCodeExpired: return R(en: "CODE EXPIRED", zhHans: "优惠券码已过期", ja: "コードの有効期限切れ")
        case .messageInvalidContactInformation:
            return R(en: "invalid contact information", zhHans: "联系信息无效", ja: "連絡先情報が無効です")
        case .messageInvalidAddress: return R(en: "invalid address", zhHans: "地址无效", ja: "住所が無効です")
        case .messageAddressNotSupported: return R(en: "Address not supported", zhHans: "不支持此地址", ja: "この住所には対応していません")
        case .messageInvalidBillingAddress:
            return R(
                en: "invalid billing address",
                zhHans: "账单邮寄地址无效",
                ja: "請求先住所が無効です",
                jaSource: .quotedJa
            )
        case .popupNoDelivery:
            return R(
                en: "{label} does not allow delivery to your shipping address",
                zhHans: "{label}不支持配送到你的送货地址",
                ja: "{label}はこの配送先住所への配送に対応していません"
            )
        case .moduleCard: return R(en: "CARD", zhHans: "付款方式", ja: "カード", zhHansSource: .appleGuideZh)
        case .moduleShipping:
            return R(en: "SHIPPING", zhHans: "送货地址", ja: "配送先", zhHansSource: .appleGuideZh, jaSource: .seed002)
        case .moduleDelivery: return R(en: "DELIVERY", zhHans: "送货", ja: "配達")
        case .modulePickup: return R(en: "PICKUP", zhHans: "自提", ja: "受け取り")
        case .moduleServicePickup: return R(en: "SERVICE PICKUP", zhHans: "上门取件", ja: "集荷")
        case .moduleMethod: return R(en: "METHOD", zhHans: "配送方式", ja: "配送方法", zhHansSource: .seed004)
        case .moduleContact:
            return R(en: "CONTACT", zhHans: "联系信息", ja: "連絡先", zhHansSource: .appleGuideZh, jaSource: .seed002)
        case .moduleCoupon: return R(en: "COUPON", zhHans: "优惠券码", ja: "クーポン", zhHansSource: .seed003)
        case .moduleSummary: return R(en: "SUMMARY", zhHans: "账单列表", ja: "支払い内容", zhHansSource: .seed004)
        case .moduleBilling: return R(en: "BILLING", zhHans: "账单", ja: "請求")
        case .modulePayLater: return R(en: "PAY LATER", zhHans: "稍后付款", ja: "後払い")
        case .moduleDisbursement: return R(en: "PAYOUT", zhHans: "收款", ja: "受け取り金額")
        case .payLaterAvailable: return R(en: "Pay Later available", zhHans: "可使用稍后付款", ja: "後払いを利用できます")
        case .payLaterItemIneligible:
            return R(
                en: "Pay Later not available for these items",
                zhHans: "这些商品不支持稍后付款",
                ja: "この商品には後払いを利用できません"
            )
        case .payLaterRecurring:
            return R(
                en: "Pay Later not available for recurring payments",
                zhHans: "定期付款不支持稍后付款",
                ja: "定期的な支払いには後払いを利用できません"
            )
        case .disbursementTo: return R(en: "Money is sent to this card", zhHans: "款项将转入此卡", ja: "このカードに送金されます")
        case .disbursementInstant: return R(en: "Instant transfer", zhHans: "即时转账", ja: "即時送金")
        case .disbursementRecipient:
            return R(
                en: "The recipient's details requested: {fields}",
                zhHans: "需要收款人的信息：{fields}",
                ja: "受取人の情報が必要です：{fields}"
            )
        case .shippingReadOnly:
            return R(en: "Pickup address (cannot be changed)", zhHans: "自提地址（不可更改）", ja: "受け取り場所（変更できません）")
        case .sheetSimulationLabel:
            return R(
                en: "Simulated payment sheet — not Apple Pay",
                zhHans: "模拟付款单 — 不是 Apple Pay",
                ja: "シミュレーションのペイメントシート — Apple Pay ではありません"
            )
        case .sheetCancel: return R(en: "Cancel", zhHans: "取消", ja: "キャンセル")
        case .sheetPay: return R(en: "Pay (simulated)", zhHans: "支付（模拟）", ja: "支払う（シミュレーション）")
        case .sheetApply: return R(en: "Apply", zhHans: "应用", ja: "適用")
        case .sheetTotal: return R(en: "Pay {label}", zhHans: "支付 {label}", ja: "{label} に支払う", zhHansSource: .seed003)
        case .sheetAmountPending: return R(en: "Amount pending", zhHans: "金额待定", ja: "金額未確定")
        case .sheetNotAccepted: return R(en: "not accepted", zhHans: "不可用", ja: "利用できません")
        case .sheetManageAt: return R(en: "Manage at {url}", zhHans: "在 {url} 管理", ja: "{url} で管理")
        case .labelCard: return R(en: "Card", zhHans: "付款卡", ja: "カード")
        case .labelShippingAddress:
            return R(
                en: "Shipping address",
                zhHans: "送货地址",
                ja: "配送先住所",
                zhHansSource: .appleGuideZh,
                jaSource: .appleGuideJa
            )
        case .labelShippingMethod: return R(en: "Shipping method", zhHans: "配送方式", ja: "配送方法", zhHansSource: .seed004)
        case .labelEmail: return R(en: "Email", zhHans: "电子邮件", ja: "メールアドレス", jaSource: .seed002)
        case .labelPhone: return R(en: "Phone", zhHans: "电话", ja: "電話番号", jaSource: .seed002)
        case .labelCouponCode: return R(en: "Coupon code", zhHans: "优惠券码", ja: "クーポンコード", zhHansSource: .seed003)
        case .closedSuccess:
            return R(
                en: "Simulated sheet closed: payment done",
                zhHans: "模拟付款单已关闭：付款完成",
                ja: "シミュレーションのシートを閉じました：支払い完了"
            )
        case .closedFailure:
            return R(
                en: "Simulated sheet closed: payment not completed",
                zhHans: "模拟付款单已关闭：付款未完成",
                ja: "シミュレーションのシートを閉じました：支払い未完了"
            )
        case .closedTimedOut:
            return R(
                en: "Simulated sheet closed: timed out",
                zhHans: "模拟付款单已关闭：已超时",
                ja: "シミュレーションのシートを閉じました：時間切れ"
            )
        case .closedCanceled:
            return R(
                en: "Simulated sheet closed: canceled",
                zhHans: "模拟付款单已关闭：已取消",
                ja: "シミュレーションのシートを閉じました：キャンセル"
            )
        case .closedAborted:
            return R(
                en: "Simulated sheet closed: aborted by the page",
                zhHans: "模拟付款单已关闭：页面已中止",
                ja: "シミュレーションのシートを閉じました：ページが中止しました"
            )
        case .closed: return R(en: "Simulated sheet closed", zhHans: "模拟付款单已关闭", ja: "シミュレーションのシートを閉じました")
        }
    }
}
