import ArgumentParser
import Foundation
import Strata

extension ParsableCommand {
    /// Parses the command line as this root command and runs what it names, with the exit
    /// statuses both programs (`strata`, `strata-studio`) promise: 0 on success or help; 1 when a
    /// command fails (`error: ...`, a ``CommandFailure``'s or a ``StrataError``'s message); 2 for a
    /// usage error, found while parsing (printed with the usage) or while running (a
    /// `ValidationError`, printed with where the help is). `printError` writes a line to standard
    /// error; `flush` runs after a command succeeds and before help is printed (buffered output
    /// first).
    package static func runAsTool(printError: (String) -> Void, flush: () -> Void = {}) -> Never {
        FaultHandler.install()
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            // Help and version requests print and exit 0; usage errors print with the usage and exit 2.
            if exitCode(for: error) == .success { exit(withError: error) }
            printError(fullMessage(for: error))
            Foundation.exit(2)
        }
        var runnable = command
        finishTool(help: { type(of: command) == Self.self ? rootName : "\(rootName) \(type(of: command)._commandName)" },
                   printError: printError, flush: flush) { try runnable.run() }
    }

    /// Runs what a command line read without argument-parser names, as ``runAsTool(printError:flush:)``
    /// runs a parsed command: the same exit statuses and messages. `subcommand` is the name of
    /// the root's subcommand it is (where a usage error's help is).
    package static func runAsTool(subcommand: String, printError: (String) -> Void, flush: () -> Void = {},
                                  run: () throws -> Void) -> Never {
        FaultHandler.install()
        finishTool(help: { "\(rootName) \(subcommand)" }, printError: printError, flush: flush, run: run)
    }

    private static var rootName: String { configuration.commandName ?? _commandName }

    /// Runs `run` and exits with the status its outcome means; `help` names the command whose
    /// `--help` a usage error points to.
    private static func finishTool(help: () -> String, printError: (String) -> Void, flush: () -> Void,
                                   run: () throws -> Void) -> Never {
        do {
            try run()
            flush()
            Foundation.exit(0)
        } catch let failure as CommandFailure {
            if !failure.message.isEmpty { printError("error: " + failure.message) }
            Foundation.exit(1)
        } catch let error as StrataError {
            printError("error: " + error.message)   // positions of parse errors are in the message
            Foundation.exit(1)
        } catch let error as ValidationError {
            // A usage error found while running (a bad --fields): the message whole, and where the help is.
            printError("error: \(error)\nsee '\(help()) --help'")
            Foundation.exit(2)
        } catch {
            // `strata help ...` and `--help` arrive here as a clean exit that prints the help.
            flush()
            if exitCode(for: error) == .success { exit(withError: error) }
            printError("error: \(error)")
            Foundation.exit(1)
        }
    }
}
