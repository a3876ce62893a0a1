import Foundation
import LMDB

extension StrataError {
    /// Translates an LMDB failure into the error users see, keeping the LMDB error as the cause.
    package init(_ error: LMDBError, path: String, entity: String? = nil, key: String? = nil) {
        let code: Code
        var message: String
        if error.isUnsafeStoreFile {
            code = error.code == ELOOP ? .invalidPath : .permissionDenied
            message = error.context
        } else if error.isConfigurationConflict {
            code = .configurationConflict
            message = "cannot open the store at \(path) with this configuration: \(error.context)"
        } else if error.isSnapshotLost {
            code = .busy
            message = "the store at \(path) changed under a read that could not register: \(error.context)"
        } else if error.isBusy {
            code = .busy
            message = "the store at \(path) is locked by another writer: \(error.context)"
        } else if error.isMapFull {
            code = .storageFull
            message = "the store at \(path) reached its maximum map size: \(error.context)"
        } else if error.isDiskFull || (error.code == 5 && StrataError.diskIsFull(at: path)) {
            // LMDB reports a short write at commit as EIO; on a full disk that is what it means.
            code = .storageFull
            message = "the disk holding the store at \(path) is full (\(error.operation): \(error.message)); nothing of this transaction was committed"
        } else if error.isPermissionDenied {
            code = .permissionDenied
            message = "no permission to \(error.operation) the store at \(path): \(error.message)"
        } else if error.isCorrupted {
            code = .incompatibleStore
            message = "the file at \(path) is not a valid store or is damaged: \(error.damage ?? error.message)"
        } else {
            code = .storage
            message = "\(error.operation) failed on the store at \(path): \(error.message)"
        }
        if let entity { message = "\(entity): " + message }
        self.init(code, message, entity: entity, key: key, cause: error)
    }
}

extension StrataError {
    /// True when the file system holding `path` has (almost) no space left.
    package static func diskIsFull(at path: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfFileSystem(forPath: path),
              let free = (attributes[.systemFreeSize] as? NSNumber)?.int64Value else { return false }
        return free < 1 << 20
    }
}

/// Runs `body`, turning LMDB errors into ``StrataError``s.
@inline(__always)
package func translatingLMDBErrors<R>(path: String, entity: String? = nil, _ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as LMDBError {
        throw StrataError(error, path: path, entity: entity)
    }
}
