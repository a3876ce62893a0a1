import Dataset
import EngineComparison
import Foundation
import Strata

/// Strata's figures of `query-side-by-side` as slices (`query-side-by-side --strata-only --serve-slices`):
/// the store is built as ``runQueryComparison`` builds it (the same users, indexes, upsert and
/// check), then each query shape is one figure: OPERATIONS queries on the shape's next seeded
/// parameter sets (of `instances`), in one read transaction, through ``IndexedStrataEngine``'s own
/// query code. Each shape's answers are gathered once before serving (the warm-up), and every slice
/// must return the same rows (or counts) for its instances. `upsert`: OPERATIONS users upserted in one
/// write transaction with the six indexes, after the same users were deleted, untimed.
/// The returned function removes the store.
public func querySliceFigures(
    count: Int, seed: UInt64, instances: Int, shapes: [QueryShape] = QueryShape.allCases, log: (String) -> Void = { _ in }
) throws -> (figures: [SliceFigure], close: () -> Void) {
    let engine = try IndexedStrataEngine<IndexedBenchUser>(kind: .strata, records: "`IndexedBenchUser` through `FieldCodable`")
    log("generating \(count) users (seed \(seed))…")
    let users = Array(UserGenerator(count: count, seed: seed))
    let values = DatasetValues(users)
    engine.load(users)
    try engine.upsertAll()
    try engine.finishLoading()
    let records = users.map(IndexedBenchUser.init)
    log("\(engine.name): \(count) users upserted with \(QueryIndexes.columns.count) indexes")

    var figures: [SliceFigure] = []
    for shape in shapes {
        let parameters = values.parameters(count: instances, seed: seed, shape: shape)
        let expected = try engine.withReader { run in try parameters.map { rows(try run(shape, $0), shape) } }
        guard expected.reduce(0, +) > 0 else { throw ComparisonError("'\(shape.rawValue)': no instance matched any row") }
        var cursor = SliceCursor(count: instances)
        figures.append(SliceFigure(name: "\(shape)") { n in
            let indices = cursor.next(n)
            let seen = try engine.withReader { run in try indices.reduce(0) { $0 + rows(try run(shape, parameters[$1]), shape) } }
            let want = indices.reduce(0) { $0 + expected[$1] }
            guard seen == want else { throw ComparisonError("\(shape): a slice returned \(seen) rows, the warm-up \(want)") }
            return seen
        })
    }
    figures.append(.reinsert(name: "upsert", store: engine.store, records: records))
    return (figures, { engine.close() })
}
