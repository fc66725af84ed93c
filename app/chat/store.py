"""``ConversationStore``: the chats of one installation, kept in ``conversations.sqlite3`` in the data dir.

Each conversation is a row (id, title, dates, where its answers come from: ``mode``) and each of its turns a row holding the whole ``Turn``:
question, answer, citations, quote, support marks and trace, as JSON written by ``app.chat.record_codec``.
The question and answer are also columns of their own, so search does not parse JSON.

Schema versions live in SQLite's ``user_version``; ``MIGRATIONS[i]`` brings a file from version ``i`` to
``i + 1`` (version 0 is an empty file). A file from a newer version of the app is refused, never
rewritten. A file that is not a readable database, or fails SQLite's integrity check at start, is moved
aside to ``conversations.sqlite3.corrupt-<time>`` (kept, never deleted) and a fresh store starts with every
conversation that still reads in full copied into it (``app.chat.salvage``); ``problem`` then says
so in a sentence (the UI shows it). A turn that no longer reads (a type this version does not know) is kept
as its question and answer text.

Every call opens its own connection (threads and processes may share the file; SQLite's locking with a
busy timeout orders the writers).
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from app.chat.conversation import Conversation, Turn
from app.chat.record_codec import RecordError, dumps, loads
from app.chat.salvage import Salvage, salvage
from kimas_desktop.answer.model_alone import AnswerMode
from kimas_desktop.errors import KimasError

__all__ = ["MIGRATIONS", "ConversationStore", "ConversationSummary", "StoreVersionError"]

log = logging.getLogger(__name__)

FILE_NAME = "conversations.sqlite3"


class StoreVersionError(KimasError):
    """The conversation file was written by a newer version of KIMAs."""


def _v1(db: sqlite3.Connection) -> None:
    for statement in (
        """CREATE TABLE conversations (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )""",
        """CREATE TABLE turns (
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            question TEXT NOT NULL,
            answer TEXT NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (conversation_id, position)
        )""",
        "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ):
        db.execute(statement)


def _v2(db: sqlite3.Connection) -> None:
    """Newest first in the sidebar without a full scan."""
    db.execute("CREATE INDEX IF NOT EXISTS conversations_updated ON conversations(updated_at DESC)")


def _v3(db: sqlite3.Connection) -> None:
    """Where a chat's answers come from: ``documents`` or ``model`` (the model alone, issue 45)."""
    db.execute("ALTER TABLE conversations ADD COLUMN mode TEXT NOT NULL DEFAULT 'documents'")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_v1, _v2, _v3]


@dataclass(frozen=True)
class ConversationSummary:
    """One line of the sidebar."""

    id: str
    title: str
    created_at: float
    updated_at: float
    turns: int


