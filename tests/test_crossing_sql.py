"""What the SQL of a lent cursor may do (harness/envside/bridge/crossing_sql.py): the connection's
own tables, SQLite's core functions, the schema asked about; nothing that reaches another
file, the build's extra functions, the connection's inner state or code."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.envside.bridge import crossing_sql


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(tmp_path / "test.db")
    connection.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    connection.execute("INSERT INTO users (name) VALUES ('a'), ('b')")
    connection.execute("CREATE TEMP VIEW names AS SELECT name FROM users")
    connection.commit()
    crossing_sql.limit(connection)
    yield connection
    connection.close()


def test_the_connections_own_tables_and_core_functions(limited: sqlite3.Connection) -> None:
    sql = limited.execute
    assert sql("SELECT upper(name), length(name) FROM users ORDER BY id").fetchall() == [
        ("A", 1),
        ("B", 1),
    ]
    assert sql("SELECT count(*), group_concat(name) FROM names").fetchall() == [(2, "a,b")]
    sql("UPDATE users SET name = name || '!' WHERE id = 1")
    sql("DELETE FROM users WHERE id = 2")
    assert sql(
        "SELECT json_extract('{\"x\": 3}', '$.x'), abs(-2), date('2024-01-31')"
    ).fetchone() == (
        3,
        2,
        "2024-01-31",
    )
    with_cte = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
    assert sql(with_cte + "SELECT sum(n) FROM r").fetchone() == (6,)
    assert [row[1] for row in sql("PRAGMA table_info(users)")] == ["id", "name"]
    # a table made after the cursor was lent, by the answer or the test, is theirs to use
    sql("CREATE TABLE totals (total INTEGER)")
    sql("CREATE INDEX by_name ON users (name)")
    sql("INSERT INTO totals VALUES (1)")
    assert sql("SELECT total FROM totals").fetchall() == [(1,)]
    sql("DROP TABLE totals")


@pytest.mark.parametrize(
    "statement",
    [
        "ATTACH DATABASE '{folder}/other.db' AS other",
        "VACUUM INTO '{folder}/copy.db'",
        "VACUUM",
        "PRAGMA journal_mode = WAL",
        "PRAGMA writable_schema = ON",
        "PRAGMA database_list",
        "SELECT * FROM pragma_database_list",
        "SELECT load_extension('{folder}/nothing')",
        "SELECT fts3_tokenizer('simple')",  # where the build has it: a pointer out, or in
        "SELECT sqlite_compileoption_get(0)",
        "SELECT sql FROM sqlite_stmt",  # the SQL the test prepared on its connection
        "SELECT * FROM dbstat",
        "CREATE VIRTUAL TABLE docs USING fts4(body)",
        "SELECT tests_own(1)",
    ],
)
def test_nothing_beyond(limited: sqlite3.Connection, tmp_path: Path, statement: str) -> None:
    with pytest.raises(sqlite3.Error):
        limited.execute(statement.format(folder=tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test.db"]


def test_a_function_the_test_made_before_is_no_exception(tmp_path: Path) -> None:
    connection = sqlite3.connect(":memory:")
    connection.create_function("tests_own", 1, lambda x: x)
    crossing_sql.limit(connection)
    with pytest.raises(sqlite3.DatabaseError, match="not authorized"):
        connection.execute("SELECT tests_own(1)")
    connection.close()


def test_a_closed_connection_cannot_be_limited() -> None:
    connection = sqlite3.connect(":memory:")
    connection.close()
    with pytest.raises(sqlite3.ProgrammingError):
        crossing_sql.limit(connection)
