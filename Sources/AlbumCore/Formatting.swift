import Glibc

/// The few number formats albumfs prints (what `String(format:)` gave, without Foundation).
extension Double {
    /// `%.{digits}f`, by libc's own printf: `1.5.fixed(2)` is `1.50`, `2.5.fixed(0)` is `2`.
    public func fixed(_ digits: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let written = withVaList([self]) { vsnprintf(&buffer, buffer.count, "%.\(max(0, digits))f", $0) }
        guard written >= 0, Int(written) < buffer.count else { return description }
        return String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension BinaryInteger {
    /// Decimal (or another `radix`), with leading zeros to `width` digits: `7.zeroPadded(3)` is `007`.
    public func zeroPadded(_ width: Int, radix: Int = 10) -> String {
        let digits = String(self, radix: radix)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
