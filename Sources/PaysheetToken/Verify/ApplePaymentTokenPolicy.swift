import PaysheetTokenFormat
import SwiftASN1
import X509

/// Apple's rules for the chain of a payment-token signature, beside RFC 5280's: exactly
/// leaf → intermediate → root, the leaf carrying extension 1.2.840.113635.100.6.29 and the
/// intermediate 1.2.840.113635.100.6.2.14 ("only their presence matters").
struct ApplePaymentTokenPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [
        TokenOID.appleLeafMarker, TokenOID.appleIntermediateMarker,
    ]

    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(
                reason: "the chain has \(chain.count) certificates; Apple's is signing certificate, intermediate, root"
            )
        }
        guard chain[0].extensions[oid: TokenOID.appleLeafMarker] != nil else {
            return .failsToMeetPolicy(
                reason:
                    "the signing certificate (\(chain[0].subject)) lacks Apple's payment-token marker 1.2.840.113635.100.6.29"
            )
        }
        guard chain[1].extensions[oid: TokenOID.appleIntermediateMarker] != nil else {
            return .failsToMeetPolicy(
                reason: "the intermediate (\(chain[1].subject)) lacks Apple's marker 1.2.840.113635.100.6.2.14"
            )
        }
        return .meetsPolicy
    }
}
