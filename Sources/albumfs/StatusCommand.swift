import AlbumCore
import AlbumSystem
import FoundationEssentials
import Glibc

/// `albumfs status MOUNTPOINT`: prints the daemon's `.albumfs/status`.
enum StatusCommand {
    static func run(mountpoint: String) throws(CLIError) -> Int32 {
        let path = mountpoint + "/.albumfs/status"
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            let why = String(cString: strerror(code))
            if code == ENOTCONN {
                // A FUSE mount whose daemon died: there is a mount, and no one answers it.
                throw CLIError(.badMountpoint, "albumfs status: the daemon of '\(mountpoint)' is gone (\(why)); clear the mount with: fusermount3 -u '\(mountpoint)'")
            }
            var st = stat()
            if stat(mountpoint, &st) != 0 {
                throw CLIError(.badMountpoint, "albumfs status: '\(mountpoint)': \(String(cString: strerror(errno)))")
            }
            throw CLIError(.badMountpoint, "albumfs status: '\(mountpoint)' is not an albumfs mount (\(path): \(why))")
        }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var text: [UInt8] = []
        while true {
            let n = Errno.retryingInterrupts { read(fd, &buffer, buffer.count) }
            if n < 0 { throw CLIError(.failure, "albumfs status: cannot read \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            text += buffer[0..<n]
        }
        print(String(decoding: text, as: UTF8.self), terminator: "")
        return ExitCode.success.rawValue
    }
}
