// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Paysheet",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "PaysheetModel", targets: ["PaysheetModel"]),
        .library(name: "PaysheetSheet", targets: ["PaysheetSheet"]),
        .library(name: "PaysheetScenario", targets: ["PaysheetScenario"]),
        .library(name: "PaysheetTokenFormat", targets: ["PaysheetTokenFormat"]),
        .library(name: "PaysheetToken", targets: ["PaysheetToken"]),
        .library(name: "PaysheetContact", targets: ["PaysheetContact"]),
        .executable(name: "paysheet", targets: ["paysheet"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        .target(name: "PaysheetModel"),
        .target(name: "PaysheetSheet", dependencies: ["PaysheetModel"]),
        .target(name: "PaysheetScenario", dependencies: ["PaysheetSheet", "PaysheetModel", "PaysheetToken", "PaysheetTokenFormat"]),
        .target(name: "PaysheetContact", dependencies: ["PaysheetModel"]),
        .target(
            name: "PaysheetTokenFormat",
            dependencies: ["PaysheetModel", .product(name: "SwiftASN1", package: "swift-asn1")]
        ),
        .target(
            name: "PaysheetToken",
            dependencies: [
                "PaysheetModel", "PaysheetTokenFormat",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .executableTarget(
            name: "paysheet",
            dependencies: [
                "PaysheetModel", "PaysheetSheet", "PaysheetScenario", "PaysheetToken", "PaysheetTokenFormat", "PaysheetContact",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "paysheet-bench",
            dependencies: [
                "PaysheetModel", "PaysheetSheet", "PaysheetScenario", "PaysheetToken", "PaysheetTokenFormat", "PaysheetContact",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(name: "PaysheetContactTests", dependencies: ["PaysheetContact", "PaysheetModel"]),
        .testTarget(name: "PaysheetModelTests", dependencies: ["PaysheetModel"]),
        .testTarget(name: "PaysheetSheetTests", dependencies: ["PaysheetSheet", "PaysheetModel"]),
        .testTarget(
            name: "PaysheetScenarioTests",
            dependencies: [
                "PaysheetScenario", "PaysheetSheet", "PaysheetModel", "PaysheetToken", "PaysheetTokenFormat",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "PaysheetTokenTests",
            dependencies: [
                "PaysheetToken", "PaysheetTokenFormat", "PaysheetModel", "PaysheetSheet",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
    ]
)
