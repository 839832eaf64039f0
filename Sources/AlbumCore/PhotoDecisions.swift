/// What the rules decide of one photo from its evidence: its capture time (as written, and as the
/// instant it sorts by), its screenshot verdict, its orientation, and what went wrong reading it.
///
/// A scan makes them (`ScanRules.decisions`); a views snapshot reads them back and a motion
/// photo's video takes its still's; `Photo` keeps them packed among its own fields.
public struct PhotoDecisions: Sendable {
    public var capture: CaptureDecision
    /// `capture`'s time as an instant (`CaptureTime.instant(in:)`, in the rules' zone).
    public var captureInstant: Timestamp
    public var screenshot: ScreenshotDecision
    /// EXIF orientation 1–8 (`Photo` keeps anything else as 1).
    public var orientation: Int
    /// What went wrong reading it (`user.albumfs.problems`; `Photo` keeps the first 255).
    public var problems: [String]

    public init(capture: CaptureDecision, captureInstant: Timestamp, screenshot: ScreenshotDecision,
                orientation: Int = 1, problems: [String] = []) {
        self.capture = capture
        self.captureInstant = captureInstant
        self.screenshot = screenshot
        self.orientation = orientation
        self.problems = problems
    }
}
