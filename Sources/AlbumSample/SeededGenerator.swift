import Glibc

/// Random numbers that can be made again: SplitMix64 from a seed, for fixtures and for tests of
/// damaged input, so that a failure names the seed that shows it (`ALBUMFS_TEST_SEED=N` makes the
/// same inputs again).
public struct SeededGenerator: RandomNumberGenerator, CustomStringConvertible {
    public let seed: UInt64
    private var state: UInt64

    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// The seed in `ALBUMFS_TEST_SEED` when set, else `fallback` (a test's fixed default: every run
    /// checks the same inputs unless told otherwise).
    public static func forTest(_ fallback: UInt64) -> SeededGenerator {
        if let text = getenv("ALBUMFS_TEST_SEED").map({ String(cString: $0) }), let seed = UInt64(text) { return SeededGenerator(seed: seed) }
        return SeededGenerator(seed: fallback)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `n` random bytes.
    public mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &self) } }

    public var description: String { "seed \(seed) (ALBUMFS_TEST_SEED=\(seed) makes these inputs again)" }
}
