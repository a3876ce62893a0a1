import Dispatch
import Synchronization
import LMDB

/// The observers of one store, told of every commit: those of this process right after they
/// commit, those of other processes as the environment's commit watch notices them
/// (``LMDB/Environment/observeCommits(_:)``: inotify on the data file, no timer), by comparing the
/// id of the last commit a read can see with the commits this process made.
///
/// Which observers a commit may concern is decided on the committing thread, in one pass over
/// the observers with precomputed, non-generic data (``ObserverInterest``): an observer whose
/// range the commit does not touch costs a few loads and no lock of its own, no allocation and no
/// queue hop; a condition shared by several observers is evaluated once per commit. Only the
/// concerned observers are handed the commit, in one hop per commit, in commit order.
package final class ObservationCenter: CommitListener {
    /// How long after a look that found new commits the next look judges them (see
    /// ``State/previousPoll``).
    static let settleDelay: DispatchTimeInterval = .milliseconds(5)

    /// One registered observer.
    struct Observer: Sendable {
        let notify: @Sendable (ChangeSet) -> Void
        let interest: ObserverInterest
    }

    /// The query observers of one entity, as the commit pass reads them: each observer's result,
    /// unretained, and its notification at the same position. SAFETY: ``State/observers`` holds
    /// every result strongly until its observer is removed, which rebuilds the groups under the
    /// same lock the pass runs under, so no unretained result outlives its object. The pass then judges an observer
    /// without a retain and release, which cost more than the judgement itself.
    struct QueryGroup: @unchecked Sendable {
        var results: [Unmanaged<ObservedResult>] = []
        var notifies: [@Sendable (ChangeSet) -> Void] = []
    }

    fileprivate struct State {
        var observers: [UInt64: Observer] = [:]
        /// `observers.values` but the query observers, kept between registrations so that a
        /// commit copies no dictionary.
        var list: [Observer] = []
        /// The query observers by entity: a commit judges them per entity, skips them all when it
        /// does not touch their entity, and evaluates each shared condition once.
        var queries: [String: QueryGroup] = [:]
        var nextID: UInt64 = 0
        /// The last transaction id accounted for, and this process's commits after it.
        var lastSeen = 0
        var ownCommits: [Int] = []
        /// The last transaction id the previous poll found. Only ids up to it are judged: a commit
        /// of this process is told to ``didCommit(_:transactionID:)`` just after LMDB commits it,
        /// and a poll in between must not take it for another process's.
        var previousPoll = 0
        /// The environment's commit notices, while anything is observed.
        var subscription: CommitSubscription?
        /// A look is scheduled to judge the commits the last one found.
        var settling = false
        /// The stored keys in the last results of the registered query observers, per entity,
        /// with how many results hold each: a commit whose keys are in none skips every
        /// observer's own result.
        var resultKeys: [String: [[UInt8]: Int]] = [:]

        /// Rebuilds ``list`` and ``queries`` from ``observers``.
        mutating func regroup() {
            list = []
            queries = [:]
            for observer in observers.values {
                if case .query(let result) = observer.interest {
                    queries[result.entity, default: QueryGroup()].results.append(.passUnretained(result))
                    queries[result.entity]!.notifies.append(observer.notify)
                } else {
                    list.append(observer)
                }
            }
        }

        mutating func count(_ keys: Set<[UInt8]>, of entity: String, by delta: Int) {
            guard !keys.isEmpty else { return }
            var counts = resultKeys.removeValue(forKey: entity) ?? [:]
            for key in keys {
                let count = counts[key, default: 0] + delta
                counts[key] = count > 0 ? count : nil
            }
            if !counts.isEmpty { resultKeys[entity] = counts }
        }
    }

    fileprivate let state = ConditionLock(State())
    private let environment: StoreEnvironmentView
    /// Where observers hear of commits: one hop per commit that concerns any, off the committing
    /// thread, in commit order.
    private let queue = DispatchQueue(label: "strata.observers", qos: .userInitiated)
    /// Observed conditions, one object per distinct (entity, predicate, fields), so that a commit
    /// evaluates a condition shared by many observers once (a struct: see ``ConditionTable``).
    private let conditions = ConditionLock(ConditionTable())

    init(environment: StoreEnvironmentView) {
        self.environment = environment
    }

    /// The id of the newest commit a read begun now sees, not the meta page's (which shows a
    /// commit while LMDB still syncs it, before reads may see it): an observer told of a commit
    /// then reads it.
    private func lastTransactionID() -> Int { environment.visibleTransactionID }

    /// Registers `notify` for the commits `interest` may be concerned by; returns the id to
    /// remove it with.
    func add(_ interest: ObserverInterest = .everyCommit, _ notify: @escaping @Sendable (ChangeSet) -> Void) -> UInt64 {
        let current = lastTransactionID()
        return state.withLock { state in
            if state.observers.isEmpty { state.lastSeen = current; state.previousPoll = current; state.ownCommits = [] }
            let id = state.nextID
            state.nextID += 1
            state.observers[id] = Observer(notify: notify, interest: interest)
            if case .query(let result) = interest { result.registered = true }
            state.regroup()
            if state.subscription == nil {
                state.subscription = environment.observeCommits { [weak self] _ in self?.poll() }
            }
            return id
        }
    }

    /// Registers `notify` for every commit, from this process or another (the replication feed's
    /// wake-up); returns the id to remove it with.
    package func addForEveryCommit(_ notify: @escaping @Sendable (ChangeSet) -> Void) -> UInt64 {
        add(.everyCommit, notify)
    }

    /// Removes the observer registered as `id`; nothing when there is none.
    package func remove(_ id: UInt64) {
        state.withLock { state in
            guard let observer = state.observers.removeValue(forKey: id) else { return }
            if case .query(let result) = observer.interest {
                result.registered = false
                state.count(result.keys, of: result.entity, by: -1)
                result.keys = []
            }
            state.regroup()
            if state.observers.isEmpty {
                state.subscription?.cancel()
                state.subscription = nil
            }
        }
    }

    package var isObserved: Bool { state.withLock { !$0.observers.isEmpty } }

    /// A commit of this process, with transaction id `transactionID`, changed `changes`.
    package func didCommit(_ changes: ChangeSet, transactionID: Int) {
        // The pass runs under the lock that guards the query observers' last results: one lock
        // per commit, none per observer.
        let concerned = state.withLock { state -> [@Sendable (ChangeSet) -> Void] in
            guard !state.observers.isEmpty else { return [] }
            if transactionID > state.lastSeen { state.ownCommits.append(transactionID) }
            guard !changes.isEmpty else { return [] }
            var pass = CommitPass(changes, resultKeys: state.resultKeys)
            var concerned: [@Sendable (ChangeSet) -> Void] = []
            for observer in state.list where pass.mayConcern(observer.interest) { concerned.append(observer.notify) }
            for (entity, observers) in state.queries { pass.judge(observers, of: entity, into: &concerned) }
            return concerned
        }
        guard !concerned.isEmpty else { return }
        queue.async { [concerned] in for notify in concerned { notify(changes) } }
    }

    /// Returns once every commit told to ``didCommit(_:transactionID:)`` before the call has
    /// been handed to the observers.
    func delivered() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
    }

    /// The shared condition object for `predicate` on `entity`'s records decoded with `fields`.
    func condition(entity: String, predicate: QueryPredicate, fields: FieldTable) -> ObservedCondition {
        let signature = ConditionSignature(entity: entity, predicate: predicate)
        return conditions.withLock { conditions in
            var bucket = conditions.table.removeValue(forKey: signature) ?? []
            Self.dropUnused(&bucket)
            let condition: ObservedCondition
            if let shared = bucket.first(where: { $0.fields == fields }) {
                condition = shared
            } else {
                condition = ObservedCondition(entity: entity, predicate: predicate, fields: fields)
                bucket.append(condition)
            }
            conditions.table[signature] = bucket
            if conditions.table.count > 256 {
                for key in Array(conditions.table.keys) {
                    var others = conditions.table.removeValue(forKey: key) ?? []
                    Self.dropUnused(&others)
                    if !others.isEmpty { conditions.table[key] = others }
                }
            }
            return condition
        }
    }

    /// Removes the conditions that only the table still holds. The table holds strong references,
    /// pruned here, rather than weak ones: an object once weakly referenced moves its reference
    /// counts to a side table, and every retain and release of it in the commit pass then took
    /// the runtime's slow path (a fifth of a small commit's time with 100 observers).
    private static func dropUnused(_ bucket: inout [ObservedCondition]) {
        var index = 0
        while index < bucket.count {
            if isKnownUniquelyReferenced(&bucket[index]) { bucket.remove(at: index) } else { index += 1 }
        }
    }

    /// Tells every observer when another process committed since the last look, judging the
    /// commits up to the id the previous look found; a look that finds newer ones schedules the
    /// next after ``settleDelay``.
    private func poll() {
        let current = lastTransactionID()
        let (observers, settle) = state.withLock { state -> ([Observer], Bool) in
            let settled = min(state.previousPoll, current)
            state.previousPoll = current
            let settle = current > settled && !state.settling && state.subscription != nil
            if settle { state.settling = true }
            guard settled > state.lastSeen else { return ([], settle) }
            let own = state.ownCommits.filter { $0 > state.lastSeen && $0 <= settled }.count
            let external = settled - state.lastSeen > own
            state.lastSeen = settled
            state.ownCommits = state.ownCommits.filter { $0 > settled }
            return (external ? state.list : [], settle)
        }
        if settle {
            DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.settleDelay) { [weak self] in
                self?.state.withLockWakingNone { $0.settling = false }
                self?.poll()
            }
        }
        guard !observers.isEmpty else { return }
        queue.async { for observer in observers { observer.notify(.external) } }
    }
}

