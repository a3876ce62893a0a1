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
    /// The file is read whole and its lines compared as bytes: no text is made for the lines that
    /// do not name the data file (every opening of a store reads it, start-up included).
    static func mapAddress(of dataFile: String) -> UInt {
        guard let resolved = realpath(dataFile, nil) else { return 0 }
        let path = UnsafeBufferPointer(start: UnsafeRawPointer(resolved).assumingMemoryBound(to: UInt8.self), count: strlen(resolved))
        defer { free(resolved) }
        guard let maps = readWhole("/proc/self/maps") else { return 0 }
        return maps.withUnsafeBufferPointer { bytes -> UInt in
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                if let address = mappedAddress(line: UnsafeBufferPointer(start: bytes.baseAddress! + start, count: end - start), path: path) {
                    return address
                }
                start = end + 1
            }
            return 0
        }
    }

    /// The start address of a `/proc/self/maps` line (`start-end perms offset device inode path`)
    /// that maps `path` from offset 0; nil for any other line. Index loops only: no slices or
    /// arrays whose generic types the runtime would look up.
    private static func mappedAddress(line: UnsafeBufferPointer<UInt8>, path: UnsafeBufferPointer<UInt8>) -> UInt? {
        // The five fields before the path, each ended by spaces; the path is the rest of the line.
        var position = 0
        var offsetStart = 0, offsetEnd = 0
        for field in 0..<5 {
            while position < line.count, line[position] == UInt8(ascii: " ") { position += 1 }
            let fieldStart = position
            while position < line.count, line[position] != UInt8(ascii: " ") { position += 1 }
            guard position > fieldStart else { return nil }
            if field == 2 { (offsetStart, offsetEnd) = (fieldStart, position) }
        }
        while position < line.count, line[position] == UInt8(ascii: " ") { position += 1 }
        var pathEnd = line.count
        while pathEnd > position, line[pathEnd - 1] == UInt8(ascii: " ") { pathEnd -= 1 }
        guard offsetEnd - offsetStart == 8, pathEnd - position == path.count else { return nil }
        for index in offsetStart..<offsetEnd where line[index] != UInt8(ascii: "0") { return nil }
        for index in 0..<path.count where line[position + index] != path[index] { return nil }
        var address: UInt = 0
        for index in 0..<line.count {
            let digit = line[index]
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): address = address << 4 | UInt(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): address = address << 4 | (UInt(digit - UInt8(ascii: "a")) + 10)
            case UInt8(ascii: "-"): return address
            default: return nil
            }
        }
        return nil
    }

    /// The whole of a file that does not say its size (a `/proc` file), or nil where it cannot be read.
    private static func readWhole(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 16_384)
        var used = 0
        while true {
            if used == bytes.count { bytes += [UInt8](repeating: 0, count: bytes.count) }
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + used, $0.count - used) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 {
                bytes.removeLast(bytes.count - used)
                return bytes
            }
            used += count
        }
    }
}
