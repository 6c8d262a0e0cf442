import ArgumentParser
import Foundation
import PaysheetModel
import PaysheetScenario
import PaysheetSheet

@main
struct Paysheet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paysheet",
        abstract:
            "A toolkit for merchants who accept Apple Pay: the simulated payment sheet, payment tokens and the sandbox that issues them.",
        subcommands: [
            ServeCommand.self, PayCommand.self, APIKeyCommand.self, AcquirerSandboxCommand.self, SheetCommand.self,
            TokenCommand.self, KeysCommand.self, ContactCommand.self, SandboxCommand.self,
        ]
    )
}

/// Exit codes shared by the commands.
enum ExitCodes {
    static let failed = ExitCode(1)
    static let usage = ExitCode(2)
}

func readInput(_ path: String) throws -> String {
    if path == "-" {
        var data = Data()
        while let line = readLine(strippingNewline: false) { data.append(contentsOf: Array(line.utf8)) }
        return String(decoding: data, as: UTF8.self)
    }
    guard let data = FileManager.default.contents(atPath: path) else {
        throw ValidationError("cannot read \(path)")
    }
    guard let text = String(data: data, encoding: .utf8) else { throw ValidationError("\(path) is not UTF-8 text") }
    return text
}

func writeErr(_ s: String) {
    FileHandle.standardError.write(Data((s + "\n").utf8))
}
