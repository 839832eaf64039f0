import AlbumCore
import Foundation

/// Foundation's zones (any, by name, with ICU's rules) for the tests; the daemon uses libc's own
/// zone (`SystemZone`) and no Foundation.
extension TimeZone: UTCOffsets {
    public func secondsEastOfUTC(at instant: Int64) -> Int {
        secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))
    }
}
