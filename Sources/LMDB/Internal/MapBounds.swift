#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLMDB

/// The part of the memory map a transaction may read: from the map's start to the end of the
/// data file.
///
/// liblmdb trusts the sizes and page numbers it reads from the file, so a damaged node can give a
/// key or value that runs past the end of `data.mdb` (a `SIGBUS` when it is read) or far past the
/// map (a `SIGSEGV`). Every entry LMDB hands out is checked against these bounds before its bytes
/// are read, and one that does not fit is an error (`MDB_CORRUPTED`) naming the database and the
/// size. Entries outside the map entirely are pages a write transaction changed (LMDB keeps them
/// in its own memory until the commit) and are left alone.
struct MapBounds {
    let start: UInt
    /// One past the last byte of the map.
    let mapEnd: UInt
    /// One past the last byte of the data file as last measured (it only grows: an entry past it
    /// makes the check measure it again).
    let fileEnd: UInt
    let environment: Environment

    /// The bounds of `environment` now (its map's address and the file size it last measured,
    /// `mdb_env_info`; no system call). Where the map's address is unknown, nothing is checked.
    init(_ environment: Environment) {
        var info = MDB_envinfo()
        mdb_env_info(environment.handle, &info)
        self.environment = environment
        start = environment.mapAddress.load(ordering: .acquiring)
        mapEnd = start == 0 ? 0 : start &+ UInt(info.me_mapsize)
        fileEnd = start &+ min(environment.dataFileSize.load(ordering: .relaxed), UInt(info.me_mapsize))
    }

    /// The size of the environment's data file now (`fstat` of `mdb_env_get_fd`), also kept as
    /// the environment's last measure.
    @discardableResult
    static func measure(_ environment: Environment) -> UInt {
        var descriptor: mdb_filehandle_t = -1
        mdb_env_get_fd(environment.handle, &descriptor)
        var status = stat()
        guard descriptor >= 0, fstat(descriptor, &status) == 0, status.st_size > 0 else { return 0 }
        let size = UInt(status.st_size)
        environment.dataFileSize.store(size, ordering: .relaxed)
        return size
    }

    /// Throws when `value` starts inside the map and ends past the end of the data file.
    @inline(__always)
    func check(_ value: MDB_val, _ what: StaticString, database: String?) throws(LMDBError) {
        let address = UInt(bitPattern: value.mv_data)
        guard address >= start, address < mapEnd, value.mv_size > fileEnd &- address else { return }
        try recheck(value, what, database: database)
    }

    /// The slow path: the file may have grown since it was last measured.
    private func recheck(_ value: MDB_val, _ what: StaticString, database: String?) throws(LMDBError) {
        let address = UInt(bitPattern: value.mv_data)
        let end = start &+ min(Self.measure(environment), mapEnd &- start)
        guard value.mv_size > end &- address else { return }
        throw DataFile.damage(MDB_CORRUPTED, "a \(what) of \(value.mv_size) bytes in database '\(database ?? "<main>")' runs past the end of the data file")
    }

    /// Where this process maps `dataFile` (`/proc/self/maps`: LMDB's API does not say, as
    /// `me_mapaddr` is only the address asked for with `MDB_FIXEDMAP`); 0 where it cannot tell.
    static func mapAddress(of dataFile: String) -> UInt {
        guard let resolved = realpath(dataFile, nil) else { return 0 }
        let path = String(cString: resolved)
        free(resolved)
        guard let maps = fopen("/proc/self/maps", "r") else { return 0 }
        defer { fclose(maps) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), maps) != nil {
            let text = String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let parts = text.split(separator: " ", omittingEmptySubsequences: true)
            // start-end perms offset device inode path
            guard parts.count >= 6, parts[2] == "00000000",
                  parts[5...].joined(separator: " ") == path,
                  let dash = parts[0].firstIndex(of: "-"),
                  let address = UInt(parts[0][..<dash], radix: 16) else { continue }
            return address
        }
        return 0
    }
}
