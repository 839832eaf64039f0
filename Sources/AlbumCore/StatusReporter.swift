/// The text of the read-only files under `.albumfs/` at the mount root (docs/status.md).
public protocol StatusReporter: Sendable {
    /// `key: value` lines: photos, scan state, errors, thumbnail cache use.
    func statusText() -> String
    /// One `path: why` line per file that could not be read or decoded.
    func errorsText() -> String
}
