import AlbumCore
import AlbumMetadata
import AlbumThumbnails
import Foundation

/// What `.albumfs/status` and `.albumfs/errors` say (docs/status.md).
final class DaemonStatus: StatusReporter, Sendable {
    let report: ScanReport
    let scanSeconds: Double
    let thumbnails: ThumbnailService
    let cache: ThumbnailCache?

    init(report: ScanReport, scanSeconds: Double, thumbnails: ThumbnailService, cache: ThumbnailCache?) {
        self.report = report
        self.scanSeconds = scanSeconds
        self.thumbnails = thumbnails
        self.cache = cache
    }

    func statusText() -> String {
        var lines: [(String, String)] = [
            ("scan_state", "done"),
            ("photos", String(report.photos.count)),
            ("files_seen", String(report.filesSeen)),
            ("errors", String(report.problems.count)),
            ("scan_seconds", String(format: "%.3f", scanSeconds)),
            ("thumbnail_sizes", thumbnails.boxes.map(\.description).joined(separator: ",")),
            ("thumbnails_rendered", String(thumbnails.renderCount)),
            ("thumbnail_failures", String(thumbnails.failureCount)),
        ]
        if let cache {
            lines += [("thumbnail_cache_dir", cache.directory), ("thumbnail_cache_bytes", String(cache.bytesUsed)),
                      ("thumbnail_cache_limit", String(cache.maxBytes))]
        } else {
            lines += [("thumbnail_cache_dir", "none (in memory)")]
        }
        return lines.map { "\($0.0): \($0.1)\n" }.joined()
    }

    func errorsText() -> String {
        report.problems.map { "\($0.relativePath): \($0.message)\n" }.joined()
    }
}
