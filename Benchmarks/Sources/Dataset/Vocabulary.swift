/// The fixed word lists the generator draws from. Changing any of them changes every dataset,
/// so treat them as part of the format: append only with a new seed-independent version note.
enum Vocabulary {
    static let firstNames = [
        "Ada", "Alan", "Amara", "Ana", "Bea", "Ben", "Carla", "Chen", "Dara", "David",
        "Elena", "Emil", "Farah", "Felix", "Grace", "Hana", "Ivan", "Ines", "Jonas", "Julia",
        "Kai", "Kenji", "Lara", "Leo", "Maya", "Mateo", "Nia", "Noah", "Olga", "Omar",
        "Priya", "Paul", "Quinn", "Rosa", "Sami", "Sofia", "Tomas", "Uma", "Vera", "Yusuf",
    ]

    static let lastNames = [
        "Abe", "Almeida", "Bauer", "Brown", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad",
        "Ito", "Jensen", "Kowalski", "Kim", "Larsen", "Lopez", "Meyer", "Moreau", "Nakamura", "Novak",
        "Okafor", "Olsen", "Patel", "Petrov", "Quispe", "Rossi", "Schmidt", "Silva", "Tanaka", "Torres",
        "Ueda", "Varga", "Wagner", "Weber", "Xu", "Yilmaz", "Young", "Zhang", "Ziegler", "Zubiri",
    ]

    /// Ordered from most to least frequent: the generator skews towards the front.
    static let cities = [
        "Berlin", "London", "Paris", "New York", "Tokyo", "Madrid", "Rome", "Amsterdam",
        "Oslo", "Lisbon", "Vienna", "Prague", "Warsaw", "Dublin", "Stockholm", "Copenhagen",
        "Helsinki", "Zurich", "Brussels", "Athens", "Istanbul", "Cairo", "Lagos", "Nairobi",
        "Mumbai", "Delhi", "Singapore", "Seoul", "Sydney", "Auckland", "Toronto", "Montreal",
        "Chicago", "Austin", "Mexico City", "Bogotá", "Lima", "Santiago", "São Paulo", "Buenos Aires",
    ]

    static let tags = [
        "admin", "beta", "customer", "developer", "early-adopter", "enterprise",
        "mobile", "newsletter", "premium", "support", "trial", "vip",
    ]
}
