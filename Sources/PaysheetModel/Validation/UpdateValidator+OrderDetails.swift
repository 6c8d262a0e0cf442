/// The order details a page hands Wallet with a completed payment: in
/// `ApplePayPaymentAuthorizationResult.orderDetails` (`ApplePaySession.completePayment`) or in the
/// data of the Payment Request API's `PaymentResponse.complete(result, details)`
/// (`ApplePayPaymentCompleteDetails`), converted as WebKit converts them.
extension UpdateValidator {
    /// The WebIDL conversion of `PaymentCompleteDetails` (`complete`'s second argument, converted
    /// with the arguments, before anything else happens): a dictionary whose `data` is an
    /// `object?`. Returns that data (`nil` when absent or `null`), which the Apple Pay handler
    /// converts later (``bindApplePayCompleteDetails(_:)``).
    public func bindCompleteDetails(_ json: JSONValue) throws(ScriptError) -> JSONValue? {
        let members = try binding.dictionary(json)
        guard let data = members["data"], !data.isNull else { return nil }
        switch data {
        case .object, .array: return data
        default: throw .typeError("Type error")
        }
    }

    /// The Apple Pay handler's conversion of the data to `ApplePayPaymentCompleteDetails`.
    public func bindApplePayCompleteDetails(_ data: JSONValue) throws(ScriptError) -> ApplePayPaymentCompleteDetails {
        ApplePayPaymentCompleteDetails(orderDetails: try orderDetails(try binding.dictionary(data)))
    }

    /// The optional `orderDetails` member of `members` as an `ApplePayPaymentOrderDetails`, its
    /// four members required (lexicographic order: the first missing one is reported).
    func orderDetails(_ members: JSONObject) throws(ScriptError) -> ApplePayPaymentOrderDetails? {
        guard let detailMembers = try binding.optionalDictionary(members, "orderDetails") else { return nil }
        let dictionaryName = "ApplePayPaymentOrderDetails"
        let token = try binding.requiredString(detailMembers, "authenticationToken", dictionary: dictionaryName)
        let id = try binding.requiredString(detailMembers, "orderIdentifier", dictionary: dictionaryName)
        let type = try binding.requiredString(detailMembers, "orderTypeIdentifier", dictionary: dictionaryName)
        let url = try binding.requiredString(detailMembers, "webServiceURL", dictionary: dictionaryName)
        return ApplePayPaymentOrderDetails(
            orderTypeIdentifier: type,
            orderIdentifier: id,
            webServiceURL: url,
            authenticationToken: token
        )
    }
}
