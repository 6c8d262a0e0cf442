// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Paysheet",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "PaysheetModel", targets: ["PaysheetModel"]),
        .library(name: "PaysheetSheet", targets: ["PaysheetSheet"]),
        .library(name: "PaysheetScenario", targets: ["PaysheetScenario"]),
        .executable(name: "paysheet", targets: ["paysheet"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        .target(name: "PaysheetModel"),
        .target(name: "PaysheetSheet", dependencies: ["PaysheetModel"]),
        .target(name: "PaysheetScenario", dependencies: ["PaysheetSheet", "PaysheetModel"]),
        .executableTarget(
            name: "paysheet",
            dependencies: [
                "PaysheetModel", "PaysheetSheet", "PaysheetScenario",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "paysheet-bench",
            dependencies: ["PaysheetModel", "PaysheetSheet", "PaysheetScenario"]
        ),
        .testTarget(name: "PaysheetModelTests", dependencies: ["PaysheetModel"]),
        .testTarget(name: "PaysheetSheetTests", dependencies: ["PaysheetSheet", "PaysheetModel"]),
        .testTarget(
            name: "PaysheetScenarioTests",
            dependencies: ["PaysheetScenario", "PaysheetSheet", "PaysheetModel"]
        ),
    ]
)
