import Foundation
import Strata

struct User: Record, Equatable {
    var id: Int64
    var firstName: String
    var lastName: String
    var email: String?
    var luckyNumber: Int?
    var tags: [String]
    var createdDate: Date
    static let primaryKey = \User.id
}

// snippet: indexes
extension User {
    static let indexes: [IndexDefinition<User>] = [
        .index(\.lastName, collation: .caseAndDiacriticInsensitive),   // "Fünke" == "funke", "ÉLAN" == "elan"
        .index(\.luckyNumber),                                         // nil is indexed and sorts first
        .index(\.lastName, \.luckyNumber),                             // compound
        .unique(\.email),                                              // a second record throws .uniqueViolation
        .index(\.tags, multiValue: true),                              // one entry per element
    ]
}
// end snippet: indexes
