"""``ConfigStore``: the config of a running app, and the one way to change it.

Every change (a collection created or removed, a folder added, settings saved) goes through ``update``:
read, modify and write under one lock, so two changes made at the same time are both kept. The lock is
held across processes too (``filelock`` on a lock file next to the config), and a config
another process wrote meanwhile (``kimas index`` while the app runs) is read again before it is changed.
The file is replaced atomically (``save_config``): a crash leaves the old one.

``save_config`` writes with ``tomlkit``, a TOML library: every string is escaped (a control character typed
into a description or found in a folder's name can no longer make the file unreadable), and the file the
user wrote keeps its comments, its order and the settings they spelled out.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import tomlkit
from filelock import FileLock
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import Table

from kimas_desktop.config import Config, load_config, preset_data
from kimas_desktop.errors import ConfigError

__all__ = ["ConfigStore", "save_config"]


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_mtime_ns, st.st_size


class ConfigStore:
    def __init__(self, path: Path, config: Config) -> None:
        self.path = path
        self._config = config
        self._lock = threading.Lock()
        self._seen = _stamp(path)

    @property
    def current(self) -> Config:
        return self._config

    def update(self, change: Callable[[Config], Config]) -> Config:
        """Apply ``change`` to the current config and save the result; returns it.

        ``change`` runs under the lock and may raise (a ``ConfigError`` with a sentence) to change nothing.
        """
        with self._lock, FileLock(self.path.with_name(self.path.name + ".lock")):
            current = self._config
            if _stamp(self.path) != self._seen:  # another process wrote the file
                current = load_config(self.path)
            new = change(current)
            save_config(new, self.path)
            self._config = new
            self._seen = _stamp(self.path)
            return new


# -- writing ------------------------------------------------------------------------------------------


def _existing(path: Path) -> tomlkit.TOMLDocument:
    """The user's file as a document (comments and all), or an empty one when there is none yet. A file
    that cannot be read is a ``ConfigError`` and is not written over (what is in it would be lost)."""
    try:
        return tomlkit.parse(path.read_text("utf-8"))
    except FileNotFoundError:
        return tomlkit.document()
    except (OSError, UnicodeDecodeError, TOMLKitError) as err:
        raise ConfigError(
            f"the config file {path} cannot be read ({err}), so the change was not saved; KIMAs has not "
            "changed the file."
        ) from None


def _plain(value: Any) -> Any:
    return value.unwrap() if hasattr(value, "unwrap") else value


def _put(table: Any, key: str, value: Any) -> None:
    """``table[key] = value`` unless it holds that already (so its comment and layout stay)."""
    if key not in table or _plain(table[key]) != value:
        table[key] = value


def _section(doc: Any, name: str) -> Any:
    if name not in doc or not isinstance(doc[name], Table):
        doc[name] = tomlkit.table()
    return doc[name]


def _write_section(doc: Any, name: str, values: Mapping[str, Any], base: Mapping[str, Any]) -> None:
    """A settings section: the values that differ from the preset, and those the file spells out."""
    present = doc.get(name)
    for key, value in values.items():
        if value != base.get(key) or (isinstance(present, Table) and key in present):
            _put(_section(doc, name), key, value)


NAMED = ("collections", "sources")  # tables of named entries, written in full as [collections.NAME]


def _write_named(doc: Any, key: str, entries: Mapping[str, Mapping[str, Any]]) -> None:
    if not entries and key not in doc:
        return
    table = doc.get(key)
    if not isinstance(table, Table):
        table = tomlkit.table(is_super_table=True)  # written as [key.NAME] headers
        doc[key] = table
    for gone in [n for n in table if n not in entries]:
        del table[gone]
    for name, values in entries.items():
        if name not in table or not isinstance(table[name], Table):
            table[name] = tomlkit.table()
        entry: Any = table[name]
        for k, value in values.items():
            if k == "title" and not value:  # untitled: the file stays readable by versions before titles
                entry.pop(k, None)
            else:
                _put(entry, k, value)


def save_config(config: Config, path: Path) -> None:
    """Write ``config`` to ``path`` atomically (a crash leaves the old file): the settings that differ
    from its preset, the collections and online sources in full, and the user's comments and explicit
    settings kept."""
    doc = _existing(path)
    base = Config.model_validate(preset_data(config.preset)).model_dump()
    data = config.model_dump()
    _put(doc, "preset", config.preset)
    for name, values in data.items():
        if name not in ("preset", *NAMED):
            _write_section(doc, name, values, base[name])
    for name in NAMED:
        _write_named(doc, name, data[name])
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(tomlkit.dumps(doc), "utf-8")
    os.replace(tmp, path)
