// zlib (Debian: apt zlib1g-dev), for the full-text benchmark's reading of gzipped manual pages.
#include <zlib.h>
