import Synchronization

/// The time limit and cancellation of one running query, checked cooperatively: by the executor
/// between candidates and by the pattern matchers every ``checkInterval`` steps of a long match.
///
/// A query has a budget when it has a time limit (``QueryRequest/timeout(_:)``,
/// ``Store/Configuration/queryTimeout``), when it runs in a transaction of the async `read`/`write`
/// (whose task may be cancelled), or when it runs inside a task. Otherwise it has none and costs
/// nothing. A matcher cannot throw (predicate evaluation returns a Bool), so when the budget runs
/// out during a match it stops, answers false and records the error here; the executor throws it
/// before the answer is used.
///
/// One budget is bound (``current``) while a query's relationship conditions and records are
/// evaluated, so that the semi-joins of a query share its deadline rather than starting their own.
package final class QueryBudget: @unchecked Sendable {
    // Sendable: bound to the one thread that runs the query and touched only by it; the
    // cancellation flag, which other threads set, is atomic.

    /// Steps of a matcher (bytes, characters or regex threads) between two checks: a power of
    /// two, so that `steps & (checkInterval - 1) == 0` tests it.
    @inline(__always) package static var checkInterval: Int { 1 << 14 }
    /// Candidates the executor examines between two checks.
    @inline(__always) package static var candidateInterval: Int { 64 }

    /// The budget of the query running on this thread, if any.
    @TaskLocal package static var current: QueryBudget?

    package let entity: String
    package let limit: Duration?
    private let start: ContinuousClock.Instant
    package let deadline: ContinuousClock.Instant?
    private let cancellation: CancellationFlag?
    /// Candidates examined so far (for the error message).
    private(set) var examined = 0
    /// Set once the budget ran out: every later check throws it.
    package private(set) var failure: StrataError?

    private init(entity: String, limit: Duration?, cancellation: CancellationFlag?) {
        self.entity = entity
        self.limit = limit
        self.cancellation = cancellation
        let now = ContinuousClock.now
        start = now
        deadline = limit.map { now + $0 }
    }

    /// The budget of a new query on `entity`: the bound one when a query is already running on
    /// this thread (its semi-joins and the queries of a `forEach` body share it), unless this
    /// query's own limit ends earlier; else a new one when there is a limit or something to
    /// cancel, or `always` (a query with a `MATCHES`, whose cost cap reports here); else nil.
    package static func make(entity: String, timeout: Duration?, transaction: ReadTransaction, always: Bool = false) -> QueryBudget? {
        if let current {
            let own = timeout.map { ContinuousClock.now + $0 }
            guard let own, current.deadline.map({ own < $0 }) ?? true else { return current }
            return QueryBudget(entity: entity, limit: timeout, cancellation: transaction.cancellation)
        }
        let inTask = withUnsafeCurrentTask { $0 != nil }
        guard timeout != nil || transaction.cancellation != nil || inTask || always else { return nil }
        return QueryBudget(entity: entity, limit: timeout, cancellation: transaction.cancellation)
    }

    /// Runs `body` with `budget` bound as ``current`` (nothing to bind when nil).
    @discardableResult
    package static func run<R>(_ budget: QueryBudget?, _ body: () throws -> R) throws -> R {
        guard let budget, current !== budget else { return try body() }
        return try $current.withValue(budget, operation: body)
    }

    /// Counts one candidate; every ``candidateInterval`` candidates checks the clock and
    /// cancellation. Throws once the budget ran out.
    @inline(__always)
    package func tick() throws(StrataError) {
        examined += 1
        if let failure { throw failure }
        if examined & (Self.candidateInterval - 1) == 0 { try check() }
    }

    /// Throws when the budget ran out, now or during an earlier match.
    package func check() throws(StrataError) {
        if let failure { throw failure }
        if isExhausted() { throw failure! }
    }

    /// Whether the query must stop: its task or async transaction was cancelled, or its
    /// deadline passed. Records the error for ``check()`` the first time.
    package func isExhausted() -> Bool {
        if failure != nil { return true }
        let now = ContinuousClock.now
        let ran = Self.seconds(now - start)
        if cancellation?.isCancelled == true || Task.isCancelled {
            failure = StrataError(.cancelled, "\(entity): the query was cancelled after \(ran) (\(examined) records examined)",
                                  entity: entity)
        } else if let deadline, now >= deadline, let limit {
            failure = StrataError(.timeout, "\(entity): the query ran longer than its time limit of \(Self.seconds(limit)) and was stopped after \(ran) (\(examined) records examined)",
                                  entity: entity)
        }
        return failure != nil
    }

    /// Stops the query with `error` (a matcher's cost cap: ``PatternMatching/maxMatchCost``): the
    /// executor throws it before the answer of the match that failed is used.
    package func fail(_ error: StrataError) {
        if failure == nil { failure = error }
    }

    /// Called by a matcher every ``checkInterval`` steps: whether it must stop now (the error is
    /// recorded in the bound budget, which the executor throws).
    package static func matcherMustStop() -> Bool {
        current?.isExhausted() ?? false
    }

    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1_000 + attoseconds / 1_000_000_000_000_000
        return milliseconds % 1_000 == 0 ? "\(milliseconds / 1_000) s" : "\(Double(milliseconds) / 1_000) s"
    }
}
