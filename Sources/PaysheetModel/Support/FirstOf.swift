import Foundation

/// The value of an operation, or `nil` when it takes longer than a deadline — without waiting
/// for the operation to end. Used by the server (a database that does not answer) and the
/// PassKit simulator (a handler not called).
///
/// The loser is cancelled: the deadline when the operation answers first, the operation when the
/// deadline passes first (its result, if it still comes, is dropped). A cancelled caller cancels
/// the operation and is still answered by whichever comes first (the operation, typically
/// throwing `CancellationError`, or the deadline).
///
/// Not a task group: a group waits for all its children, and the operations raced here may never
/// end (a delegate that keeps its completion handler, a statement whose answer was lost), nor
/// stop when cancelled. So the operation is a task of its own and the deadline one of the
/// process's ``Deadlines``, each held here and cancelled when it loses; the caller waits on a
/// continuation that the first to finish resumes.
package enum FirstOf {
    package static func value<T: Sendable>(
        within seconds: Double,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        let gate = OneShot<T?>()
        // Taken back when the operation ends first (every PostgreSQL statement runs under one, so
        // none lingers for the whole deadline): one timer serves them all (`Deadlines`).
        let deadline = Deadlines.shared.schedule(after: seconds) { gate.resume(.success(nil)) }
        let work = Task {
            do { gate.resume(.success(try await operation())) } catch { gate.resume(.failure(error)) }
            deadline.cancel()
        }
        return try await withTaskCancellationHandler {
            // Once answered the operation is done with: given up if it is still running (the
            // deadline came first), a no-op if it answered.
            defer { work.cancel() }
            return try await withCheckedThrowingContinuation { gate.arm($0) }
        } onCancel: {
            work.cancel()
        }
    }
}

/// A continuation resumed once, by whichever result comes first.
package final class OneShot<T: Sendable>: @unchecked Sendable {
    // `@unchecked`: its state is only touched under `lock`. (`Synchronization.Mutex` needs macOS 15,
    // the package supports macOS 14, and PaysheetModel depends on nothing that has a checked lock.)
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Error>?
    private var early: Result<T, Error>?

    package init() {}

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
