/// A sheet configuration or a user action, given as JSON, that cannot be read: the field at fault
/// (`options.timeoutSeconds`, `index`) and what is wrong with it.
public struct SheetInputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field at fault, as a path, when one is.
    public var field: String?
    /// What is wrong.
    public var message: String

    /// An error.
    public init(field: String?, message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { (field.map { "field \"\($0)\": " } ?? "") + message }
}
