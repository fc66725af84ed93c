"""The page's look: CSS, the script that keeps dropped folders' subfolders, and the theme (local fonts only)."""

from __future__ import annotations

import gradio as gr

CSS = """
.kimas-citation { margin: 0.25em 0; }
.kimas-citation summary { cursor: pointer; }
.kimas-quotes { margin-bottom: 0.6em; }
.kimas-quote-label { font-size: 0.85em; opacity: 0.75; }
.kimas-quote { margin: 0.3em 0 0.1em 0; padding-left: 0.7em; border-left: 3px solid var(--color-accent);
  font-style: italic; }
mark.kimas-cited { background: var(--color-accent-soft); padding: 0 0.1em; }
mark.kimas-answering { background: var(--color-accent-soft); padding: 0 0.1em; font-weight: 600; }
.kimas-unsupported { text-decoration: underline dotted; text-decoration-color: #c2410c; }
.kimas-flag { color: #c2410c; }
.kimas-marker a { text-decoration: none; font-size: 0.85em; margin-left: 0.1em; }
.kimas-support-note { font-size: 0.85em; color: #c2410c; }
.kimas-chunk { white-space: normal; margin: 0.4em 0 0.4em 1.2em; padding-left: 0.6em;
  border-left: 3px solid var(--border-color-primary); font-size: 0.92em; }
.kimas-heading { margin-left: 1.2em; font-size: 0.85em; opacity: 0.75; }
.kimas-open { margin-left: 1.2em; font-size: 0.85em; }
.kimas-progress { padding: 0.5em 0; }
.kimas-progress.idle { opacity: 0.8; }
.kimas-bar { height: 10px; border-radius: 5px; background: var(--border-color-primary); overflow: hidden;
  margin-top: 0.35em; }
.kimas-bar > div { height: 100%; background: var(--color-accent); transition: width 0.4s; }
.kimas-waiting { font-size: 0.85em; opacity: 0.75; }
#model-status p, #settings-model-status p { margin: 0; }
/* The Chat tab fits the window (1366x768 included) without page scrolling: its column takes the height
   below the page's header, the question box and its buttons keep their size, and the chat pane takes the
   rest (it scrolls inside). A window too low for that (under about 560 px) scrolls the page instead. */
#chat-main { height: calc(100dvh - 170px); min-height: 390px; flex-wrap: nowrap; gap: 8px; }
#chat-main > * { flex: 0 0 auto; }
#chat-feedback:not(:has(p)) { display: none; }
#send-note, #send-note p { font-size: var(--text-sm); opacity: 0.85; }
#chat-main > #chatbot { flex: 1 1 0; min-height: 160px; }
#chat-main > #chatbot > .wrapper { height: 100%; }
/* The Knowledge tab: the main actions at the tops of its two columns (choose, create, drop, watch on the
   right; the collections and the selected one's files on the left), in the window at 1366x768 without
   scrolling; the rest (rename, settings, online sources) follows below. The columns are not scroll boxes:
   a dropdown opened low in one was clicked through to the wrong option. A long list of collections
   scrolls inside, so the file list stays near the top. */
#knowledge-main > .column { gap: 10px; }
#knowledge-main #collections { max-height: 40dvh; overflow-y: auto; }
#drop-zones { gap: 10px; }
footer { display: none !important; }
.kimas-hidden { display: none !important; }
#upload-folder button .wrap, #upload-files button .wrap { font-size: 0; }
/* The zones' captions come from the hidden translated #upload-*-caption (ui.i18n; copied by the script) */
#upload-folder button .wrap::after { content: var(--kimas-caption,
  "Drop a folder here (its subfolders are kept), or click to choose one"); font-size: var(--text-md); }
#upload-files button .wrap::after { content: var(--kimas-caption, "Drop files here, or click to choose some");
  font-size: var(--text-md); }
.kimas-docs table { width: 100%; border-collapse: collapse; font-size: 0.92em; }
.kimas-docs th, .kimas-docs td { text-align: left; padding: 0.2em 0.5em;
  border-bottom: 1px solid var(--border-color-primary); }
.kimas-docs td.num { text-align: right; }
.kimas-doc-problem { color: #c2410c; }
.kimas-doc-dismissed { opacity: 0.7; }
.kimas-docs-count { margin-bottom: 0.3em; }
.kimas-doc-card { margin-top: 0.8em; padding: 0.5em 0.8em; border-left: 3px solid var(--color-accent, #f97316);
  background: var(--background-fill-secondary); font-size: 0.92em; }
.kimas-doc-card ul { list-style: none; padding-left: 0.5em; margin: 0.2em 0; }
"""

