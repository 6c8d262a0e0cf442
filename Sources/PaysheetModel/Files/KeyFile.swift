import Foundation

/// Reading and writing key and certificate files.
///
/// Private keys are written with mode 0600 in folders with mode 0700. Reading a private key that
/// other users may read is reported (``PermissionPolicy``): refused by a server, warned about by
/// a command that a person runs on purpose.
public enum KeyFile {
    /// What to do when a private key file is readable or writable by group or others.
    public enum PermissionPolicy: Sendable {
        /// Load it anyway.
        case allow
        /// Load it and call `warn` with a message.
        case warn(@Sendable (String) -> Void)
        /// Refuse it with a ``KeyFileError``.
        case refuse
    }

    /// The text of the file at `path`.
    public static func readText(_ path: String, what: String) throws(KeyFileError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyFileError("cannot read \(what) file \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw KeyFileError("\(what) file \(path) is not UTF-8 text (PEM expected)")
        }
        return text
    }

    /// The text of the private key file at `path`, after checking its permissions.
    public static func readPrivateKeyText(_ path: String, policy: PermissionPolicy) throws(KeyFileError) -> String {
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0
        {
            let message =
                "private key file \(path) has mode \(String(mode, radix: 8)); other users can read it. Run: chmod 600 \(path)"
            switch policy {
            case .allow: break
            case .warn(let warn): warn(message)
            case .refuse: throw KeyFileError(message)
            }
        }
        return try readText(path, what: "private key")
    }

    /// The text of the private key file at `path` (policy ``PermissionPolicy/refuse``), written
    /// first with `make()` and mode 0600 when it does not exist. Of several processes that make
    /// it at once, one wins: each writes its own file aside and links it into place (`link`
    /// never overwrites), so all of them read the same key.
    public static func privateKeyTextCreatingOnce(
        _ path: String,
        make: () -> String
    ) throws(KeyFileError) -> String {
        if !FileManager.default.fileExists(atPath: path) {
            let staging = path + ".new-" + UUID().uuidString
            try write(make(), to: staging, mode: 0o600)
            defer { unlink(staging) }
            if link(staging, path) != 0 && errno != EEXIST {
                throw KeyFileError("cannot create \(path): \(String(cString: strerror(errno)))")
            }
        }
        return try readPrivateKeyText(path, policy: .refuse)
    }

    /// Writes `text` to `path` atomically with `mode`, creating the folder with mode 0700.
    public static func write(_ text: String, to path: String, mode: Int) throws(KeyFileError) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        do {
            if !FileManager.default.fileExists(atPath: folder) {
                try FileManager.default.createDirectory(
                    atPath: folder,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
            }
            let temporary = folder + "/.\(url.lastPathComponent).\(UUID().uuidString)"
            guard
                FileManager.default.createFile(
                    atPath: temporary,
                    contents: Data(text.utf8),
                    attributes: [.posixPermissions: mode]
                )
            else {
                throw KeyFileError("cannot write \(temporary)")
            }
            if rename(temporary, path) != 0 {
                try? FileManager.default.removeItem(atPath: temporary)
                throw KeyFileError("cannot move \(temporary) to \(path): \(String(cString: strerror(errno)))")
            }
        } catch let error as KeyFileError {
            throw error
        } catch {
            throw KeyFileError("cannot write \(path): \(error.localizedDescription)")
        }
    }
}

/// A key or certificate file that cannot be read or written, or a private key file that other
/// users may read (``KeyFile/PermissionPolicy/refuse``).
public struct KeyFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the file.
    public var message: String

    /// An error.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
