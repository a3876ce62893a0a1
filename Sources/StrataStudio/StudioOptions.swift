import Foundation

/// How a studio serves a store: whether it may write, its access token, and its limits.
public struct StudioOptions: Sendable {
    /// Whether the write routes (edit, delete, import) are served; a read-only studio refuses
    /// each of them with 403 before it touches the store.
    public var writable: Bool
    /// The access token every request must carry (`?token=`, the `strata-studio` cookie, or an
    /// `Authorization: Bearer` header).
    public var token: String
    /// The largest request body the studio reads, in bytes (16 MiB unless set); a larger one is
    /// refused with 413 `bodyTooLarge`.
    public var maxBodyBytes: Int
    /// The most records a page of the grid or a query's rows holds.
    public var maxPageSize: Int

    /// Options for a studio; `token` is a fresh ``randomToken()`` unless given.
    public init(writable: Bool = false, token: String = StudioOptions.randomToken(), maxBodyBytes: Int = 16 << 20,
                maxPageSize: Int = 1_000) {
        self.writable = writable
        self.token = token
        self.maxBodyBytes = maxBodyBytes
        self.maxPageSize = maxPageSize
    }

    /// 128 random bits from the system's generator, as 32 lowercase hexadecimal digits.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let word = generator.next() as UInt64
            let hex = String(word, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
