import CLMDB

/// Look-ups in a database too large for the processor's caches, prefetched.
///
/// Each `mdb_get` in such a database waits on its leaf page several times over, each read
/// depending on the one before: the page's header, then a node at each step of the binary search.
/// A caller that knows the next few keys asks for their leaf pages first (``prefetchLeaf(for:in:)``):
/// the walk from the root reads only branch pages, which stay in the caches, and the processor
/// loads the leaf pages together instead of one after another.
///
/// The walk reads the pages of the transaction's snapshot in LMDB's layout (the one
/// ``Environment/checkPages(directory:)`` checks) and gives up, hinting nothing, at anything it does
/// not expect: a page number past the data file, a branch level that is not a branch page, offsets
/// or sizes outside a page. A prefetch is a hint that never faults and changes no result: the
/// look-up that follows reads what it would have read.
extension Transaction {
    /// The fewest bytes of leaf pages a database spans for its look-ups to be prefetched: 32 MiB,
    /// the size of a large processor's last-level cache.
    public static var defaultPrefetchThreshold: Int { 32 << 20 }

    /// True when look-ups in `database` are prefetched by ``prefetchLeaf(for:in:)``: a read-only
    /// transaction, a named database in LMDB's default key order without sorted duplicates, whose
    /// leaf pages span at least the environment's threshold (``defaultPrefetchThreshold``), in a
    /// map whose address is known.
    public func prefetches(_ database: Database) -> Bool {
        tree(of: database) != nil
    }

    /// Hints the processor to load the leaf page of `database` that holds `key`, or would hold it,
    /// when ``prefetches(_:)`` is true; does nothing otherwise.
    public func prefetchLeaf(for key: UnsafeRawBufferPointer, in database: Database) {
        guard let tree = tree(of: database), let leaf = tree.leaf(for: key) else { return }
        strata_prefetch(leaf, tree.pageSize)
    }

    /// The address of the leaf page the walk finds for `key`, nil where it gives up or
    /// ``prefetches(_:)`` is false: the page LMDB's own look-up of `key` reads.
    package func leafPage(for key: UnsafeRawBufferPointer, in database: Database) -> UnsafeRawPointer? {
        tree(of: database)?.leaf(for: key)
    }

    /// The tree of `database` in this transaction's snapshot, read once; nil when it is not prefetched.
    private func tree(of database: Database) -> LeafTree? {
        if let last = lastLeafTree, last.dbi == database.dbi { return last.tree }
        let tree: LeafTree?
        if let known = leafTrees[database.dbi] {
            tree = known
        } else {
            tree = readTree(of: database)
            leafTrees[database.dbi] = .some(tree)
        }
        lastLeafTree = (database.dbi, tree)
        return tree
    }

    private func readTree(of database: Database) -> LeafTree? {
        guard isReadOnly, let name = database.name, bounds.start != 0 else { return nil }
        // The size first (`mdb_stat` reads the transaction's own record of the database).
        var status = MDB_stat()
        guard mdb_stat(usableHandle(), database.dbi, &status) == 0, status.ms_depth >= 1 else { return nil }
        let pageSize = Int(status.ms_psize), depth = Int(status.ms_depth)
        guard pageSize >= 512, Int(status.ms_leaf_pages).multipliedReportingOverflow(by: pageSize).partialValue
                >= environment.prefetchThreshold.load(ordering: .relaxed) else { return nil }
        // The root and flags: the database's record in the main database (handle 1, LMDB's `MAIN_DBI`), an `MDB_db`.
        var record = MDB_val()
        let found = name.utf8CString.withUnsafeBufferPointer { name -> Int32 in
            var key = MDB_val(mv_size: name.count - 1, mv_data: UnsafeMutableRawPointer(mutating: name.baseAddress))
            return mdb_get(usableHandle(), 1, &key, &record)
        }
        guard found == 0, record.mv_size >= LeafTree.recordSize, let fields = record.mv_data else { return nil }
        // `MDB_db`: flags (UInt16) at 4, root at 40; an empty database's root is `P_INVALID` (all ones).
        let flags = fields.loadUnaligned(fromByteOffset: 4, as: UInt16.self)
        guard let root = Int(exactly: fields.loadUnaligned(fromByteOffset: 40, as: UInt64.self)) else { return nil }
        // Only LMDB's default order (bytewise keys, no duplicates) is walked as LMDB walks it.
        let orderFlags = UInt16(truncatingIfNeeded: MDB_REVERSEKEY | MDB_DUPSORT | MDB_INTEGERKEY | MDB_DUPFIXED | MDB_INTEGERDUP | MDB_REVERSEDUP)
        guard flags & orderFlags == 0 else { return nil }
        // A snapshot's pages are among those up to the newest snapshot's last page, which lie in the
        // data file unless it is damaged: the file is measured again when its last measure is shorter.
        var info = MDB_envinfo()
        guard mdb_env_info(environment.handle, &info) == 0 else { return nil }
        let used = (Int(info.me_last_pgno) + 1) * pageSize
        var fileBytes = Int(bounds.fileEnd &- bounds.start)
        if fileBytes < used { fileBytes = Int(MapBounds.measure(environment)) }
        let pages = min(used, fileBytes, Int(info.me_mapsize)) / pageSize
        guard root < pages, let base = UnsafeRawPointer(bitPattern: bounds.start) else { return nil }
        return LeafTree(base: base, pageSize: pageSize, pages: pages, root: root, depth: depth)
    }
}