class ConversationStore:
    def __init__(self, path: Path, *, busy_timeout_s: float = 10.0) -> None:
        self.path = path
        self._timeout = busy_timeout_s
        self.problem = ""  # a sentence for the user when the file had to be replaced
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._migrate()
        except sqlite3.OperationalError:
            raise  # locked, disk full, no permission: the file may be fine
        except sqlite3.DatabaseError as err:  # not a database, malformed, failed the integrity check
            self._replace(err)

    # -- connection and schema ------------------------------------------------------------------------

    @contextlib.contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=self._timeout, isolation_level=None)
        try:
            db.execute("PRAGMA foreign_keys = ON")
            yield db
        finally:
            db.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction that takes the write lock at once (no deadlock between two readers upgrading)."""
        with self._db() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _migrate(self) -> None:
        with self._write() as db:
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            if version > len(MIGRATIONS):
                raise StoreVersionError(
                    f"{self.path} was written by a newer version of KIMAs (format {version}; this version "
                    f"reads up to {len(MIGRATIONS)}). Update KIMAs to see these conversations."
                )
            if version == 0 and db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                raise sqlite3.DatabaseError("tables without a format version: not a KIMAs conversation file")
            _check(db)
            for step in MIGRATIONS[version:]:
                step(db)
            db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")

    def _replace(self, err: sqlite3.DatabaseError) -> None:
        """Move the unreadable file aside, start a fresh one and copy into it what still reads."""
        backup = self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
        for suffix in ("", "-wal", "-shm", "-journal"):
            part = Path(str(self.path) + suffix)
            if part.exists():
                part.replace(Path(str(backup) + suffix))
        log.error("conversation store %s unreadable: %s; moved to %s", self.path, err, backup)
        self._migrate()
        with self._write() as db:
            saved = salvage(backup, db)
        self.problem = _problem(err, backup, saved)
        log.error("conversations recovered from %s: %s", backup, saved)

    # -- conversations --------------------------------------------------------------------------------

    def save(self, conv: Conversation) -> None:
        """Write ``conv`` as it is now (its turns replace the stored ones). An empty chat is not kept."""
        if not conv.turns:
            return
        now = time.time()
        rows = [(conv.id, i, t.question, t.answer, dumps(t)) for i, t in enumerate(conv.turns)]
        with self._write() as db:
            db.execute(
                "INSERT INTO conversations (id, title, created_at, updated_at, mode) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET updated_at = excluded.updated_at, mode = excluded.mode",
                (conv.id, conv.title, conv.created_at, now, conv.mode),
            )
            db.execute("DELETE FROM turns WHERE conversation_id = ? AND position >= ?", (conv.id, len(rows)))
            db.executemany(
                "INSERT OR REPLACE INTO turns (conversation_id, position, question, answer, data) "
                "VALUES (?, ?, ?, ?, ?)",
                rows,
            )

    def load(self, conv_id: str) -> Conversation | None:
        with self._db() as db:
            row = db.execute(
                "SELECT title, created_at, mode FROM conversations WHERE id = ?", (conv_id,)
            ).fetchone()
            if row is None:
                return None
            turns = db.execute(
                "SELECT question, answer, data FROM turns WHERE conversation_id = ? ORDER BY position",
                (conv_id,),
            ).fetchall()
        mode: AnswerMode = "model" if row[2] == "model" else "documents"
        return Conversation(conv_id, [_turn(*t) for t in turns], row[0], row[1], mode)

    def list(self, search: str = "", limit: int = 200) -> list[ConversationSummary]:
        """Newest first; ``search`` matches titles, questions and answers (case-insensitive)."""
        where, args = "", []
        if search.strip():
            pattern = "%" + search.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            where = (
                "WHERE c.title LIKE ?1 ESCAPE '\\' OR EXISTS (SELECT 1 FROM turns s WHERE "
                "s.conversation_id = c.id AND (s.question LIKE ?1 ESCAPE '\\' OR s.answer LIKE ?1 ESCAPE '\\'))"
            )
            args = [pattern]
        with self._db() as db:
            rows = db.execute(
                "SELECT c.id, c.title, c.created_at, c.updated_at, "
                "(SELECT count(*) FROM turns t WHERE t.conversation_id = c.id), "
                "(SELECT question FROM turns t WHERE t.conversation_id = c.id ORDER BY position LIMIT 1) "
                f"FROM conversations c {where} ORDER BY c.updated_at DESC LIMIT {int(limit)}",
                args,
            ).fetchall()
        return [
            ConversationSummary(cid, _title(title, first), created, updated, n)
            for cid, title, created, updated, n, first in rows
        ]

    def rename(self, conv_id: str, title: str) -> bool:
        with self._write() as db:
            changed = db.execute("UPDATE conversations SET title = ? WHERE id = ?", (title.strip(), conv_id))
            return changed.rowcount > 0

    def delete(self, conv_id: str) -> bool:
        with self._write() as db:
            return db.execute("DELETE FROM conversations WHERE id = ?", (conv_id,)).rowcount > 0

    # -- the open conversation (restored on reload and restart) ---------------------------------------

    def remember_open(self, conv_id: str) -> None:
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES ('open', ?)", (conv_id,))

    def last_open(self) -> str | None:
        with self._db() as db:
            row = db.execute("SELECT value FROM settings WHERE key = 'open'").fetchone()
        return str(row[0]) if row else None


class DamagedStoreError(sqlite3.DatabaseError):
    """SQLite's integrity check found damage inside a file that opens."""


def _check(db: sqlite3.Connection) -> None:
    rows = db.execute("PRAGMA quick_check").fetchall()
    if [tuple(r) for r in rows] != [("ok",)]:
        log.error("conversation store failed its integrity check: %s", "; ".join(str(r[0]) for r in rows))
        raise DamagedStoreError("the file is damaged inside: SQLite's integrity check failed")


def _problem(err: sqlite3.DatabaseError, backup: Path, saved: Salvage) -> str:
    """The sentence the chat sidebar shows after the file was replaced."""
    if not saved.recovered:
        return (
            f"The saved conversations could not be read ({err}); they were moved to {backup} and a new, "
            "empty history was started."
        )
    missing = ""
    if saved.lost or not saved.complete:
        lost = f"{saved.lost} could not be read in full" if saved.lost else "Some could not be read"
        missing = f" {lost} and {'is' if saved.lost == 1 else 'are'} only in the damaged file."
    return (
        f"The saved conversations could not be read in full ({err}). The damaged file was moved to "
        f"{backup}; {saved.recovered} conversation{'s were' if saved.recovered != 1 else ' was'} copied from "
        f"it into a new history.{missing}"
    )


def _title(title: str, first_question: str | None) -> str:
    return Conversation(title=title, turns=[Turn(first_question or "")]).display_title


def _turn(question: str, answer: str, data: str) -> Turn:
    try:
        turn = loads(data)
        if not isinstance(turn, Turn):
            raise RecordError(f"a stored turn is a {type(turn).__name__}")
    except RecordError as err:
        log.warning("a stored turn could not be read in full (%s); keeping its text", err)
        note = "The details of this answer could not be read back."
        return Turn(question, answer, state="done", citations_available=False, citations_note=note)
    if turn.state == "running":  # the app stopped while it streamed
        turn.state, turn.status = "stopped", ""
    return turn
