#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLMDB

/// What ``Environment/checkPages(directory:)`` read.
public struct PageCheckSummary: Sendable, Equatable {
    /// Pages reached from the newest meta page (B-tree and overflow pages), each checked.
    public var pages: Int
    /// Databases walked: the free-page and main databases, the named ones, and the sub-trees of
    /// sorted duplicates.
    public var databases: Int
    /// The last page in use and the page size, from the meta page.
    public var lastPage: Int, pageSize: Int
}

extension Environment {
    /// Reads every page of the newest snapshot of `directory/data.mdb` with `pread`, without LMDB,
    /// and checks its structure: page type and number, free-space bounds, node offsets and sizes
    /// inside the page, child and overflow page numbers inside the file, each page reached once,
    /// every leaf at the tree's depth, and keys (and sorted duplicates) in order. LMDB trusts these
    /// and crashes (`SIGSEGV`, `SIGBUS`, an assertion) on a damaged page; run this before LMDB
    /// reads a file that may be damaged. Throws an ``LMDBError`` whose ``LMDBError/damage`` names
    /// the page and what is wrong with it.
    ///
    /// It checks one snapshot, the newest when it starts; when a writer commits while it runs and
    /// it finds damage, it starts again on the new snapshot.
    public static func checkPages(directory: String) throws(LMDBError) -> PageCheckSummary {
        let path = directory + "/data.mdb"
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw LMDBError(code: errno, operation: DataFile.checkOperation, context: path) }
        defer { close(fd) }
        var attempts = 0
        while true {
            let meta = try DataFile.readMeta(fd: fd, path: path)
            var walker = PageWalker(fd: fd, path: path, meta: meta)
            do {
                try walker.walk(meta.free, name: "the free-page database", kind: .free)
                try walker.walk(meta.main, name: "the main database", kind: .main)
                return PageCheckSummary(pages: walker.pages, databases: walker.databases,
                                        lastPage: Int(meta.lastPage), pageSize: meta.pageSize)
            } catch {
                // A writer may reuse the pages of an older snapshot while they are read (this walk
                // holds no reader slot): damage is only reported from a snapshot that stayed newest.
                attempts += 1
                guard attempts < 5, try DataFile.readMeta(fd: fd, path: path).transactionID != meta.transactionID else { throw error }
            }
        }
    }
}

/// The recursive walk behind ``Environment/checkPages(directory:)``.
struct PageWalker {
    /// Which tree a walk is in: what its leaves may hold and how its keys are ordered.
    enum Kind {
        /// The free-page database: integer keys, lists of page numbers as values.
        case free
        /// The main database: its values may be named databases' records.
        case main
        /// A named database with these `MDB_db` flags.
        case named(UInt16)
        /// The sorted duplicates of one key: keys only, ordered as the values of `flags`' database.
        case duplicates(UInt16)
    }

    // Page flags (`P_*`) and node flags (`F_*`) of LMDB's format.
    static let branch: UInt16 = 0x01, leaf: UInt16 = 0x02, overflow: UInt16 = 0x04, meta: UInt16 = 0x08
    static let leaf2: UInt16 = 0x20, subpage: UInt16 = 0x40
    /// The flags that say what a page is (the others mark its state in memory).
    static let typeBits: UInt16 = branch | leaf | overflow | meta | leaf2 | subpage
    static let bigData: UInt16 = 0x01, subData: UInt16 = 0x02, dupData: UInt16 = 0x04
    // `MDB_db` flags that change the key order or the leaf layout.
    static let reverseKey: UInt16 = 0x02, dupSort: UInt16 = 0x04, integerKey: UInt16 = 0x08
    static let dupFixed: UInt16 = 0x10, integerDup: UInt16 = 0x20, reverseDup: UInt16 = 0x40

    let fd: Int32
    let path: String
    let meta: DataFile.Meta
    var pages = 0
    var databases = 0
    /// One bit per page: reached already.
    private var visited: [UInt64]

    init(fd: Int32, path: String, meta: DataFile.Meta) {
        self.fd = fd
        self.path = path
        self.meta = meta
        visited = [UInt64](repeating: 0, count: Int(meta.lastPage) / 64 + 1)
    }

    /// The context of one tree's walk.
    struct Tree {
        var name: String
        var kind: Kind
        var depth: Int
        /// Keys are compared with LMDB's default order (`memcmp`, then length).
        var ordered: Bool
    }