/// Which commits an observer may be concerned by, in a form the commit pass checks without
/// calling into the observer.
enum ObserverInterest: Sendable {
    /// Every commit (the observer judges for itself).
    case everyCommit
    /// Commits that touch one of these entities.
    case entities([String])
    /// Commits that write or delete this stored key of this entity.
    case record(entity: String, key: [UInt8])
    /// Commits that may change this query's result (see ``ObservedResult``).
    case query(ObservedResult)
    /// Commits that touch this entity, or any commit while ``ObservedScope/reachesOtherEntities``
    /// (a condition through relationships, or not read yet).
    case scoped(entity: String, ObservedScope)
}

/// Whether an observation reads other entities than its own: set after each read, from the
/// condition it read with. Until the first read it is assumed to (every commit concerns it).
final class ObservedScope: Sendable {
    private let reaches = Atomic<Bool>(true)

    var reachesOtherEntities: Bool {
        get { reaches.load(ordering: .acquiring) }
        set { reaches.store(newValue, ordering: .releasing) }
    }
}

/// A condition of observed queries, shared by every observer of the same condition on the same
/// entity and fields.
final class ObservedCondition: Sendable {
    let entity: String
    let predicate: QueryPredicate
    let fields: FieldTable
    /// The fields the condition reads, found in one pass over a record's map (no dictionary of
    /// every field by name, as ``StoredFieldValues`` builds).
    private let selection: FieldSelection
    /// The condition holds a `SEARCH`.
    private let searches: Bool

