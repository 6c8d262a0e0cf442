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
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.count == 2, AddressMetadata.countries[trimmed.uppercased()] != nil { return trimmed.uppercased() }
        return byName[TextFolding.fold(trimmed)]
    }

    /// The English (or the language's) name of `code`.
    static func name(_ code: String, _ language: ContactMessageLanguage) -> String {
        let identifier = language == .zh ? "zh-Hans" : language.rawValue
        var name = Locale(identifier: identifier).localizedString(forRegionCode: code) ?? code
        // Messages end without punctuation; ICU abbreviates a few names ("… Sandwich Isl.").
        while name.last == "." { name.removeLast() }
        return name
    }
}
