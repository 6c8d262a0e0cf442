import Foundation

/// Country and region names and codes: ISO 3166 codes, Google's names, and the names ICU
/// gives in English, Japanese, Chinese, French, German and Spanish.
enum Countries {
    static let byName: [String: String] = {
        var out: [String: String] = [:]
        let locales = ["en", "ja", "zh-Hans", "zh-Hant", "fr", "de", "es"].map { Locale(identifier: $0) }
        for (code, rules) in AddressMetadata.countries {
            out[TextFolding.fold(code)] = code
            if !rules.name.isEmpty { out[TextFolding.fold(rules.name)] = code }
            for locale in locales {
                if let name = locale.localizedString(forRegionCode: code) { out[TextFolding.fold(name)] = code }
            }
        }
        return out
    }()

    /// The ISO code for a code or a name, or `nil`.
    static func code(for text: String) -> String? {
        let utf8 = text.utf8
        if utf8.count == 2, utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }) {
            let upper = utf8.allSatisfy({ $0 <= 0x5A }) ? text : text.uppercased()
            if AddressMetadata.countries[upper] != nil { return upper }
        }
        return byName[TextFolding.fold(text)]
    }

    /// The English (or the language's) name of `code`.
    static func name(_ code: String, _ language: ContactMessageLanguage) -> String {
        names[language]?[code] ?? code
    }

    /// Every country's name in every message language, read from ICU once.
    private static let names: [ContactMessageLanguage: [String: String]] = {
        var out: [ContactMessageLanguage: [String: String]] = [:]
        for language in ContactMessageLanguage.allCases {
            let locale = Locale(identifier: language == .zh ? "zh-Hans" : language.rawValue)
            var table: [String: String] = [:]
            for code in AddressMetadata.countries.keys {
                var name = locale.localizedString(forRegionCode: code) ?? code
                // Messages end without punctuation; ICU abbreviates a few names ("… Sandwich Isl.").
                while name.last == "." { name.removeLast() }
                table[code] = name
            }
            out[language] = table
        }
        return out
    }()
}
