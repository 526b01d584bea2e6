// The system SQLite, exposed to Swift through the `PrivateSyncSQLite` module only.
#include <sqlite3.h>

// Turns off SQLite's memory statistics, which take a process-wide mutex around every allocation and which nothing
// in this package reads. Swift cannot call the variadic `sqlite3_config`; this does, before SQLite initializes (after,
// it returns SQLITE_MISUSE and changes nothing).
static inline int privatesync_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
