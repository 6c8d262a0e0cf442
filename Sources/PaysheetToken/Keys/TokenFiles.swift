import PaysheetModel
import PaysheetTokenFormat
import SwiftASN1

extension PaymentTokenError {
    /// A key or certificate file that cannot be read or written (``KeyFileError``), as
    /// ``PaymentTokenError/Code/invalidKey``.
    init(_ error: KeyFileError) { self.init(.invalidKey, error.message) }
}

/// Key and certificate files as the token library reads them: ``KeyFile``'s operations, their
/// errors as ``PaymentTokenError/Code/invalidKey``, and PEM blocks.
enum TokenFiles {
    static func readText(_ path: String, what: String) throws(PaymentTokenError) -> String {
        do throws(KeyFileError) { return try KeyFile.readText(path, what: what) } catch {
            throw PaymentTokenError(error)
        }
    }

    static func readPrivateKeyText(
        _ path: String,
        policy: KeyFile.PermissionPolicy
    ) throws(PaymentTokenError) -> String {
        do throws(KeyFileError) { return try KeyFile.readPrivateKeyText(path, policy: policy) } catch {
            throw PaymentTokenError(error)
        }
    }

    static func write(_ text: String, to path: String, mode: Int) throws(PaymentTokenError) {
        do throws(KeyFileError) { try KeyFile.write(text, to: path, mode: mode) } catch {
            throw PaymentTokenError(error)
        }
    }

    /// The PEM blocks of `text`, in order.
    static func pemDocuments(_ text: String, what: String) throws(PaymentTokenError) -> [PEMDocument] {
        do {
            let documents = try PEMDocument.parseMultiple(pemString: text)
            guard !documents.isEmpty else { throw PaymentTokenError(.invalidKey, "\(what) holds no PEM block") }
            return documents
        } catch let error as PaymentTokenError {
            throw error
        } catch {
            throw PaymentTokenError(.invalidKey, "\(what) is not PEM (\(error))")
        }
    }

}
