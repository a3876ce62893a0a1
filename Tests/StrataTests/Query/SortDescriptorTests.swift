import Foundation
import Testing
import TestSupport
@testable import Strata

/// Foundation `SortDescriptor`s order queries as the other sort forms do: the same orderings,
/// the same plan, and clear errors for what cannot be translated.
@Suite struct SortDescriptorTests {
    let dir: TemporaryDirectory
    let store: Store

    init() throws {
        (store, dir) = try makeStore()
        try store.write { tx in
            try tx.insert(kernUsers)
            try tx.insert(KernUser(id: 9, firstName: "Élan", lastName: "élan", luckyNumber: 1))
            try tx.insert(KernUser(id: 10, firstName: "Lou", lastName: "ELAN", luckyNumber: 2))
        }
    }

    @Test func descriptorsOrderAsTheSortString() throws {
        try store.read { tx in
            let byDescriptors = try tx.query(KernUser.self)
                .sorted(by: [SortDescriptor(\KernUser.lastName, order: .reverse), SortDescriptor(\KernUser.luckyNumber)])
            let byString = try tx.query(KernUser.self).sorted(by: "lastName desc,luckyNumber")
            #expect(byDescriptors.query.orderings == byString.query.orderings)
            #expect(try byDescriptors.all().map(\.id) == [9, 8, 1, 2, 10, 6, 7, 5, 3, 4])   // "élan" sorts after "Swanson": code point order
            #expect(try byDescriptors.explain().description == byString.explain().description)
            // Added after earlier orderings, and nil first in ascending order.
            let lucky = try tx.query(KernUser.self).where(\.lastName == "Bluth").sorted(by: [SortDescriptor(\KernUser.luckyNumber)])
            #expect(try lucky.all().map(\.id) == [6, 7, 5, 3, 4])
        }
    }

    @Test func theLexicalComparatorIsCodePointOrder() throws {
        try store.read { tx in
            let lexical = try tx.query(KernUser.self).sorted(by: [SortDescriptor(\KernUser.lastName, comparator: .lexical)])
            #expect(lexical.query.orderings.map(\.options) == [[]])
            #expect(try lexical.all().map(\.lastName).first == "Bluth")
            #expect(try lexical.all().map(\.lastName).last == "élan")
            // Reversed, the comparator carries the order too.
            let reversed = try tx.query(KernUser.self).sorted(by: [SortDescriptor(\KernUser.lastName, comparator: .lexical, order: .reverse)])
            #expect(reversed.query.orderings.map(\.ascending) == [false])
            #expect(try reversed.all().map(\.lastName).first == "élan")
            // What the error for a localized comparator suggests instead works.
            let folded = try tx.query(KernUser.self).sorted(by: "lastName[cd] desc")
            #expect(folded.query.orderings.map(\.options) == [IndexCollation.caseAndDiacriticInsensitive.options])
        }
    }

    @Test func untranslatableDescriptorsAreTypedErrors() throws {
        try store.read { tx in
            let computed = SortDescriptor(\KernUser.fullName)
            #expect {
                try tx.query(KernUser.self).sorted(by: [computed])
            } throws: { error in
                (error as? StrataError)?.code == .invalidQuery && "\(error)".contains("stored field")
            }
        }
    }
}

extension KernUser {
    var fullName: String { firstName + " " + lastName }
}
