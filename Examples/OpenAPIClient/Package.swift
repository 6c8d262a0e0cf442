// swift-tools-version:6.0
// A client of the merchant server generated from docs/openapi.yaml by swift-openapi-generator
// (its build plugin reads the symlink Sources/PaysheetAPIClient/openapi.yaml, so the document
// stays the one source). Its executable creates, pays, refunds and reads an order against a
// running `paysheet serve`. The main package does not depend on the generator.
import PackageDescription

let package = Package(
    name: "OpenAPIClient",
    platforms: [.macOS(.v14)],
    products: [.executable(name: "paysheet-api-client", targets: ["PaysheetAPIClient"])],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", exact: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", exact: "1.4.0"),
    ],
    targets: [
        .executableTarget(
            name: "PaysheetAPIClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        )
    ]
)