    init(entity: String, predicate: QueryPredicate, fields: FieldTable) {
        self.entity = entity
        self.predicate = predicate
        self.fields = fields
        selection = FieldSelection(predicate: predicate, orderings: [], fields: fields)
        searches = !predicate.textSearches.isEmpty
    }

    /// Whether one of `records` (bytes after the commit, nil: deleted) may match: true also for
    /// bytes that are not a valid record, and for any record when the condition holds a `SEARCH`
    /// (which needs the entity's full-text index: the query is read again).
    func matchesAny(_ records: [[UInt8]?]) -> Bool {
        if searches, records.contains(where: { $0 != nil }) { return true }
        var offsets: [Int] = []
        for bytes in records {
            guard let bytes else { continue }
            guard let values = try? selection.values(of: bytes, reusing: &offsets) else { return true }
            if predicate.evaluate(on: values) { return true }
        }
        return false
    }
}

/// The shared conditions by signature; a struct, so that opening a store makes no dictionary type keyed by
/// signatures (its first use costs the runtime a look-up of `ConditionSignature: Hashable` in every conformance record).
private struct ConditionTable { var table: [ConditionSignature: [ObservedCondition]] = [:] }

private struct ConditionSignature: Hashable, Sendable {
    let entity: String
    let predicate: QueryPredicate
}

/// What an observed query's last read found, for deciding without a read whether a commit
/// concerns it: the stored keys of its result and its condition (nil when the condition goes
/// through relationships, which other entities' changes affect, or the query has an offset: a
/// change before the page shifts it). While a read is queued or under way (``busy``) every commit
/// concerns it: the next read's fetch judges it against the result before it.
// @unchecked Sendable: `keys`, `condition`, `read` and `registered` are read and written only
// with the center's lock held (the commit pass runs under it).
final class ObservedResult: @unchecked Sendable {
    fileprivate var keys: Set<[UInt8]> = []
    fileprivate var condition: ObservedCondition? {
        didSet { conditionID = condition.map(ObjectIdentifier.init) }
    }
    /// `condition`'s identity, which the commit pass compares without retaining it.
    fileprivate var conditionID: ObjectIdentifier?
    fileprivate var read = false
    fileprivate var registered = false
    let entity: String
    private let center: ObservationCenter
    /// Set by the observation's driver while a read is queued or under way.
    let busy = Atomic<Bool>(false)

    init(entity: String, center: ObservationCenter) {
        self.entity = entity
        self.center = center
    }

