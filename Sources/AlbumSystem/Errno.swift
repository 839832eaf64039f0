import Glibc

/// A POSIX error number, typed (swift-system's `Errno`, without the dependency).
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno`.
    public static var current: Errno { Errno(rawValue: errno) }

    public static let notFound = Errno(rawValue: ENOENT)
    public static let ioError = Errno(rawValue: EIO)
    public static let accessDenied = Errno(rawValue: EACCES)
    public static let permissionDenied = Errno(rawValue: EPERM)
    public static let readOnlyFileSystem = Errno(rawValue: EROFS)
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    public static let isDirectory = Errno(rawValue: EISDIR)
    public static let noAttribute = Errno(rawValue: ENODATA)
    public static let notSupported = Errno(rawValue: EOPNOTSUPP)
    public static let range = Errno(rawValue: ERANGE)
    public static let nameTooLong = Errno(rawValue: ENAMETOOLONG)
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let exists = Errno(rawValue: EEXIST)
    public static let interrupted = Errno(rawValue: EINTR)

    /// `strerror`'s text.
    public var description: String { String(cString: strerror(rawValue)) }

    /// Calls `body`, a system call that answers a negative number with `errno` set, again for
    /// as long as it fails with EINTR (a signal arrived during it): the one EINTR loop of
    /// albumfs. Returns its first other answer.
    @inlinable
    public static func retryingInterrupts<T: BinaryInteger>(_ body: () -> T) -> T {
        while true {
            let answer = body()
            if answer >= 0 || errno != EINTR { return answer }
        }
    }
}
