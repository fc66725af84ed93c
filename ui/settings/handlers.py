"""Settings tab handlers as plain functions of the app (``DesktopApp``) and the widgets' values.

The model catalog (per role: size, RAM need, whether it fits this machine, installed or in use), its
downloads (progress with bytes, speed and ETA; cancel), switching models, and the settings form (the
preset radio says "custom" once the switches differ from the preset; Restore defaults).
``ui/settings/layout.py`` binds them to widgets; tests call them directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from app.desktop import ActionResult, DesktopApp
from app.models.catalog import CatalogEntry, DownloadProgress, ModelStatus, choice, machine_ram_mb
from app.models.downloads import DownloadState
from app.outcomes import Said
from app.settings import rules as settings_rules
from app.settings.form import SettingsForm
from kimas_desktop.errors import KimasError
from ui.i18n import Language, told, word
from ui.markup import outcome_markdown
from ui.settings.words import CATALOG, LANGUAGES

ROLE_TITLES = {
    "chat": "Chat models",
    "embedding": "Embedding models",
    "reranker": "Rerankers",
    "reader": "Readers",
}


def _mb(n: float) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.1f} MB"


def _size(size_mb: int) -> str:
    return f"{size_mb / 1000:.1f} GB" if size_mb >= 1000 else f"{size_mb} MB"


def _in_use(desk: DesktopApp, status: ModelStatus) -> bool:
    if status.installed is None:
        return False
    try:
        picked = choice(desk.runtime.paths, status.entry.name, desk.models.catalog_file)
    except KimasError:
        return False
    config = desk.config
    wanted = config.updated(**settings_rules.with_choice(config, picked.section, picked.as_dict()))
    return bool(getattr(wanted, picked.section) == getattr(config, picked.section))


def _state_cell(
    desk: DesktopApp, status: ModelStatus, download: DownloadState | None, language: Language = "en"
) -> str:
    if download is not None and download.phase == "downloading":
        p = download.progress
        pct = f" {p.fraction:.0%}" if p is not None and p.fraction is not None else ""
        return word("cat_downloading", language, pct=pct)
    if status.installed is None:
        return word("cat_not_installed", language)
    if _in_use(desk, status):
        return word("cat_in_use", language)
    return word("cat_installed", language) + ("" if status.verified else word("cat_unverified", language))


def _details(entry: CatalogEntry, language: Language = "en") -> str:
    bits = [entry.params, entry.quantization]
    if entry.context:
        bits.append(word("cat_context", language, k=entry.context // 1024))
    if entry.dim:
        bits.append(word("cat_dims", language, n=entry.dim))
    if entry.languages:
        bits.append(LANGUAGES.get(entry.languages, entry.languages) if language == "zh" else entry.languages)
    bits.append(entry.licence)
    return " · ".join(escape(b) for b in bits if b)


def _described(entry: CatalogEntry, language: Language) -> tuple[str, str]:
    """The entry's title and notes in ``language`` (the catalog's own: English)."""
    title, notes = CATALOG.get(entry.name, ("", "")) if language == "zh" else ("", "")
    return title or entry.title, notes or entry.notes


def catalog_html(desk: DesktopApp, language: Language = "en") -> str:
    """Per role, the recommended models: size, RAM need, fits this machine or not, installed or not."""
    try:
        rows = desk.models.status()
    except KimasError as err:
        return f"<p>⚠ {escape(desk.explain(err, 'reading the model catalog'))}</p>"
    downloads = desk.models.states()
    ram = machine_ram_mb()
    out = [
        f"<p class='kimas-machine'>{word('cat_ram', language, gb=f'{ram / 1024:.1f}')}</p>"
        if ram
        else f"<p>{word('cat_ram_unknown', language)}</p>"
    ]
    for role in ROLE_TITLES:
        items = [s for s in rows if s.entry.role == role]
        if not items:
            continue
        out.append(
            f"<h4>{word(f'cat_{role}', language)}</h4><table class='kimas-catalog' data-role='{role}'>"
        )
        out.append(word("cat_columns", language))
        for s in items:
            e = s.entry
            title, notes = _described(e, language)
            fits = "✓" if s.fits else word("cat_too_big", language)
            note = f"<br><small>{escape(notes)}</small>" if notes else ""
            size = word("cat_built_in", language) if e.embedded else _size(e.size_mb)
            out.append(
                f"<tr data-model='{escape(e.name)}'><td><b>{escape(title)}</b> "
                f"<code>{escape(e.name)}</code><br><small>{_details(e, language)}</small>{note}</td>"
                f"<td>{size}</td><td>{_size(e.ram_mb)}</td><td>{fits}</td>"
                f"<td>{_state_cell(desk, s, downloads.get(e.name), language)}</td></tr>"
            )
        out.append("</table>")
    return "".join(out)


def model_choices(desk: DesktopApp, language: Language = "en") -> list[tuple[str, str]]:
    """(label, name) for the model picker, in ``language``."""
    try:
        entries = desk.models.catalog()
    except KimasError:
        return []
    if language != "zh":  # Japanese and Hindi: the Settings tab is English (``ui.i18n.column``)
        return [(f"{ROLE_TITLES[e.role][:-1]}: {e.title}", e.name) for e in entries]
    return [(f"{word(f'cat_{e.role}', language)}：{_described(e, language)[0]}", e.name) for e in entries]


def model_in_use(desk: DesktopApp) -> str | None:
    """The catalog name of the chat model in use, for the picker's value (None: one outside the catalog)."""
    try:
        rows = desk.models.status()
    except KimasError:
        return None
    return next((s.entry.name for s in rows if s.entry.role == "chat" and _in_use(desk, s)), None)


