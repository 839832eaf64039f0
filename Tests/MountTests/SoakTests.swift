import Foundation
import XCTest

/// Random live changes (scripts/soak-live.py) end where a fresh scan of the result starts: what
/// the mount shows after them, and after a remount on its index, equals a mount that reads
/// everything again. Seed 1 is one that caught a copy taking a deleted file's row (a reused inode
/// number with the same size and mtime) when rows were reused across renames.
final class SoakTests: XCTestCase {
    func testRandomLiveChangesEndWhereAFreshScanStarts() {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/soak-live.py").path
        let r = runCommand("/usr/bin/python3", [script, albumfsBinary(), "1", "150"], timeout: 180)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("seed 1, 150 operations: OK"), r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("remount ") && r.stdout.contains(" 0 headers read"), "the remount reads nothing: " + r.stdout)
    }
}
