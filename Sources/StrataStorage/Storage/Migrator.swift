import Foundation

/// Named migrations, registered in order, each run once per store, in the spirit of GRDB's
/// `DatabaseMigrator`.
///
/// ```swift
/// var migrator = Migrator()
/// migrator.registerMigration("rename fullName") { tx in
///     try tx.renameField("fullName", to: "name", in: "User")
/// }
/// migrator.registerMigration("add plan") { tx in
///     try tx.addField("plan", to: "User", default: "free")
/// }
/// try store.migrate(with: migrator)
/// ```
///
/// ``Store/migrate(with:dryRun:)`` runs the migrations the store has not run, all in one write
/// transaction, each followed by its catalog entry (``AppliedMigration``): the store is left
/// either as it was or with every one of them run, whatever fails and wherever the process is
/// killed. A store whose history is not a prefix of the list (a newer program migrated it, or a
/// migration was renamed or reordered) is refused with `.migrationMismatch`; running the same list
/// again does nothing. Renames are declared, never guessed; an added field with a default and a
/// removed field need no migration (``Record/defaults``, unknown fields are skipped).
///
/// A program must know the migrations a store has run before it writes through its record
/// types: a `Store` knows those of its ``Store/Configuration/migrator`` and of the last
/// ``Store/migrate(with:dryRun:)`` it ran. When the store's history holds a migration the `Store`
/// does not know (in order), every write through a record type (insert, upsert, update, delete,
/// `prepare`, a typed JSON import) throws `.migrationMismatch` naming the unknown migrations, and
/// nothing is written: an older program, or one opened without its migrator, would otherwise
/// change the stored schema behind them (a renamed field written again under its old name, the
/// migrations' indexes dropped). Reads go on, as do writes that bring no record type: JSON imports
/// by a description or the stored one (`strata import`), deletes and indexes by entity name, and
/// migrations.
public struct Migrator: Sendable {
    /// One migration's work, given the migration's write transaction.
    public typealias Body = @Sendable (WriteTransaction) throws -> Void

    /// The registered migrations, in order.
    public private(set) var migrations: [(name: String, body: Body)] = []
    /// The steps of the migrations a ``MigrationPlan`` made, by position: a dry run runs them
    /// one at a time, to report every step that is refused.
    package var planSteps: [Int: [Step]] = [:]

    /// One step of a migration made of steps (a ``MigrationPlan/Step``), for a dry run's report.
    package struct Step: Sendable {
        /// The step as a line of the report (`rename field User.fullName to name`).
        package let description: String
        /// Runs the step.
        package let run: Body

        package init(description: String, run: @escaping Body) {
            self.description = description
            self.run = run
        }
    }

    /// An empty migrator.
    public init() {}

    /// The names of the registered migrations, in order.
    public var names: [String] { migrations.map(\.name) }

    /// Adds the migration `name` after those registered so far. Names must be unique and, once a
    /// store has run a migration, never change: the store's history is matched by name.
    public mutating func registerMigration(_ name: String, _ body: @escaping Body) {
        migrations.append((name, body))
    }

    /// Throws `.invalidValue` for an empty or repeated name, or one with a control character
    /// (the history is printed).
    package func validate() throws(StrataError) {
        var seen = Set<String>()
        for (name, _) in migrations {
            guard !name.isEmpty else { throw StrataError(.invalidValue, "a migration has an empty name") }
            if let scalar = EntityDescription.controlCharacter(in: name) {
                throw StrataError(.invalidValue,
                    "the migration name \(EntityDescription.visible(name)) has the control character U+\(EntityDescription.hex(scalar)); names are printable text")
            }
            guard seen.insert(name).inserted else { throw StrataError(.invalidValue, "the migration '\(name)' is registered twice") }
        }
    }

    /// Throws `.migrationMismatch` unless `history` is a prefix of this migrator's list.
    package func check(_ history: [AppliedMigration], path: String) throws(StrataError) {
        for (position, applied) in history.enumerated() {
            guard position < migrations.count else {
                throw StrataError(.migrationMismatch,
                    "the store at \(path) has run \(history.count) migrations, this program knows \(migrations.count): the store was migrated by a newer program (its migration \(applied.order) is '\(applied.name)'); use a program that knows its migrations")
            }
            guard migrations[position].name == applied.name else {
                throw StrataError(.migrationMismatch,
                    "the store at \(path) ran '\(applied.name)' as migration \(applied.order), this program registers '\(migrations[position].name)' there: migrations were renamed or reordered, or a newer program migrated the store")
            }
        }
    }