    /// Walks the tree of `record` (nothing when it is empty).
    mutating func walk(_ record: DataFile.DatabaseRecord, name: String, kind: Kind) throws(LMDBError) {
        databases += 1
        guard record.root != DataFile.noPage else { return }
        guard (1...32).contains(Int(record.depth)) else {
            throw damage("\(name) has an impossible depth \(record.depth) (root page \(record.root))")
        }
        let ordered: Bool
        switch kind {
        case .free: ordered = false
        case .main: ordered = record.flags & (Self.reverseKey | Self.integerKey) == 0
        case .named(let flags): ordered = flags & (Self.reverseKey | Self.integerKey) == 0
        case .duplicates(let flags): ordered = flags & (Self.reverseDup | Self.integerDup) == 0
        }
        let tree = Tree(name: name, kind: kind, depth: Int(record.depth), ordered: ordered)
        try visit(record.root, level: tree.depth, low: nil, high: nil, in: tree, referrer: "the root of \(name)")
    }

    /// Checks page `pgno`, a page `level` levels above the leaves (1: a leaf) whose keys lie in
    /// [`low`, `high`), then the pages it refers to.
    private mutating func visit(_ pgno: UInt64, level: Int, low: [UInt8]?, high: [UInt8]?, in tree: Tree, referrer: String) throws(LMDBError) {
        try claim(pgno, count: 1, referrer: referrer)
        let page = try read(pgno)
        let size = meta.pageSize
        let flags = u16(page, 10) & ~0x10   // P_DIRTY never reaches the disk, but tolerate it
        let what = "page \(pgno) (\(level > 1 ? "a branch" : "a leaf") of \(tree.name), \(level) of \(tree.depth) levels)"
        guard u64(page, 0) == pgno else { throw damage("\(what) " + wrongNumber(page)) }
        let type = flags & Self.typeBits
        let leaf2Allowed: Bool
        if case .duplicates(let dbFlags) = tree.kind { leaf2Allowed = dbFlags & Self.dupFixed != 0 } else { leaf2Allowed = false }
        let expected = level > 1 ? Self.branch : Self.leaf
        guard type == expected || (level == 1 && leaf2Allowed && type == Self.leaf | Self.leaf2) else {
            throw damage("\(what) has page flags 0x\(String(flags, radix: 16))")
        }
        let lower = Int(u16(page, 12)), upper = Int(u16(page, 14))
        guard lower >= DataFile.pageHeaderSize, lower & 1 == 0, lower <= upper, upper <= size else {
            throw damage("\(what) has invalid free-space bounds (lower \(lower), upper \(upper), page size \(size))")
        }
        let count = (lower - DataFile.pageHeaderSize) / 2
        guard count >= 1 else { throw damage("\(what) holds no keys") }
        var previous: [UInt8]? = nil
        func ordered(_ key: [UInt8], _ index: Int) throws(LMDBError) {
            guard tree.ordered else { return }
            if let previous, !previous.lexicographicallyPrecedes(key) {
                throw damage("\(what): key \(index) does not sort after key \(index - 1)")
            }
            if let low, key.lexicographicallyPrecedes(low) { throw damage("\(what): key \(index) sorts before its parent's separator") }
            if let high, !key.lexicographicallyPrecedes(high) { throw damage("\(what): key \(index) does not sort before the next separator of its parent") }
            previous = key
        }
        if type & Self.leaf2 != 0 {
            let keySize = Int(u16(page, 8))
            guard keySize > 0, DataFile.pageHeaderSize + count * keySize <= size else {
                throw damage("\(what) holds \(count) fixed-size keys of \(keySize) bytes, which do not fit")
            }
            for index in 0..<count {
                let start = DataFile.pageHeaderSize + index * keySize
                try ordered(Array(page[start..<start + keySize]), index)
            }
            return
        }
        var children: [(pgno: UInt64, low: [UInt8]?)] = []
        for index in 0..<count {
            let offset = Int(u16(page, DataFile.pageHeaderSize + 2 * index))
            guard offset >= upper, offset & 1 == 0, offset + 8 <= size else {
                throw damage("\(what): node \(index) lies at offset \(offset), outside the page's nodes (\(upper)...\(size))")
            }
            let keySize = Int(u16(page, offset + 6))
            guard offset + 8 + keySize <= size else { throw damage("\(what): the key of node \(index) (\(keySize) bytes) runs past the page") }
            let key = Array(page[offset + 8 ..< offset + 8 + keySize])
            if level > 1 {
                let child = UInt64(u16(page, offset)) | UInt64(u16(page, offset + 2)) << 16 | UInt64(u16(page, offset + 4)) << 32
                if index > 0 { try ordered(key, index) }   // a branch's first key is not used
                children.append((child, index == 0 ? low : key))
            } else {
                // LMDB refuses empty keys (an empty value of sorted duplicates is allowed).
                if case .duplicates = tree.kind {} else if keySize == 0 { throw damage("\(what): node \(index) has an empty key") }
                try ordered(key, index)
                try leafNode(page, offset: offset, key: key, index: index, what: what, in: tree)
            }
        }
        for (index, child) in children.enumerated() {
            let next = index + 1 < children.count ? children[index + 1].low : high
            try visit(child.pgno, level: level - 1, low: child.low, high: next, in: tree, referrer: "node \(index) of \(what)")
        }
    }

