import Foundation
import Synchronization
import Testing
import TestSupport
@testable import LMDB

/// An entry whose stored size runs past the end of `data.mdb` (a damaged node) is an error when
/// LMDB hands it out, before its bytes are read: not a `SIGBUS` or a read far past the map.
@Suite struct MapBoundsTests {
    /// Writes one entry, then makes its leaf node claim a value of about 2 GiB.
    func damagedEnvironment() throws -> TemporaryDirectory {
        let (environment, dir) = try makeEnvironment("map-bounds", mapSize: 1 << 22)
        try environment.write { txn in
            let db = try #require(try txn.openDatabase("records", options: .create))
            try txn.put(Array("VALUE-MARK".utf8), forKey: Array("KEY-MARK".utf8), in: db)
        }
        withExtendedLifetime(environment) {}
        let path = dir.path + "/data.mdb"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let key = Data("KEY-MARK".utf8)
        let found = try #require(bytes.range(of: key))
        // A leaf node: data size (lo, hi: two UInt16), flags, key size, then the key.
        let node = found.lowerBound - 8
        bytes[node] = 0xFF; bytes[node + 1] = 0xFF; bytes[node + 2] = 0xFF; bytes[node + 3] = 0x7F
        try bytes.write(to: URL(fileURLWithPath: path))
        return dir
    }

    /// The map's address read from `/proc/self/maps` as bytes is the one its lines give as text,
    /// for a path with spaces and non-ASCII letters too.
    @Test func theMapAddressIsTheStartOfTheDataFilesMappingFromOffsetZero() throws {
        let (environment, dir) = try makeEnvironment("map bounds Ø", mapSize: 1 << 22)
        // Many more mappings than the first read of /proc/self/maps takes (alternately writable, so
        // that the system does not merge them).
        let pages = (0..<4_000).map { mmap(nil, 4096, $0 % 2 == 0 ? PROT_READ : PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) }
        defer { for page in pages { munmap(page, 4096) } }
        let address = MapBounds.mapAddress(of: dir.path + "/data.mdb")
        #expect(address != 0)
        #expect(environment.mapAddress.load(ordering: .acquiring) == address)
        let resolved = try #require(realpath(dir.path + "/data.mdb", nil))
        defer { free(resolved) }
        let path = String(cString: resolved)
        // Read to the end: `String(contentsOfFile:)` stops at 4 KiB of a /proc file (a test process has more).
        let maps = try #require(FileHandle(forReadingAtPath: "/proc/self/maps")).readDataToEndOfFile()
        let lines = String(decoding: maps, as: UTF8.self).split(separator: "\n")
        let mapping = try #require(lines.first { $0.hasSuffix(" " + path) && $0.split(separator: " ")[2] == "00000000" })
        #expect(UInt(mapping.prefix { $0 != "-" }, radix: 16) == address)
        #expect(MapBounds.mapAddress(of: dir.path + "/missing.mdb") == 0)
        withExtendedLifetime(environment) {}
    }

    @Test func aValueRunningPastTheDataFileIsAnErrorWhenReadByKeyOrByCursor() throws {
        let dir = try damagedEnvironment()
        let environment = try Environment(path: dir.path)
        try environment.read { txn in
            let db = try #require(try txn.openDatabase("records"))
            let byKey = #expect(throws: LMDBError.self) { _ = try txn.value(forKey: Array("KEY-MARK".utf8), in: db) }
            #expect(byKey?.description.contains("runs past the end of the data file") == true, "\(String(describing: byKey))")
            #expect(throws: LMDBError.self) {
                try txn.withCursor(db) { cursor in _ = try cursor.first() }
            }
        }
    }
}
