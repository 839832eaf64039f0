import AlbumSample
import Foundation
import XCTest

/// The mount served to the household: mount-examples/smb.conf's share, served by Samba's smbd
/// on loopback (a port of its own, every file of its own in the test's folder) and read with
/// smbclient, as a Windows PC or a TV would read it.
final class SharingTests: XCTestCase {
    func testASambaShareOfTheMountShowsWhatUsersSee() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path, options: ["-o", "allow_other"])
        defer { mount.finish() }
        let photo = "by-date/2024/2024-05/2024-05-17/PXL_20240517_120304567.jpg"
        XCTAssertEqual(symlink("../" + photo, mount.path("picked/pick.jpg")), 0)
        let samba = try SambaServer(sharing: mount.mountpoint)
        defer { samba.stop() }

        // Listed in the mount's own order: years newest first, not sorted by the server.
        let years = try XCTUnwrap(readdirNames(mount.path("by-date")))
        XCTAssertGreaterThan(years.count, 3)
        XCTAssertEqual(samba.list("by-date"), years)
        XCTAssertEqual(samba.list(""), readdirNames(mount.mountpoint))
        // A photo byte-identical, its thumbnail the exact-size JPEG the mount gives, and picked/.
        let original = try XCTUnwrap(source.items.first { photo.hasSuffix($0.path.split(separator: "/").last.map(String.init)!) }?.bytes)
        XCTAssertEqual(samba.get(photo), original)
        let thumbnail = "thumbnails/200x200/PXL_20240517_120304567.jpg"
        let served = try XCTUnwrap(samba.get(thumbnail))
        XCTAssertEqual(served.count, 30_000)
        XCTAssertEqual(served, try readFile(mount.path(thumbnail)).get())
        XCTAssertEqual(samba.list("picked"), ["pick.jpg"])
        XCTAssertEqual(samba.get("picked/pick.jpg"), original, "the pick read through its symlink")
        // Nothing is written through the share; the refusal is the server's clear answer.
        let put = samba.run("put \(source.path)/\(source.items[0].path) new.jpg")
        XCTAssertTrue(put.stdout.contains("NT_STATUS_ACCESS_DENIED") || put.stdout.contains("NT_STATUS_MEDIA_WRITE_PROTECTED"), put.stdout)
        XCTAssertNil(readdirNames(mount.mountpoint)?.first { $0 == "new.jpg" })

        // Linux's own client, as docs/sharing.md mounts it: the same folders and bytes where the
        // kernel has SMB's client (cifs); where it has none, mount.cifs says so (docs/sharing.md).
        let cifs = makeTempFolder("cifs")
        defer { rmdir(cifs) }
        let mounted = runCommand("/sbin/mount.cifs", ["//127.0.0.1/photos", cifs, "-o", "guest,ro,port=\(samba.port)"])
        if mounted.status == 0 {
            defer { XCTAssertEqual(runCommand("/usr/bin/umount", [cifs]).status, 0) }
            XCTAssertEqual(Set(readdirNames(cifs + "/by-date") ?? []), Set(years))
            XCTAssertEqual(try readFile(cifs + "/" + photo).get(), original)
        } else {
            let said = mounted.stdout + mounted.stderr
            XCTAssertTrue(said.contains("cifs filesystem not supported by the system") && said.contains("mount error(19)"),
                          "the one refusal docs/sharing.md names: \(mounted.stdout) \(mounted.stderr)")
        }
    }
}

/// smbd serving one folder as mount-examples/smb.conf's [photos] share, on a free loopback port,
/// its state in a folder of its own, started as docs/sharing.md starts it (`testparm -s`, then
/// `smbd -D`); stopped by the process id in its own pid file.
final class SambaServer {
    private let folder = makeTempFolder("samba")
    /// The daemon's process id, from its pid file (0 until it answers).
    private var pid: pid_t = 0
    let port: Int

