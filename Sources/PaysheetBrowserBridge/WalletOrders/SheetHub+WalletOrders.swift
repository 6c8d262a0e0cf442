import Foundation
import Hummingbird
import NIOCore
import PaysheetModel
import PaysheetServer
import PaysheetSheet

extension SheetHub {
    /// Fetches and checks the order the page's last payment gave the wallet, once (a page that
    /// asks again is answered with the verdict it has), records the verdict on the page's sheet
    /// and answers as the `state` operation does. 404 for an unknown page; 409 when the page's
    /// last payment gave the wallet no order.
    func checkWalletOrder(page id: String, wall: @Sendable () -> Double) async throws(ServiceError) -> JSONValue {
        guard let entry = pages[id] else { throw unknownPage(id) }
        guard let details = entry.page.machine.walletOrder else {
            throw ServiceError(
                .conflict,
                code: "no_wallet_order",
                message:
                    "this page's last payment gave the wallet no order: complete a payment with STATUS_SUCCESS and orderDetails first"
            )
        }
        if entry.page.machine.walletOrderVerdict == nil, checkingWalletOrders.insert(id).inserted {
            // The actor is free while the order is fetched; the verdict goes to the page only if
            // its sheet still holds these details.
            let verdict = await walletOrderChecker.verdict(details)
            checkingWalletOrders.remove(id)
            if var kept = pages[id] {
                kept.page.machine.recordWalletOrderVerdict(verdict, for: details)
                pages[id] = kept
            }
        }
        guard var page = pages[id]?.page else { throw unknownPage(id) }
        do throws(BrowserPage.BridgeError) {
            let answer = try page.handle(["op": "state"], wall: wall())
            pages[id]?.page = page
            return .object(answer)
        } catch {
            throw ServiceError.invalid(error.field, error.message)
        }
    }

    func unknownPage(_ id: String) -> ServiceError {
        ServiceError(
            .notFound,
            code: "not_found",
            message:
                "page \(id.prefix(80)) does not exist: pages are created by POST /paysheet/v1/pages and dropped after \(Int(idleSeconds)) s idle"
        )
    }
}

extension BrowserRoutes {
    /// Whoever holds the page's id: the simulated wallet fetches and checks the order of the
    /// page's last payment (`POST /paysheet/v1/pages/{id}/wallet-order`).
    static func addWalletOrderRoute(to router: Router<APIRequestContext>, hub: SheetHub) {
        router.post("/paysheet/v1/pages/:id/wallet-order") { _, context -> Response in
            let answer = try await hub.checkWalletOrder(page: context.parameters.get("id") ?? "") {
                Date().timeIntervalSince1970
            }
            return Response(
                status: .ok,
                headers: [.contentType: "application/json", .cacheControl: "no-store", .accessControlAllowOrigin: "*"],
                body: .init(byteBuffer: ByteBuffer(string: answer.compactText))
            )
        }
    }
}
