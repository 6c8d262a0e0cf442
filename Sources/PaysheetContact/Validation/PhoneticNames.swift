import Foundation

/// Japanese phonetic names (フリガナ): katakana or hiragana, full- or half-width, normalised to
/// full-width katakana as the sheet shows them.
public enum PhoneticNames {
    /// The katakana form of `text`, or `nil` when it has characters other than kana, the long
    /// vowel mark, the middle dot and spaces.
    public static func katakana(_ text: String) -> String? {
        // Fast path: full-width kana, the long vowel mark, the middle dot and ASCII spaces only
        // (nothing that compatibility mapping would change).
        var out = String.UnicodeScalarView()
        var plain = true
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x3041...0x3096: out.append(Unicode.Scalar(scalar.value + 0x60)!)
            case 0x30A1...0x30FA, 0x30FB, 0x30FC, 0x30FD, 0x30FE, 0x20: out.append(scalar)
            default: plain = false
            }
            if !plain { break }
        }
        if plain {
            var text = String(out)
            while text.utf8.first == 0x20 { text.removeFirst() }
            while text.utf8.last == 0x20 { text.removeLast() }
            return text.isEmpty ? nil : text
        }
        return compatibilityKatakana(text)
    }

    /// The general path: compatibility mapping (half-width kana, spacing voiced marks), then kana.
    static func compatibilityKatakana(_ text: String) -> String? {
        let widened = text.precomposedStringWithCompatibilityMapping.trimmingCharacters(in: .whitespaces)
        guard !widened.isEmpty else { return nil }
        var out = String.UnicodeScalarView()
        for scalar in widened.unicodeScalars {
            switch scalar.value {
            case 0x3041...0x3096: out.append(Unicode.Scalar(scalar.value + 0x60)!)  // hiragana → katakana
            case 0x30A1...0x30FA, 0x30FC, 0x30FB, 0x309B, 0x309C, 0x30FD, 0x30FE: out.append(scalar)
            case 0x3099, 0x309A:
                // A combining (semi-)voiced mark left by width folding: compose it with its kana.
                guard let previous = out.popLast(), let composed = compose(previous, mark: scalar.value) else {
                    return nil
                }
                out.append(composed)
            case 0x20, 0x3000: out.append(" ")
            default: return nil
            }
        }
        return String(out)
    }

    private static func compose(_ base: Unicode.Scalar, mark: UInt32) -> Unicode.Scalar? {
        let value = base.value
        if mark == 0x3099 {
            if value == 0x30A6 { return "\u{30F4}" }
            if (0x30AB...0x30C1).contains(value), (value - 0x30AB) % 2 == 0 { return Unicode.Scalar(value + 1) }
            if (0x30C4...0x30C8).contains(value), (value - 0x30C4) % 2 == 0 { return Unicode.Scalar(value + 1) }
            if (0x30CF...0x30DB).contains(value), (value - 0x30CF) % 3 == 0 { return Unicode.Scalar(value + 1) }
            return nil
        }
        if (0x30CF...0x30DB).contains(value), (value - 0x30CF) % 3 == 0 { return Unicode.Scalar(value + 2) }
        return nil
    }
}
