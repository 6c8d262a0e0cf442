import Testing
@testable import PaysheetModel
@testable import PaysheetSheet

/// The one table from method names to page calls.
@Suite struct PageCallTests {
    @Test func everyMethodByNameAndArguments() {
        for m in PageCall.Method.allCases {
            #expect(PageCall.Method(rawValue: m.name) == m)
            #expect(PageCall(m, argument: ["a": 1]).method == m)
            switch m {
            case .begin, .abort:
                #expect(PageCall(m, arguments: []) == PageCall(m, argument: .null))
            default:
                #expect(PageCall(m, arguments: []) == nil, "\(m) without arguments is 'Not enough arguments'")
            }
        }
        #expect(PageCall(.completePayment, arguments: [0]) == .legacy(method: .completePayment, arguments: [0]))
        #expect(
            PageCall(.completeMerchantValidation, arguments: [["x": 1], 2]) == .completeMerchantValidation(["x": 1])
        )
        #expect(PageCall.Method(rawValue: "completeEverything") == nil)
    }
}

extension PageCall.Method {
    fileprivate var name: String { rawValue }
}
