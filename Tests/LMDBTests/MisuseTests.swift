import Foundation
import Testing
import TestSupport
import LMDB

/// Misusing a transaction is never undefined behaviour: each case below stops the process with a
/// precondition failure, which these exit tests observe from outside.
@Suite struct MisuseTests {
    @Test func usingATransactionAfterItsClosureReturnedStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let dir = try TemporaryDirectory("misuse")
            let env = try Environment(path: dir.path)
            let db = try env.write { txn in try txn.openDatabase("db", options: .create)! }
            nonisolated(unsafe) var escaped: Transaction?
            try env.read { txn in escaped = txn }
            _ = try escaped?.value(forKey: [1], in: db)
        }
    }

    @Test func usingATransactionFromAnotherThreadStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let dir = try TemporaryDirectory("misuse")
            let env = try Environment(path: dir.path)
            let db = try env.write { txn in try txn.openDatabase("db", options: .create)! }
            try env.read { txn in
                nonisolated(unsafe) let leaked = txn
                let done = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    _ = try? leaked.value(forKey: [1], in: db)
                    done.signal()
                }
                done.wait()
            }
        }
    }

    @Test func usingAParentWhileItsSavepointIsOpenStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let dir = try TemporaryDirectory("misuse")
            let env = try Environment(path: dir.path)
            try env.write { txn in
                let db = try txn.openDatabase("db", options: .create)!
                try txn.savepoint { _ in try txn.put([1], forKey: [1], in: db) }
            }
        }
    }

    @Test func nestingAWriteInAWriteOnOneThreadStopsTheProgramInsteadOfDeadlocking() async {
        await #expect(processExitsWith: .failure) {
            let dir = try TemporaryDirectory("misuse")
            let env = try Environment(path: dir.path)
            try env.write { _ in try env.write { _ in } }
        }
    }

    @Test func usingACursorAfterItsClosureStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let dir = try TemporaryDirectory("misuse")
            let env = try Environment(path: dir.path)
            try env.write { txn in
                let db = try txn.openDatabase("db", options: .create)!
                try txn.put([1], forKey: [1], in: db)
                nonisolated(unsafe) var escaped: Cursor?
                try txn.withCursor(db) { escaped = $0 }
                _ = try escaped?.first()
            }
        }
    }
}
