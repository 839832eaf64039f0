/// The exit codes of `albumfs`, a contract documented in docs/cli.md and tested.
enum ExitCode: Int32 {
    case success = 0
    /// The mount failed or the daemon stopped with an error.
    case failure = 1
    /// Bad command line: unknown command or option, malformed value, wrong number of arguments.
    case usage = 2
    /// SOURCE is missing, not a directory, or unreadable.
    case badSource = 3
    /// MOUNTPOINT is missing, not a directory, not empty, already mounted, or a stale mount.
    case badMountpoint = 4
    /// FUSE is not available: no /dev/fuse or no fusermount3.
    case noFuse = 5
}

/// A failure the user can act on: one line on stderr and an exit code.
struct CLIError: Error {
    let code: ExitCode
    let message: String

    init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
