/// Whether a photo is a screenshot, and the rule that said so.
public struct ScreenshotDecision: Sendable, Equatable {
    // (The string first: a photo's `Bool`s then share the padding after it.)
    public var reason: String
    public var isScreenshot: Bool

    public init(isScreenshot: Bool, reason: String) {
        self.isScreenshot = isScreenshot
        self.reason = reason
    }

    /// The value of `user.albumfs.screenshot`: `yes (reason)` or `no (reason)`.
    public var description: String { "\(isScreenshot ? "yes" : "no") (\(reason))" }
}

/// Sorts photos into screenshots and the rest, strongest evidence first (docs/rules.md).
public struct ScreenshotRules: Sendable {
    /// File-name prefixes that mark a screenshot (compared case-insensitively, Unicode-canonically).
    public var namePrefixes: [String]
    /// Folder names that mark a screenshot when they appear anywhere in the source path.
    public var folderNames: [String]

    public static let defaultNamePrefixes = [
        "Screenshot", "Screen Shot", "Screen_Shot", "Captura de pantalla", "Captura de tela", "Captura de ecrã",
        "Bildschirmfoto", "Capture d'écran", "Capture d’écran", "Schermafbeelding", "Schermata",
        "Skärmbild", "Skärmavbild", "Skjermbilde", "Skærmbillede", "Zrzut ekranu", "Snímek obrazovky", "Kuvakaappaus", "Näyttökuva",
        "Képernyőkép", "Ekran Resmi", "Ekran görüntüsü", "Снимок экрана", "Знімок екрана",
        "スクリーンショット", "截屏", "截图", "屏幕截图", "螢幕擷取畫面", "스크린샷",
        // More of the ~40 languages macOS, Windows and phones name screenshots in.
        "Snímka obrazovky", "Képernyőfotó", "Captură de ecran", "Snimka zaslona", "Στιγμιότυπο οθόνης",
        "צילום מסך", "لقطة شاشة", "Ảnh chụp màn hình", "ภาพหน้าจอ", "Cuplikan layar", "Tangkapan layar",
        "屏幕快照", "螢幕快照", "螢幕截圖", "स्क्रीनशॉट",
    ]
    public static let defaultFolderNames = [
        "Screenshots", "Screen Shots", "Capturas de pantalla", "Capturas de tela", "Bildschirmfotos",
        "Captures d'écran", "Captures d’écran", "Schermafbeeldingen", "Schermate", "Skärmbilder",
        "Zrzuty ekranu", "Снимки экрана", "スクリーンショット", "截屏", "스크린샷",
    ]

    /// Screen recordings' name prefixes: iOS (`RPReplay_Final…`, `ScreenRecording_…`), macOS
    /// (`Screen Recording … at …`), Android (Samsung's `Screen_Recording_…`, Pixel's `screen-…`,
    /// Xiaomi's `Screenrecorder-…`, Huawei's `SVID_…`), and macOS's in other languages.
    public static let recordingNamePrefixes = [
        "Screen Recording", "ScreenRecording", "Screen_Recording", "Screenrecording", "RPReplay", "Screenrecorder",
        "screen-", "SVID_", "Bildschirmaufnahme", "Enregistrement de l’écran", "Enregistrement de l'écran",
        "Grabación de pantalla", "Gravação de tela", "Registrazione schermo", "Schermopname", "Запись экрана", "画面収録",
    ]
    /// Folders phones keep screen recordings in.
    public static let recordingFolderNames = [
        "Screen recordings", "Screenrecorder", "ScreenRecords", "ScreenRecord", "Screenrecords", "Screen Recorder",
    ]

    public init(namePrefixes: [String] = defaultNamePrefixes, folderNames: [String] = defaultFolderNames) {
        self.namePrefixes = namePrefixes
        self.folderNames = folderNames
    }

    /// Whether a video is a screen recording: its name, then its folders. (Recorders write no
    /// camera make or model; nothing in their metadata says "screen" as a screenshot's EXIF can.)
    public func decideRecording(_ e: PhotoEvidence, fileName: String, folders: @autoclosure () -> [String]) -> ScreenshotDecision {
        if let make = e.make?.trimmedValue, !make.isEmpty {
            return .init(isScreenshot: false, reason: "camera \(make)")
        }
        if let prefix = Self.prefix(of: fileName, among: Self.recordingNamePrefixes) {
            return .init(isScreenshot: true, reason: "screen recording: name starts with \(prefix)")
        }
        return decideRecording(folders: folders())
    }

