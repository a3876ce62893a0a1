// The layers below, for every file of this target: values and the record codec, the store and its
// transactions, queries. The `Format` SPI holds the codec types whose `@inlinable` bodies the hot paths
// inline across the target boundary; it is not part of the documented API.
@_spi(Format) @_exported import StrataFormat
@_spi(Format) @_exported import StrataStorage
@_spi(Format) @_exported import StrataQuery
