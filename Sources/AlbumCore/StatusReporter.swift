/// The text of the read-only files under `.albumfs/` at the mount root (docs/status.md).
public protocol StatusReporter: Sendable {
    /// `key: value` lines: photos, scan state, errors, thumbnail cache use.
    func statusText() -> String
    /// One `path: why` line per file that could not be read or decoded.
    func errorsText() -> String
    /// One `path: why` line per file or folder under the library's folder that no view shows.
    func notShownText() -> String
}

extension StatusReporter {
    public func notShownText() -> String { "" }
}
