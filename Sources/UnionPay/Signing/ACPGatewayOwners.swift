/// The owner fields (the third `@`-separated part of the CN) that identify UnionPay's gateway
/// signing certificates, decided as UnionPay's SDKs decide them with `acpsdk.ifValidateCNName`.
///
/// With the production setting (`true`) the SDKs accept only `中国银联股份有限公司`; with the test
/// setting (`false`) they accept it or `00040000:SIGN` (`CertUtil.verifyCertificate`,
/// `verifyAndGetVerifyCert`).
public enum ACPGatewayOwners {
    /// The owner field of UnionPay's production signing certificates, and of its current test
    /// gateway's.
    public static let unionPay = "中国银联股份有限公司"
    /// The owner field of UnionPay's earlier test-environment signing certificates (Paysheet's
    /// sandbox gateway writes the same).
    public static let testEnvironment = "00040000:SIGN"
    /// What the SDKs' production setting accepts: UnionPay's name only.
    public static let production: Set<String> = [unionPay]
    /// What the SDKs' test setting accepts: UnionPay's name or the test environment's.
    public static let test: Set<String> = [unionPay, testEnvironment]

    /// The owners accepted by default: ``production`` in production, ``test`` in any other mode.
    public static func defaults(forProduction isProduction: Bool) -> Set<String> {
        isProduction ? production : test
    }
}