    init(sharing path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        port = Self.freePort()
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("mount-examples").path
        let example = try String(contentsOfFile: examples + "/smb.conf", encoding: .utf8)
        let share = example[example.range(of: "\n[photos]")!.upperBound...].replacingOccurrences(of: "/srv/photos", with: path)
        for dir in ["private", "lock", "state", "cache", "pid", "ncalrpc"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + dir, withIntermediateDirectories: true)
        }
        let global = """
            [global]
              server role = standalone server
              smb ports = \(port)
              interfaces = lo
              bind interfaces only = yes
              map to guest = Bad User
              guest account = nobody
              server min protocol = SMB2
              load printers = no
              printcap name = /dev/null
              disable spoolss = yes
              private dir = \(folder)/private
              lock directory = \(folder)/lock
              state directory = \(folder)/state
              cache directory = \(folder)/cache
              pid directory = \(folder)/pid
              ncalrpc dir = \(folder)/ncalrpc
              log file = \(folder)/smbd.log

            """
        try (global + "[photos]" + share).write(toFile: folder + "/smb.conf", atomically: true, encoding: .utf8)
        // The example as Samba reads it: clean (testparm says nothing but what it always says),
        // the share's settings taken.
        let checked = runCommand("/usr/bin/testparm", ["-s", folder + "/smb.conf"])
        XCTAssertEqual(checked.status, 0, checked.stderr, file: file, line: line)
        let said = checked.stderr.split(separator: "\n").filter {
            !$0.hasPrefix("Load smb config files from ") && $0 != "Loaded services file OK." && !$0.hasPrefix("Server role: ")
                && !$0.hasPrefix("Weak crypto is allowed by GnuTLS")
        }
        XCTAssertEqual(said, [], "testparm warns: \(checked.stderr)", file: file, line: line)
        XCTAssertTrue(checked.stdout.contains("[photos]") && checked.stdout.contains("guest ok = Yes"), checked.stdout, file: file, line: line)
        // As docs/sharing.md starts it where no systemd runs Samba: a daemon of its own.
        // (system(3) waits for the launcher itself: Foundation's Process is left waiting for a
        // child whose own child outlives it. The daemon is left no descriptor of this process's.)
        let launch = "for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done; "
            + "exec /usr/sbin/smbd -D --configfile='\(folder)/smb.conf' </dev/null >/dev/null 2>'\(folder)/smbd.stderr'"
        let started = system("/bin/bash -c '" + launch.replacingOccurrences(of: "'", with: "'\\''") + "'")
        XCTAssertEqual(started, 0, (try? String(contentsOfFile: folder + "/smbd.stderr", encoding: .utf8)) ?? "", file: file, line: line)
        let answers = eventually(20) { run("ls").status == 0 }
        let log = (try? String(contentsOfFile: folder + "/smbd.log", encoding: .utf8)) ?? ""
        XCTAssertTrue(answers, "smbd answers: \(run("ls").stdout) \(log.suffix(2000))", file: file, line: line)
        pid = pid_t((try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        XCTAssertGreaterThan(pid, 0, "smbd wrote its pid file", file: file, line: line)
    }

    private var pidFile: String { folder + "/pid/smbd.pid" }

    /// An smbclient command line against the share, as a guest.
    @discardableResult
    func run(_ commands: String) -> CommandResult {
        runCommand("/usr/bin/smbclient", ["//127.0.0.1/photos", "-p", String(port), "-N", "-c", commands], timeout: 30)
    }

    /// The names `ls` gives in a folder of the share, in the server's order (nil: it failed).
    func list(_ folder: String) -> [String]? {
        let result = run("ls \"" + (folder.isEmpty ? "*" : folder.replacingOccurrences(of: "/", with: "\\") + "\\*") + "\"")
        guard result.status == 0 else { return nil }
        // "  NAME   D   0  Mon May 20 16:00:00 2024": the name, up to the attribute column.
        let pattern = try! NSRegularExpression(pattern: #"^  (.+?)\s+[DAHNSR]*\s+\d+\s+\w{3} \w{3} [ \d]\d "#)
        return result.stdout.split(separator: "\n").compactMap { line -> String? in
            let text = String(line)
            guard let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                  let name = Range(match.range(at: 1), in: text).map({ String(text[$0]) }), name != ".", name != ".." else { return nil }
            return name
        }
    }

    /// A file of the share, fetched (nil: it failed).
    func get(_ path: String) -> [UInt8]? {
        let local = folder + "/got"
        try? FileManager.default.removeItem(atPath: local)
        guard run("get \"" + path.replacingOccurrences(of: "/", with: "\\") + "\" \"" + local + "\"").status == 0 else { return nil }
        return FileManager.default.contents(atPath: local).map { [UInt8]($0) }
    }

    /// SIGTERM to the daemon, which removes its pid file as it ends.
    func stop(file: StaticString = #filePath, line: UInt = #line) {
        if pid > 0 {
            XCTAssertEqual(kill(pid, SIGTERM), 0, file: file, line: line)
            XCTAssertTrue(eventually(20) { !FileManager.default.fileExists(atPath: pidFile) }, "smbd ended", file: file, line: line)
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A loopback TCP port no one listens on now (the kernel's pick for port 0).
    private static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
