import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata
@testable import StrataStorage

/// A value type of the program's own with its own key encoding: "1.10" sorts after "1.9". Stored
/// as its text, so imports read it from a JSON string.
struct ReleaseVersion: IndexableValue, Codable, Hashable {
    var major: Int64
    var minor: Int64

    init(_ major: Int64, _ minor: Int64) { self.major = major; self.minor = minor }

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        // The importer learns a type's fields by decoding placeholder values, the empty text among them.
        if text.isEmpty { (major, minor) = (0, 0); return }
        let parts = text.split(separator: ".").compactMap { Int64($0) }
        guard parts.count == 2 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a version: \(text)"))
        }
        (major, minor) = (parts[0], parts[1])
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode("\(major).\(minor)")
    }

    func appendOrderedKey(to key: inout [UInt8]) {
        major.appendOrderedKey(to: &key)
        minor.appendOrderedKey(to: &key)
    }

    static func readOrderedKey(from key: [UInt8], at position: inout Int) throws(StrataError) -> ReleaseVersion {
        ReleaseVersion(try Int64.readOrderedKey(from: key, at: &position), try Int64.readOrderedKey(from: key, at: &position))
    }
}

struct Product: Record, Equatable {
    var id: Int64
    var name: String
    static let primaryKey = \Product.id
}

struct Release: Record, Equatable {
    var id: Int64
    var version: ReleaseVersion
    var productID: Int64?
    static let primaryKey = \Release.id
    static let indexes: [IndexDefinition<Release>] = [.index(\.version), .index(\.productID, \.version)]
    static let product = ToOne<Release, Product>("product", \.productID, inverse: "releases", deleteRule: .cascade)
    static let relationships: [AnyRelationship<Release>] = [.init(product)]
}

/// Indexes on fields whose Swift type encodes its own keys (``ValueKind/other``) are kept by the
/// one index maintainer, with keys from the declaring record type, whoever writes the records:
/// typed writes, imports, and the delete rules of a related entity.
@Suite struct CustomKeyIndexTests {
    /// The entries of index `name` of `Release`: (index key, stored primary key).
    private func entries(_ store: Store, _ name: String) throws -> Set<[UInt8]> {
        try store.read { tx throws in
            let context = try #require(try tx.context(named: "Release"))
            let database = try #require(context.indexes[name])
            return try tx.raw.withCursor(database) { cursor in
                var found = Set<[UInt8]>()
                var more = try cursor.first()
                while more { found.insert(cursor.key + [0xEE] + cursor.value); more = try cursor.next() }
                return found
            }
        }
    }

    /// The entries the records call for, computed from the Swift values by the declarations.
    private func expected(_ store: Store, _ name: String) throws -> Set<[UInt8]> {
        let definition = try #require(Release.indexes.first { $0.name == name })
        let releases = try store.read { tx throws in try tx.all(Release.self) }
        return Set(releases.flatMap { release in definition.keys(release).map { $0 + [0xEE] + release.id.orderedKey } })
    }

    private func checkIndexes(_ store: Store, _ comment: Comment) throws {
        for definition in Release.indexes {
            #expect(try entries(store, definition.name) == expected(store, definition.name), comment)
        }
    }

    @Test func typedWritesKeepACustomKeyIndexExact() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        try store.write { tx throws in
            try tx.insert(Product(id: 1, name: "Strata"))
            try tx.insert([Release(id: 1, version: .init(1, 9), productID: 1), Release(id: 2, version: .init(1, 10), productID: 1),
                           Release(id: 3, version: .init(2, 0), productID: nil)])
        }
        try checkIndexes(store, "after inserts")
        #expect(try entries(store, "version").count == 3)
        try store.write { tx throws in
            #expect(try tx.upsert(Release(id: 2, version: .init(1, 11), productID: 1)) == .updated)
            #expect(try tx.upsert(Release(id: 1, version: .init(1, 9), productID: 1)) == .unchanged)
            #expect(try tx.delete(Release.self, key: 3))
        }
        try checkIndexes(store, "after an update and a delete")
        // Keys are the type's own encoding: 1.9 before 1.11.
        let versions = try entries(store, "version").sorted { $0.lexicographicallyPrecedes($1) }
        #expect(versions.map { Array($0.prefix(18)) } == [ReleaseVersion(1, 9).orderedKey, ReleaseVersion(1, 11).orderedKey])
    }

    @Test func importsIntoTheRecordTypeKeepACustomKeyIndex() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        try store.write { tx throws in try tx.insert(Product(id: 1, name: "Strata")) }
        try store.importJSON(Data(#"[{"id": 1, "version": "1.9", "productID": 1}, {"id": 2, "version": "1.10"}]"#.utf8), as: Release.self)
        try checkIndexes(store, "after the first import")
        let report = try store.importJSON(Data(#"[{"id": 1, "version": "3.1", "productID": 1}, {"id": 2, "version": "1.10"}]"#.utf8),
                                          as: Release.self)
        #expect(report.updated == 1 && report.unchanged == 1)
        try checkIndexes(store, "after a re-import")
        #expect(try store.read { tx throws in try tx.verifyIndexes(entity: "Release") }.problems.allSatisfy { $0.contains("not checked") })
    }

    /// Failed before the one maintainer: a cascade refused to delete records whose indexes have
    /// a custom-encoded field ("delete through the record type").
    @Test func cascadesDeleteRecordsWithCustomKeyIndexes() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        try store.write { tx throws in
            try tx.insert([Product(id: 1, name: "Strata"), Product(id: 2, name: "Other")])
            try tx.insert([Release(id: 1, version: .init(1, 0), productID: 1), Release(id: 2, version: .init(1, 1), productID: 1),
                           Release(id: 3, version: .init(0, 1), productID: 2)])
        }
        try store.write { tx throws in #expect(try tx.delete(Product.self, key: 1)) }
        #expect(try store.read { tx throws in try tx.all(Release.self).map(\.id) } == [3])
        try checkIndexes(store, "after the cascade")
        #expect(try entries(store, "version").count == 1)
    }

    /// Without the record type in the process, the keys of a custom-encoded index cannot be
    /// computed: an untyped delete is refused with a typed error and changes nothing.
    @Test func untypedWritesWithoutTheRecordTypeAreRefused() throws {
        let dir = try TemporaryDirectory("strata")
        let path = dir.path("store")
        do {
            let store = try Store(path: path)
            try store.write { tx throws in try tx.insert(Release(id: 1, version: .init(1, 0), productID: nil)) }
        }
        let fresh = try Store(path: path)
        let error = try #require(throws: StrataError.self) {
            try fresh.write { tx throws in try tx.delete(entity: "Release", key: .int(1)) }
        }
        #expect(error.code == .invalidValue)
        #expect(error.message.contains("version") && error.message.contains("record type"), "\(error.message)")
        #expect(try fresh.read { tx throws in try tx.count(entity: "Release") } == 1)
        // Once the type has written through this store, the same delete works.
        try fresh.write { tx throws in _ = try tx.upsert(Release(id: 2, version: .init(2, 0), productID: nil)) }
        #expect(try fresh.write { tx throws in try tx.delete(entity: "Release", key: .int(1)) })
        try checkIndexes(fresh, "after the untyped delete")
    }
}
