import Foundation
import Testing
import TestSupport
@testable import Strata

/// `Configuration.createIfMissing = false` and read-only opening never create a store.
@Suite struct CreateIfMissingTests {
    let dir: TemporaryDirectory
    init() throws { dir = try TemporaryDirectory("strata-create") }

    /// Read-only (which never creates, whatever `createIfMissing` says) or writable with
    /// `createIfMissing` off.
    func configuration(readOnly: Bool) -> Store.Configuration {
        var configuration = Store.Configuration()
        configuration.createIfMissing = readOnly
        configuration.readOnly = readOnly
        return configuration
    }

    @Test(arguments: [false, true])
    func openingAMissingStoreWithoutCreatingIsNotFoundAndLeavesNothing(readOnly: Bool) throws {
        let path = dir.path("a/b/store")
        let error = try #require(throws: StrataError.self) { try Store(path: path, configuration: configuration(readOnly: readOnly)) }
        #expect(error.code == .notFound)
        #expect(error.message == "no store at \(path)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("a")))
    }

    @Test(arguments: [false, true])
    func anEmptyDirectoryIsNoStoreAndStaysEmpty(readOnly: Bool) throws {
        let path = dir.path("empty")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let error = try #require(throws: StrataError.self) { try Store(path: path, configuration: configuration(readOnly: readOnly)) }
        #expect(error.code == .notFound)
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).isEmpty)
    }

    @Test func anExistingStoreOpensWithoutCreating() throws {
        let path = dir.path("store")
        try Store(path: path).write { tx in try tx.insert(User.sample(1)) }
        let store = try Store(path: path, configuration: configuration(readOnly: false))
        #expect(try store.read { tx in try tx.count(User.self) } == 1)
    }
}
