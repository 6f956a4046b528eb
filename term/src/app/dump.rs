//! `--dump-on-exit PATH`: what the user saw when the window closed, for
//! end-to-end tests: the grid's text at PATH, the frame at PATH.png and the
//! assistant panel at PATH.overlay, and every pane's screen at PATH.panes.
//!
//! PATH.overlay is also kept current while koi runs (rewritten after each
//! key the panel handles and each batch of engine events), so a test can
//! wait for what the panel shows (the approval dialog is up, the turn has
//! ended) instead of guessing how long that takes; PATH.screen likewise
//! holds the focused pane's screen as of the last frame.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::display::Display;
use crate::overlay::Overlay;
use koi_terminal::snapshot::Snapshot;
use koi_terminal::Session;

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name: OsString = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn write(path: &Path, result: std::io::Result<()>) {
    if let Err(e) = result {
        eprintln!("koi: could not write {}: {e}", path.display());
    }
}

/// Append pane `id`'s screen to `PATH.panes`, headed by its id and size,
/// as it was when it closed (or when the window did).
pub fn append_pane(path: &Path, id: u64, session: &Session) {
    use std::io::Write as _;
    let size = session.size();
    let text = Snapshot::capture(&*session.terminal().lock()).text();
    let panes = with_suffix(path, ".panes");
    let result = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&panes)
        .and_then(|mut file| {
            writeln!(file, "== pane {id} {}x{} ==", size.cols, size.rows)?;
            file.write_all(text.as_bytes())?;
            writeln!(file)
        });
    write(&panes, result);
}

/// Write PATH.suggest: the focused pane's `#` status bar (empty when none).
pub fn write_suggest(path: &Path, status: Option<&str>) {
    let file = with_suffix(path, ".suggest");
    let text = status.map(|s| format!("{s}\n")).unwrap_or_default();
    write(&file, std::fs::write(&file, text));
}

/// Write the panel's state and text to PATH.overlay.
pub fn write_overlay(path: &Path, overlay: &mut Overlay) {
    let state = if overlay.is_open() { "open" } else { "closed" };
    let text = format!("overlay: {state}\n{}\n", overlay.text_dump());
    write_whole(&with_suffix(path, ".overlay"), &text);
}

/// Write the focused pane's screen to PATH.screen, as of the frame just
/// drawn: tests wait for what the screen shows instead of guessing how
/// long the shell takes to echo or redraw.
pub fn write_screen(path: &Path, session: &Session) {
    let text = Snapshot::capture(&*session.terminal().lock()).text();
    write_whole(&with_suffix(path, ".screen"), &text);
}

/// Replace the file at `path` with `text` whole: a reader polling it never
/// sees half a file.
fn write_whole(path: &Path, text: &str) {
    let partial = with_suffix(path, ".tmp");
    let result = std::fs::write(&partial, text).and_then(|()| std::fs::rename(&partial, path));
    write(path, result);
}

/// Write the three files; failures are reported, never fatal.
pub fn write_all(path: &Path, session: &Session, display: &mut Display, overlay: &mut Overlay) {
    // The final screen of the focused pane (the caller composed the
    // frame the PNG shows).
    let text = Snapshot::capture(&*session.terminal().lock()).text();
    write(path, std::fs::write(path, text));

    write_overlay(path, overlay);

    let png = with_suffix(path, ".png");
    if let Err(e) = display.save_png(&png) {
        eprintln!("koi: could not write {}: {e}", png.display());
    }
}
