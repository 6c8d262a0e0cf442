import ArgumentParser

struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Verify, decrypt and issue payment tokens.")
}

struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "keys", abstract: "Create merchant payment-processing keys.")
}
