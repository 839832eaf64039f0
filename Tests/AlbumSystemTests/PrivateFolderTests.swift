import AlbumSystem
import Foundation
import Glibc
import XCTest

/// albumfs's own folders (index, picks, thumbnails): made private, narrowed, or refused when
/// another user could have planted what is in them.
final class PrivateFolderTests: XCTestCase {
    private var folder = ""
    /// A user the tests are not (they run as root, who may hand a folder to anyone).
    private let other: uid_t = 65534

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "albumfs-private-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        XCTAssertEqual(chmod(folder, 0o755), 0, "a home-like folder: the user's, writable by no one else")
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    /// `lstat(2)` of `path`: its type and permission bits, and its owner.
    private func info(_ path: String) -> (mode: mode_t, uid: uid_t)? {
        var st = stat()
        return lstat(path, &st) == 0 ? (st.st_mode, st.st_uid) : nil
    }

    /// The refusal `make` throws for `path`, or nil when it throws none.
    private func refusal(_ path: String) -> PrivateFolder.Refusal? {
        do {
            _ = try PrivateFolder.make(path)
            return nil
        } catch {
            return error
        }
    }

    func testAMissingFolderAndItsMissingParentsAreMadeWithMode0700() throws {
        let path = folder + "/cache/albumfs/thumbnails"
        XCTAssertEqual(try PrivateFolder.make(path), path)
        for made in [folder + "/cache", folder + "/cache/albumfs", path] {
            let made = try XCTUnwrap(info(made), made)
            XCTAssertEqual(made.mode & S_IFMT, S_IFDIR)
            XCTAssertEqual(made.mode & 0o7777, 0o700)
            XCTAssertEqual(made.uid, geteuid())
        }
        XCTAssertEqual(try PrivateFolder.make(path), path, "made once, then kept")
    }

    func testTheUsersOwnFolderIsKeptAndNarrowedTo0700() throws {
        let path = folder + "/index"
        XCTAssertEqual(mkdir(path, 0o700), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: path + "/kept.sqlite", contents: Data("index".utf8)))
        XCTAssertEqual(try PrivateFolder.make(path), path)
        XCTAssertEqual(FileManager.default.contents(atPath: path + "/kept.sqlite"), Data("index".utf8), "what it holds is kept")

