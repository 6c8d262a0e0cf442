import Foundation

/// The messages the validator puts in `ApplePayError.message`, per language, following Apple's
/// guidelines: a short noun phrase naming the field and the problem, sentence case, no final
/// punctuation, at most 128 characters (a test checks every template with its longest values).
public enum ContactMessageLanguage: String, Sendable, CaseIterable, Codable {
    /// English.
    case en
    /// Japanese.
    case ja
    /// Chinese (Simplified).
    case zh
}

/// What a message is about.
enum MessageKey: String, CaseIterable {
    case required, postalCodeInvalid, postalCodeMismatch, areaUnknown, areaUnserviceable, countryUnknown
    case countryUnserviceable, poBox, phoneInvalid, emailInvalid, phoneticNotKana
}

enum ContactMessages {
    /// Templates. `{field}` / `{Field}`: the field's name inline / at the start; `{postal}` /
    /// `{Postal}`, `{area}` / `{Area}`: the country's names for them; `{country}`.
    static let templates: [ContactMessageLanguage: [MessageKey: String]] = [
        .en: [
            .required: "{Field} is required",
            .postalCodeInvalid: "Invalid {postal} for {country}",
            .postalCodeMismatch: "{Postal} doesn't match {area}",
            .areaUnknown: "Unknown {area} for {country}",
            .areaUnserviceable: "Shipping not available for this {area}",
            .countryUnknown: "Unknown country or region",
            .countryUnserviceable: "Shipping not available to {country}",
            .poBox: "Shipping not available to P.O. boxes",
            .phoneInvalid: "Invalid phone number",
            .emailInvalid: "Invalid email address",
            .phoneticNotKana: "Phonetic name in katakana or hiragana only",
        ],
        .ja: [
            .required: "{Field}は必須です",
            .postalCodeInvalid: "{country}の{postal}として無効です",
            .postalCodeMismatch: "{postal}と{area}が一致しません",
            .areaUnknown: "{country}の{area}として不明です",
            .areaUnserviceable: "この{area}へは配送できません",
            .countryUnknown: "不明な国または地域",
            .countryUnserviceable: "{country}へは配送できません",
            .poBox: "私書箱へは配送できません",
            .phoneInvalid: "無効な電話番号",
            .emailInvalid: "無効なメールアドレス",
            .phoneticNotKana: "フリガナはカタカナまたはひらがなのみ",
        ],
        .zh: [
            .required: "{Field}为必填项",
            .postalCodeInvalid: "{country}的{postal}无效",
            .postalCodeMismatch: "{postal}与{area}不符",
            .areaUnknown: "{country}的{area}无法识别",
            .areaUnserviceable: "无法配送至该{area}",
            .countryUnknown: "无法识别的国家或地区",
            .countryUnserviceable: "无法配送至{country}",
            .poBox: "无法配送至邮政信箱",
            .phoneInvalid: "无效的电话号码",
            .emailInvalid: "无效的电子邮件地址",
            .phoneticNotKana: "注音仅限片假名或平假名",
        ],
    ]

    /// Field names: (at the start of a message, inline).
    static let fieldNames: [ContactMessageLanguage: [String: (String, String)]] = [
        .en: [
            "name": ("Name", "name"), "phoneticName": ("Phonetic name", "phonetic name"),
            "phoneNumber": ("Phone number", "phone number"),
            "emailAddress": ("Email address", "email address"), "addressLines": ("Street address", "street address"),
            "locality": ("City", "city"), "countryCode": ("Country or region", "country or region"),
        ],
        .ja: [
            "name": ("氏名", "氏名"), "phoneticName": ("フリガナ", "フリガナ"), "phoneNumber": ("電話番号", "電話番号"),
            "emailAddress": ("メールアドレス", "メールアドレス"), "addressLines": ("住所", "住所"),
            "locality": ("市区町村", "市区町村"), "countryCode": ("国または地域", "国または地域"),
        ],
        .zh: [
            "name": ("姓名", "姓名"), "phoneticName": ("注音", "注音"), "phoneNumber": ("电话号码", "电话号码"),
            "emailAddress": ("电子邮件地址", "电子邮件地址"), "addressLines": ("街道地址", "街道地址"),
            "locality": ("城市", "城市"), "countryCode": ("国家或地区", "国家或地区"),
        ],
    ]

    /// The postal code's name by Google's `zip_name_type`.
    static func postalName(_ type: String, _ language: ContactMessageLanguage) -> (String, String) {
        switch language {
        case .en:
            switch type {
            case "zip": return ("Zip code", "zip code")
            case "pin": return ("PIN code", "PIN code")
            case "eircode": return ("Eircode", "Eircode")
            default: return ("Postal code", "postal code")
            }
        case .ja: return ("郵便番号", "郵便番号")
        case .zh: return ("邮政编码", "邮政编码")
        }
    }

    /// The subdivision's name by Google's `state_name_type`.
    static func areaName(_ type: String, _ language: ContactMessageLanguage) -> (String, String) {
        let en: [String: String] = [
            "state": "state", "province": "province", "prefecture": "prefecture", "county": "county",
            "area": "area", "department": "department", "district": "district", "emirate": "emirate",
            "island": "island", "oblast": "region", "parish": "parish", "do_si": "province",
        ]
        switch language {
        case .en:
            let inline = en[type] ?? "region"
            return (inline.prefix(1).uppercased() + inline.dropFirst(), inline)
        case .ja:
            let name = ["prefecture": "都道府県", "state": "州", "province": "省", "county": "郡"][type] ?? "地域"
            return (name, name)
        case .zh:
            let name = ["province": "省", "state": "州", "prefecture": "县", "county": "县"][type] ?? "地区"
            return (name, name)
        }
    }

    static func render(
        _ key: MessageKey,
        _ language: ContactMessageLanguage,
        field: String? = nil,
        postalType: String = "postal",
        areaType: String = "province",
        country: String = ""
    ) -> String {
        var text = templates[language]![key]!
        if let field,
            let names = fieldNames[language]![field] ?? (field == "postalCode" ? postalName(postalType, language) : nil)
                ?? (field == "administrativeArea" ? areaName(areaType, language) : nil)
        {
            text = text.replacingOccurrences(of: "{Field}", with: names.0).replacingOccurrences(
                of: "{field}",
                with: names.1
            )
        }
        let postal = postalName(postalType, language)
        let area = areaName(areaType, language)
        return text.replacingOccurrences(of: "{Postal}", with: postal.0).replacingOccurrences(
            of: "{postal}",
            with: postal.1
        )
        .replacingOccurrences(of: "{Area}", with: area.0).replacingOccurrences(of: "{area}", with: area.1)
        .replacingOccurrences(of: "{country}", with: country)
    }
}
