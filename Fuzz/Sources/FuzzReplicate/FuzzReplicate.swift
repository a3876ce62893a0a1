import Foundation
@testable import Strata
@testable import StrataQuery
@testable import StrataStorage
@_spi(Format) @testable import StrataFormat

/// Arbitrary bytes as the standard input of `strata replicate - R`: JSON lines of `strata changes`,
/// or its CBOR form (told by the first byte, as the tool tells it), read by
/// `ChangeFeedLines.Reader` into commits, then applied to an empty replica by the replica's
/// applier (`WriteTransaction.apply`, what `Store.applyChanges` runs) in a write transaction that
/// is rolled back, so that every input meets the same empty store. A line or change that is not
/// well-formed, or that a local write could not have made, throws a `StrataError`; nothing may
/// trap or hang, and what is applied must pass the checks of `strata verify` (a record that
/// decodes, index entries that match it): an input that applies and does not is a finding too.
let storePath = FileManager.default.temporaryDirectory.appendingPathComponent("strata-fuzz-replicate-\(getpid())").path
let replica: Store = {
    let store = try! Store(path: storePath)
    atexit { try? FileManager.default.removeItem(atPath: storePath) }
    return store
}()

struct RolledBack: Error {}

/// The commits the feed holds, up to the first line that does not read.
func commits(in bytes: [UInt8]) -> [LoggedCommit] {
    var reader = ChangeFeedLines.Reader()
    var commits: [LoggedCommit] = []
    let isCBOR = bytes.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }).map { $0 != UInt8(ascii: "{") } ?? false
    var start = 0
    do {
        if isCBOR {
            while let end = ChangeFeedLines.cborItemEnd(in: bytes, from: start) {
                if let commit = try reader.read(cborItem: Array(bytes[start..<end])) { commits.append(commit) }
                start = end
            }
        } else {
            for line in bytes.split(separator: UInt8(ascii: "\n")) {
                if let commit = try reader.read(line: line) { commits.append(commit) }
            }
        }
    } catch {}
    return commits
}

func fuzzReplicate(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let feed = commits(in: Array(UnsafeRawBufferPointer(start: start, count: count)))
    guard !feed.isEmpty else { return 0 }
    do {
        try replica.write(durability: .synchronous, replicating: true) { tx in
            _ = try tx.apply(feed)
            for entity in try tx.entityNames() {
                let problems = try tx.verifyIndexes(entity: entity).problems
                if !problems.isEmpty { fatalError("a replicated feed left \(entity) failing verify: \(problems)") }
            }
            throw RolledBack()
        }
    } catch is RolledBack {
    } catch let error as StrataError {
        _ = error.message
    } catch {
        fatalError("not a StrataError: \(error)")
    }
    return 0
}
