// The lower layers' public API (records, values, schema descriptions, `StrataError`, JSON values;
// the store, its transactions and configuration) is part of Strata's: a program that imports Strata
// sees it as before the split. The `Format` SPI holds the codec types Strata's hot paths inline
// across the target boundary (a `package` type's `@inlinable` methods are not inlined into another
// target); it is not part of the documented API.
@_spi(Format) @_exported import StrataFormat
@_spi(Format) @_exported import StrataStorage
@_spi(Format) @_exported import StrataQuery
