/// A position written as ISO 6709 text, as Apple's QuickTime Keys
/// `com.apple.quicktime.location.ISO6709` holds it (`+35.0116+135.7681+012.345/`): signed
/// decimal degrees of latitude, then of longitude, then an optional altitude, then `/`.
enum ISO6709 {
    /// Degrees north and east, or nil: not that form, or the degrees-and-minutes forms (`±DDMM.M`,
    /// `±DDDMMSS`), which no phone writes and which would read as wrong degrees here.
    static func position(_ text: String?) -> (latitude: Double, longitude: Double)? {
        guard let text else { return nil }
        var rest = Substring(text)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let latitude = signedNumber(&rest, integerDigits: 2), let longitude = signedNumber(&rest, integerDigits: 3) else { return nil }
        // An altitude may follow; nothing else.
        if !rest.isEmpty { guard signedNumber(&rest, integerDigits: 6) != nil, rest.isEmpty else { return nil } }
        return (latitude, longitude)
    }

    /// A sign, at most `integerDigits` digits, an optional fraction; taken off the front of `text`.
    private static func signedNumber(_ text: inout Substring, integerDigits: Int) -> Double? {
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        var end = text.index(after: text.startIndex)
        var digits = 0, point = false
        while end < text.endIndex, text[end].isASCII, text[end].isNumber || (text[end] == "." && !point) {
            if text[end] == "." { point = true } else if !point { digits += 1 }
            end = text.index(after: end)
        }
        guard digits >= 1, digits <= integerDigits, let value = Double(text[text.startIndex..<end]) else { return nil }
        text = text[end...]
        return value
    }
}
