#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The reset read-only transaction handles of one environment, kept so that the next read renews
/// one (`mdb_txn_renew`) instead of beginning a transaction (`mdb_txn_begin`, which allocates the
/// transaction and claims a reader slot under the lock table's mutex).
///
/// ``Environment/read(_:)`` is the only user: its transaction takes a handle from here (renewed
/// under ``MapLock`` shared, as a begin is) and gives it back reset (`mdb_txn_reset`) when it ends.
/// What keeps that as safe as beginning and ending a transaction each time:
///
/// - **Any thread, any nesting.** It is a free list, not one handle per thread: with `MDB_NOTLS`
///   a handle owns its reader slot whichever thread renews it, so any read takes any handle. A
///   read nested in another takes another handle, or begins a transaction when none is kept. A
///   thread that ends leaves nothing behind.
/// - **Bounded reader slots.** A reset handle keeps its reader slot (reset, it pins no snapshot),
///   so idle handles hold at most ``capacity`` of the lock table's slots, which every process of
///   the environment shares. A read that ends with the list full ends its transaction as before,
///   freeing its slot.
/// - **Database handles.** Resetting closes the database handles the transaction opened, where
///   a read-only commit keeps them; a transaction that opened a database is therefore committed,
///   never kept (``Transaction/finishRead(keepingIn:)``).
/// - **Map growth.** A kept handle is reset and holds no ``MapLock``, so growing the map never
///   waits for one. Renewing reads the current meta page and map size (a handle holds no pointer
///   into the map), and LMDB reports a map another process grew as `MDB_MAP_RESIZED` there as
///   at a begin; ``Environment`` then aborts the handle and adopts the new size.
/// - **`fork()`.** A handle's reader slot is registered under the pid of the process that opened
///   the environment, and LMDB does not tell a child from its parent. A child must neither renew
///   the parent's handles (two processes would share one slot, and one's reset would unprotect the
///   other's snapshot) nor abort them (that frees the parent's slot under it). Once the process
///   is a child (``ForkGeneration``), the list is never touched again: it hands out nothing,
///   keeps nothing (the child's transactions end as before) and forgets the parent's handles
///   without ending them. Its lock is not taken either, as another thread may have held it at
///   the fork.
/// - **Closing.** ``drain()`` hands every kept handle to ``Environment/endKeptReads()``, which
///   the environment's deinit calls to abort them before `mdb_env_close`.
// @unchecked Sendable: the handles are touched only with `handles`' lock held, or by the one
// thread that took them off the list; `capacity` and `generation` never change.
final class ReadHandleCache: @unchecked Sendable {
    /// Handles kept at most: an eighth of `maxReaders`, and no more than 8.
    let capacity: Int
    /// ``ForkGeneration/current`` when the cache was made: a different value means this process
    /// is a child of the one whose handles these are.
    private let generation: Int
    private let handles: ConditionLock<[OpaquePointer]>

    /// A cache for an environment with `maxReaders` reader slots.
    init(maxReaders: UInt32) {
        capacity = ForkGeneration.isCounting ? min(8, Int(maxReaders) / 8) : 0
        generation = ForkGeneration.current
        var list: [OpaquePointer] = []
        list.reserveCapacity(capacity)
        handles = ConditionLock(list)
    }

    /// False in a child process made by `fork()` after the cache was made.
    @inline(__always)
    var isInOpeningProcess: Bool { ForkGeneration.current == generation }

    /// A reset handle to renew, or nil when none is kept (or in a child process).
    @inline(__always)
    func take() -> OpaquePointer? {
        guard capacity > 0, isInOpeningProcess else { return nil }
        return handles.withLockWakingNone { $0.popLast() }
    }

    /// Keeps the reset handle `handle`; false when the list is full (or in a child process),
    /// and the caller then ends the transaction.
    @inline(__always)
    func keep(_ handle: OpaquePointer) -> Bool {
        guard capacity > 0, isInOpeningProcess else { return false }
        return handles.withLockWakingNone { list in
            guard list.count < capacity else { return false }
            list.append(handle)
            return true
        }
    }

    /// Every kept handle, taken off the list for the caller to abort; none in a child process,
    /// where the parent's handles are forgotten, not ended.
    func drain() -> [OpaquePointer] {
        guard isInOpeningProcess else { return [] }
        return handles.withLockWakingNone { list in
            defer { list.removeAll() }
            return list
        }
    }

    /// Handles kept now (for tests; 0 in a child process).
    var count: Int {
        guard isInOpeningProcess else { return 0 }
        return handles.withLockWakingNone { $0.count }
    }
}

/// Counts the `fork()`s that made this process, from the first opening of an environment on: a
/// child's count is its parent's plus one (`pthread_atfork`'s child handler), so an object that
/// noted the count can tell that it is now in a child.
///
/// Not counted: a child made without glibc's `fork` (a raw `clone`), which is not a supported way
/// to use an environment; `posix_spawn` (how `Foundation.Process` starts programs) replaces the
/// child's program at once.
enum ForkGeneration {
    /// The count now.
    @inline(__always)
    static var current: Int { forkCount.load(ordering: .relaxed) }

    /// Registers the handler that counts, once per process (at first use); false only when
    /// `pthread_atfork` failed, and then nothing may be kept for reuse.
    static let isCounting: Bool = pthread_atfork(nil, nil, { forkCount.add(1, ordering: .relaxed) }) == 0
}

/// ``ForkGeneration``'s count: an `Atomic`, which a child handler may change without a lock.
private let forkCount = Atomic<Int>(0)
