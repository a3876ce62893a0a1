import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata migrate STORE PLAN.json [--dry-run]`: runs a migration plan's migrations that the store
/// has not run, all in one write transaction (the store is left before or after them, whatever
/// fails and wherever the process is killed).
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply a migration plan: renames, removals, defaults, type changes and index changes.",
        discussion: """
            PLAN.json lists named migrations, each a list of steps:
              { "migrations": [ { "name": "v2", "steps": [
                  {"op": "renameField", "entity": "User", "field": "fullName", "to": "name"},
                  {"op": "addField", "entity": "User", "field": "plan", "type": "string", "default": "free"},
                  {"op": "changeType", "entity": "User", "field": "age", "type": "int"},
                  {"op": "removeField", "entity": "User", "field": "nickname"},
                  {"op": "compact", "entity": "User"},
                  {"op": "addIndex", "entity": "User", "fields": ["age"]},
                  {"op": "dropIndex", "entity": "User", "index": "fullName"},
                  {"op": "addFullTextIndex", "entity": "User", "fields": ["bio"]},
                  {"op": "dropFullTextIndex", "entity": "User", "index": "bio"},
                  {"op": "renameEntity", "entity": "User", "to": "Member"} ] } ] }
            A renamed field keeps its JSON key (its old name, when it had none), so the file the store was \
            imported from imports again; "json": "KEY" in a renameField step gives it another. Each migration \
            runs once per store; the store records it (strata schema STORE --history). A store whose history \
            the plan does not extend (a newer program migrated it, or names differ) is refused.
            """
    )

    @Argument(help: "The store directory.") var store: String
    @Argument(help: "The migration plan (JSON).") var plan: String
    @Flag(help: "Run the migrations and roll them back: see that they succeed and what they would run.") var dryRun = false

    func run() throws {
        let data = try ImportCommand.readSmallFile(plan, named: "the plan")
        let plan = try MigrationPlan(json: data)
        let bar = ProgressBar("rebuilding indexes", unit: "records")
        let store = try Store.existing(self.store) { configuration in
            configuration.indexBuildProgress = { progress in bar.update(fraction: progress.fractionCompleted, count: progress.completed) }
        }
        let ran: [String]
        do { ran = try store.migrate(with: plan.migrator, dryRun: dryRun) } catch {
            bar.finish(completed: false)
            throw error
        }
        bar.finish(completed: true)
        let history = try store.migrationHistory()
        guard !ran.isEmpty else {
            Terminal.write("nothing to migrate: the store has run \(history.count) migration\(history.count == 1 ? "" : "s")"
                + (history.last.map { ", the last '\($0.name.escapingControlCharacters())'" } ?? "") + "\n")
            return
        }
        let steps = Dictionary(plan.migrations.map { ($0.name, $0.steps) }, uniquingKeysWith: { first, _ in first })
        var report = dryRun ? "dry run: would run \(ran.count) migration\(ran.count == 1 ? "" : "s"), rolled back\n"
                            : "ran \(ran.count) migration\(ran.count == 1 ? "" : "s")\n"
        for name in ran {
            report += "  \(name.escapingControlCharacters())\n"
            for step in steps[name] ?? [] { report += "    \("\(step)".escapingControlCharacters())\n" }
        }
        Terminal.write(report)
    }
}

/// `strata schema`: `strata schema STORE` (``SchemaCommand``, the default) prints the schema, with
/// `--history` the migrations run; `strata schema diff STORE NEW.schema.json` compares.
struct SchemaGroup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the store's entities in the schema-file format, its migration history (--history), or a diff against a schema file.",
        subcommands: [SchemaCommand.self, SchemaDiffCommand.self],
        defaultSubcommand: SchemaCommand.self
    )
}

/// `strata schema diff STORE NEW.schema.json`: what would change if the store took the file's shapes.
struct SchemaDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Print what differs between the store's schema and a schema file (renames are never guessed).",
        discussion: "Exit status 0 whether or not anything differs; the lines start with + (added), - (removed) or ~ (changed)."
    )

    @Argument(help: "The store directory.") var store: String
    @Argument(help: "The schema file to compare with.") var schema: String
    @OptionGroup var access: ReadOnlyFlag

    func run() throws {
        let data = try ImportCommand.readSmallFile(schema, named: "the schema file")
        let file = try SchemaFile(json: data)
        let changes = try Store.reading(store).read { tx in try tx.schemaChanges(to: file) }
        Terminal.write(changes.isEmpty ? "no differences\n" : changes.map { "\($0)\n" }.joined())
    }
}

/// `strata schema STORE --history`: the migrations the store has run.
enum MigrationHistoryOutput {
    static func print(_ store: String) throws {
        let history = try Store.reading(store).migrationHistory()
        guard !history.isEmpty else {
            Terminal.write("no migrations\n")
            return
        }
        let dates = ISO8601DateFormatter()
        // Names are escaped whether or not the output is a terminal: a store written by an older
        // program may hold a name with a newline, which would otherwise read as two migrations.
        Terminal.write(history.map { "\($0.order)\t\(dates.string(from: $0.date))\t\($0.name.escapingControlCharacters())\n" }.joined())
    }
}
