@testable import AlbumCore
import XCTest

final class ScreenshotRulesTests: XCTestCase {
    let rules = ScreenshotRules()

    func decide(_ name: String, folders: [String] = [], _ configure: (inout PhotoEvidence) -> Void = { _ in }) -> ScreenshotDecision {
        var e = PhotoEvidence()
        configure(&e)
        return rules.decide(e, fileName: name, folders: folders)
    }

    func camera(_ e: inout PhotoEvidence) {
        e.make = "Canon"
        e.model = "Canon EOS 80D"
        e.hasExposureData = true
    }

    func testUserCommentMarksAScreenshotWhateverTheName() {
        XCTAssertTrue(decide("IMG_1234.PNG") { $0.userComment = "Screenshot" }.isScreenshot)
        XCTAssertTrue(decide("IMG_1234.PNG") { $0.xmpUserComment = "Screenshot" }.isScreenshot)
        XCTAssertFalse(decide("IMG_1234.PNG") { $0.userComment = "Holiday" }.isScreenshot)
        let comment = decide("capture.png") { $0.pngComment = "Screenshot" }
        XCTAssertTrue(comment.isScreenshot)
        XCTAssertEqual(comment.reason, "png comment is Screenshot", "the reason names the PNG comment, not XMP")
        XCTAssertFalse(decide("capture.png") { $0.pngComment = "Made with love" }.isScreenshot, "the reader keeps any short comment")
    }

    func testSoftwareTags() {
        XCTAssertTrue(decide("a.png") { $0.pngSoftware = "gnome-screenshot" }.isScreenshot)
        XCTAssertTrue(decide("a.jpg") { $0.software = "Android UP1A.231005.007" }.isScreenshot)
        XCTAssertFalse(decide("a.jpg") { $0.software = "Android UP1A"; self.camera(&$0) }.isScreenshot,
                       "an Android camera photo is not a screenshot")
        XCTAssertFalse(decide("a.jpg") { $0.software = "GIMP 2.10" }.isScreenshot)
        // The desktop tools that write their name into a PNG, and any software naming screenshots.
        for tool in ["Spectacle 23.08.1", "Flameshot", "Greenshot", "ShareX 16.1", "ksnip 1.10.1", "xfce4-screenshot", "Screenshot Tool"] {
            XCTAssertTrue(decide("a.png") { $0.pngSoftware = tool }.isScreenshot, tool)
        }
        for other in ["GIMP 2.10", "Adobe Photoshop 25.0", "darktable 4.6", "Shotwell"] {
            XCTAssertFalse(decide("a.png") { $0.pngSoftware = other }.isScreenshot, other)
        }
    }

    func testNamesIncludingTranslations() {
        for name in ["Screenshot_20201215-090626.png", "Screenshot 2023-01-05 at 12.34.56.png", "Screen Shot 2019-01-05 at 1.23.45 PM.png",
                     "Screenshot (12).png", "Screenshot From 2017-05-21 12-24-03.png", "Captura de pantalla 2024-01-01 101010.png",
                     "Bildschirmfoto vom 2022-03-01 um 10.00.00.png", "Capture d’écran 2024-01-01 à 10.00.00.png",
                     "Capture d'écran 2024.png", "스크린샷 2024-01-01.png", "SCREENSHOT.PNG",
                     "Στιγμιότυπο οθόνης 2024-01-01 10.00.00.png", "屏幕快照 2019-05-17 下午2.03.04.png",
                     "Ảnh chụp Màn hình 2024-01-01 lúc 10.00.00.png", "Snímka obrazovky 2024-01-01 o 10.00.00.png",
                     "Capture d\u{0065}\u{0301}cran.png".replacingOccurrences(of: "de\u{0301}cran", with: "d'e\u{0301}cran")] {
            XCTAssertTrue(decide(name).isScreenshot, name)
        }
        for name in ["Screenshots-of-cats.jpg", "Screenshotting.png", "IMG_0001.JPG", "my screenshot.png"] {
            XCTAssertFalse(decide(name).isScreenshot, name)
        }
    }

    func testFolderRule() {
        XCTAssertTrue(decide("clip.png", folders: ["Pictures", "Screenshots"]).isScreenshot)
        XCTAssertTrue(decide("clip.png", folders: ["screenshots"]).isScreenshot)
        XCTAssertFalse(decide("clip.png", folders: ["Pictures"]).isScreenshot)
    }

    /// A decision carried to other folders (a folder renamed: same content, same name) is the one
    /// the rules make there, for every kind of evidence, name and folders.
    func testADecisionCarriedToOtherFoldersIsTheOneMadeThere() {
        let evidence: [(String, (inout PhotoEvidence) -> Void)] = [
            ("none", { _ in }), ("camera", camera), ("comment", { $0.userComment = "Screenshot" }),
            ("android", { $0.software = "Android UP1A" }), ("png tool", { $0.pngSoftware = "Spectacle 23.08" }),
            ("make only", { $0.make = "Apple" }),
        ]
        let names = ["clip.png", "Screenshot_1.png", "IMG_0001.JPG"]
        let folderSets: [[String]] = [[], ["Pictures"], ["Screenshots"], ["a", "screen shots", "b"], ["Screenshots-old"]]
        for (label, configure) in evidence {
            var e = PhotoEvidence()
            configure(&e)
            for name in names {
                for from in folderSets {
                    let before = rules.decide(e, fileName: name, folders: from)
                    for to in folderSets {
                        XCTAssertEqual(rules.decision(before, inFolders: to), rules.decide(e, fileName: name, folders: to),
                                       "\(label) \(name) \(from) -> \(to)")
                    }
                }
            }
        }
    }

    func testCameraEvidenceBeatsNameAndFolder() {
        let d = decide("screenshot.jpg", folders: ["Screenshots"], camera)
        XCTAssertFalse(d.isScreenshot)
        XCTAssertEqual(d.reason, "camera exif")
        // Make without exposure data is not camera evidence.
        XCTAssertTrue(decide("Screenshot_1.png") { $0.make = "Apple" }.isScreenshot)
    }

    func testConfigurableLists() {
        let custom = ScreenshotRules(namePrefixes: ["Snap"], folderNames: ["Grabs"])
        XCTAssertTrue(custom.decide(PhotoEvidence(), fileName: "Snap 1.png", folders: []).isScreenshot)
        XCTAssertFalse(custom.decide(PhotoEvidence(), fileName: "Screenshot 1.png", folders: []).isScreenshot)
        XCTAssertTrue(custom.decide(PhotoEvidence(), fileName: "x.png", folders: ["Grabs"]).isScreenshot)
    }
}
