import Foundation
import Strata
import Testing
import TestSupport

/// A store whose `data.mdb` was damaged on disk, seen through the library: opening it checks the
/// meta pages and the size, ``Store/checkPages(at:)`` checks every page; both throw
/// `.incompatibleStore` naming the file and what is wrong. (The same files through the `strata`
/// binary, in child processes, are in DamagedFileTests.)
@Suite struct DamagedStoreTests {
    /// A store of 500 users, closed, and the path of its data file.
    static func writtenStore(_ dir: TemporaryDirectory) throws -> (store: String, dataFile: String) {
        let path = dir.path("store")
        do {
            let store = try Store(path: path)
            try store.write { tx in for id in 1...500 { try tx.insert(User.sample(Int64(id), String(repeating: "n", count: id % 200))) } }
        }
        return (path, path + "/data.mdb")
    }

    @Test func aStoreCutShortOfItsLastPageIsRefusedWhenOpened() throws {
        let dir = try TemporaryDirectory("strata-damaged")
        let (path, dataFile) = try Self.writtenStore(dir)
        try FileHandle(forUpdating: URL(fileURLWithPath: dataFile)).truncate(atOffset: 8192)
        #expect { try Store(path: path) } throws: { error in
            let error = error as? StrataError
            return error?.code == .incompatibleStore && error!.message.contains("data.mdb is 8192 bytes") && error!.message.contains("truncated")
        }
        #expect { try Store.checkPages(at: path) } throws: { ($0 as? StrataError)?.code == .incompatibleStore }
    }

    @Test func aZeroedPageIsNamedByThePageCheckAndAHealthyStorePassesIt() throws {
        let dir = try TemporaryDirectory("strata-damaged")
        let (path, dataFile) = try Self.writtenStore(dir)
        let check = try Store.checkPages(at: path)
        #expect(check.pages > 10 && check.pageSize == 4096 && check.databases >= 4, "\(check)")
        // Zero the page the records' tree starts from: the last page, written by the last commit,
        // is a tree page of some database.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: dataFile))
        try handle.seek(toOffset: UInt64(check.lastPage * 4096))
        try handle.write(contentsOf: Data(count: 4096))
        try handle.close()
        #expect { try Store.checkPages(at: path) } throws: { error in
            let error = error as? StrataError
            return error?.code == .incompatibleStore && error!.message.contains("page \(check.lastPage)") && error!.message.contains("all zeros")
        }
    }

    @Test func checkingPagesWhereNoStoreIsIsNotFoundAndCreatesNothing() throws {
        let dir = try TemporaryDirectory("strata-damaged")
        #expect { try Store.checkPages(at: dir.path("missing")) } throws: { ($0 as? StrataError)?.code == .notFound }
        #expect(!FileManager.default.fileExists(atPath: dir.path("missing")))
    }
}