# The page's script. Gradio's drop zone takes dataTransfer.files, where a dropped folder is one empty entry:
# this walks dropped folders (webkitGetAsEntry) and hands their files to the zone's own file input instead;
# drops without folders are left to Gradio. It also shows the translated words Gradio's widgets have no key
# for (the drop zones' captions, the chat's "Scroll down" button), from hidden translated Markdown.
PAGE_JS = """
() => {
  const ZONES = "#upload-folder, #upload-files";
  function tellPaths(paths) {  // the files' paths inside the folder, for the upload handler
    const box = document.querySelector("#upload-folder-paths textarea");
    if (!box) return;
    box.value = JSON.stringify(paths);
    box.dispatchEvent(new Event("input", { bubbles: true }));
  }
  function caption() {  // each drop zone shows its translated caption (a hidden Markdown holds it)
    for (const zone of document.querySelectorAll(ZONES)) {
      const text = (document.getElementById(zone.id + "-caption") || {}).textContent || "";
      const value = JSON.stringify(text.trim());
      if (text.trim() && zone.style.getPropertyValue("--kimas-caption") !== value)
        zone.style.setProperty("--kimas-caption", value);
    }
  }
  function scrollLabel() {  // the chat's "Scroll down" button is labelled in English by Gradio (6.31)
    const text = ((document.getElementById("chatbot-scroll-caption") || {}).textContent || "").trim();
    if (!text) return;
    for (const button of document.querySelectorAll("#chatbot .scroll-down-button-container button"))
      for (const name of ["aria-label", "title"])
        if (button.hasAttribute(name) && button.getAttribute(name) !== text) button.setAttribute(name, text);
  }
  function translate() { caption(); scrollLabel(); }
  translate();
  new MutationObserver(translate).observe(document.body, { childList: true, subtree: true });
  document.addEventListener("click", (event) => {  // an inline [n] opens the source it points to
    const link = event.target instanceof Element ? event.target.closest(".kimas-marker a") : null;
    const target = link ? document.getElementById((link.getAttribute("href") || "").slice(1)) : null;
    if (target instanceof HTMLDetailsElement) target.open = true;
  }, true);
  document.addEventListener("change", (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || !input.closest("#upload-folder") || !input.files) return;
    const paths = Array.from(input.files).map((f) => f.webkitRelativePath || "");
    if (paths.every((p) => p.includes("/"))) tellPaths(paths);
  }, true);
  async function filesOf(entry) {
    if (entry.isFile) return [{ file: await new Promise((ok, fail) => entry.file(ok, fail)), path: entry.fullPath }];
    if (!entry.isDirectory) return [];
    const reader = entry.createReader();
    const out = [];
    for (;;) {
      const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
      if (!batch.length) return out;
      for (const e of batch) out.push(...(await filesOf(e)));
    }
  }
  document.addEventListener("drop", async (event) => {
    const zone = event.target instanceof Element ? event.target.closest(ZONES) : null;
    if (!zone || !event.dataTransfer) return;
    const entries = Array.from(event.dataTransfer.items || [])
      .map((item) => (item.webkitGetAsEntry ? item.webkitGetAsEntry() : null))
      .filter(Boolean);
    if (!entries.some((e) => e.isDirectory)) return;
    event.preventDefault();
    event.stopPropagation();
    const area = event.target.closest(".upload-container") || zone;
    area.dispatchEvent(new DragEvent("dragleave", { bubbles: false }));
    const input = zone.querySelector("input[type=file]");
    const found = (await Promise.all(entries.map(filesOf))).flat();
    const files = found.map((f) => f.file);
    if (!input || !files.length) return;
    if (zone.id === "upload-folder") tellPaths(found.map((f) => f.path.slice(1)));
    const transfer = new DataTransfer();
    files.forEach((f) => transfer.items.add(f));
    input.files = transfer.files;
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }, true);
}
"""

# Local fonts only: the default theme would fetch Google Fonts (the app works offline and sends nothing).
THEME = gr.themes.Soft(
    font=["ui-sans-serif", "system-ui", "Segoe UI", "Roboto", "sans-serif"],
    font_mono=["ui-monospace", "SFMono-Regular", "Consolas", "monospace"],
)
