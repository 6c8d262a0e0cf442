import Foundation
import OpenAPIRuntime

/// What went wrong, in words.
struct CheckoutFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Seed 004's checkout (the DJI store: six products and a −1800.00 student discount, labels in
/// Chinese) through the generated client: create, pay, refund 1000.00, read back.
struct Checkout {
    let client: Client
    let tokens: SandboxTokens

    static let lines: [(label: String, amount: String)] = [
        ("DJI精灵4无人机主机", "9888.00"), ("DJI精灵4智能电池", "230.00"), ("DJI精灵4螺旋桨", "200.00"),
        ("DJI精灵4旅行背包", "150.00"), ("DJI精灵4第二手柄", "233.00"), ("DJI精灵4云台盖", "33.00"),
        ("大学生折扣价", "-1800.00"),
    ]
    static let total = "8934.00"
    static let refund = "1000.00"

    func run() async throws {
        // Create: the merchant's own lines, a discount among them; the server computes the total.
        let created = try await client.createOrder(
            headers: .init(Idempotency_hyphen_Key: "api-client-\(UUID().uuidString)"),
            body: .json(
                .init(
                    currencyCode: "CNY",
                    countryCode: "CN",
                    lineItems: Self.lines.map { .init(label: $0.label, amount: $0.amount) }
                )
            )
        ).created.body.json
        try expect(created.status == .created, "a new order is created", got: created.status.rawValue)
        try expect(created.amount == Self.total, "its total is \(Self.total)", got: created.amount)
        try expect(created.currencyCode == "CNY", "the order is in CNY")
        let echoed = (created.lineItems ?? []).map { "\($0.label ?? "") \($0.amount ?? "")" }
        try expect(
            echoed == Self.lines.map { "\($0.label) \($0.amount)" },
            "its lines are the ones sent, the discount and the Chinese labels included",
            got: "\(echoed)"
        )
        print("created \(created.id): \(created.amount) \(created.currencyCode), \(echoed.count) lines")

        // Pay: a sandbox token bound to the order's applicationData, sent to the authorize endpoint.
        guard let applicationData = created.paymentRequest?.value["applicationData"] as? String else {
            throw CheckoutFailure("the order's paymentRequest has no applicationData")
        }
        let merchant = try await client.sandboxMerchant().ok.body.json
        let paymentData = try tokens.issue(
            amount: created.amount,
            currency: created.currencyCode,
            applicationData: applicationData,
            certificate: merchant.paymentProcessingCertificate
        )
        let header = paymentData.value["header"] as? [String: (any Sendable)?]
        let authorized = try await client.authorize(
            path: .init(id: created.id),
            headers: .init(Idempotency_hyphen_Key: "api-client-\(UUID().uuidString)"),
            body: .json(
                .init(
                    payment: .init(
                        token: .init(
                            paymentMethod: .init(
                                displayName: "China UnionPay 0001",
                                network: "ChinaUnionPay",
                                _type: "debit"
                            ),
                            transactionIdentifier: header?["transactionId"] as? String,
                            paymentData: paymentData
                        )
                    )
                )
            )
        ).ok.body.json
        try expect(
            authorized.refusal == nil,
            "the token is accepted",
            got: authorized.refusal.map { "\($0.code): \($0.message)" }
        )
        try expect(
            authorized.result.status == 0,
            "the sheet is told STATUS_SUCCESS (0)",
            got: "\(authorized.result.status)"
        )
        let paid = try await settled(created.id) { $0.status != .pending }
        try expect(paid.status == .paid, "the order is paid", got: paid.status.rawValue)
        try expect(paid.paid == Self.total, "\(Self.total) was paid", got: paid.paid)
        try expect(
            paid.payments.contains { $0.kind == .charge && $0.state == .succeeded && $0.amount == Self.total },
            "its charge of \(Self.total) succeeded"
        )
        print("paid \(created.id): \(paid.paid ?? "")")

        // Refund part of it.
        let refunding = try await client.refund(
            path: .init(id: created.id),
            headers: .init(Idempotency_hyphen_Key: "api-client-\(UUID().uuidString)"),
            body: .json(.init(amount: Self.refund))
        ).created.body.json
        try expect(
            refunding.payments.contains { $0.kind == .refund && $0.amount == Self.refund },
            "the refund of \(Self.refund) is among the order's payments"
        )

        // More than is left is refused as the document says (422 on `amount`), and changes nothing.
        let tooMuch = try await client.refund(
            path: .init(id: created.id),
            body: .json(.init(amount: "7934.01"))
        )
        guard case .unprocessableContent(let refused) = tooMuch else {
            throw CheckoutFailure("a refund of more than is left must be 422, not \(tooMuch)")
        }
        let error = try refused.body.json.error
        try expect(
            error.code == "refund_exceeds_payment" && error.field == "amount",
            "a refund of more than is left (7934.01) is refused with 422 refund_exceeds_payment",
            got: "\(error.code) \(error.field ?? "")"
        )

        // Read it back once the acquirer has answered.
        let final = try await settled(created.id) { order in
            order.payments.allSatisfy { $0.state == .succeeded || $0.state == .failed }
        }
        try expect(final.status == .partially_refunded, "the order is partially refunded", got: final.status.rawValue)
        try expect(final.refunded == Self.refund, "\(Self.refund) was refunded", got: final.refunded)
        try expect(final.paid == Self.total, "what was paid stays \(Self.total)")
        try expect(
            final.payments.contains { $0.kind == .refund && $0.state == .succeeded && $0.amount == Self.refund },
            "the refund of \(Self.refund) succeeded"
        )
        try expect(
            final.payments.filter { $0.kind == .refund }.count == 1,
            "one refund, the refused one left no trace",
            got: "\(final.payments.filter { $0.kind == .refund }.count) refunds"
        )
        print(
            "read back \(final.id): \(final.status.rawValue), paid \(final.paid ?? ""), refunded \(final.refunded ?? "")"
        )
    }

    /// The order once `done` holds, read through `GET /v1/orders/{id}` (the sandbox acquirer
    /// answers asynchronously); at most 120 reads, a quarter of a second apart.
    func settled(
        _ id: String,
        until done: (Components.Schemas.Order) -> Bool
    ) async throws -> Components.Schemas.Order {
        for _ in 0..<120 {
            let order = try await client.getOrder(path: .init(id: id)).ok.body.json
            if done(order) { return order }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw CheckoutFailure("order \(id) did not settle in 30 s")
    }

    /// Prints `claim` when `condition` holds; otherwise fails with it and what was found.
    func expect(_ condition: Bool, _ claim: String, got found: String? = nil) throws {
        guard condition else { throw CheckoutFailure("\(claim): found \(found ?? "otherwise")") }
        print("  ok: \(claim)")
    }
}
