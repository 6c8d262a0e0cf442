import ArgumentParser
import Foundation
import PaysheetServer

/// `paysheet api-key create|list|revoke`: the merchant's secret API keys, in the server's database.
struct APIKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api-key",
        abstract: "Create, list and revoke the merchant's API keys (the merchant back end's and staff's credential).",
        discussion: """
            Keys are kept as hashes in the server's database, so every server on that database accepts them at once.
            A key goes in Authorization: Bearer psk_…; it is printed once, when it is created.
            """,
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct DatabaseOptions: ParsableArguments {
        @OptionGroup var data: DataFolderOption
        @Option(
            name: .customLong("database"),
            help: "sqlite:PATH or postgres://… (default: $PAYSHEET_DATABASE_URL or the data folder's SQLite file)."
        )
        var database: String?

        var url: String? { database ?? ProcessInfo.processInfo.environment["PAYSHEET_DATABASE_URL"] }

        /// The server's statement deadline (`PAYSHEET_DATABASE_STATEMENT_TIMEOUT`, read as `serve`
        /// reads it): the key commands run migrations, which may wait on another server's.
        func statementTimeout() throws -> Double {
            let name = "PAYSHEET_DATABASE_STATEMENT_TIMEOUT"
            guard let text = ProcessInfo.processInfo.environment[name] else {
                return PostgresDatabase.defaultStatementTimeout
            }
            guard let seconds = Double(text), PostgresDatabase.acceptsStatementTimeout(seconds) else {
                FileHandle.standardError.write(
                    Data(
                        "paysheet api-key: \(name)=\(text) is not a number of seconds above 0 and at most 86400\n".utf8
                    )
                )
                throw ExitCodes.usage
            }
            return seconds
        }

        /// Runs `body` with the keys of the chosen database.
        func withKeys<T: Sendable>(_ body: @Sendable (APIKeys) async throws -> T) async throws -> T {
            try await APIKeys.withDatabase(url, dataFolder: data.folder, statementTimeout: statementTimeout(), body)
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a key; its last line of output is the key, shown this once."
        )
        @OptionGroup var options: DatabaseOptions
        @Option(name: .customLong("name"), help: "A name for people (who or what uses the key).")
        var name = "merchant"

        func run() async throws {
            let (record, key) = try await options.withKeys {
                try await $0.create(name: name)
            }
            say("created API key \(record.id) (\(record.name)); it is shown once, keep it secret:")
            say(key)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the keys (ids, names, dates; never the keys).")
        @OptionGroup var options: DatabaseOptions

        func run() async throws {
            let keys = try await options.withKeys {
                try await $0.list()
            }
            let format = Date.ISO8601FormatStyle()
            for k in keys {
                say(
                    "\(k.id)  \(k.createdAt.formatted(format))  \(k.revokedAt.map { "revoked " + $0.formatted(format) } ?? "active")  \(k.name)"
                )
            }
            if keys.isEmpty { say("no API keys; create one with paysheet api-key create") }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a key by its id (key_…): every server refuses it from then on."
        )
        @OptionGroup var options: DatabaseOptions
        @Argument(help: "The key's id, as paysheet api-key list shows it.")
        var id: String

        func run() async throws {
            let done = try await options.withKeys {
                try await $0.revoke(id)
            }
            guard done else {
                FileHandle.standardError.write(Data("paysheet api-key revoke: no active key \(id)\n".utf8))
                throw ExitCodes.failed
            }
            say("revoked \(id)")
        }
    }
}
