// The system SQLite, exposed to Swift through the `SQLite` module only.
#include <sqlite3.h>
