/// The encryption scheme of a payment token (`paymentData.version`).
public enum PaymentTokenVersion: String, Sendable, CaseIterable {
    /// Elliptic curve: ECDH on P-256 with an ephemeral key, Apple's KDF, AES-256-GCM.
    case ecV1 = "EC_v1"
    /// RSA: an AES key wrapped with RSA-OAEP-SHA256, AES-GCM (128-bit keys in real tokens).
    case rsaV1 = "RSA_v1"
}
