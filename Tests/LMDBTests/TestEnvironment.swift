import TestSupport
@testable import LMDB

/// A fresh environment in its own temporary directory, with a map of `mapSize` bytes; keep the
/// directory as long as the environment (it is deleted when released).
func makeEnvironment(_ prefix: String, mapSize: Int) throws -> (Environment, TemporaryDirectory) {
    let dir = try TemporaryDirectory(prefix)
    var options = Environment.Options()
    options.mapSize = mapSize
    return (try Environment(path: dir.path, options: options), dir)
}
