"""The shared store: what `casino-tui serve --store postgresql://...` keeps in PostgreSQL.

Without `--store` (or `CASINO_TUI_STORE`) nothing here is imported: the server keeps its files in
its data directory, the embedded default. With it, several servers on several hosts share one
database: the players (keys, names, settings), their solo saves and statistics, the daily
results, and the tables, each run by one host at a time under a lease (docs/STORE.md).

`db` is the connection and the versioned schema; the rest build on it. Only this package
imports psycopg (an import-linter contract says so).
"""
