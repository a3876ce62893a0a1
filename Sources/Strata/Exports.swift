// Strata's public API is that of the layers and features below it: a program that imports Strata sees
// the records, values and schema descriptions, the store and its transactions, queries, import,
// inspection, migrations, observation and the replication feed. The `Format` SPI holds the codec types
// the hot paths inline across target boundaries (a `package` type's `@inlinable` methods are not
// inlined into another target); it is not part of the documented API.
@_spi(Format) @_exported import StrataFormat
@_spi(Format) @_exported import StrataStorage
@_spi(Format) @_exported import StrataQuery
@_exported import StrataImport
@_exported import StrataInspection
@_exported import StrataMigration
@_exported import StrataObservation
@_exported import StrataReplication
