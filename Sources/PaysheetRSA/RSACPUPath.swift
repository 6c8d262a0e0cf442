import Foundation

/// The code path each backend takes for RSA-2048's private operation on this CPU, as their
/// sources choose it: read from the CPU's flags (`/proc/cpuinfo`) and, for OpenSSL, the
/// `OPENSSL_ia32cap` mask. For a benchmark's and a log's line; nothing depends on it.
package enum RSACPUPath {
    /// The path `backend` takes here, in a few words.
    package static func describe(
        _ backend: RSABackend,
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> String
    {
        #if arch(x86_64)
        let flags = cpuFlags()
        let mulx = flags.contains("bmi2") && flags.contains("adx")
        switch backend {
        case .openSSL:
            // OpenSSL 3's rsaz-2k-avx512 (crypto/bn/rsaz_exp_x2.c) needs AVX-512 F, VL and IFMA.
            let ifma = ["avx512f", "avx512vl", "avx512ifma"].allSatisfy(flags.contains)
            if ifma, !ifmaMasked(environment["OPENSSL_ia32cap"]) {
                return "AVX-512 IFMA (rsaz-2k-avx512, two 1024-bit exponentiations at once)"
            }
            let why = ifma ? "AVX-512 IFMA masked by OPENSSL_ia32cap" : "no AVX-512 IFMA"
            return mulx ? "MULX/ADX Montgomery (x86_64-mont5; \(why))" : "x86-64 Montgomery (\(why))"
        case .boringSSL:
            // BoringSSL has no AVX-512 path for RSA (crypto/fipsmodule/bn/rsaz_exp.h).
            if mulx && flags.contains("bmi1") { return "MULX/ADX Montgomery (x86_64-mont5; no AVX-512 path)" }
            return flags.contains("avx2") ? "AVX2 (rsaz-avx2)" : "x86-64 Montgomery"
        }
        #elseif arch(arm64)
        return "AArch64 Montgomery (armv8-mont)"
        #else
        return "generic C"
        #endif
    }

    /// The CPU's flags, from `/proc/cpuinfo` (empty elsewhere).
    static func cpuFlags() -> Set<String> {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
        else { return [] }
        return Set(line.split(separator: ":").last?.split(separator: " ").map(String.init) ?? [])
    }

    /// Whether `OPENSSL_ia32cap` (`[~]WORDS1[:[~]WORDS2]`) turns off AVX-512 IFMA: bit 21 of the
    /// second 64-bit word (CPUID leaf 7's EBX), cleared with `~` or left out of a plain value.
    static func ifmaMasked(_ setting: String?) -> Bool {
        guard let setting, let colon = setting.firstIndex(of: ":") else { return false }
        var word = setting[setting.index(after: colon)...]
        let clears = word.hasPrefix("~")
        if clears { word = word.dropFirst() }
        let digits = word.lowercased().hasPrefix("0x") ? word.dropFirst(2) : word
        guard let value = UInt64(digits, radix: word.lowercased().hasPrefix("0x") ? 16 : 10) else { return false }
        let bit = value & (1 << 21) != 0
        return clears ? bit : !bit
    }
}
