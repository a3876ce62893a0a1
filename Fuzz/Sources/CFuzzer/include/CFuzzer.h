#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry for programs with their own `main` (SwiftPM names an executable's `main`
/// itself, so the fuzz targets cannot rely on libFuzzer's `main` and `LLVMFuzzerTestOneInput`).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