    /// Checks the value of the leaf node at `offset` and walks what it refers to.
    private mutating func leafNode(_ page: [UInt8], offset: Int, key: [UInt8], index: Int, what: String, in tree: Tree) throws(LMDBError) {
        let size = meta.pageSize
        let dataSize = Int(u16(page, offset)) | Int(u16(page, offset + 2)) << 16
        let nodeFlags = u16(page, offset + 4)
        let data = offset + 8 + key.count
        let node = "\(what): node \(index)"
        var allowed: [UInt16] = [0, Self.bigData]
        switch tree.kind {
        case .main: allowed.append(Self.subData)
        case .named(let flags) where flags & Self.dupSort != 0: allowed += [Self.dupData, Self.dupData | Self.subData]
        case .duplicates: allowed = [0]
        default: break
        }
        guard allowed.contains(nodeFlags) else { throw damage("\(node) has node flags 0x\(String(nodeFlags, radix: 16)), impossible in \(tree.name)") }
        if nodeFlags == Self.bigData {
            guard data + 8 <= size else { throw damage("\(node)'s overflow page number runs past the page") }
            let first = u64(page, data)
            try overflow(first, dataSize: dataSize, referrer: node)
            return
        }
        guard data + dataSize <= size else { throw damage("\(node)'s value (\(dataSize) bytes) runs past the page") }
        switch nodeFlags {
        case Self.subData, Self.dupData | Self.subData:
            guard dataSize == DataFile.databaseRecordSize else { throw damage("\(node) holds a database record of \(dataSize) bytes, not 48") }
            let record = page.withUnsafeBytes { DataFile.DatabaseRecord($0, at: data) }
            guard record.root == DataFile.noPage || (record.root >= 2 && record.root <= meta.lastPage) else {
                throw damage("\(node) puts a database root at page \(record.root), outside the file (last page \(meta.lastPage))")
            }
            if nodeFlags == Self.subData {
                let name = String(decoding: key, as: UTF8.self)
                try walk(record, name: "database '\(name)'", kind: .named(record.flags))
            } else {
                guard case .named(let flags) = tree.kind else { return }
                try walk(record, name: "the duplicates of key \(index) of \(what)", kind: .duplicates(flags))
            }
        case Self.dupData:
            guard case .named(let flags) = tree.kind else { return }
            try subpage(Array(page[data..<data + dataSize]), flags: flags, what: "the duplicates of \(node)")
        default:
            break
        }
    }

