import CFuse3

/// The one table that wires FUSE low-level operations to their handlers (one file each).
///
/// Built inside a function, never at top level of `main.swift`: `@convention(c)` closures made
/// there inherit main-actor isolation and trap on a FUSE worker thread (docs/swift-fuse.md).
enum Operations {
    static func table() -> fuse_lowlevel_ops {
        var ops = fuse_lowlevel_ops()
        ops.`init` = { Operations.initialize($0, $1) }
        ops.lookup = { Operations.lookup($0, $1, $2) }
        ops.getattr = { Operations.getattr($0, $1, $2) }
        ops.opendir = { Operations.opendir($0, $1, $2) }
        ops.readdir = { Operations.readdir($0, $1, $2, $3, $4) }
        ops.readdirplus = { Operations.readdirplus($0, $1, $2, $3, $4) }
        ops.releasedir = { Operations.releasedir($0, $1, $2) }
        ops.open = { Operations.open($0, $1, $2) }
        ops.read = { Operations.read($0, $1, $2, $3, $4) }
        ops.release = { Operations.release($0, $1, $2) }
        ops.getxattr = { Operations.getxattr($0, $1, $2, $3) }
        ops.listxattr = { Operations.listxattr($0, $1, $2) }
        ops.statfs = { Operations.statfs($0, $1) }
        ops.access = { Operations.access($0, $1, $2) }
        ops.readlink = { Operations.readlink($0, $1) }
        ops.symlink = { Operations.symlink($0, $1, $2, $3) }
        ops.unlink = { Operations.unlink($0, $1, $2) }
        ops.rename = { Operations.rename($0, $1, $2, $3, $4, $5) }
        installReadOnly(&ops)
        return ops
    }
}
