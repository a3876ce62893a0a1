// The bottom layer's public API is part of this target's (and so of Strata's, which re-exports
// this one). `Format` is the SPI of the codec types the hot paths inline across the target
// boundary (see `Strata/StrataFormat.swift`).
@_spi(Format) @_exported import StrataFormat
