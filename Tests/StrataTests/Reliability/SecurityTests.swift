import Foundation
import LMDB
import Testing
import TestSupport
@testable import Strata

/// What a store exposes and what it accepts: file modes, files it did not write, and patterns.
/// (A store of a newer format version, truncated or hostile record bytes and huge claimed lengths
/// are covered by BadInputTests and RecordCodecCorruptionTests; the fuzz targets under Fuzz/ go on
/// from there.)
@Suite struct SecurityTests {
    /// The permission bits of `path`.
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// Runs `body` with the process umask set to `mask` (a permissive 022, as on most systems).
    static func withUmask<R>(_ mask: mode_t, _ body: () throws -> R) rethrows -> R {
        let previous = umask(mask)
        defer { umask(previous) }
        return try body()
    }

    /// Store files hold every record: under the usual umask 022 they are still not readable by
    /// other users (0600, directory 0700), unless `Store.Configuration.filePermissions` says so.
    @Test func storeFilesAreReadableByTheirOwnerOnly() throws {
        let dir = try TemporaryDirectory("security")
        let path = dir.path("store")
        let modes = try Self.withUmask(0o022) { () throws -> [String: Int] in
            let store = try Store(path: path)
            try store.write { tx throws in try tx.insert(User.sample(1)) }
            var modes = ["directory": try Self.mode(path)]
            for file in ["data.mdb", "lock.mdb", "writer.lock"] { modes[file] = try Self.mode(path + "/" + file) }
            return modes
        }
        #expect(modes.values.allSatisfy { $0 >= 0 }, "\(modes)")
        for (file, mode) in modes.sorted(by: { $0.key < $1.key }) {
            #expect(mode & 0o077 == 0, "\(file) has mode \(String(mode, radix: 8))")
        }
    }

    /// A store whose permissions were tightened by hand stays as tight after more writes.
    @Test func tightenedPermissionsSurviveWrites() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        try store.write { tx throws in try tx.insert(User.sample(1)) }
        for file in ["data.mdb", "lock.mdb"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: store.path + "/" + file)
        }
        try store.write { tx throws in try tx.insert((2...200).map { User.sample(Int64($0)) }) }
        #expect(try Self.mode(store.path + "/data.mdb") == 0o600)
        #expect(try Self.mode(store.path + "/lock.mdb") == 0o600)
    }

    /// An LMDB environment written by another program (named databases, no Strata catalog) is not
    /// a store: opening it must fail with `.incompatibleStore` and leave the file as it was,
    /// rather than adopt it and write a catalog into it.
    @Test func aForeignLMDBFileIsRefusedAndLeftUntouched() throws {
        let dir = try TemporaryDirectory("foreign")
        let path = dir.path("foreign")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        do {
            let environment = try Environment(path: path)
            try environment.write { txn in
                let users = try #require(try txn.openDatabase("users", options: .create))
                try txn.put(Array("alice".utf8), forKey: [1], in: users)
            }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb"))
        #expect { try Store(path: path) } throws: { ($0 as? StrataError)?.code == .incompatibleStore }
        let after = try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb"))
        #expect(before == after, "the foreign file was written to")
    }

    /// The same with data in LMDB's unnamed main database only (plain key-value use of LMDB).
    @Test func aForeignLMDBFileWithPlainKeysIsRefused() throws {
        let dir = try TemporaryDirectory("foreign")
        let path = dir.path("plain")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        do {
            let environment = try Environment(path: path)
            try environment.write { txn in
                let main = try #require(try txn.openDatabase(nil))
                try txn.put(Array("value".utf8), forKey: Array("some-key".utf8), in: main)
            }
        }
        #expect { try Store(path: path) } throws: { ($0 as? StrataError)?.code == .incompatibleStore }
    }

    /// A data file that is not LMDB at all (text where the meta pages belong), of several sizes.
    @Test(arguments: [0, 100, 4096, 8192, 65_536])
    func aNonLMDBDataFileIsRefused(size: Int) throws {
        let dir = try TemporaryDirectory("foreign")
        let path = dir.path("text")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let text = Data(String(repeating: "not a database\n", count: size / 15 + 1).utf8.prefix(size))
        try text.write(to: URL(fileURLWithPath: path + "/data.mdb"))
        do {
            // Even an empty file: a store's data file is never empty (a new store's is created
            // with its meta pages), so an empty one was truncated and is not made a new store.
            _ = try Store(path: path)
            Issue.record("a \(size)-byte text file was opened as a store")
        } catch let error as StrataError {
            #expect(error.code == .incompatibleStore, "\(error)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")) == text, "the file was changed")
        }
    }

    /// An invalid `MATCHES` literal is refused when parsed (`.invalidQuery`, with the column and
    /// the problem); one passed as an argument (it may come from a user) is refused when the
    /// query runs, before any record is read, with an error naming the pattern and the field; an
    /// anchored match never matches a prefix only.
    @Test func matchesPatternsAreValidatedWhenParsedOrRun() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        try store.write { tx throws in try tx.insert([User.sample(1, "aaa"), User.sample(2, "aab")]) }
        #expect {
            try store.read { tx throws in try tx.query(User.self).where("firstName MATCHES '(a+'").all() }
        } throws: { error in
            guard let error = error as? StrataError else { return false }
            return error.code == .invalidQuery && error.message.contains("invalid regular expression '(a+' at column 19 (missing ')'")
        }
        for (pattern, problem) in [("(a+", "missing ')'"), ("(a)\\1", "backreferences"), ("a(?=b)", "lookahead")] {
            #expect {
                try store.read { tx throws in try tx.query(User.self).where("firstName MATCHES %@", pattern).ids() }
            } throws: { error in
                guard let error = error as? StrataError else { return false }
                return error.code == .invalidQuery && error.field == "firstName"
                    && error.message.contains("invalid regular expression '\(pattern)' in firstName MATCHES") && error.message.contains(problem)
            }
            #expect(throws: StrataError.self) { try store.read { tx throws in try tx.query(User.self).where("firstName MATCHES[c] %@", pattern).count() } }
        }
        #expect(try store.read { tx throws in try tx.query(User.self).where("firstName MATCHES %@", "a+").ids() } == [1])
        #expect(try store.read { tx throws in try tx.query(User.self).where("firstName MATCHES %@", "a").ids() } == [])
    }

    /// A hostile `MATCHES` pattern over long values (ICU backtracked for seconds per record, then
    /// gave up and called it no match) gets the right answer from the query: as a filter, in a
    /// count and negated.
    @Test func pathologicalMatchesPatternsAnswerCorrectlyOverLongValues() throws {
        let (store, dir) = try makeStore()
        defer { withExtendedLifetime(dir) {} }
        let long = String(repeating: "a", count: 5_000)
        try store.write { tx throws in
            try tx.insert([User.sample(1, long + "b", "x"), User.sample(2, long, "x"), User.sample(3, "b", "y"),
                           User.sample(4, String(repeating: "A", count: 5_000), "x")])
        }
        try store.read { tx throws in
            #expect(try tx.query(User.self).where("firstName MATCHES %@", "(a+)+$").ids() == [2])
            #expect(try tx.query(User.self).where("firstName MATCHES[c] %@", "(a+)+$").ids() == [2, 4])
            #expect(try tx.query(User.self).where("firstName MATCHES '(a|aa)*b'").ids() == [1, 3])
            #expect(try tx.query(User.self).where("lastName == 'x' AND NOT firstName MATCHES '(a*)*'").count() == 2)
        }
    }
}