/// A database's B-tree in a read-only snapshot, walked from the root to a key's leaf page.
struct LeafTree {
    /// The size of LMDB's `MDB_db` record.
    static let recordSize = 48
    /// LMDB's page header: the page number, padding, flags (UInt16 at 10), the start and end of free space (UInt16 at 12 and 14), then the node offsets.
    private static let headerSize = 16
    /// `P_BRANCH`.
    private static let branchFlag: UInt16 = 0x01
    /// A node's header: the child page number's low, high and top 16 bits (branch nodes), then the key size (UInt16 at 6); the key follows.
    private static let nodeHeaderSize = 8

    let base: UnsafeRawPointer
    let pageSize: Int
    /// Pages of the data file.
    let pages: Int
    let root: Int
    let depth: Int

    /// The leaf page for `key`: down the branch levels, at each the last node whose key is at most
    /// `key` (the first node's key counts as the smallest). Nil at anything out of place.
    func leaf(for key: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
        var page = root
        let head = Self.head(of: key)
        for _ in 1..<depth {
            guard let child = child(of: page, for: key, head: head) else { return nil }
            page = child
        }
        return base + page * pageSize
    }

    /// A key's first eight bytes as one big-endian number, nil for a shorter key: two keys whose
    /// numbers differ are in the numbers' order (LMDB compares keys bytewise).
    @inline(__always)
    private static func head(of key: UnsafeRawBufferPointer) -> UInt64? {
        key.count >= 8 ? UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) : nil
    }

    /// -1, 0 or 1 as `key` (whose ``head(of:)`` is `head`) sorts before, equals or sorts after `other`.
    @inline(__always)
    private static func compare(_ key: UnsafeRawBufferPointer, head: UInt64?, _ other: UnsafeRawBufferPointer) -> Int {
        if let head, let otherHead = Self.head(of: other), head != otherHead { return head < otherHead ? -1 : 1 }
        return KeyOrder.compare(key, other)
    }

    /// The child of branch page `number` whose range holds `key`.
    private func child(of number: Int, for key: UnsafeRawBufferPointer, head: UInt64?) -> Int? {
        let page = base + number * pageSize
        guard page.loadUnaligned(fromByteOffset: 10, as: UInt16.self) & Self.branchFlag != 0 else { return nil }
        let lower = Int(page.loadUnaligned(fromByteOffset: 12, as: UInt16.self))
        let upper = Int(page.loadUnaligned(fromByteOffset: 14, as: UInt16.self))
        guard lower >= Self.headerSize + 2, lower <= upper, upper <= pageSize else { return nil }
        let count = (lower - Self.headerSize) / 2
        var low = 1, high = count - 1, found = 0
        while low <= high {
            let middle = (low + high) / 2
            guard let nodeKey = self.key(of: page, node: middle, nodesEnd: lower) else { return nil }
            if Self.compare(key, head: head, nodeKey) >= 0 {
                found = middle
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        guard let node = node(of: page, at: found, nodesEnd: lower) else { return nil }
        let child = Int(node.loadUnaligned(as: UInt16.self)) | Int(node.loadUnaligned(fromByteOffset: 2, as: UInt16.self)) << 16
            | Int(node.loadUnaligned(fromByteOffset: 4, as: UInt16.self)) << 32
        return child < pages ? child : nil
    }

    /// Node `index` of `page`, when its header lies inside the page after the offsets.
    private func node(of page: UnsafeRawPointer, at index: Int, nodesEnd: Int) -> UnsafeRawPointer? {
        let offset = Int(page.loadUnaligned(fromByteOffset: Self.headerSize + 2 * index, as: UInt16.self))
        guard offset >= nodesEnd, offset + Self.nodeHeaderSize <= pageSize else { return nil }
        return page + offset
    }

    /// The key of node `index` of `page`, when it lies inside the page.
    private func key(of page: UnsafeRawPointer, node index: Int, nodesEnd: Int) -> UnsafeRawBufferPointer? {
        guard let node = node(of: page, at: index, nodesEnd: nodesEnd) else { return nil }
        let size = Int(node.loadUnaligned(fromByteOffset: 6, as: UInt16.self))
        guard node - page + Self.nodeHeaderSize + size <= pageSize else { return nil }
        return UnsafeRawBufferPointer(start: node + Self.nodeHeaderSize, count: size)
    }
}
