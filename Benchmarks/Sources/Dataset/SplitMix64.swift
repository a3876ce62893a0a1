/// A tiny, fast, seedable pseudo-random number generator (Steele, Lea and Flood's SplitMix64).
///
/// The dataset must be byte-identical for the same seed on every machine and every Swift
/// version, so it never touches `SystemRandomNumberGenerator` or the standard library's
/// `random(in:)` algorithms (whose mapping from bits to ranges is not a documented contract).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound`, by Lemire's multiply-shift (the tiny bias is irrelevant here and,
    /// unlike rejection sampling, it consumes exactly one draw, which keeps streams aligned).
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A value in `[0, 1)` with 53 random bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}

extension SplitMix64 {
    /// A generator for item `index` of a stream: independent of every other index, so records
    /// can be generated in any order (or in parallel) and still come out the same.
    public init(seed: UInt64, index: UInt64) {
        var mixer = SplitMix64(seed: seed ^ (index &* 0xD1B5_4A32_D192_ED03))
        self.init(seed: mixer.next())
    }

    /// Shuffles `values` in place with Fisher–Yates, deterministically for a given generator state.
    public mutating func shuffle<T>(_ values: inout [T]) {
        guard values.count > 1 else { return }
        for i in stride(from: values.count - 1, to: 0, by: -1) {
            values.swapAt(i, below(i + 1))
        }
    }
}
