import Foundation

/// The value of an operation, or `nil` when it takes longer than a deadline — without waiting
/// for the operation to end (it goes on in the background and its result is dropped). Used by the
/// server (a database that does not answer) and the PassKit simulator (a handler not called).
package enum FirstOf {
    package static func value<T: Sendable>(
        within seconds: Double,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        let gate = OneShot<T?>()
        return try await withCheckedThrowingContinuation { continuation in
            gate.arm(continuation)
            let deadline = Task {
                // Cancelled when the operation ends first: the sleep then ends at once, unanswered
                // (every PostgreSQL statement runs under one, so none lingers for the whole deadline).
                guard (try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))) != nil else { return }
                gate.resume(.success(nil))
            }
            Task {
                do { gate.resume(.success(try await operation())) } catch { gate.resume(.failure(error)) }
                deadline.cancel()
            }
        }
    }
}

/// A continuation resumed once, by whichever result comes first.
package final class OneShot<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Error>?
    private var early: Result<T, Error>?

    package func arm(_ c: CheckedContinuation<T, Error>) {
        let ready: Result<T, Error>? = lock.withLock {
            if let early { return early }
            continuation = c
            return nil
        }
        if let ready { c.resume(with: ready) }
    }

    package func resume(_ result: Result<T, Error>) {
        let c: CheckedContinuation<T, Error>? = lock.withLock {
            if continuation == nil && early == nil {
                early = result
                return nil
            }
            defer { continuation = nil }
            return continuation
        }
        c?.resume(with: result)
    }
}
