/// Whether the server is a sandbox (sandbox tokens, the simulated sheet, the built-in gateway)
/// or takes real payments. The mode is set explicitly and is whole: nothing else switches it.
public enum ServerMode: String, Sendable, Codable, Equatable {
    /// The default: everything needed for testing, nothing to configure.
    case sandbox
    /// Real payments: ``ProductionCheck`` refuses every sandbox part.
    case production
}
