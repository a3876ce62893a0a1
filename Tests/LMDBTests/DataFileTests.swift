import Foundation
import Testing
import TestSupport
@testable import LMDB

/// The checks of `data.mdb` made before LMDB maps it (``DataFile``) and the page walk
/// (``Environment/checkPages(directory:)``), on files damaged in known ways.
@Suite struct DataFileTests {
    let dir: TemporaryDirectory
    var path: String { dir.path }
    var dataFile: String { dir.path + "/data.mdb" }

    init() throws { dir = try TemporaryDirectory("lmdb-file") }

    /// An environment with a plain database, one of sorted duplicates (few values per key, kept
    /// in sub-pages, and many for one key, in a sub-tree) and values larger than a page.
    func populate() throws {
        let env = try Environment(path: path)
        try env.write { txn in
            let plain = try #require(try txn.openDatabase("plain", options: .create))
            let dups = try #require(try txn.openDatabase("dups", options: [.create, .sortedDuplicates]))
            for i in 0..<2000 {
                let key = Array("key-\(String(format: "%05d", i))".utf8)
                try txn.put(Array(repeating: UInt8(i % 251), count: i % 50 == 0 ? 9000 : 40), forKey: key, in: plain)
                try txn.put(Array("v\(i)".utf8), forKey: Array("g\(i % 40)".utf8), in: dups)
            }
            for i in 0..<3000 { try txn.put(Array("value-\(String(format: "%05d", i))".utf8), forKey: Array("many".utf8), in: dups) }
        }
    }

    /// The numbers of the pages whose header flags are exactly `flags` (0x01 branch, 0x02 leaf).
    func pages(withFlags flags: UInt16) throws -> [Int] {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dataFile))
        return (2..<bytes.count / 4096).filter { page in
            let offset = page * 4096
            let number = bytes[offset..<offset + 8].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            return number == UInt64(page) && UInt16(bytes[offset + 10]) | UInt16(bytes[offset + 11]) << 8 == flags
        }
    }

    /// Changes bytes of the data file in place.
    func patch(at offset: Int, _ bytes: [UInt8]) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: dataFile))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(bytes))
    }

    func damage(_ body: () throws -> Void) -> String? {
        do { try body(); return nil } catch let error as LMDBError { return error.damage ?? "\(error)" } catch { return "\(error)" }
    }

    @Test func aNewEnvironmentGetsItsMetaPagesWithoutTemporaryFilesLeft() throws {
        _ = try Environment(path: path)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: dataFile)[.size] as? Int)
        #expect(size >= 2 * 4096)
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasPrefix("data.mdb.") }.isEmpty)
    }

    @Test(arguments: [126, 500])
    func theLockTableIsAllocatedBeforeLMDBMapsIt(readers: Int) throws {
        var options = Environment.Options()
        options.maxReaders = UInt32(readers)
        let env = try Environment(path: path, options: options)
        #expect(env.readers.max == readers, "LMDB sized its reader table differently from the reservation")
        var info = stat()
        #expect(stat(path + "/lock.mdb", &info) == 0)
        #expect(Int(info.st_size) == (readers - 1) * 64 + 192)
        #expect(Int(info.st_blocks) * 512 >= Int(info.st_size), "the lock file is sparse: \(info.st_blocks) blocks for \(info.st_size) bytes")
    }

    @Test func anEmptyDataFileIsDamageNotANewEnvironment() throws {
        #expect(FileManager.default.createFile(atPath: dataFile, contents: Data()))
        let error = try #require(damage { _ = try Environment(path: path) })
        #expect(error.contains("empty"), "\(error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dataFile)).isEmpty, "the empty file was initialized")
    }

    @Test func aForeignFileIsRefusedByItsMagicNumber() throws {
        try Data(repeating: 0x41, count: 16384).write(to: URL(fileURLWithPath: dataFile))
        #expect { try Environment(path: path) } throws: { ($0 as? LMDBError)?.isCorrupted == true }
        #expect(damage { _ = try Environment(path: path) }?.contains("not an LMDB data file") == true)
    }

    @Test func aTruncatedDataFileIsRefusedBeforeLMDBMapsIt() throws {
        try populate()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: dataFile)[.size] as? Int)
        for cut in [size - 4096, size / 2, 4096 * 2] {
            try FileHandle(forUpdating: URL(fileURLWithPath: dataFile)).truncate(atOffset: UInt64(cut))
            let error = try #require(damage { _ = try Environment(path: path) })
            #expect(error.contains("\(cut) bytes") && error.contains("truncated"), "\(error)")
        }
    }

    @Test func aHealthyEnvironmentPassesThePageWalk() throws {
        try populate()
        let summary = try Environment.checkPages(directory: path)
        // The free-page and main databases, the two named ones and the sub-tree of "many".
        #expect(summary.databases >= 5, "\(summary)")
        #expect(summary.pages > 0 && summary.pages <= summary.lastPage - 1, "\(summary)")
        #expect(summary.pageSize == 4096)
    }

    @Test func aZeroedLeafIsNamedByThePageWalk() throws {
        try populate()
        let leaf = try #require(try pages(withFlags: 0x02).first)
        try patch(at: leaf * 4096, [UInt8](repeating: 0, count: 4096))
        let error = try #require(damage { _ = try Environment.checkPages(directory: path) })
        #expect(error.contains("page \(leaf)") && error.contains("all zeros"), "\(error)")
    }

    @Test func keysOutOfOrderAreFoundByThePageWalk() throws {
        try populate()
        let leaf = try #require(try pages(withFlags: 0x02).first)
        // Swap the offsets of the first two nodes: the same keys, in the wrong order.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dataFile))
        let first = Array(bytes[leaf * 4096 + 16 ..< leaf * 4096 + 18]), second = Array(bytes[leaf * 4096 + 18 ..< leaf * 4096 + 20])
        try patch(at: leaf * 4096 + 16, second + first)
        let error = try #require(damage { _ = try Environment.checkPages(directory: path) })
        #expect(error.contains("page \(leaf)") && error.contains("does not sort after"), "\(error)")
    }

    @Test func aNodeOutsideItsPageIsFoundByThePageWalk() throws {
        try populate()
        let leaf = try #require(try pages(withFlags: 0x02).first)
        try patch(at: leaf * 4096 + 16, [0xFE, 0x0F])   // node 0 at offset 4094: its header runs past the page
        let error = try #require(damage { _ = try Environment.checkPages(directory: path) })
        #expect(error.contains("page \(leaf)") && error.contains("node 0"), "\(error)")
    }

    @Test func aChildPagePastTheFileIsFoundByThePageWalk() throws {
        try populate()
        let branch = try #require(try pages(withFlags: 0x01).first)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dataFile))
        let node = Int(bytes[branch * 4096 + 16]) | Int(bytes[branch * 4096 + 17]) << 8
        try patch(at: branch * 4096 + node, [0xFF, 0xFF, 0xFF, 0x7F])   // child page number 0x7FFFFFFF
        let error = try #require(damage { _ = try Environment.checkPages(directory: path) })
        #expect(error.contains("2147483647") && error.contains("outside the file"), "\(error)")
    }
}
