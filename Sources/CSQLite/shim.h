// The system SQLite, exposed to Swift through the `PrivateSyncSQLite` module only.
#include <sqlite3.h>
