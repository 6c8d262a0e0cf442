// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Paysheet",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "PaysheetModel", targets: ["PaysheetModel"]),
        .library(name: "PaysheetSheet", targets: ["PaysheetSheet"]),
        .library(name: "PaysheetSheetTokens", targets: ["PaysheetSheetTokens"]),
        .library(name: "PaysheetScenario", targets: ["PaysheetScenario"]),
        .library(name: "PaysheetTokenFormat", targets: ["PaysheetTokenFormat"]),
        .library(name: "PaysheetToken", targets: ["PaysheetToken"]),
        .library(name: "PaysheetContact", targets: ["PaysheetContact"]),
        .library(name: "UnionPay", targets: ["UnionPay"]),
        .library(name: "UnionPaySandbox", targets: ["UnionPaySandbox"]),
        .library(name: "PaysheetServer", targets: ["PaysheetServer"]),
        .library(name: "PaysheetBrowserBridge", targets: ["PaysheetBrowserBridge"]),
        .library(name: "PaysheetSandboxServer", targets: ["PaysheetSandboxServer"]),
        .library(name: "PaysheetPassKit", targets: ["PaysheetPassKit"]),
        .executable(name: "paysheet", targets: ["paysheet"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // 4.x: RSA encryption with PKCS #1 v1.5 padding (`_WEAK_AND_INSECURE_PKCS_V1_5`), UnionPay's
        // sensitive-field encryption; 3.x offers OAEP only.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // UnionPay's file transfers: a zlib stream (CompressNIO) of a ZIP archive (ZIPFoundation).
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // NIOHTTPTypes: the HTTP parts the connection guard reads (Hummingbird's own pipeline types).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Traces: the `Tracing` API in the server (no-op spans unless a tracer is bootstrapped);
        // swift-otel's OTLP/HTTP exporter in `paysheet` only, when an endpoint is configured
        // (its gRPC trait off: no gRPC stack built or linked).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        // `swift package generate-documentation`: the DocC catalogs in Sources/*/*.docc (CI builds them).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        .target(name: "PaysheetModel"),
        // RSA's operations on the system's OpenSSL 3 libcrypto when it is there (opened at run
        // time: nothing of OpenSSL is needed to build), on swift-crypto's BoringSSL otherwise.
        .target(
            name: "PaysheetRSA",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(name: "PaysheetSheet", dependencies: ["PaysheetModel"]),
        // The payment core: an order and its payments as pure state machines (no I/O, no clock).
        .target(name: "PaysheetPayments", dependencies: ["PaysheetModel"]),
        // The core under deterministic simulation: an in-memory store, a simulated acquirer and
        // clock, seeded schedules, the invariants and the broken variants that prove they bite.
        // Not a product: tests and `paysheet-sim` use it.
        .target(name: "PaysheetSimulation", dependencies: ["PaysheetPayments", "PaysheetModel"]),
        .executableTarget(name: "paysheet-sim", dependencies: ["PaysheetSimulation", "PaysheetPayments"]),
        // Real sandbox tokens for the simulated sheet (the sheet engine and the token library
        // meet here, so that neither depends on the other).
        .target(
            name: "PaysheetSheetTokens",
            dependencies: ["PaysheetSheet", "PaysheetModel", "PaysheetToken", "PaysheetTokenFormat"]
        ),
        // PassKit's payment API (and the Contacts types it uses) with Apple's names, over the sheet
        // engine: in-app checkout code runs here unchanged. Swift 5 mode, as app code is written.
        .target(
            name: "PaysheetPassKit",
            dependencies: ["PaysheetSheet", "PaysheetModel", "PaysheetSheetTokens", "PaysheetToken"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(
            name: "PaysheetScenario",
            dependencies: ["PaysheetSheet", "PaysheetModel"]
        ),
        .target(name: "PaysheetContact", dependencies: ["PaysheetModel"]),
        .target(
            name: "PaysheetTokenFormat",
            dependencies: ["PaysheetModel", .product(name: "SwiftASN1", package: "swift-asn1")]
        ),
        .target(
            name: "PaysheetToken",
            dependencies: [
                "PaysheetModel", "PaysheetTokenFormat", "PaysheetRSA",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(
            name: "UnionPay",
            dependencies: [
                "PaysheetModel", "PaysheetRSA",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // A client span per request, its W3C trace context in the request's headers.
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The sandbox gateway: an HTTP server speaking ACP as UnionPay's gateway does, for tests
        // and the sandbox mode (a UnionPay client does not need it).
        .target(
            name: "UnionPaySandbox",
            dependencies: [
                "UnionPay", "PaysheetModel",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // A traced gateway: a server span per request, its trace context in the notification.
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The merchant server (production): no sandbox gateway, simulated sheet or sandbox tokens
        // linked; `ServerSandbox` is what a composition gives it for what is left unconfigured.
        .target(
            name: "PaysheetServer",
            dependencies: [
                "PaysheetModel", "PaysheetPayments", "PaysheetToken", "PaysheetTokenFormat", "PaysheetContact",
                "UnionPay",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Hummingbird", package: "hummingbird"),
                // For the SQLite it vendors (module VaporCSQLite), used through its C API.
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            // The merchant console's page (static: HTML, its script and style).
            resources: [.copy("HTTP/Console")]
        ),
        // The simulated sheet's bridges to the merchant server: the browser's (`paysheet.js`, its
        // pages' sheet engines, the demo store) and the remote checkout's (`paysheet pay`), with
        // the sandbox's merchant sessions they check.
        .target(
            name: "PaysheetBrowserBridge",
            dependencies: [
                "PaysheetServer", "PaysheetSheet", "PaysheetSheetTokens", "PaysheetModel", "PaysheetToken", "UnionPay",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            resources: [.copy("Assets")]
        ),
        // `paysheet serve`'s sandbox composed into the merchant server: the sandbox gateway, keys
        // and certificates, merchant sessions and the browser's tools.
        .target(
            name: "PaysheetSandboxServer",
            dependencies: [
                "PaysheetServer", "PaysheetBrowserBridge", "PaysheetSheetTokens", "PaysheetToken", "UnionPay",
                "UnionPaySandbox",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "paysheet",
            dependencies: [
                "PaysheetModel", "PaysheetSheet", "PaysheetSheetTokens", "PaysheetScenario", "PaysheetToken",
                "PaysheetTokenFormat",
                "PaysheetContact",
                "PaysheetServer", "PaysheetBrowserBridge", "PaysheetSandboxServer", "UnionPay", "UnionPaySandbox",
                "PaysheetRSA",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "paysheet-bench",
            dependencies: [
                "PaysheetModel", "PaysheetSheet", "PaysheetSheetTokens", "PaysheetScenario", "PaysheetToken",
                "PaysheetTokenFormat",
                "PaysheetContact",
                "PaysheetServer", "UnionPay", "UnionPaySandbox", "PaysheetRSA",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "PaysheetRSATests",
            dependencies: [
                "PaysheetRSA",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "UnionPayTests",
            dependencies: [
                "UnionPay", "UnionPaySandbox", "PaysheetModel", "PaysheetToken",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                // A loopback gateway that records what the client posts.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(
            name: "PaysheetServerTests",
            dependencies: [
                "PaysheetServer", "PaysheetPayments", "PaysheetBrowserBridge", "PaysheetSandboxServer", "UnionPay",
                "UnionPaySandbox", "PaysheetModel", "PaysheetSheet", "PaysheetSheetTokens", "PaysheetToken",
                "PaysheetTokenFormat",
                "PaysheetScenario",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "PaysheetPassKitTests",
            dependencies: [
                "PaysheetPassKit", "PaysheetModel", "PaysheetSheet", "PaysheetToken", "PaysheetSheetTokens",
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(name: "PaysheetContactTests", dependencies: ["PaysheetContact", "PaysheetModel"]),
        .testTarget(name: "PaysheetModelTests", dependencies: ["PaysheetModel"]),
        .testTarget(
            name: "PaysheetPaymentsTests",
            dependencies: ["PaysheetPayments", "PaysheetSimulation", "PaysheetModel"]
        ),
        .testTarget(
            name: "PaysheetTokenFormatTests",
            dependencies: ["PaysheetTokenFormat", "PaysheetModel", .product(name: "SwiftASN1", package: "swift-asn1")]
        ),
        // Runs the built `paysheet`, `paysheet-bench` and `paysheet-sim` as a user does (exit codes, output).
        .testTarget(name: "PaysheetCLITests", dependencies: ["paysheet", "paysheet-bench", "paysheet-sim"]),
        .testTarget(name: "PaysheetSheetTests", dependencies: ["PaysheetSheet", "PaysheetModel"]),
        .testTarget(
            name: "PaysheetScenarioTests",
            dependencies: [
                "PaysheetScenario", "PaysheetSheet", "PaysheetSheetTokens", "PaysheetModel", "PaysheetToken",
                "PaysheetTokenFormat",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "PaysheetTokenTests",
            dependencies: [
                "PaysheetToken", "PaysheetTokenFormat", "PaysheetModel", "PaysheetSheet", "PaysheetRSA",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
    ]
)
