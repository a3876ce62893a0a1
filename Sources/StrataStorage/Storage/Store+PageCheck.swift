import Foundation
import LMDB

/// What ``Store/checkPages(at:)`` read.
public struct PageCheck: Sendable, Equatable {
    /// Pages reached from the newest meta page (B-tree and overflow pages), each checked.
    public var pages: Int
    /// Databases walked (LMDB's own two, every named one, every sub-tree of an index's duplicates).
    public var databases: Int
    /// The last page in use and the page size.
    public var lastPage: Int, pageSize: Int
}

extension Store {
    /// Checks the structure of every page of the store's data file at `path` by reading the file
    /// itself, before LMDB maps it: a damaged page (truncated, zeroed, flipped bytes in a header,
    /// a node or a key's order) is a `.incompatibleStore` error naming the file and the page,
    /// never a crash. What `strata verify` runs first; opening a store checks only the meta pages
    /// and the file's size, since this reads the whole file.
    public static func checkPages(at path: String) throws -> PageCheck {
        do {
            let summary = try Environment.checkPages(directory: path)
            return PageCheck(pages: summary.pages, databases: summary.databases, lastPage: summary.lastPage, pageSize: summary.pageSize)
        } catch {
            if error.code == ENOENT || error.code == ENOTDIR { throw StrataError(.notFound, "no store at \(path): \(error.message)", cause: error) }
            throw StrataError(error, path: path)
        }
    }
}