    private func decideRecording(folders: [String]) -> ScreenshotDecision {
        if let folder = folders.first(where: { f in Self.recordingFolderNames.contains { f.caseInsensitiveEquals($0) } }) {
            return .init(isScreenshot: true, reason: Self.recordingFolderReason + folder)
        }
        return .init(isScreenshot: false, reason: Self.noRecordingReason)
    }

    private static let recordingFolderReason = "screen recording: folder "
    private static let noRecordingReason = "no screen recording signal"

    /// - Parameters:
    ///   - fileName: the source file's own name.
    ///   - folders: the folders between the library root and the file.
    ///   Made only when the folder rule is reached (most photos are settled by their EXIF).
    public func decide(_ e: PhotoEvidence, fileName: String, folders: @autoclosure () -> [String]) -> ScreenshotDecision {
        if let c = e.userComment, c.trimmedValue.caseInsensitiveEquals("Screenshot") {
            return .init(isScreenshot: true, reason: "exif:UserComment is Screenshot")
        }
        if let c = e.xmpUserComment, c.trimmedValue.caseInsensitiveEquals("Screenshot") {
            return .init(isScreenshot: true, reason: "xmp:exif:UserComment is Screenshot")
        }
        if let c = e.pngComment, c.trimmedValue.caseInsensitiveEquals("Screenshot") {
            return .init(isScreenshot: true, reason: "png comment is Screenshot")
        }
        if let s = e.pngSoftware, Self.isScreenshotTool(s) {
            return .init(isScreenshot: true, reason: "png:Software is \(s.trimmedValue)")
        }
        if let s = e.software, s.trimmedValue.hasPrefix("Android "), !e.hasCameraEvidence,
           (e.make?.trimmedValue.isEmpty ?? true), (e.model?.trimmedValue.isEmpty ?? true) {
            return .init(isScreenshot: true, reason: "exif:Software is Android with no camera")
        }
        if e.hasCameraEvidence {
            return .init(isScreenshot: false, reason: "camera exif")
        }
        if let prefix = Self.prefix(of: fileName, among: namePrefixes) {
            return .init(isScreenshot: true, reason: "name starts with \(prefix)")
        }
        return decide(folders: folders())
    }

    /// The rules that come after content and name: the folders, then no signal.
    private func decide(folders: [String]) -> ScreenshotDecision {
        if let folder = folders.first(where: { f in folderNames.contains { f.caseInsensitiveEquals($0) } }) {
            return .init(isScreenshot: true, reason: Self.folderReason + folder)
        }
        return .init(isScreenshot: false, reason: Self.noSignalReason)
    }

    private static let folderReason = "folder "
    private static let noSignalReason = "no screenshot signal"

    /// The decision for a file decided `decision` in other folders, now in `folders`, its content
    /// and name the same (its folder renamed or moved): only a decision its content and name left
    /// to the folders can change, so no evidence is needed (a mount does not keep it).
    public func decision(_ decision: ScreenshotDecision, inFolders folders: @autoclosure () -> [String]) -> ScreenshotDecision {
        if decision.reason == Self.noRecordingReason || decision.reason.hasPrefix(Self.recordingFolderReason) {
            return decideRecording(folders: folders())
        }
        guard decision.reason == Self.noSignalReason || decision.reason.hasPrefix(Self.folderReason) else { return decision }
        return decide(folders: folders())
    }

    /// Screenshot tools that sign their PNGs in `tEXt Software`.
    static func isScreenshotTool(_ software: String) -> Bool {
        let s = software.trimmedValue.lowercased()
        return s.contains("screenshot") || s.hasPrefix("spectacle") || s.hasPrefix("flameshot")
            || s.hasPrefix("greenshot") || s.hasPrefix("sharex") || s.hasPrefix("ksnip")
    }

    /// The first of `prefixes` that `fileName` starts with, as a word: `Screenshot_1.png`,
    /// `Screenshot.png` and `Screenshot 2023…` start with `Screenshot`, `Screenshots-of-cats.jpg`
    /// and `Screenshotting.png` do not.
    static func prefix(of fileName: String, among prefixes: [String]) -> String? {
        let name = fileName.lowercased()  // once, not once per prefix
        return prefixes.first { prefix in
            let p = prefix.lowercased()
            guard name.hasPrefix(p) else { return false }
            // Character-wise walk: `hasPrefix` compares canonically, so count in Characters too.
            guard let next = name.dropFirst(p.count).first else { return true }
            return !next.isLetter
        }
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool { lowercased() == other.lowercased() }
}
