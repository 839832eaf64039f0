import AlbumCore

/// Reads simple properties out of an XMP packet without a full XML parser.
///
/// XMP writers put a property either as an attribute (`exif:UserComment="…"`) or as an element
/// (`<exif:UserComment><rdf:Alt><rdf:li xml:lang="x-default">…</rdf:li></rdf:Alt></exif:UserComment>`);
/// both are handled, nested markup is stripped, and the common XML entities are decoded.
public enum XMPProperties {
    public static func value(of property: String, in xmp: String) -> String? {
        if let range = xmp.utf8.firstRange(of: (property + "=\"").utf8) {
            let rest = xmp[range.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { return nil }
            return decodeEntities(String(rest[..<end]))
        }
        if let range = xmp.utf8.firstRange(of: (property + "='").utf8) {
            let rest = xmp[range.upperBound...]
            guard let end = rest.firstIndex(of: "'") else { return nil }
            return decodeEntities(String(rest[..<end]))
        }
        // Element form: `<prop>` or `<prop attr="…">`, up to `</prop>`.
        var search = xmp.startIndex
        while let open = xmp.utf8[search...].firstRange(of: ("<" + property).utf8) {
            search = open.upperBound
            guard let next = xmp[open.upperBound...].first, next == ">" || next.isWhitespace,
                  let tagEnd = xmp[open.upperBound...].firstIndex(of: ">") else { continue }
            let contentStart = xmp.index(after: tagEnd)
            guard let close = xmp.utf8[contentStart...].firstRange(of: ("</" + property + ">").utf8) else { return nil }
            return innerText(xmp[contentStart..<close.lowerBound])
        }
        return nil
    }

    static func innerText(_ inner: Substring) -> String? {
        var text = ""
        var inTag = false
        for ch in inner {
            if ch == "<" { inTag = true } else if ch == ">" { inTag = false } else if !inTag { text.append(ch) }
        }
        let trimmed = text.trimmedValue.trimmingWhitespaceAndNewlines()
        return trimmed.isEmpty ? nil : decodeEntities(trimmed)
    }

    static func decodeEntities(_ s: String) -> String {
        guard s.contains("&") else { return s }
        return s.replacingAll("&lt;", "<").replacingAll("&gt;", ">").replacingAll("&quot;", "\"")
            .replacingAll("&apos;", "'").replacingAll("&amp;", "&")
    }
}

extension String {
    func replacingAll(_ target: String, _ replacement: String) -> String {
        replacing(target, with: replacement)
    }

    func trimmingWhitespaceAndNewlines() -> String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
