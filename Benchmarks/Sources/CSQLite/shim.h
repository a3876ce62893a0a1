// The system SQLite's C API (Debian: apt libsqlite3-dev), for the SQLite-C engine of the benchmarks.
#include <sqlite3.h>
