import Foundation

/// A language the simulated sheet speaks: English, Simplified Chinese or Japanese. Every other
/// language falls back to English.
///
/// The sheet's own words (its statuses, module titles and fixed error texts, ``SheetString``) are
/// shown in it; what the merchant gives (error messages, labels, amounts) is never translated.
public enum SheetLanguage: String, Sendable, Hashable, CaseIterable, Codable {
    /// English, the sheet's words as `docs/payment-sheet.md` records them.
    case english = "en"
    /// Simplified Chinese.
    case simplifiedChinese = "zh-Hans"
    /// Japanese.
    case japanese = "ja"

    /// The language a BCP 47 tag or a locale identifier names (`zh-CN`, `zh_Hans_SG`, `ja-JP`,
    /// `en-GB`), or `nil` when the sheet does not speak it. Traditional Chinese (`zh-Hant`, and
    /// `zh-TW`, `zh-HK`, `zh-MO` without a script) is not Simplified Chinese.
    public init?(tag: String) {
        let subtags = tag.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let primary = subtags.first else { return nil }
        switch primary {
        case "en": self = .english
        case "ja": self = .japanese
        case "zh":
            let rest = Set(subtags.dropFirst())
            if rest.contains("hans") {
                self = .simplifiedChinese
            } else if rest.contains("hant") || !rest.isDisjoint(with: ["tw", "hk", "mo"]) {
                return nil
            } else {
                self = .simplifiedChinese
            }
        default: return nil
        }
    }

    /// The first of `preferences` (most preferred first, as `navigator.languages` or
    /// `Locale.preferredLanguages` list them) that the sheet speaks; English when none is.
    public static func preferred(_ preferences: [String]) -> SheetLanguage {
        preferences.lazy.compactMap(SheetLanguage.init(tag:)).first ?? .english
    }

    /// The language of `locale` (its identifier), English when the sheet does not speak it.
    public init(locale: Locale) {
        self = SheetLanguage(tag: locale.identifier) ?? .english
    }
}