    /// Checks a sub-page of sorted duplicates stored inside a leaf node.
    private func subpage(_ bytes: [UInt8], flags dbFlags: UInt16, what: String) throws(LMDBError) {
        guard bytes.count >= DataFile.pageHeaderSize else { throw damage("\(what): a sub-page of \(bytes.count) bytes") }
        let flags = u16(bytes, 10) & ~0x10
        guard flags & ~Self.leaf2 == Self.leaf | Self.subpage else { throw damage("\(what): sub-page flags 0x\(String(flags, radix: 16))") }
        let lower = Int(u16(bytes, 12)), upper = Int(u16(bytes, 14))
        guard lower >= DataFile.pageHeaderSize, lower & 1 == 0, lower <= upper, upper <= bytes.count else {
            throw damage("\(what): invalid sub-page bounds (lower \(lower), upper \(upper), size \(bytes.count))")
        }
        let count = (lower - DataFile.pageHeaderSize) / 2
        let ordered = dbFlags & (Self.reverseDup | Self.integerDup) == 0
        var previous: [UInt8]? = nil
        for index in 0..<count {
            let value: [UInt8]
            if flags & Self.leaf2 != 0 {
                let keySize = Int(u16(bytes, 8))
                let start = DataFile.pageHeaderSize + index * keySize
                guard start + keySize <= bytes.count else { throw damage("\(what): fixed-size value \(index) runs past the sub-page") }
                value = Array(bytes[start..<start + keySize])
            } else {
                let offset = Int(u16(bytes, DataFile.pageHeaderSize + 2 * index))
                guard offset >= upper, offset + 8 <= bytes.count else { throw damage("\(what): value \(index) lies outside the sub-page") }
                let keySize = Int(u16(bytes, offset + 6))
                let dataSize = Int(u16(bytes, offset)) | Int(u16(bytes, offset + 2)) << 16
                guard offset + 8 + keySize + dataSize <= bytes.count else { throw damage("\(what): value \(index) runs past the sub-page") }
                value = Array(bytes[offset + 8 ..< offset + 8 + keySize])
            }
            if ordered, let previous, !previous.lexicographicallyPrecedes(value) {
                throw damage("\(what): value \(index) does not sort after value \(index - 1)")
            }
            previous = value
        }
    }

    /// Checks the run of overflow pages starting at `first` that holds a value of `dataSize` bytes.
    private mutating func overflow(_ first: UInt64, dataSize: Int, referrer: String) throws(LMDBError) {
        guard first >= 2, first <= meta.lastPage else {
            throw damage("\(referrer) refers to overflow page \(first), outside the file (last page \(meta.lastPage))")
        }
        let page = try read(first)
        let what = "overflow page \(first) (the value of \(referrer))"
        guard u64(page, 0) == first else { throw damage("\(what) " + wrongNumber(page)) }
        guard u16(page, 10) & Self.typeBits == Self.overflow else {
            throw damage("\(what) has page flags 0x\(String(u16(page, 10), radix: 16))")
        }
        let count = UInt64(page.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 12, as: UInt32.self) })
        let needed = UInt64((DataFile.pageHeaderSize - 1 + dataSize) / meta.pageSize + 1)
        guard count >= needed, first + count - 1 <= meta.lastPage else {
            throw damage("\(what) spans \(count) pages; the value needs \(needed), and the file ends at page \(meta.lastPage)")
        }
        try claim(first, count: Int(count), referrer: referrer)
    }

    /// Marks `count` pages from `pgno` as reached; a page outside the file or reached twice is damage.
    private mutating func claim(_ pgno: UInt64, count: Int, referrer: String) throws(LMDBError) {
        guard pgno >= 2, pgno <= meta.lastPage else {
            throw damage("\(referrer) refers to page \(pgno), outside the file's pages 2...\(meta.lastPage)")
        }
        for page in Int(pgno)..<Int(pgno) + count {
            let (word, bit) = (page / 64, UInt64(1) << UInt64(page % 64))
            guard visited[word] & bit == 0 else { throw damage("page \(page) is reached twice (again from \(referrer))") }
            visited[word] |= bit
        }
        pages += count
    }

    /// The bytes of page `pgno`.
    private func read(_ pgno: UInt64) throws(LMDBError) -> [UInt8] {
        var page = [UInt8](repeating: 0, count: meta.pageSize)
        let offset = off_t(pgno) * off_t(meta.pageSize)
        let count = page.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
        guard count >= 0 else { throw LMDBError(code: errno, operation: DataFile.checkOperation, context: "\(path): reading page \(pgno)") }
        guard count == meta.pageSize else { throw damage("page \(pgno) lies past the end of the file") }
        return page
    }

    /// Why a page's header does not carry its own number: it is zeroed, or another page's.
    private func wrongNumber(_ page: [UInt8]) -> String {
        page.allSatisfy { $0 == 0 } ? "is all zeros" : "carries the page number \(u64(page, 0))"
    }

    private func damage(_ text: String) -> LMDBError {
        DataFile.damage(MDB_CORRUPTED, "\(path): \(text)")
    }

    private func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    private func u64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
    }
}
