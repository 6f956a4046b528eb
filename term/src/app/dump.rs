//! `--dump-on-exit PATH`: what the user saw when the window closed, for
//! end-to-end tests: the grid's text at PATH, the frame at PATH.png and the
//! assistant panel at PATH.overlay.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::display::Display;
use crate::overlay::Overlay;
use crate::snapshot::Snapshot;
use crate::Session;

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

/// Write the three files; failures are reported, never fatal.
pub fn write_all(path: &Path, session: &Session, display: &mut Display, overlay: &mut Overlay) {
    // The final screen, drawn as the next frame would have shown it.
    let text = {
        let mut term = session.terminal().lock();
        display.build(&mut term);
        Snapshot::capture(&*term).text()
    };
    write(path, std::fs::write(path, text));

    let overlay_path = with_suffix(path, ".overlay");
    let state = if overlay.is_open() { "open" } else { "closed" };
    let overlay_text = format!("overlay: {state}\n{}\n", overlay.text_dump());
    write(&overlay_path, std::fs::write(&overlay_path, overlay_text));

    let png = with_suffix(path, ".png");
    if let Err(e) = display.save_png(&png) {
        eprintln!("koi: could not write {}: {e}", png.display());
    }
}
