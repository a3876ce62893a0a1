// The system SQLite's C API (Debian: apt libsqlite3-dev), for the tests that check Strata's
// full-text search against SQLite FTS5. No library target links it.
#include <sqlite3.h>
