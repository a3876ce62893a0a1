import Foundation
import Strata
import TestSupport

/// A deterministic sequence of write transactions for crash tests: the child process runs the steps
/// and acknowledges each one after its commit returns; the parent replays the same steps in memory
/// to know exactly what the store must hold after any number of them.
///
/// Step kinds (each one write transaction):
/// - import: a JSON array of 150–600 `Doc` records (upserts over ids 1…6000, 15 % of them with a
///   blob of 2–9 KB, so overflow pages), through `store.importJSON(_:entity:)`; record 0 always
///   carries the step number, so consecutive states differ;
/// - delete: `tx.delete(entity:where:)` of an id range, plus the step number in `CrashMarker`;
/// - index build: `tx.addIndex` of a new index over every stored record, plus `CrashMarker`.
///
/// `Doc` has a full-text index on `name` from the first import on (``textIndex``).
struct CrashWorkload: Sendable {
    let seed: UInt64

    struct Doc: Equatable, Sendable {
        var group: Int64
        var name: String
        var blob: String
    }

    /// What the store holds after some steps.
    struct State: Equatable, CustomStringConvertible {
        var docs: [Int64: Doc] = [:]
        /// The last delete or index step (`CrashMarker.step`), 0 when none.
        var marker = 0
        /// Index field lists, sorted.
        var indexes: [[String]] = [["group"]]

        var description: String {
            "\(docs.count) docs (sum of ids \(docs.keys.reduce(0, +))), marker \(marker), indexes \(indexes)"
        }
    }

    enum Step {
        case importing([(Int64, Doc)])
        case delete(ClosedRange<Int64>)
        case index([String], IndexCollation)
    }

    /// The full-text index every import declares, kept by the same write transactions as the records.
    static let textIndex = FullTextIndexDescription(fields: ["name"])

    /// The indexes added by index steps, by step number.
    static let indexSteps: [Int: ([String], IndexCollation)] = [
        4: (["name"], .caseInsensitive),
        9: (["blob"], .binary),           // blobs of up to 9 KB: index keys cut at 480 bytes
        15: (["group", "name"], .binary),
    ]

    func step(_ number: Int) -> Step {
        var random = SeededGenerator(seed: seed &+ UInt64(number) &* 0x9E37_79B9)
        if let (fields, collation) = Self.indexSteps[number] { return .index(fields, collation) }
        if number % 5 == 3 {
            let low = Int64.random(in: 1...5600, using: &random)
            return .delete(low...(low + Int64.random(in: 50...400, using: &random)))
        }
        let count = Int.random(in: 150...600, using: &random)
        var docs: [(Int64, Doc)] = [(0, Doc(group: 0, name: "step \(number)", blob: ""))]
        for _ in 0..<count {
            let id = Int64.random(in: 1...6000, using: &random)
            let large = Int.random(in: 0..<100, using: &random) < 15
            let blobLength = large ? Int.random(in: 2000...9000, using: &random) : Int.random(in: 0...300, using: &random)
            let letter = Character(UnicodeScalar(UInt8(97 + Int.random(in: 0..<26, using: &random))))
            docs.append((id, Doc(group: Int64.random(in: 0..<20, using: &random),
                                 name: Self.name(using: &random),
                                 blob: String(repeating: letter, count: blobLength) + "\(number)")))
        }
        return .importing(docs)
    }

    private static func name(using random: inout SeededGenerator) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHÉÜß")
        return String((0..<Int.random(in: 3...12, using: &random)).map { _ in letters.randomElement(using: &random)! })
    }

    /// The state after the first `count` steps.
    func state(after count: Int) -> State {
        var state = State()
        for number in stride(from: 1, through: count, by: 1) {
            switch step(number) {
            case .importing(let docs):
                for (id, doc) in docs { state.docs[id] = doc }
            case .delete(let range):
                for id in state.docs.keys where range.contains(id) { state.docs[id] = nil }
                state.marker = number
            case .index(let fields, _):
                state.indexes.append(fields)
                state.indexes.sort { $0.joined(separator: ",") < $1.joined(separator: ",") }
                state.marker = number
            }
        }
        return state
    }

    /// The entity description imports use before step `number` (the indexes built so far).
    func description(before number: Int) -> EntityDescription {
        var indexes = [IndexDescription(fields: ["group"])]
        for (step, (fields, collation)) in Self.indexSteps.sorted(by: { $0.key < $1.key }) where step < number {
            indexes.append(IndexDescription(fields: fields, collation: collation))
        }
        var description = EntityDescription(name: "Doc", primaryKey: "id", fields: [
            FieldDescription("id", .integer), FieldDescription("group", .integer),
            FieldDescription("name", .string), FieldDescription("blob", .string),
        ], indexes: indexes)
        description.fullTextIndexes = [Self.textIndex]
        return description
    }

    /// Runs step `number` against `store` (one write transaction).
    func run(_ number: Int, on store: Store) throws {
        switch step(number) {
        case .importing(let docs):
            let objects = docs.map { id, doc in
                JSONValue.object([JSONMember(key: "id", value: .int(id)), JSONMember(key: "group", value: .int(doc.group)),
                                  JSONMember(key: "name", value: .string(doc.name)), JSONMember(key: "blob", value: .string(doc.blob))])
            }
            try store.importJSON(Data(JSONValue.array(objects).jsonText.utf8), entity: description(before: number))
        case .delete(let range):
            try store.write { tx in
                _ = try tx.delete(entity: "Doc", where: "id >= %d AND id <= %d", arguments: [range.lowerBound, range.upperBound])
                try tx.upsert(CrashMarker(id: 1, step: number))
            }
        case .index(let fields, let collation):
            try store.write { tx in
                try tx.addIndex(IndexDescription(fields: fields, collation: collation), toEntity: "Doc")
                try tx.upsert(CrashMarker(id: 1, step: number))
            }
        }
    }

    /// Reads what `store` holds, in the shape of ``State``.
    static func read(_ store: Store) throws -> State {
        try store.read { tx in
            var state = State()
            guard try tx.entityNames().contains("Doc") else { return state }
            for record in try tx.query(entity: "Doc").all() {
                guard case .int(let id) = record.key, case .int(let group)? = record["group"],
                      case .string(let name)? = record["name"], case .string(let blob)? = record["blob"] else {
                    throw CrashCheckFailure("Doc \(record.key) has unexpected fields: \(record.jsonObject().jsonText.prefix(200))")
                }
                state.docs[id] = Doc(group: group, name: name, blob: blob)
            }
            state.marker = try tx.get(CrashMarker.self, key: 1)?.step ?? 0
            state.indexes = try tx.entityDescription(named: "Doc").indexes.map(\.fields)
                .sorted { $0.joined(separator: ",") < $1.joined(separator: ",") }
            return state
        }
    }
}

struct CrashMarker: Record, Equatable {
    var id: Int64
    var step: Int
    static let primaryKey = \CrashMarker.id
}

struct CrashCheckFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
