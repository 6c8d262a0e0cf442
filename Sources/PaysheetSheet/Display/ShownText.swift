/// What the sheet's status line shows, before a language is chosen: one of the sheet's own texts,
/// or a diagnostic of the simulator (a refused merchant session, a request that combines payment
/// kinds), which is for the developer and stays in English.
enum StatusLine: Sendable, Hashable {
    case sheet(SheetString)
    case diagnostic(String)

    /// The stable id of a sheet text (`nil` for a diagnostic).
    var id: SheetString? {
        if case .sheet(let id) = self { return id }
        return nil
    }

    func text(in language: SheetLanguage) -> String {
        switch self {
        case .sheet(let id): return id.text(in: language)
        case .diagnostic(let text): return text
        }
    }
}

/// A module error's message: one of the sheet's own texts, or the page's message as given (never
/// translated).
enum ShownMessage: Sendable, Hashable {
    case sheet(SheetString)
    case page(String)

    func text(in language: SheetLanguage) -> String {
        switch self {
        case .sheet(let id): return id.text(in: language)
        case .page(let text): return text
        }
    }
}

/// A module error as the engine keeps it: its title's id and its message, shown in the
/// configured language by ``resolved(in:)``.
struct ShownError: Sendable, Hashable {
    var title: SheetString
    var message: ShownMessage

    func resolved(in language: SheetLanguage) -> ModuleError {
        ModuleError(title: title.text(in: language), message: message.text(in: language))
    }
}
