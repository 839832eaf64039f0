/// The few number formats albumfs prints (what `String(format:)` gave, without Foundation).
extension Double {
    /// Fixed-point with `digits` decimals, rounded: `1.005.fixed(2)` is `1.01`, `2.0.fixed(0)` is
    /// `2` (as `%.Nf`, for the finite values albumfs prints: durations, rates).
    public func fixed(_ digits: Int) -> String {
        guard isFinite else { return description }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(self) * scale).rounded()
        guard scaled < 9e18 else { return description }
        let units = Int64(scaled)
        let sign = self < 0 && units != 0 ? "-" : ""
        let whole = units / Int64(scale)
        guard digits > 0 else { return sign + String(whole) }
        return sign + String(whole) + "." + (units % Int64(scale)).zeroPadded(digits)
    }
}

extension BinaryInteger {
    /// Decimal (or another `radix`), with leading zeros to `width` digits: `7.zeroPadded(3)` is `007`.
    public func zeroPadded(_ width: Int, radix: Int = 10) -> String {
        let digits = String(self, radix: radix)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
