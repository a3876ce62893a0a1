// The DocC articles' Swift snippets (Sources/Strata/Strata.docc), as a program that runs them in
// a temporary directory. Each article's blocks are marked regions of one file here;
// `tools/check-snippets` checks that the articles show them unchanged.
import Foundation
import Strata

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-articles-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
func storePath(_ name: String) -> String { directory.appendingPathComponent(name).path }

try gettingStarted(path: storePath("getting-started.strata"))
try definingRecords(path: storePath("records.strata"))
try indexes(path: storePath("indexes.strata"))
try queries(path: storePath("queries.strata"))
try aggregates(path: storePath("aggregates.strata"))
try await importing(path: storePath("import.strata"), directory: directory)
try relationships(path: storePath("relationships.strata"))
try await observation(path: storePath("observation.strata"))
try await concurrency(path: storePath("concurrency.strata"))
try durability(path: storePath("durability.strata"), directory: directory)
try await replication(path: storePath("primary.strata"), replicaPath: storePath("replica.strata"))
try storageFormat(path: storePath("format.strata"))
try searching(path: storePath("searching.strata"))
print("articles: every snippet ran")

/// Stops the program when an article's claim does not hold (a plain parameter, so that `try` and
/// `await` may appear in the condition).
func check(_ condition: Bool, _ message: String = "") {
    if !condition { fatalError("an article's claim does not hold: \(message)") }
}