    /// The stored keys of the last result.
    var lastKeys: Set<[UInt8]> { center.state.withLock { _ in keys } }

    func update(keys: Set<[UInt8]>, condition: ObservedCondition?) {
        center.state.withLock { state in
            if registered {
                state.count(self.keys, of: entity, by: -1)
                state.count(keys, of: entity, by: 1)
            }
            self.keys = registered ? keys : []
            self.condition = condition
            read = true
        }
    }

    /// False only when no read is queued or under way and `change` (a commit's change of this
    /// observer's entity) provably leaves the last result as it was: the changed records are
    /// known with their bytes, none was in the result and none matches now. Called with the
    /// center's lock held.
    @inline(__always)
    fileprivate func mayConcern(_ change: CommitPass.EntityChange, _ pass: inout CommitPass) -> Bool {
        if busy.load(ordering: .acquiring) { return true }
        guard !pass.changes.isExternal, read, let conditionID else { return true }
        switch change {
        case .untouched: return false
        case .unknown: return true
        case .known(let changed, _, let inSomeResult):
            if inSomeResult, !keys.isEmpty, changed.contains(where: { keys.contains($0) }) { return true }
            return pass.matches(conditionID, of: self)
        }
    }
}

/// One commit's judgement of the observers: what it changed per entity and which shared
/// conditions its records match, each worked out once.
struct CommitPass {
    enum EntityChange {
        case untouched
        /// Possibly any record, or records whose bytes were not kept.
        case unknown
        /// These keys, the records' bytes after the commit (nil: deleted), and whether any
        /// key is in some query observer's last result.
        case known([[UInt8]], [[UInt8]?], inSomeResult: Bool)
    }

    let changes: ChangeSet
    let resultKeys: [String: [[UInt8]: Int]]
    private var lastEntity: String?
    private var lastChange = EntityChange.untouched
    private var verdicts: [(ObjectIdentifier, Bool)] = []
    private var lastVerdict: (ObjectIdentifier, Bool)?

    init(_ changes: ChangeSet, resultKeys: [String: [[UInt8]: Int]]) {
        self.changes = changes
        self.resultKeys = resultKeys
    }

    mutating func entity(_ entity: String) -> EntityChange {
        if entity == lastEntity { return lastChange }
        let change: EntityChange
        if let changed = changes.changed[entity] {
            if changed.all || !changes.recordsComplete {
                change = .unknown
            } else {
                let counts = resultKeys[entity]
                change = .known(changed.keys, changed.records,
                                inSomeResult: counts.map { counts in changed.keys.contains { counts[$0] != nil } } ?? false)
            }
        } else {
            change = .untouched
        }
        lastEntity = entity
        lastChange = change
        return change
    }

    /// Whether a changed record of `result`'s entity matches its condition, whose identity is
    /// `id` (bytes known). Evaluated once per condition and commit.
    fileprivate mutating func matches(_ id: ObjectIdentifier, of result: ObservedResult) -> Bool {
        if id == lastVerdict?.0 { return lastVerdict!.1 }   // observers of an entity mostly share one
        if let verdict = verdicts.first(where: { $0.0 == id }) { lastVerdict = verdict; return verdict.1 }
        guard let condition = result.condition, case .known(_, let records, _) = entity(condition.entity) else { return true }
        let verdict = condition.matchesAny(records)
        verdicts.append((id, verdict))
        lastVerdict = (id, verdict)
        return verdict
    }

    /// Appends to `concerned` the query observers of `entity` this commit may concern.
    mutating func judge(_ group: ObservationCenter.QueryGroup, of entity: String,
                        into concerned: inout [@Sendable (ChangeSet) -> Void]) {
        let change = self.entity(entity)
        for index in group.results.indices
        where group.results[index]._withUnsafeGuaranteedRef({ $0.mayConcern(change, &self) }) {
            concerned.append(group.notifies[index])
        }
    }

    mutating func mayConcern(_ interest: ObserverInterest) -> Bool {
        switch interest {
        case .everyCommit: return true
        case .entities(let entities): return entities.isEmpty || entities.contains(where: changes.touches)
        case .record(let entity, let key): return changes.touches(entity, key: key)
        case .query(let result): return result.mayConcern(entity(result.entity), &self)
        case .scoped(let entity, let scope): return scope.reachesOtherEntities || changes.touches(entity)
        }
    }
}

extension Store {
    /// Who is told of this store's commits (see ``observe(_:_:)``): made at the first
    /// observation, kept in the store's ``StoreAttachments``.
    package var observers: ObservationCenter { attachments.attachment { ObservationCenter(environment: environmentView) } }
}
