/// A few records of Debian's iso-codes `iso_3166-1.json`, shaped as that file is: one object
/// holding the array of records under "3166-1", no `id`, snake_case keys, keys some records lack,
/// numeric codes as strings with leading zeros, flags as emoji.
enum ISO3166Fixture {
    static let json = #"""
    {
      "3166-1": [
        {
          "alpha_2": "AW",
          "alpha_3": "ABW",
          "flag": "🇦🇼",
          "name": "Aruba",
          "numeric": "533"
        },
        {
          "alpha_2": "AF",
          "alpha_3": "AFG",
          "flag": "🇦🇫",
          "name": "Afghanistan",
          "numeric": "004",
          "official_name": "Islamic Republic of Afghanistan"
        },
        {
          "alpha_2": "DE",
          "alpha_3": "DEU",
          "flag": "🇩🇪",
          "name": "Germany",
          "numeric": "276",
          "official_name": "Federal Republic of Germany"
        },
        {
          "alpha_2": "BO",
          "alpha_3": "BOL",
          "common_name": "Bolivia",
          "flag": "🇧🇴",
          "name": "Bolivia, Plurinational State of",
          "numeric": "068",
          "official_name": "Plurinational State of Bolivia"
        },
        {
          "alpha_2": "CI",
          "alpha_3": "CIV",
          "flag": "🇨🇮",
          "name": "Côte d'Ivoire",
          "numeric": "384",
          "official_name": "Republic of Côte d'Ivoire"
        }
      ]
    }
    """#

    /// The records as Foundation reads them, by `alpha_2`.
    static var records: [String: [String: String]] {
        get throws {
            let root = try StrataCLI.json(json) as? [String: Any]
            let list = root?["3166-1"] as? [[String: String]] ?? []
            return Dictionary(uniqueKeysWithValues: list.map { ($0["alpha_2"] ?? "", $0) })
        }
    }
}