    /// What `error` says, for a dry run's list of refusals.
    package static func message(of error: any Error) -> String {
        (error as? StrataError)?.message ?? "\(error)"
    }

    /// `error`, thrown by the migration `name`, as `.migrationFailed` naming the migration and,
    /// when the error names them, the entity and the record's key.
    package static func failure(_ error: any Error, migration name: String) -> StrataError {
        let inner = error as? StrataError
        var place = ""
        if let entity = inner?.entity {
            place = " at \(entity)"
            if let key = inner?.key, !key.isEmpty { place += " \(key)" }
        }
        let message = inner?.message ?? "\(error)"
        return StrataError(.migrationFailed, "migration '\(name)' failed\(place) and was rolled back with its run: \(message)",
                           entity: inner?.entity, field: inner?.field, key: inner?.key, cause: error)
    }
}

extension Store {
    /// Runs the migrations of `migrator` that this store has not run, in one write transaction
    /// (see ``Migrator``), and returns their names (empty when there were none). Throws
    /// `.migrationMismatch` when the store's history is not a prefix of the migrator's list, and
    /// `.migrationFailed`, naming the migration and the record, when one fails; either way the
    /// store is left as it was. A `dryRun` runs them and rolls them back, to see that they
    /// succeed and what they would run: it goes on past a refused step (each step of a
    /// ``MigrationPlan``'s migrations, each migration of other migrators, in a savepoint) and
    /// throws one `.migrationFailed` listing every refusal. Once it succeeds (not a dry run), this `Store` knows the
    /// migrator's migrations: its writes through record types check the history against them.
    @discardableResult
    public func migrate(with migrator: Migrator, dryRun: Bool = false) throws -> [String] {
        try migrator.validate()
        /// Thrown to roll a dry run back, with what it ran.
        struct DryRunRollback: Error { var ran: [String] }
        let ran: [String]
        do {
            ran = try write { tx in
                let ran = try runMigrations(migrator, tx, dryRun: dryRun)
                if dryRun { throw DryRunRollback(ran: ran) }
                return ran
            }
        } catch let rollback as DryRunRollback {
            return rollback.ran
        }
        know(migrator.names)
        if !ran.isEmpty {
            configuration.logger.info("migrated", metadata: ["path": "\(path)", "migrations": "\(ran.joined(separator: ", "))"])
        }
        return ran
    }

    /// Runs the migrations of `migrator` the store has not run, in `tx`; returns their names.
    /// A dry run goes on past a refused step (or migration, when it has no plan steps), each in a
    /// savepoint, and throws `.migrationFailed` listing every refusal at the end.
    private func runMigrations(_ migrator: Migrator, _ tx: WriteTransaction, dryRun: Bool) throws -> [String] {
        let history = try tx.migrationHistory()
        try migrator.check(history, path: path)
        tx.migrationsKnown = migrator.names   // the migrations' own typed writes
        var ran: [String] = []
        var refusals: [String] = []
        let date = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        for (position, migration) in migrator.migrations.enumerated() where position >= history.count {
            let name = EntityDescription.visible(migration.name)
            if !dryRun {
                do { try migration.body(tx) } catch { throw Migrator.failure(error, migration: migration.name) }
            } else if let steps = migrator.planSteps[position] {
                for (index, step) in steps.enumerated() {
                    do { try tx.savepoint { try step.run($0) } } catch {
                        refusals.append("migration '\(name)', step \(index + 1) (\(step.description)): \(Migrator.message(of: error))")
                    }
                }
            } else {
                do { try tx.savepoint { try migration.body($0) } } catch {
                    refusals.append("migration '\(name)': \(Migrator.message(of: error))")
                }
            }
            try tx.noteMigration(AppliedMigration(name: migration.name, order: position + 1, date: date))
            ran.append(migration.name)
        }
        if !refusals.isEmpty {
            throw StrataError(.migrationFailed, "the dry run was refused \(refusals.count) time\(refusals.count == 1 ? "" : "s") and rolled back:\n"
                + refusals.map { "  \($0)" }.joined(separator: "\n"))
        }
        return ran
    }

    /// The migrations this store has run, in order (what `strata schema --history` prints).
    public func migrationHistory() throws -> [AppliedMigration] {
        try read { try $0.migrationHistory() }
    }
}
