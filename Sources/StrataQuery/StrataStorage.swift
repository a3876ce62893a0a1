// The layers below, for every file of this target: the store (which re-exports the format layer) and
// the format layer's `Format` SPI, the codec types the hot paths inline across the target boundary.
@_spi(Format) @_exported import StrataFormat
@_spi(Format) @_exported import StrataStorage
