import Foundation
import PaysheetModel
import Logging
import Metrics
import NIOSSL
import PostgresNIO

/// PostgreSQL through postgres-nio's `PostgresClient` (a connection pool). Run ``run()`` (a
/// service) for the pool to work.
public final class PostgresDatabase: SQLDatabase, @unchecked Sendable {
    /// Statements sent to PostgreSQL (each a round trip; `BEGIN` and `COMMIT` included), for
    /// `/metrics` (`paysheet_database_round_trips_total`) and the load benchmark.
    static let roundTrips = Counter(label: "paysheet_database_round_trips_total")
    /// The client.
    public let client: PostgresClient
    /// The store's statements, prepared on each connection.
    let statements = PostgresPreparedStatements()
    let logger: Logger
    /// Seconds a statement may take before the database is taken to be out of reach.
    let statementTimeout: Double

    public var dialect: String { "postgresql" }

    /// A database at `url` (`postgres://user:password@host:port/database`, with `sslmode` and
    /// `sslrootcert` as libpq reads them; see ``PostgresTLSMode``); `searchPath`
    /// selects a schema other than `public`; a statement not answered within `statementTimeout`
    /// seconds is given up (its connection closed) and the database taken to be out of reach.
    public init(
        url: String,
        searchPath: String? = nil,
        statementTimeout: Double = PostgresDatabase.defaultStatementTimeout,
        logger: Logger = Logger(label: "paysheet.postgres")
    ) throws {
        guard Self.acceptsStatementTimeout(statementTimeout) else {
            throw StorageError("a statement deadline of \(statementTimeout) s is not above 0 and at most a day")
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            scheme == "postgres" || scheme == "postgresql", let host = components.host
        else {
            throw StorageError("database URL \(url) is not postgres://user:password@host:port/database")
        }
        let tls: PostgresClient.Configuration.TLS
        switch try PostgresTLSMode.configuration(url: url) {
        case (_, nil): tls = .disable
        case (.prefer, let context?): tls = .prefer(context)
        case (_, let context?): tls = .require(context)
        }
        var configuration = PostgresClient.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: components.user ?? "postgres",
            password: components.password,
            database: String(components.path.dropFirst()).nilIfEmpty,
            tls: tls
        )
        configuration.options.maximumConnections = 16
        if let searchPath { configuration.options.additionalStartupParameters = [("search_path", searchPath)] }
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
        self.statementTimeout = statementTimeout
    }

    /// The per-statement counter of `sql`, made once per statement text (the texts are the
    /// store's constants, a few dozen), not tokenized again on every execution.
    static func statementCounter(_ sql: String) -> Counter {
        if let counter = statementCounters.lock.withLock({ statementCounters.bySQL[sql] }) { return counter }
        let counter = Counter(
            label: "paysheet_database_statements_total",
            dimensions: [("statement", statementKind(sql))]
        )
        statementCounters.lock.withLock {
            if statementCounters.bySQL.count < 1_000 { statementCounters.bySQL[sql] = counter }
        }
        return counter
    }

    private final class CounterCache: @unchecked Sendable {
        let lock = NSLock()
        var bySQL: [String: Counter] = [:]
    }
    private static let statementCounters = CounterCache()

