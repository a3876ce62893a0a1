import ArgumentParser
import Foundation
import Strata
import StrataToolSupport

/// `strata`: import JSON into a store, query it, explain plans, inspect, verify and back it up.
///
/// Exit status: 0 success; 1 the work failed (bad input under `--on-error abort`, a verify
/// mismatch, a key not found); 2 a usage error. Errors go to stderr as `error: ...`.
@main
struct StrataTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Import JSON into a Strata store, query it, explain plans, inspect, verify and back it up.",
        discussion: """
            A store is a directory (`import` creates it when missing; other commands need an existing store). ENTITY names a record type, as a program \
            or an import named it. PREDICATE is the predicate format language (`lastName ==[cd] "bluth" \
            AND luckyNumber > 5`) and may end with ORDER BY ... LIMIT n OFFSET n; a sort SPEC is \
            "lastName desc,luckyNumber".

            A write waits for another writer at most 30 seconds (STRATA_WRITE_LOCK_TIMEOUT=SECONDS \
            sets it), then fails; a program writing the store with LMDB directly is waited for \
            without limit, with a warning after that time.

            Exit status: 0 success, 1 the work failed, 2 usage error.
            """,
        version: StrataVersion.current,
        subcommands: [
            ImportCommand.self, QueryCommand.self, SearchCommand.self, ExplainCommand.self, GetCommand.self, DeleteCommand.self,
            ExportCommand.self, SchemaGroup.self, IndexCommand.self, StatsCommand.self, VerifyCommand.self,
            BackupCommand.self, MigrateCommand.self, ChangeLogCommand.self, ChangesCommand.self, ReplicateCommand.self, DemoCommand.self, StudioCommand.self,
        ]
    )

    static func main() {
        // `strata --version` alone is answered before the parser builds its tree of every command
        // (the same text argument-parser prints); start-up measurements: Benchmarks/Results.
        if CommandLine.arguments.dropFirst() == ["--version"] {
            print(StrataVersion.current)
            return
        }
        // `strata studio ...` is the program strata-studio, run with the same words (even --help).
        if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "studio" {
            do {
                try StudioLauncher.execute(Array(CommandLine.arguments.dropFirst(2)))
            } catch {
                Terminal.error("error: \((error as? CommandFailure)?.message ?? "\(error)")")
                Foundation.exit(1)
            }
        }
        // `strata get STORE ENTITY KEY` of the plain form is read without argument-parser.
        if let lookup = RecordLookup(plainLine: CommandLine.arguments.dropFirst()) {
            runAsTool(subcommand: GetCommand.name, printError: Terminal.error, flush: Terminal.flush, run: lookup.run)
        }
        runAsTool(printError: Terminal.error, flush: Terminal.flush)
    }
}
