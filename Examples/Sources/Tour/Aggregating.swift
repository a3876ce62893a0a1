import Foundation
import Strata

func aggregating(_ store: Store) throws {
    // snippet: aggregates
    try store.read { tx in
        let best = try tx.query(User.self).max(\.luckyNumber)                     // Int?, from the index's last key
        let mean = try tx.query(User.self).where(\.lastName == "Bluth").average(\.luckyNumber)
        let names = try tx.query(User.self).distinct(\.lastName)                  // [String], from the index's keys
        let families = try tx.query(User.self)
            .group(by: \.lastName, aggregating: .average(\.luckyNumber), .max(\.luckyNumber))
            .having { $0.count > 1 }                                              // SQL's GROUP BY … HAVING
        print(best as Any, mean as Any, names, families.map { ($0.key, $0.count, $0.average(\.luckyNumber) as Any) })
    }
    try store.write { tx in
        try tx.updateAll(User.self, where: \.lastName == "Bluth") { $0.tags.append("family") }   // returns the count
    }
    // end snippet: aggregates
}
