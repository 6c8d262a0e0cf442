/// A problem with a scenario file itself (not a failed expectation): broken JSON, an unknown
/// step, key or matcher, a value of the wrong kind. It names the file, the step and the field.
public struct ScenarioError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// The 1-based step, when the problem is inside `steps`.
    public var step: Int?
    /// The field at fault, as a path (`request`, `steps[3].user`, `options.timeoutSeconds`).
    public var field: String?
    /// What is wrong.
    public var message: String

    /// An error.
    public init(file: String, step: Int? = nil, field: String? = nil, message: String) {
        self.file = file
        self.step = step
        self.field = field
        self.message = message
    }

    public var description: String {
        var parts = [file]
        if let step { parts.append("step \(step)") }
        if let field { parts.append("field \"\(field)\"") }
        return parts.joined(separator: ": ") + ": " + message
    }
}
