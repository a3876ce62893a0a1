import Foundation

/// One user as a REST API would return it, produced deterministically from a seed and an id.
///
/// ```swift
/// let users = Array(UserGenerator(count: 1_000, seed: 42))   // ids 1...1000
/// ```
///
/// JSON field names are snake_case (`first_name`, `lucky_number`, `created_at`, …); dates are
/// whole seconds, written as ISO 8601 UTC strings with `Z`.
public struct GeneratedUser: Codable, Hashable, Sendable {
    public var id: Int64
    public var firstName: String
    public var lastName: String
    public var email: String
    /// `nil` for about a fifth of the users.
    public var luckyNumber: Int?
    /// One of a few dozen cities, heavily skewed towards the first ones.
    public var city: String
    /// 0.00 ... 999.99, two decimals.
    public var score: Double
    public var active: Bool
    /// 0–4 distinct tags from a vocabulary of twelve.
    public var tags: [String]
    public var createdAt: Date
    /// Never earlier than `createdAt`.
    public var updatedAt: Date

    public init(
        id: Int64, firstName: String, lastName: String, email: String, luckyNumber: Int?,
        city: String, score: Double, active: Bool, tags: [String], createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
        self.luckyNumber = luckyNumber
        self.city = city
        self.score = score
        self.active = active
        self.tags = tags
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, email, city, score, active, tags
        case firstName = "first_name"
        case lastName = "last_name"
        case luckyNumber = "lucky_number"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}

extension GeneratedUser {
    /// 2015-01-01T00:00:00Z: the earliest `createdAt`.
    static let epochStart: Int64 = 1_420_070_400
    /// Ten years of seconds, the spread of `createdAt`.
    static let createdSpread = 10 * 365 * 86_400
    /// Up to two years between creation and last update.
    static let updateSpread = 2 * 365 * 86_400

    /// The user with this `id` in the dataset for `seed`. Each id has its own generator, so the
    /// result does not depend on which other users were generated before it.
    public init(id: Int64, seed: UInt64) {
        var rng = SplitMix64(seed: seed, index: UInt64(bitPattern: id))
        let first = Vocabulary.firstNames[rng.below(Vocabulary.firstNames.count)]
        let last = Vocabulary.lastNames[rng.below(Vocabulary.lastNames.count)]
        let lucky: Int? = rng.below(5) == 0 ? nil : rng.below(100)
        // u³ piles most of the mass on the first cities: Berlin ~30%, the last ones well under 1%.
        let u = rng.unit()
        let city = Vocabulary.cities[min(Int(Double(Vocabulary.cities.count) * u * u * u), Vocabulary.cities.count - 1)]
        let score = Double(rng.below(100_000)) / 100
        let active = rng.below(4) != 0
        var tags: [String] = []
        let tagCount = rng.below(5)
        while tags.count < tagCount {
            let tag = Vocabulary.tags[rng.below(Vocabulary.tags.count)]
            if !tags.contains(tag) { tags.append(tag) }
        }
        let created = Self.epochStart + Int64(rng.below(Self.createdSpread))
        // A quarter were never updated after creation; the rest some time later.
        let updated = rng.below(4) == 0 ? created : created + Int64(rng.below(Self.updateSpread))
        self.init(
            id: id,
            firstName: first,
            lastName: last,
            email: "\(first.lowercased()).\(last.lowercased()).\(id)@example.com",
            luckyNumber: lucky,
            city: city,
            score: score,
            active: active,
            tags: tags,
            createdAt: Date(timeIntervalSince1970: Double(created)),
            updatedAt: Date(timeIntervalSince1970: Double(updated))
        )
    }
}

/// The users with ids `1...count` for one seed, generated lazily one at a time.
public struct UserGenerator: Sequence, Sendable {
    public let count: Int
    public let seed: UInt64

    public init(count: Int, seed: UInt64) {
        precondition(count >= 0, "count must not be negative")
        self.count = count
        self.seed = seed
    }

    public var underestimatedCount: Int { count }

    public func makeIterator() -> Iterator {
        Iterator(count: Int64(count), seed: seed)
    }

    public struct Iterator: IteratorProtocol, Sendable {
        let count: Int64
        let seed: UInt64
        var nextID: Int64 = 1

        public mutating func next() -> GeneratedUser? {
            guard nextID <= count else { return nil }
            defer { nextID += 1 }
            return GeneratedUser(id: nextID, seed: seed)
        }
    }
}
