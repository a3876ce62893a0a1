/// The migrations a `Store` knows: its configuration's migrator's (``Store/Configuration/migrator``),
/// or those of the last ``Store/migrate(with:dryRun:)`` it ran.
package struct KnownMigrations: Sendable {
    /// The names, in order.
    package var names: [String]
    /// The last history entry (key and value bytes) of a history found to be a prefix of
    /// `names`: histories only grow, so one that still ends with it passes unread.
    var checkedLast: [UInt8]?
}

extension WriteTransaction {
    /// Throws `.migrationMismatch`, naming the migrations, when the store has run migrations the
    /// `Store` does not know (its history is not a prefix of ``KnownMigrations/names``, or of the
    /// list of the migrator running in this transaction). Called by every write through a record
    /// type before it touches the type's entity (``writableContext(for:)``, ``migrateIndexes(_:_:)``):
    /// a program that does not know a store's migrations would otherwise change the stored schema
    /// behind them (write a renamed field under its old name, drop the indexes they added), and
    /// the migrations would then fail or be skipped. Reads, untyped writes (by entity name, JSON
    /// imports by a description or the stored one) and migrations themselves are not checked.
    ///
    /// Once per transaction; a history already checked costs one cursor move.
    package func checkKnownHistory(writing entity: String) throws {
        guard !historyChecked else { return }
        guard let last = try lastMigrationEntry() else {
            historyChecked = true
            return
        }
        let known = migrationsKnown.map { KnownMigrations(names: $0) } ?? store.knownMigrations.withLockWakingNone { $0 }
        if known.checkedLast == last {
            historyChecked = true
            return
        }
        let history = try migrationHistory()
        let matched = zip(history, known.names).prefix { $0.name == $1 }.count
        guard matched < history.count else {
            if migrationsKnown == nil {
                store.knownMigrations.withLockWakingNone { if $0.names == known.names { $0.checkedLast = last } }
            }
            historyChecked = true
            return
        }
        let unknown = history[matched...].map { "'\($0.name)' (migration \($0.order))" }.joined(separator: ", ")
        let knows = known.names.isEmpty ? "this Store knows none (its configuration has no migrator)"
            : "this Store knows " + known.names.map { "'\($0)'" }.joined(separator: ", ")
        throw StrataError(.migrationMismatch,
            "\(entity): the store at \(store.path) has run migrations this Store does not know: \(unknown); \(knows). "
            + "Writes through record types are refused so that they cannot change the stored schema behind those migrations: "
            + "open the store with a Store.Configuration.migrator that registers them, or run store.migrate(with:) with one; "
            + "reads work as before", entity: entity)
    }
}

extension Store {
    /// Makes `names` the migrations this `Store` knows (after it ran or checked them).
    package func know(_ names: [String]) {
        knownMigrations.withLockWakingNone { if $0.names != names { $0 = KnownMigrations(names: names) } }
    }
}
