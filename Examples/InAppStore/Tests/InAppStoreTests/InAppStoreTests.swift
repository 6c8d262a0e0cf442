#if !canImport(PassKit)
import Foundation
import InAppStore
import PaysheetModel
import PaysheetPassKit
import PaysheetSheet
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The store's checkout, paid end to end: `paysheet serve` (the merchant server and the UnionPay
/// sandbox gateway) on loopback, the app's back end creating seed 004's order with the merchant's
/// key, and the app's checkout code presenting the simulated sheet and calling the server with
/// the order's client secret. The sheet's token is signed by the server's data folder's sandbox CA.
@Suite(.serialized) struct InAppStoreTests {
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["PAYSHEET_BIN"] { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/paysheet").path
    }

    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func call(
        _ url: URL,
        _ method: String = "GET",
        key: String,
        body: [String: Any]? = nil
    ) async throws
        -> (Int, [String: Any])
    {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return (
            (response as? HTTPURLResponse)?.statusCode ?? 0,
            (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        )
    }

    @Test func seedFoursStoreIsPaidThroughTheSandbox() async throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: Self.binary),
            "build the paysheet command first, or set PAYSHEET_BIN"
        )
        let data = NSTemporaryDirectory() + "inappstore-" + UUID().uuidString
        let port = Int.random(in: 30_000...39_000)
        let key =
            try Self.run(["api-key", "create", "--data", data, "--name", "app back end"])
            .split(separator: "\n").last.map(String.init) ?? ""
        let serve = Process()
        serve.executableURL = URL(fileURLWithPath: Self.binary)
        serve.arguments = ["serve", "--data", data, "--listen", "127.0.0.1:\(port)", "--no-demo-order"]
        var environment = ProcessInfo.processInfo.environment
        environment["PAYSHEET_SANDBOX_ACQUIRER_LISTEN"] = "127.0.0.1:\(port + 1)"
        serve.environment = environment
        serve.standardOutput = FileHandle.nullDevice
        try serve.run()
        defer { serve.terminate() }
        let server = URL(string: "http://127.0.0.1:\(port)")!
        var up = false
        for _ in 0..<300 where !up {
            up = (try? await Self.call(server.appendingPathComponent("health"), key: key).0) == 200
            if !up { try await Task.sleep(nanoseconds: 200_000_000) }
        }
        #expect(up)

        // The app's back end: seed 004's cart with the student discount and the two couriers.
        let lines: [[String: Any]] = [
            ["label": "DJI精灵4无人机主机", "amount": "9888.00"], ["label": "DJI精灵4智能电池", "amount": "230.00"],
            ["label": "DJI精灵4螺旋桨", "amount": "200.00"], ["label": "DJI精灵4旅行背包", "amount": "150.00"],
            ["label": "DJI精灵4第二手柄", "amount": "233.00"], ["label": "DJI精灵4云台盖", "amount": "33.00"],
            ["label": "大学生折扣价", "amount": "-1800.00"],
        ]
        let couriers: [[String: Any]] = [
            ["identifier": "yundakuaidi", "label": "韵达快递", "detail": "送货上门", "amount": "0.00"],
            ["identifier": "shunfengkuaidi", "label": "顺风快递", "detail": "24小时", "amount": "18.00"],
        ]
        let (created, order) = try await Self.call(
            server.appendingPathComponent("v1/orders"),
            "POST",
            key: key,
            body: ["currencyCode": "CNY", "countryCode": "CN", "lineItems": lines, "shippingMethods": couriers]
        )
        #expect(created == 201, "\(order)")
        let id = try #require(order["id"] as? String)
        let secret = try #require(order["clientSecret"] as? String)

        // The app: its checkout, on the simulated sheet; the shopper takes 顺风快递 and pays.
        PaysheetSimulator.shared.reset()
        PaysheetSimulator.shared.dataFolder = data
        PaysheetSimulator.shared.shopper = [.selectShippingMethod("shunfengkuaidi"), .authorize]
        // A shopper in Beijing with a UnionPay debit card (no sales tax in China).
        let beijing = ApplePayPaymentContact(
            phoneNumber: "+86 138 0013 8000",
            emailAddress: "li.lei@example.cn",
            givenName: "磊",
            familyName: "李",
            addressLines: ["朝阳区建国路88号"],
            locality: "北京市",
            postalCode: "100022",
            administrativeArea: "北京市",
            country: "中国",
            countryCode: "CN"
        )
        PaysheetSimulator.shared.wallet = Wallet(
            cards: [
                WalletCard(network: "chinaUnionPay", type: .debit, displayName: "银联 8000", billingContact: beijing)
            ],
            shippingContacts: [beijing],
            email: "li.lei@example.cn",
            phone: "+86 138 0013 8000"
        )
        #expect(DJICheckout.canPay())
        let checkout = DJICheckout(
            api: StoreAPI(server: server, orderId: id, clientSecret: secret),
            merchantIdentifier: "merchant.dev.paysheet.sandbox"
        )
        let controller = PKPaymentAuthorizationController(paymentRequest: checkout.request(for: order))
        controller.delegate = checkout
        #expect(await controller.present())
        let session = try #require(await PaysheetSimulator.shared.finishedSession())
        #expect(session.outcome == .paid, "\(session.log) \(checkout.lastResult ?? [:])")
        #expect(checkout.finished)
        #expect(session.shown.contains { $0.compactText.contains("顺风快递") })

        let (_, paid) = try await Self.call(server.appendingPathComponent("v1/orders/\(id)"), key: key)
        #expect(paid["status"] as? String == "paid", "\(paid)")
        #expect(paid["amount"] as? String == "8952.00", "\(paid)")
    }
}
#endif
