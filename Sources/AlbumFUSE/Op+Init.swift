import CFuse3

extension Operations {
    /// `init`: the kernel has connected. libfuse compares the connection's `max_read` with the
    /// `-o max_read` it was given and refuses the connection (EPROTO) when they differ, so the
    /// option must be said here again (libfuse issue #91).
    static func initialize(_ userdata: UnsafeMutableRawPointer?, _ conn: UnsafeMutablePointer<fuse_conn_info>?) {
        guard let userdata, let conn else { return }
        conn.pointee.max_read = Unmanaged<FuseContext>.fromOpaque(userdata).takeUnretainedValue().maxRead
    }
}
