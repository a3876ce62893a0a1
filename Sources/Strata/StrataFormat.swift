// The bottom layer's public API (records, values, schema descriptions, `StrataError`, JSON values)
// is part of Strata's: a program that imports Strata sees it as before the split.
@_exported import StrataFormat
