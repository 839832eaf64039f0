import AlbumCore
import AlbumSystem
import Glibc

/// Hashes photos for similar photos (`PerceptualHasher`) in render workers of their own, at
/// background priority, and lets thumbnails go first: before each hash it waits while the
/// thumbnail workers render (docs/thumbnails.md, "Similar photos").
public struct SimilarHasher: PerceptualHasher {
    let renderer: any ThumbnailRendering
    let thumbnails: RenderWorkers?
    /// The longest one hash waits for thumbnails to be done: a reader who reads thumbnails
    /// without a pause delays the pass, never stops it.
    static let longestYield = 5.0

    /// - Parameters:
    ///   - renderer: what decodes (a `RenderWorkers` made with `background: true`).
    ///   - thumbnails: the thumbnail renders' workers, waited for; nil: none.
    public init(renderer: any ThumbnailRendering, thumbnails: RenderWorkers?) {
        self.renderer = renderer
        self.thumbnails = thumbnails
    }

    public func perceptualHash(of photo: Photo, sourceRoot: String) -> PerceptualHashOutcome {
        do throws(ThumbnailError) {
            let original = try ThumbnailService.openOriginal(photo, sourceRoot: sourceRoot)
            defer { close(original.fd) }
            return .hash(try renderer.perceptualHash(SourceImage(original, photo)))
        } catch {
            return error.isReadFailure || error.isMissing ? .unreadable : .undecodable
        }
    }

    public func yieldToRenders(seconds: Double) {
        _ = thumbnails?.waitUntilIdle(seconds: min(seconds, Self.longestYield))
    }
}
