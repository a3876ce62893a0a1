import Foundation
import Strata

func queries(_ store: Store) throws {
    // snippet: queries
    try store.read { tx in
        // type-safe, with key paths
        let top = try tx.query(User.self).where(\.lastName == "Bluth" && \.luckyNumber > 5)
            .sorted(by: \.luckyNumber, .descending).limit(2).all()
        // predicate format strings (NSPredicate's grammar, parsed, never evaluated), with ORDER BY / LIMIT / OFFSET
        let bluths = try tx.query(User.self).where("lastName ==[cd] %@ AND luckyNumber == %@", "bluth", 13).all()
        let tagged = try tx.query(User.self, "ANY tags IN %@ ORDER BY lastName DESC, luckyNumber LIMIT 10", ["vip", "beta"]).all()
        // dictionaries (AND of equalities) and sort strings
        let thirteen = try tx.query(User.self).where(["lastName": "Bluth", "luckyNumber": 13]).sorted(by: "lastName desc,luckyNumber").all()
        // Foundation's #Predicate and sort descriptors, as SwiftData users write them (strings by code point: .lexical)
        let lucky = try tx.query(User.self).where(#Predicate<User> { $0.luckyNumber ?? 0 > 5 })
            .sorted(by: [SortDescriptor(\.lastName, order: .reverse), SortDescriptor(\.firstName)]).all()
        // results: all, first, first(n), last, last(n), count, exists, ids, forEach; count and ids decode nothing
        let unlucky = try tx.query(User.self).where(\.luckyNumber == nil).count()
        // and why it is fast or slow:
        print(try tx.query(User.self).where("lastName ==[cd] %@ AND luckyNumber > 5", "bluth").explain())
        // IndexScan(User.lastName[cd] = "bluth") → Filter(luckyNumber > 5)
        print(top, bluths, tagged, thirteen, lucky, unlucky)
    }
    // end snippet: queries
}