    /// A statement's kind for the per-statement counter: its verb and first table
    /// (`INSERT payments`, `SELECT orders`, `BEGIN`), so that the label set stays small.
    static func statementKind(_ sql: String) -> String {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "(" || $0 == "," }).map(String.init)
        guard let verb = words.first?.uppercased() else { return "?" }
        let marker: Set<String> = ["FROM", "INTO", "UPDATE", "TABLE"]
        var table = ""
        if verb == "UPDATE", words.count > 1 {
            table = words[1]
        } else if let i = words.firstIndex(where: { marker.contains($0.uppercased()) }), i + 1 < words.count {
            table = words[i + 1]
        }
        if verb == "WITH" { return "WITH " + (words.dropFirst().first ?? "") }
        return table.isEmpty ? verb : verb + " " + table.lowercased()
    }

    /// Whether `seconds` may be a statement deadline: above 0, at most a day (86,400 s).
    public static func acceptsStatementTimeout(_ seconds: Double) -> Bool { seconds > 0 && seconds <= 86_400 }

    /// `seconds` as a message says it: `15`, `2.5`.
    static func seconds(_ seconds: Double) -> String {
        seconds.rounded() == seconds && abs(seconds) < 1e9 ? String(Int(seconds)) : String(seconds)
    }

    /// Runs the connection pool until cancelled.
    public func run() async { await client.run() }

    /// This database's statements on `connection` (its deadline, its prepared statements).
    func executor(on connection: PostgresConnection) -> Executor {
        Executor(connection: connection, statementTimeout: statementTimeout, statements: statements, logger: logger)
    }

    struct Executor: SQLExecutor {
        let connection: PostgresConnection
        let statementTimeout: Double
        let statements: PostgresPreparedStatements
        let logger: Logger
        func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
            PostgresDatabase.roundTrips.increment()
            PostgresDatabase.statementCounter(sql).increment()
            // A statement whose answer never comes (postgres-nio can lose a query written as its
            // connection closes) is given up after statementTimeout, and its connection closed so that
            // the pool does not lend it again.
            let connection = connection
            let statements = statements
            let logger = logger
            let timeout = statementTimeout
            let rows: [SQLRow]?
            do {
                rows = try await FirstOf.value(within: timeout) {
                    try await Self.run(sql, binds, on: connection, statements: statements, logger: logger)
                }
            } catch let error as SQLStatementAborted {
                throw error
            } catch {
                throw PostgresDatabase.classified(error)
            }
            guard let rows else {
                connection.close().whenComplete { _ in }
                throw StorageError(
                    "PostgreSQL did not answer \(PostgresDatabase.statementKind(sql)) within \(PostgresDatabase.seconds(timeout)) s",
                    kind: .unavailable
                )
            }
            return rows
        }

        static func run(
            _ sql: String,
            _ binds: [SQLValue],
            on connection: PostgresConnection,
            statements: PostgresPreparedStatements,
            logger: Logger
        ) async throws -> [SQLRow] {
            do {
                let rows: [PostgresRow]
                if let statement = try await statements.statement(sql, on: connection) {
                    rows = try await statement.query.execute(try statement.bindings(binds)).get()
                } else {
                    var bindings = PostgresBindings()
                    for value in binds { bindings.append(value.postgresData) }
                    rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
                        .collect()
                }
                var out: [SQLRow] = []
                var columns: [String]?
                for row in rows {
                    var values: [String?] = []
                    for cell in row { values.append(try cell.decode(String?.self)) }
                    if columns == nil { columns = row.map(\.columnName) }
                    out.append(SQLRow(columns: columns ?? [], values: values))
                }
                return out
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == Self.divisionByZero {
                throw SQLStatementAborted()  // a statement of several writes undid itself
            } catch let error as PostgresError where error.code.raw == Self.divisionByZero {
                throw SQLStatementAborted()  // the same, through postgres-nio's prepared-statement path
            }
        }

        /// SQLSTATE `division_by_zero`: how a statement of several writes says it undid itself.
        static let divisionByZero = "22012"
    }

    /// Every commit waits for the disk, ``SQLCommit/ordered`` ones too (see ``SQLCommit``).
    public func transaction<T: Sendable>(
        commit: SQLCommit,
        _ body: @Sendable (any SQLExecutor) async throws -> T
    ) async throws -> T {
        do {
            return try await transactionOnce(body)
        } catch {
            throw Self.classified(error)
        }
    }

    private func transactionOnce<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            let executor = self.executor(on: connection)
            _ = try await executor.execute("BEGIN", [])
            do {
                let result = try await body(executor)
                _ = try await executor.execute("COMMIT", [])
                return result
            } catch {
                _ = try? await executor.execute("ROLLBACK", [])
                throw error
            }
        }
    }

    /// Seconds a statement may take by default before the database is taken to be out of reach
    /// (`ServerConfiguration.databaseStatementTimeout`).
    public static let defaultStatementTimeout: Double = 15

    /// `error` as a ``StorageError``: ``StorageError/Kind/unavailable`` when it says the server or
    /// the connection is gone (closed connections, SQLSTATE classes 08 and 53, 57P01–57P03, 25006),
    /// else as it is.
    static func classified(_ error: any Error) -> any Error {
        if error is StorageError || error is SQLStatementAborted { return error }
        if let error = error as? PSQLError {
            let gone: [PSQLError.Code] = [
                .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed,
            ]
            if gone.contains(error.code) {
                return StorageError("PostgreSQL connection lost (\(error.code))", kind: .unavailable)
            }
            if let state = error.serverInfo?[.sqlState], isUnavailable(sqlState: state) {
                return StorageError(
                    "PostgreSQL is not available (SQLSTATE \(state): \(error.serverInfo?[.message] ?? ""))",
                    kind: .unavailable
                )
            }
        }
        if let error = error as? PostgresError {
            if case .connectionClosed = error {
                return StorageError("PostgreSQL connection closed", kind: .unavailable)
            }
            if isUnavailable(sqlState: error.code.raw) {
                return StorageError("PostgreSQL is not available (SQLSTATE \(error.code.raw))", kind: .unavailable)
            }
        }
        return error
    }

    /// Connection exceptions (08), insufficient resources (53), the server shutting down
    /// (57P01–57P03) and a read-only transaction on a standby (25006).
    static func isUnavailable(sqlState: String) -> Bool {
        sqlState.hasPrefix("08") || sqlState.hasPrefix("53") || ["57P01", "57P02", "57P03", "25006"].contains(sqlState)
    }

    public func read(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] { try await alone(sql, binds) }

    public func write(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] { try await alone(sql, binds) }

    /// One statement on a pooled connection, outside `BEGIN … COMMIT`: PostgreSQL runs and
    /// commits it on its own.
    private func alone(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        do {
            return try await client.withConnection { connection in
                try await self.executor(on: connection).execute(sql, binds)
            }
        } catch {
            throw Self.classified(error)
        }
    }

    /// Runs one statement outside a transaction (`CREATE DATABASE` cannot run in one).
    public func executeOutsideTransaction(_ sql: String) async throws {
        try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
    }

    public func close() async {}
}

extension SQLValue {
    /// The value as postgres-nio binds it.
    var postgresData: PostgresData {
        switch self {
        case .int(let number): PostgresData(int: number)
        case .text(let text): PostgresData(string: text)
        case .null: PostgresData.null
        }
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
