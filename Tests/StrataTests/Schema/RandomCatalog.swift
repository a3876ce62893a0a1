import Foundation
import TestSupport
@testable import Strata
@testable import StrataFormat

/// Random catalog entries for `CatalogJSONTests`: every member an `EntitySchema` can hold, with
/// names that need escaping and defaults of every kind of JSON value.
enum RandomCatalog {
    static let names = ["id", "name", "a/b", "Ørsted", "quote\"d", "back\\slash", "tab\tbed", "emoji 🙂", "", "line\nbreak", "x"]

    static func name(_ random: inout SeededGenerator) -> String { names.randomElement(using: &random)! }

    static func chance(_ random: inout SeededGenerator, _ percent: Int = 50) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    static func list<T>(_ random: inout SeededGenerator, upTo count: Int, _ make: (inout SeededGenerator) -> T) -> [T] {
        (0..<Int.random(in: 0...count, using: &random)).map { _ in make(&random) }
    }

    static func schema(_ random: inout SeededGenerator) -> EntitySchema {
        // A table's names are distinct (a removed field's is renamed): ids by name must not depend on order.
        var names: [Int: String] = [:]
        for fieldName in Self.names.shuffled(using: &random).prefix(Int.random(in: 0...6, using: &random)) {
            names[Int.random(in: 1...40, using: &random)] = fieldName
        }
        var schema = EntitySchema(name: name(&random), primaryKey: chance(&random) ? "id" : "country, year",
                                  recordsDatabase: "records/" + name(&random), fields: FieldTable(names: names),
                                  indexes: list(&random, upTo: 3, index),
                                  primaryKeyKind: chance(&random) ? [ValueKind.integer, .string, .date, .other].randomElement(using: &random) : nil)
        if chance(&random) { schema.description = description(&random) }
        schema.relationships = list(&random, upTo: 2) { random in
            RelationshipDescriptor(name: name(&random), kind: chance(&random) ? .toOne : .keyList, target: name(&random),
                                   keyField: name(&random), inverse: chance(&random) ? name(&random) : nil,
                                   deleteRule: [DeleteRule.nullify, .cascade, .deny].randomElement(using: &random)!)
        }
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            schema.defaults[name(&random)] = list(&random, upTo: 5) { UInt8.random(in: 0...255, using: &$0) }
        }
        if chance(&random, 30) { schema.renamedFields[name(&random)] = name(&random) }
        if chance(&random, 30) { schema.indexDatabases[name(&random)] = "index/" + name(&random) }
        if chance(&random, 30) {
            schema.statistics[name(&random)] = IndexKeyStatistics(
                fields: list(&random, upTo: 2, indexedField), entries: Int.random(in: 0...Int.max, using: &random),
                distinctLeading: Int.random(in: -3...1_000, using: &random), distinctKeys: Int.random(in: 0...5, using: &random),
                frequent: list(&random, upTo: 3) { random in
                    IndexKeyStatistics.Frequent(key: list(&random, upTo: 4) { UInt8.random(in: 0...255, using: &$0) },
                                                entries: Int.random(in: 0...1 << 40, using: &random))
                })
        }
        schema.fullTextIndexes = list(&random, upTo: 2, fullTextIndex)
        return schema
    }

    /// A full-text index with weights written as integers, fractions and random doubles.
    static func fullTextIndex(_ random: inout SeededGenerator) -> FullTextIndexDescriptor {
        let fields = list(&random, upTo: 3, name)
        return FullTextIndexDescriptor(
            name: name(&random), fields: fields,
            weights: fields.map { _ in chance(&random) ? [1, 2, 0.5, 1e-3, 12.25].randomElement(using: &random)! : Double.random(in: 0.01...100, using: &random) },
            stemming: TextStemming.allCases.randomElement(using: &random)!, stopWords: TextStopWords.allCases.randomElement(using: &random)!,
            positions: chance(&random, 80), tokenizerVersion: Int.random(in: 1...3, using: &random),
            foldingVersion: Int.random(in: 1...3, using: &random))
    }

    static func indexedField(_ random: inout SeededGenerator) -> IndexedField {
        IndexedField(path: list(&random, upTo: 3, name),
                     collation: [IndexCollation.binary, .caseInsensitive, .caseAndDiacriticInsensitive].randomElement(using: &random)!,
                     kind: [ValueKind.integer, .double, .string, .date, .uuid, .bool, .other].randomElement(using: &random)!)
    }

    static func index(_ random: inout SeededGenerator) -> IndexDescriptor {
        var index = IndexDescriptor(name: name(&random), fields: list(&random, upTo: 3, indexedField),
                                    isUnique: chance(&random), isMultiValue: chance(&random))
        if chance(&random, 20) { index.foldingVersion = Int.random(in: 1...3, using: &random) }
        return index
    }

    static func description(_ random: inout SeededGenerator) -> EntityDescription {
        var description = EntityDescription(
            name: name(&random), primaryKey: name(&random), fields: list(&random, upTo: 4) { field(&$0, depth: 0) },
            indexes: list(&random, upTo: 2) { random in
                IndexDescription(fields: list(&random, upTo: 2, name),
                                 collation: [IndexCollation.binary, .caseInsensitive].randomElement(using: &random)!,
                                 unique: chance(&random), multiValue: chance(&random))
            },
            relationships: list(&random, upTo: 2) { random in
                RelationshipDescription(name(&random), chance(&random) ? .toOne : .toMany, target: name(&random), keyField: name(&random),
                                        inverse: chance(&random) ? name(&random) : nil, deleteRule: chance(&random) ? .nullify : .cascade)
            })
        description.primaryKeyIsGenerated = chance(&random, 20)
        description.fullTextIndexes = list(&random, upTo: 2) { random in
            let index = fullTextIndex(&random)
            return FullTextIndexDescription(fields: index.fields, weights: chance(&random) ? index.weights : nil, stemming: index.stemming,
                                            stopWords: index.stopWords, name: chance(&random) ? index.name : nil)
        }
        return description
    }

    static func field(_ random: inout SeededGenerator, depth: Int) -> FieldDescription {
        FieldDescription(name(&random), type(&random, depth: depth), optional: chance(&random), jsonKey: chance(&random, 30) ? name(&random) : nil,
                         dateFormat: chance(&random, 30) ? [DateFormat.automatic, .iso8601, .secondsSince1970].randomElement(using: &random) : nil,
                         default: chance(&random) ? json(&random, depth: 0) : nil)
    }

    static func type(_ random: inout SeededGenerator, depth: Int) -> FieldType {
        switch Int.random(in: 0..<(depth < 2 ? 6 : 4), using: &random) {
        case 0: .integer
        case 1: .string
        case 2: .any
        case 3: FieldType(ScalarType.allCases.randomElement(using: &random)!)
        case 4: .array(type(&random, depth: depth + 1))
        default: .object(list(&random, upTo: 3) { field(&$0, depth: depth + 1) })
        }
    }

    /// A JSON value, numbers among them written as integers, fractions, whole doubles and big ones.
    static func json(_ random: inout SeededGenerator, depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth < 3 ? 11 : 8), using: &random) {
        case 0: return .null
        case 1: return .bool(chance(&random))
        case 2: return .int(Int64.random(in: .min ... .max, using: &random))
        case 3: return .int(Int64.random(in: -5...5, using: &random))
        case 4: return .double([1.0, -0.0, 2.5, 1e20, 1e-7, 0.1, 9.2233720368547758e18, -1.5e300].randomElement(using: &random)!)
        case 5: return .double(Double.random(in: -1e6...1e6, using: &random))
        case 6: return .string(name(&random))
        case 7: return .wideInt(WideInteger(UInt64.random(in: .min ... .max, using: &random)))
        case 8: return .array(list(&random, upTo: 3) { json(&$0, depth: depth + 1) })
        default:
            return .object(list(&random, upTo: 3) { random in JSONMember(key: name(&random), value: json(&random, depth: depth + 1)) })
        }
    }
}
