import AlbumCore

/// Reads simple properties out of an XMP packet without a full XML parser.
///
/// XMP writers put a property either as an attribute (`exif:UserComment="…"`) or as an element
/// (`<exif:UserComment><rdf:Alt><rdf:li xml:lang="x-default">…</rdf:li></rdf:Alt></exif:UserComment>`);
/// both are handled, nested markup is stripped, and the common XML entities are decoded.
public enum XMPProperties {
    /// Whether a packet (perhaps cut short) has every property `MetadataReader.readXMP` reads:
    /// then what may follow the cut cannot change them.
    static func holdsAllRead(_ xmp: String) -> Bool {
        MetadataReader.xmpPropertiesRead.allSatisfy { value(of: $0, in: xmp) != nil }
    }

    public static func value(of property: String, in xmp: String) -> String? {
        for quote in ["\"", "'"] {
            if let value = attribute(property, quote: Character(quote), in: xmp) { return value }
        }
        return element(property, in: xmp).flatMap(innerText)
    }

    /// The items of a list property (`rdf:Bag`, `rdf:Seq`: `dc:subject`'s keywords), each as
    /// plain text; empty when there is none.
    public static func items(of property: String, in xmp: String) -> [String] {
        guard let inner = element(property, in: xmp) else { return [] }
        return languageItems(inner)?.compactMap { plainText($0.text) } ?? []
    }

    /// An element's content: `<prop>` or `<prop attr="…">`, up to `</prop>`.
    static func element(_ property: String, in xmp: String) -> Substring? {
        var search = xmp.startIndex
        while let open = xmp.utf8[search...].firstRange(of: ("<" + property).utf8) {
            search = open.upperBound
            guard let next = xmp[open.upperBound...].first, next == ">" || next.isWhitespace,
                  let tagEnd = xmp[open.upperBound...].firstIndex(of: ">") else { continue }
            let contentStart = xmp.index(after: tagEnd)
            guard let close = xmp.utf8[contentStart...].firstRange(of: ("</" + property + ">").utf8) else { return nil }
            return xmp[contentStart..<close.lowerBound]
        }
        return nil
    }

    /// `property="…"` (or with `'`) as an attribute: the name standing alone (after a blank), not
    /// the end of a longer one.
    static func attribute(_ property: String, quote: Character, in xmp: String) -> String? {
        var search = xmp.startIndex
        while let range = xmp.utf8[search...].firstRange(of: (property + "=" + String(quote)).utf8) {
            search = range.upperBound
            guard range.lowerBound == xmp.startIndex || [0x20, 0x09, 0x0A, 0x0D].contains(xmp.utf8[xmp.utf8.index(before: range.lowerBound)])
            else { continue }
            let rest = xmp[range.upperBound...]
            guard let end = rest.firstIndex(of: quote) else { return nil }
            return decodeEntities(String(rest[..<end]))
        }
        return nil
    }

    /// An element's text. A language alternative (`rdf:Alt`) gives its default (`x-default`)
    /// item, else its first: not every language's text run together.
    static func innerText(_ inner: Substring) -> String? {
        if let items = languageItems(inner), let chosen = items.first(where: { $0.isDefault }) ?? items.first {
            return plainText(chosen.text)
        }
        return plainText(inner)
    }

    /// The `rdf:li` items of `inner`, with whether each is the `x-default` one; nil if none.
    static func languageItems(_ inner: Substring) -> [(isDefault: Bool, text: Substring)]? {
        var items: [(isDefault: Bool, text: Substring)] = []
        var search = inner.startIndex
        while let open = inner.utf8[search...].firstRange(of: "<rdf:li".utf8),
              let tagEnd = inner[open.upperBound...].firstIndex(of: ">"),
              let close = inner.utf8[tagEnd...].firstRange(of: "</rdf:li>".utf8) {
            let tag = inner[open.upperBound..<tagEnd]
            let isDefault = tag.utf8.firstRange(of: "x-default".utf8) != nil
            items.append((isDefault, inner[inner.index(after: tagEnd)..<close.lowerBound]))
            search = close.upperBound
        }
        return items.isEmpty ? nil : items
    }

    static func plainText(_ inner: Substring) -> String? {
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
