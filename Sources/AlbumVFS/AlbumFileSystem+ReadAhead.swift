import AlbumCore

extension AlbumFileSystem {
    /// After a thumbnail is opened: when the reader goes through its folder in order
    /// (`ReadAhead`), the next thumbnails that way are made in the background (`ThumbnailProvider
    /// .prepare`), on the cores the reader's own render leaves idle.
    func thumbnailOpened(_ node: Node, box: ThumbnailBox, _ s: TreeView) {
        guard let thumbnails, thumbnails.renderAhead > 0, let folder = s.table.folders[node.parent],
              case .photos(let entries) = folder.folder.entries, let place = entries.place(named: node.name) else { return }
        let guess = readAhead.withLock { $0.opened(place, in: node.parent, count: entries.count, depth: thumbnails.renderAhead) }
        guard let guess else { return }
        for n in guess.next {
            let i: Int
            switch guess.order {
            case .listing: i = entries.photo(at: n)
            case .names: i = entries.photo(atRank: n)
            }
            thumbnails.prepare(s.library.photos[i], sourceRoot: sourceRoot, box: box)
        }
    }
}
