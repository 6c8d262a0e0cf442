import PaysheetTokenFormat

// libFuzzer entry point over the token parser and the CMS reader (see Fuzz/run.sh).
// Every input must end in a value or a PaymentTokenError: no crash, no hang, no trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenParsers(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    if let token = try? PaymentTokenData(json: bytes) {
        _ = token.signedContent
        _ = token.jsonValue
        _ = try? AppleSignedData(berEncoded: token.signature)
    }
    if let signed = try? AppleSignedData(berEncoded: bytes) {
        _ = signed.certificates.count + signed.signer.signedAttributes.count
    }
    return 0
}
