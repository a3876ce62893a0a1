#ifndef STRATA_CLMDB_SHIM_H
#define STRATA_CLMDB_SHIM_H
#include <lmdb.h>
#include <stddef.h>

/// Hints the processor to load the `size` bytes at `start` into its caches, one prefetch per
/// 64-byte line. A hint only: it reads nothing the program sees and never faults.
static inline void strata_prefetch(const void *start, size_t size) {
    for (size_t offset = 0; offset < size; offset += 64) {
        __builtin_prefetch((const char *)start + offset, 0, 3);
    }
}
#endif
