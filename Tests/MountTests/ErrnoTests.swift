import CSysXattr
import Foundation
import Glibc
import XCTest

/// The rows of docs/errno.md that no other test reaches through a real mount.
final class ErrnoTests: SampleLibraryTestCase {
    func testAFileOpenedAsAFolderAnAppendAndTimesAnswerTheirErrno() throws {
        let m = try Mount(source: source.path)
        let file = m.path("non-screenshots/DSC01234.JPG")
        XCTAssertNil(opendir(file))
        XCTAssertEqual(errno, ENOTDIR, "opendir of a file")
        XCTAssertEqual(open(file, O_WRONLY | O_APPEND), -1)
        XCTAssertEqual(errno, EROFS, "O_APPEND")
        var times = [timespec(tv_sec: 1, tv_nsec: 0), timespec(tv_sec: 1, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, file, &times, 0), -1)
        XCTAssertEqual(errno, EROFS, "utimens")
        m.finish()
    }

    /// A buffer too small for an attribute's value, or for the list of names: ERANGE, as the
    /// kernel's own filesystems answer (getfattr then asks for the size and tries again).
    func testAnAttributeBufferTooSmallIsERANGE() throws {
        let m = try Mount(source: source.path)
        let file = m.path("non-screenshots/DSC01234.JPG")
        let size = getxattr(file, "user.albumfs.source", nil, 0)
        XCTAssertGreaterThan(size, 1)
        var small = [CChar](repeating: 0, count: 1)
        XCTAssertEqual(getxattr(file, "user.albumfs.source", &small, 1), -1)
        XCTAssertEqual(errno, ERANGE, "getxattr")
        let names = listxattr(file, nil, 0)
        XCTAssertGreaterThan(names, 1)
        XCTAssertEqual(listxattr(file, &small, 1), -1)
        XCTAssertEqual(errno, ERANGE, "listxattr")
        m.finish()
    }

    /// A pick opened with O_NOFOLLOW is the link itself: ELOOP, as for any symlink.
    func testAPickOpenedWithoutFollowingIsELOOP() throws {
        let m = try Mount(source: source.path)
        XCTAssertEqual(symlink("../non-screenshots/DSC01234.JPG", m.path("picked/p.jpg")), 0)
        XCTAssertEqual(open(m.path("picked/p.jpg"), O_RDONLY | O_NOFOLLOW), -1)
        XCTAssertEqual(errno, ELOOP)
        let followed = open(m.path("picked/p.jpg"), O_RDONLY)
        XCTAssertGreaterThanOrEqual(followed, 0, "followed, it opens the photo")
        close(followed)
        m.finish()
    }
}
