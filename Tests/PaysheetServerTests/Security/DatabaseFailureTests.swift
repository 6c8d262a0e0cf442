import Foundation
import Testing
import VaporCSQLite

@testable import PaysheetServer

/// Finding 21's unit half: a database out of reach or a full disk is a 503 the caller may retry,
/// never a 500 (the fault runs in CI show it with PostgreSQL restarted and failed over, and with
/// SQLite's disk full).
@Suite struct DatabaseFailureTests {
    @Test func sqlitesCodesSayFullOrOutOfReach() {
        #expect(SQLiteConnectionHandle.kind(ofCode: SQLITE_FULL) == .full)
        #expect(SQLiteConnectionHandle.kind(ofCode: SQLITE_IOERR) == .unavailable)
        #expect(SQLiteConnectionHandle.kind(ofCode: SQLITE_IOERR | (3 << 8)) == .unavailable)  // an extended code
        #expect(SQLiteConnectionHandle.kind(ofCode: SQLITE_READONLY) == .unavailable)
        #expect(SQLiteConnectionHandle.kind(ofCode: SQLITE_CONSTRAINT) == .failed)
    }

    @Test func postgresStatesSayOutOfReach() {
        for state in ["08006", "08001", "57P01", "57P02", "57P03", "53300", "25006"] {
            #expect(PostgresDatabase.isUnavailable(sqlState: state), "\(state)")
        }
        for state in ["23505", "22012", "40001", "42P01"] { #expect(!PostgresDatabase.isUnavailable(sqlState: state)) }
        let plain = StorageError("a statement failed")
        #expect((PostgresDatabase.classified(plain) as? StorageError)?.kind == .failed)
    }

    @Test func theEdgeAnswers503WithRetryAfterAndHealthSaysSo() {
        let full = ErrorMiddleware.answer(to: StorageError("COMMIT: database or disk is full", kind: .full))
        #expect(full.status == 503 && full.code == "storage_full" && full.retryAfter == 30)
        let gone = ErrorMiddleware.answer(to: StorageError("connection lost", kind: .unavailable))
        #expect(gone.status == 503 && gone.code == "database_unavailable" && gone.retryAfter == 1)
        let response = APIAnswer(gone).response
        #expect(response.headers[.retryAfter] == "1")
        let alarm = StorageAlarm()
        let now = Date()
        #expect(!alarm.isRaised(at: now, within: 30))
        alarm.raise(at: now)
        #expect(alarm.isRaised(at: now.addingTimeInterval(29), within: 30))
        #expect(!alarm.isRaised(at: now.addingTimeInterval(31), within: 30))
    }
}
