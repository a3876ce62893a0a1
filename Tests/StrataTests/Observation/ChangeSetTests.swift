import Testing
@testable import Strata

/// What a transaction records of its changes for observers (``ChangeSet``): keys once each, the
/// last bytes of each record, the limits past which it knows less, and merging a savepoint's.
@Suite struct ChangeSetTests {
    static func key(_ n: Int) -> [UInt8] { [UInt8(n >> 8), UInt8(n & 0xFF)] }

    @Test func keysAreNotedOnceWithTheirLastBytes() {
        var changes = ChangeSet()
        for n in 0..<40 {   // past the linear search, into the position table
            changes.note("User", key: Self.key(n), bytes: [UInt8(n)])
        }
        changes.note("User", key: Self.key(3), bytes: [99])
        changes.note("User", key: Self.key(30), bytes: nil)   // deleted
        changes.note("Note", key: Self.key(1), bytes: [7])
        #expect(changes.entities["User"] == .some(Set((0..<40).map(Self.key))))
        #expect(changes.entities["Note"] == .some([Self.key(1)]))
        #expect(changes.record("User", key: Self.key(3)) == .some([99]))
        #expect(changes.record("User", key: Self.key(30)) == .some(nil))
        #expect(changes.record("User", key: Self.key(39)) == .some([39]))
        #expect(changes.record("User", key: Self.key(40)) == nil)
        #expect(changes.touches("User", key: Self.key(5)) && !changes.touches("User", key: Self.key(41)))
        #expect(!changes.touches("Other") && !changes.touches("Other", key: Self.key(1)))
    }

    @Test func limitsMakeTheSetKnowLess() {
        var many = ChangeSet()
        for n in 0...ChangeSet.keyLimit { many.note("User", key: Self.key(n), bytes: []) }
        #expect(many.entities["User"] == .all)
        #expect(many.touches("User", key: Self.key(60_000)))
        #expect(many.record("User", key: Self.key(1)) == nil)

        var large = ChangeSet()
        large.note("User", key: Self.key(1), bytes: [1])
        large.note("User", key: Self.key(2), bytes: [UInt8](repeating: 0, count: ChangeSet.byteLimit))
        #expect(large.entities["User"] == .some([Self.key(1), Self.key(2)]))   // the keys stay known
        #expect(large.record("User", key: Self.key(1)) == nil)                   // the bytes do not

        var dropped = ChangeSet()
        dropped.note("User", key: Self.key(1), bytes: [1])
        dropped.note("User", key: nil)
        #expect(dropped.entities["User"] == .all)
    }

    @Test func mergingASavepointKeepsWhatItKnew() {
        var parent = ChangeSet()
        parent.note("User", key: Self.key(1), bytes: [1])
        var child = ChangeSet()
        child.note("User", key: Self.key(1), bytes: [2])
        child.note("Note", key: Self.key(5), bytes: nil)
        parent.merge(child)
        #expect(parent.record("User", key: Self.key(1)) == .some([2]))
        #expect(parent.record("Note", key: Self.key(5)) == .some(nil))

        var unknown = ChangeSet()
        unknown.note("User", key: Self.key(9))   // bytes not known
        parent.merge(unknown)
        #expect(parent.entities["User"] == .some([Self.key(1), Self.key(9)]))
        #expect(parent.record("User", key: Self.key(1)) == nil)
    }

    @Test func untrackedChangesAreOnlyMissed() {
        var changes = ChangeSet()
        changes.isTracking = false
        changes.note("User", key: Self.key(1), bytes: [1])
        #expect(changes.isEmpty && changes.missed)
    }
}