def _progress_line(p: DownloadProgress, language: Language) -> str:
    if p.phase == "connecting":
        return word("dl_connecting", language)
    if p.phase == "verifying":
        return word("dl_verifying", language)
    size = word("dl_of", language, done=_mb(p.done), total=_mb(p.total)) if p.total else _mb(p.done)
    pct = f" ({p.fraction:.0%})" if p.fraction is not None else ""
    speed = f" · {_mb(p.bytes_per_s)}/s" if p.bytes_per_s else ""
    eta = ""
    if p.eta_s is not None and p.phase == "downloading":
        eta = word("dl_left", language, s=f"{p.eta_s:.0f}")
    return f"{size}{pct}{speed}{eta}"


def _download_line(d: DownloadState, language: Language) -> str:
    """One download's line: progress, done, failed (why) or cancelled."""
    who = f"<b>{escape(d.name)}</b>"
    if d.phase == "downloading":
        p = d.progress
        width = int(100 * (p.fraction or 0)) if p is not None else 0
        text = _progress_line(p, language) if p is not None else word("dl_starting", language)
        return (
            f"<div class='kimas-download' data-phase='downloading'>"
            f"{word('dl_downloading', language, who=who, text=escape(text))}"
            f"<div class='kimas-bar'><div style='width:{width}%'></div></div></div>"
        )
    if d.phase == "done":
        message = d.message
        if d.result is not None:
            check = word("dl_checked" if d.result.verified else "dl_no_hash", language)
            message = word("dl_installed", language, path=d.result.path, check=check)
        said = word("dl_done", language, who=who, message=escape(message))
        return f"<div class='kimas-download' data-phase='done'>{said}</div>"
    if d.phase == "failed":
        said = word("dl_failed", language, who=who, message=escape(told(d.said, d.message, language)))
        return f"<div class='kimas-download' data-phase='failed'>{said}</div>"
    got = word("dl_at", language, size=_mb(d.progress.done)) if d.progress is not None else ""
    said = word("dl_cancelled", language, who=who, got=got)
    return f"<div class='kimas-download' data-phase='cancelled'>{said}</div>"


def downloads_html(desk: DesktopApp, language: Language = "en") -> str:
    """One line per download asked for in this session, in ``language``."""
    return "".join(_download_line(d, language) for _, d in sorted(desk.models.states().items()))


def download(desk: DesktopApp, name: str | None, language: Language = "en") -> tuple[str, str, None]:
    """The message, the downloads panel, and the poll's ``seen`` cleared. The panel is the one place a
    download's state shows (issue 46: offline, the message said "Downloading … in the background" beside
    the panel's "cannot connect"), so the message is emptied once the download starts.

    This answer goes through Gradio's queue, the poll's do not: it may reach the page after a poll that
    already drew the download's end (issue 69: offline, "starting…" stayed until a reload, the failure in
    the log). With ``seen`` cleared, the next poll draws the panel again, whichever came last."""
    if not name:
        return outcome_markdown(_choose_model(), language), downloads_html(desk, language), None
    desk.models.start(name)
    return "", downloads_html(desk, language), None


def cancel_download(desk: DesktopApp, name: str | None, language: Language = "en") -> str:
    if name and desk.models.cancel(name):
        return word("set_download_stopping", language, name=escape(name))
    return word("set_no_download", language)


def _choose_model() -> ActionResult:
    english = word("app_choose_model", "en")
    return ActionResult(False, english, Said(english, "choose_model"))


def use_model(desk: DesktopApp, name: str | None, language: Language = "en") -> str:
    if not name:
        return outcome_markdown(_choose_model(), language)
    return outcome_markdown(desk.settings.use_model(name), language)


@dataclass(frozen=True)
class SettingsPoll:
    version: tuple[int, int]
    catalog_html: str
    downloads_html: str


def poll(desk: DesktopApp, seen: tuple[int, int] | None, language: Language = "en") -> SettingsPoll | None:
    """What the models part of the tab shows, with the version it was drawn at; None when nothing changed
    since ``seen`` (cheap). The page keeps a version only with the views drawn at it: a version stored
    beside an older panel would hide every later change."""
    version = (desk.version, desk.models.version)
    if seen is not None and tuple(seen) == version:
        return None
    return SettingsPoll(version, catalog_html(desk, language), downloads_html(desk, language))


# -- the settings form ---------------------------------------------------------------------------------


def load_settings(desk: DesktopApp) -> SettingsForm:
    return desk.settings.form()


def preset_changed(desk: DesktopApp, preset: str) -> SettingsForm:
    return desk.settings.preset_form(preset)


def form_preset(desk: DesktopApp, form: SettingsForm) -> str:
    return desk.settings.form_preset(form)


def save_settings(desk: DesktopApp, form: SettingsForm, language: Language = "en") -> tuple[str, str]:
    """The message, and the preset the radio shows for the config as saved."""
    return outcome_markdown(desk.settings.save(form), language), desk.settings.form().preset


def restore_defaults(desk: DesktopApp, language: Language = "en") -> tuple[str, SettingsForm]:
    return outcome_markdown(desk.settings.restore_defaults(), language), desk.settings.form()
