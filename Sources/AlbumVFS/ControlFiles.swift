import AlbumCore

/// The texts of `.albumfs/` (`status`, `errors`, `not-shown`): made from the daemon's status at
/// each look, since they change as the mount works, between trees; the published tree holds
/// their nodes, and asks here for their sizes (`TreeView.attributes`' `textSize`).
final class ControlFiles: Sendable {
    /// What the texts show; nil for a filesystem without a daemon (the texts are empty).
    private let status: StatusReporter?
    /// The last text of each file, shared by the opens while it is unchanged.
    private let texts = ControlTexts()

    init(status: StatusReporter?) { self.status = status }

    /// The bytes a control file shows now (none for any other content).
    func bytes(_ content: FileContent) -> [UInt8] {
        switch content {
        case .status: return texts.shared("status", status?.statusText() ?? "")
        case .errors: return texts.shared("errors", status?.errorsText() ?? "")
        // (Not logged: the status's counts are what covers every line.)
        case .notShown: return texts.shared("not-shown", status?.notShownText() ?? "", rest: ControlTexts.notShownRest)
        default: return []
        }
    }

    /// A control file's size now (`getattr`, `readdirplus`).
    func size(_ content: FileContent) -> Int64 { Int64(bytes(content).count) }
}
