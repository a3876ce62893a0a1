import Foundation
import Strata
import TestSupport

/// A user as REST APIs send them, mapped by Kipu's conventions: `id` → `remoteID`,
/// `first_name` → `firstName`, `created_at` → `createdDate`, `avatar_url` → `avatarURL`.
struct Member: Record, Equatable {
    var remoteID: Int64
    var firstName: String
    var lastName: String
    var email: String?
    var luckyNumber: Int?
    var city: String?
    var score: Double?
    var active: Bool?
    var avatarURL: URL?
    var createdDate: Date?
    var updatedAt: Date?
    var tags: [String]?
    static let primaryKey = \Member.remoteID
    static let indexes: [IndexDefinition<Member>] = [
        .index(\.lastName, collation: .caseAndDiacriticInsensitive),
        .index(\.luckyNumber),
        .index(\.createdDate),
        .unique(\.email),
    ]

    init(_ id: Int64, _ first: String, _ last: String, lucky: Int? = nil, city: String? = nil, email: String? = nil) {
        remoteID = id
        firstName = first
        lastName = last
        luckyNumber = lucky
        self.city = city
        self.email = email
    }
}

/// JSON text of `members`, in the API's snake_case shape.
func membersJSON(_ members: [(id: Int, first: String, last: String, city: String)]) -> Data {
    let objects = members.map { m in
        #"{"id": \#(m.id), "first_name": "\#(m.first)", "last_name": "\#(m.last)", "city": "\#(m.city)", "lucky_number": \#(m.id % 7)}"#
    }
    return Data(("[" + objects.joined(separator: ",\n") + "]").utf8)
}

extension Store {
    /// Every stored member, by key.
    func members() throws -> [Member] { try read { tx in try tx.all(Member.self) } }

    /// Whether every index of `entity` matches its records.
    func indexesConsistent(_ entity: String = "Member") throws -> Bool {
        let result: IndexVerification
        do { result = try read { tx in try tx.verifyIndexes(entity: entity) } } catch let error as StrataError where error.code == .notFound {
            return true   // no entity: nothing to be inconsistent
        }
        if !result.isConsistent { print(result.problems) }
        return result.isConsistent
    }
}
