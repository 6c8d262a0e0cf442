// swift-tools-version:6.0
// Seed 004's in-app store, as an app's checkout code: it compiles against PassKit on iOS and
// against Paysheet's PaysheetPassKit elsewhere, and its test pays an order end to end through
// `paysheet serve` and the UnionPay sandbox.
import PackageDescription

let package = Package(
    name: "InAppStore",
    platforms: [.macOS(.v14), .iOS(.v16)],
    products: [.library(name: "InAppStore", targets: ["InAppStore"])],
    dependencies: [.package(name: "Paysheet", path: "../..")],
    targets: [
        .target(
            name: "InAppStore",
            dependencies: [
                .product(name: "PaysheetPassKit", package: "Paysheet", condition: .when(platforms: [.linux]))
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "InAppStoreTests",
            dependencies: [
                "InAppStore",
                .product(name: "PaysheetPassKit", package: "Paysheet", condition: .when(platforms: [.linux])),
                .product(name: "PaysheetModel", package: "Paysheet", condition: .when(platforms: [.linux])),
                .product(name: "PaysheetSheet", package: "Paysheet", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
