"""What the SQL of a cursor the check lends may do (``crossing_kinds``: ``CURSOR``).

A test that hands the answer an ``sqlite3`` cursor hands it SQL on the test's own
connection, which runs here, in the checker. What that SQL may do is decided the way the
rest of the bridge decides, by what is allowed, through an authorizer SQLite consults for
every statement prepared on the connection from the moment the cursor is first lent (the
test's own statements too: a test that needs more than this fails with its reference as
well, and its task is graded in the answer's process):

- **actions** (``ACTIONS``, SQLite's authorizer codes): read and change tables, make and
  drop tables, indexes, views and triggers, transactions and savepoints; not attach
  another database file (``ATTACH``, and ``VACUUM INTO``, which attaches one to write
  it), not make a virtual table, no pragma but those that ask about the schema
  (``PRAGMAS``);
- **tables** read or written: those of the connection's schemas when the cursor was lent,
  those made on it since, and SQLite's own schema tables — never an eponymous virtual
  table, which is no table of the test's (``sqlite_stmt`` shows the SQL of the statements
  the test prepared, ``dbstat`` its pages);
- **functions**: SQLite's core scalar, aggregate, window, date, maths and JSON functions,
  and full-text search's ``MATCH`` and helpers on a table the test made (``FUNCTIONS``); not ``load_extension``, and not what a build adds beside them
  (``fts3_tokenizer``, compiled in on common builds, takes a pointer from its caller and
  calls through it), nor the test's own functions.

The connection loads no extension either, where the build could (switched off).
Standard library only.
"""

from __future__ import annotations

from typing import Any, FrozenSet, Set


def _words(text: str) -> FrozenSet[str]:
    return frozenset(text.split())


# SQLite's authorizer action codes (its C API's, the same in every release; older
# Pythons do not name them all)
CREATE_TABLE, CREATE_TEMP_TABLE, CREATE_TEMP_VIEW, CREATE_VIEW = 2, 4, 6, 8
DELETE, INSERT, PRAGMA, READ, UPDATE, FUNCTION = 9, 18, 19, 20, 23, 31
OK, DENY = 0, 1

ACTIONS = frozenset(
    {
        *range(1, 19),  # CREATE_INDEX … DROP_VIEW (1–17), INSERT (18)
        20,  # READ
        21,  # SELECT
        22,  # TRANSACTION
        23,  # UPDATE
        26,  # ALTER_TABLE
        27,  # REINDEX
        28,  # ANALYZE
        31,  # FUNCTION
        32,  # SAVEPOINT
        33,  # RECURSIVE
    }
)
PRAGMAS = _words(
    """table_info table_xinfo table_list index_list index_info index_xinfo
    foreign_key_list foreign_key_check integrity_check quick_check user_version"""
)
# The actions that name a table (their first argument), and those that make one
_ON_TABLES = frozenset({DELETE, INSERT, READ, UPDATE})
_MAKING = frozenset({CREATE_TABLE, CREATE_TEMP_TABLE, CREATE_VIEW, CREATE_TEMP_VIEW})
# SQLite's own tables, which it reads and writes for any statement that changes a schema
SCHEMA_TABLES = _words(
    """sqlite_master sqlite_schema sqlite_temp_master sqlite_temp_schema sqlite_sequence
    sqlite_stat1 sqlite_stat4"""
)
FUNCTIONS = _words(
    # core scalar functions
    """abs changes char coalesce concat concat_ws format glob hex ifnull iif instr
    last_insert_rowid length like likelihood likely lower ltrim max min nullif
    octet_length printf quote random randomblob replace round rtrim sign soundex substr
    substring total_changes trim typeof unhex unicode unlikely upper zeroblob"""
    # aggregates and window functions
    """ avg count group_concat string_agg sum total row_number rank dense_rank
    percent_rank cume_dist ntile lag lead first_value last_value nth_value"""
    # dates and times
    """ date time datetime julianday unixepoch strftime timediff current_date
    current_time current_timestamp"""
    # maths
    """ acos acosh asin asinh atan atan2 atanh ceil ceiling cos cosh degrees exp floor
    ln log log10 log2 mod pi pow power radians sin sinh sqrt tan tanh trunc"""
    # JSON
    """ json json_array json_array_length json_error_position json_extract json_insert
    json_object json_patch json_remove json_replace json_set json_type json_valid
    json_quote json_group_array json_group_object"""
    # the full-text search of a table the test made (its MATCH operator and helpers)
    """ match snippet offsets matchinfo highlight bm25"""
)


def limit(connection: Any) -> None:
    """Hold ``connection``'s SQL, from now on, to what this module allows. Raises the
    ``sqlite3`` error where it cannot be done (a closed connection)."""
    tables = _tables(connection)
    if hasattr(connection, "enable_load_extension"):
        connection.enable_load_extension(False)

    def authorize(action: int, first: Any, second: Any, *_rest: Any) -> int:
        if action not in ACTIONS:
            return OK if action == PRAGMA and first in PRAGMAS else DENY
        if action in _MAKING and isinstance(first, str):
            tables.add(first.lower())  # (a statement denied later still made nothing)
        if action in _ON_TABLES:
            name = first.lower() if isinstance(first, str) else ""
            return OK if name in tables or name in SCHEMA_TABLES else DENY
        if action == FUNCTION:
            return OK if isinstance(second, str) and second.lower() in FUNCTIONS else DENY
        return OK

    connection.set_authorizer(authorize)


def _tables(connection: Any) -> Set[str]:
    """The tables and views of every schema ``connection`` has (lower case, as SQLite
    compares them), read before the authorizer is in place."""
    found: Set[str] = set()
    schemas = [row[1] for row in connection.execute("PRAGMA database_list").fetchall()]
    for schema in dict.fromkeys([*schemas, "temp"]):
        master = (
            "sqlite_temp_master"
            if schema == "temp"
            else '"%s".sqlite_master' % (str(schema).replace('"', '""'))
        )
        rows = connection.execute(
            "SELECT name FROM %s WHERE type IN ('table', 'view')" % master
        ).fetchall()
        found.update(str(row[0]).lower() for row in rows)
    return found