        XCTAssertEqual(chmod(path, 0o755), 0)
        XCTAssertEqual(try PrivateFolder.make(path), path)
        XCTAssertEqual(try XCTUnwrap(info(path)).mode & 0o7777, 0o700, "group and others lose their access")
        XCTAssertEqual(chmod(path, 0o770), 0)
        XCTAssertEqual(try PrivateFolder.make(path), path)
        XCTAssertEqual(try XCTUnwrap(info(path)).mode & 0o7777, 0o700)
    }

    func testAFolderOwnedByAnotherUserIsRefusedAndLeftAsItIs() throws {
        let path = folder + "/planted"
        XCTAssertEqual(mkdir(path, 0o755), 0)
        XCTAssertEqual(chown(path, other, other), 0)
        let refused = try XCTUnwrap(refusal(path))
        XCTAssertEqual(refused.path, path)
        XCTAssertEqual(refused.reason, "owned by uid \(other), not \(geteuid())")
        XCTAssertEqual(refused.description, "\(path) is not private (owned by uid \(other), not \(geteuid())): not used")
        XCTAssertEqual(try XCTUnwrap(info(path)).mode & 0o7777, 0o755, "not narrowed: not ours to change")
    }

    func testAFolderOnTheWayOwnedByAnotherUserIsRefusedBeforeAnythingIsMadeInIt() throws {
        let theirs = folder + "/theirs"
        XCTAssertEqual(mkdir(theirs, 0o755), 0)
        XCTAssertEqual(chown(theirs, other, other), 0)
        let refused = try XCTUnwrap(refusal(theirs + "/albumfs"))
        XCTAssertEqual(refused.path, theirs)
        XCTAssertEqual(refused.reason, "owned by uid \(other)")
        XCTAssertNil(info(theirs + "/albumfs"), "nothing made under it")
    }

    func testAFolderOnTheWayWritableByOthersIsRefusedUnlessSticky() throws {
        let shared = folder + "/shared"
        XCTAssertEqual(mkdir(shared, 0o700), 0)
        for mode: mode_t in [0o777, 0o775, 0o757] {
            XCTAssertEqual(chmod(shared, mode), 0)
            let refused = try XCTUnwrap(refusal(shared + "/albumfs"), String(mode, radix: 8))
            XCTAssertEqual(refused.path, shared)
            XCTAssertEqual(refused.reason, "writable by group or others")
            XCTAssertEqual(try XCTUnwrap(info(shared)).mode & 0o7777, mode, "an ancestor is checked, never changed")
        }
        XCTAssertEqual(chmod(shared, 0o1777), 0, "sticky, as /tmp is: others cannot rename what is ours")
        XCTAssertEqual(try PrivateFolder.make(shared + "/albumfs"), shared + "/albumfs")
        XCTAssertEqual(try XCTUnwrap(info(shared + "/albumfs")).mode & 0o7777, 0o700)
    }

    func testALinkAsTheFolderItselfIsRefused() throws {
        let target = folder + "/elsewhere"
        XCTAssertEqual(mkdir(target, 0o700), 0)
        XCTAssertEqual(symlink(target, folder + "/thumbnails"), 0)
        let refused = try XCTUnwrap(refusal(folder + "/thumbnails"))
        XCTAssertEqual(refused.path, folder + "/thumbnails")
        XCTAssertEqual(refused.reason, "a symbolic link")
    }

    func testALinkOnTheWayIsFollowedWhenTheUsersAndRefusedWhenAnothers() throws {
        let real = folder + "/real-home"
        XCTAssertEqual(mkdir(real, 0o755), 0)
        XCTAssertEqual(symlink(real, folder + "/home"), 0)
        XCTAssertEqual(try PrivateFolder.make(folder + "/home/.cache"), folder + "/home/.cache")
        XCTAssertEqual(try XCTUnwrap(info(real + "/.cache")).mode & S_IFMT, S_IFDIR, "made where the link leads")
        XCTAssertEqual(try XCTUnwrap(info(real + "/.cache")).mode & 0o7777, 0o700)

        XCTAssertEqual(symlink(real, folder + "/their-link"), 0)
        XCTAssertEqual(lchown(folder + "/their-link", other, other), 0)
        let refused = try XCTUnwrap(refusal(folder + "/their-link/.state"))
        XCTAssertEqual(refused.path, folder + "/their-link")
        XCTAssertEqual(refused.reason, "a symbolic link owned by uid \(other)")
        XCTAssertNil(info(real + "/.state"), "nothing made where another's link leads")

        XCTAssertEqual(chmod(real, 0o777), 0)
        XCTAssertEqual(refusal(folder + "/home/.other")?.reason, "writable by group or others", "what a link leads to is checked")
    }

    func testAFileInTheWayOrADanglingLinkOnTheWayGivesNil() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/file", contents: Data()))
        XCTAssertNil(try PrivateFolder.make(folder + "/file"), "a file where the folder goes: it cannot be made")
        XCTAssertNil(try PrivateFolder.make(folder + "/file/albumfs"), "a file on the way")
        XCTAssertNil(info(folder + "/file/albumfs"))
        XCTAssertEqual(symlink(folder + "/missing", folder + "/dangling"), 0)
        XCTAssertNil(try PrivateFolder.make(folder + "/dangling/albumfs"), "a link that leads nowhere")
        XCTAssertNil(info(folder + "/missing"), "and nothing is made where it points")
    }

    func testARelativePathIsTakenFromTheCurrentFolder() throws {
        let before = FileManager.default.currentDirectoryPath
        XCTAssertEqual(chdir(folder), 0)
        defer { XCTAssertEqual(chdir(before), 0) }
        XCTAssertEqual(try PrivateFolder.make("relative/albumfs"), folder + "/relative/albumfs")
        XCTAssertEqual(try XCTUnwrap(info(folder + "/relative/albumfs")).mode & 0o7777, 0o700)
    }
}
