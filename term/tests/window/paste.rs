//! Pasting into the application: Ctrl+Shift+V (the clipboard), Shift+Insert
//! and the middle button (the primary selection), bracketed when the
//! application enabled bracketed paste (mode 2004), with the bytes checked
//! where the application reads them.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::harness::{eventually, Xvfb};
use super::recording::Recorder;
use super::selection::{koi_with_recorder, GRID};

const PASTE_WAIT: Duration = Duration::from_secs(10);

/// An X selection owned by xclip (in the foreground, so the test can end
/// it) holding `text`.
struct Owned(Child);

impl Owned {
    fn new(x: &Xvfb, which: &str, text: &str) -> Self {
        let mut child = Command::new("xclip")
            .args(["-quiet", "-selection", which, "-i"])
            .env("DISPLAY", &x.display)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("xclip (apt-get install xclip)");
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, text.as_bytes()).unwrap();
        drop(stdin);
        eventually(&format!("xclip to own {which}"), PASTE_WAIT, || {
            x.selection(which) == text
        });
        Self(child)
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn wait_for(app: &Recorder, want: &[u8], what: &str) {
    eventually(what, PASTE_WAIT, || app.bytes() == want);
}

#[test]
fn pastes_are_bracketed_when_the_application_asks() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let (koi, app) = koi_with_recorder(&x, dir.path(), "\x1b[?2004h");
    let _clipboard = Owned::new(&x, "clipboard", "from clipboard\nline 2");
    let _primary = Owned::new(&x, "primary", "from primary");

    let mut want = b"\x1b[200~from clipboard\nline 2\x1b[201~".to_vec();
    koi.keys(&x, "ctrl+shift+v");
    wait_for(&app, &want, "the clipboard, bracketed");

    want.extend_from_slice(b"\x1b[200~from primary\x1b[201~");
    koi.keys(&x, "shift+Insert");
    wait_for(&app, &want, "PRIMARY by Shift+Insert, bracketed");

    want.extend_from_slice(b"\x1b[200~from primary\x1b[201~");
    let somewhere = koi.cell_center(&x, GRID, (5, 5));
    koi.click(&x, somewhere, 2, 1, &[]);
    wait_for(&app, &want, "PRIMARY by the middle button, bracketed");
}

#[test]
fn pastes_without_brackets_type_newlines_as_returns() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let (koi, app) = koi_with_recorder(&x, dir.path(), "");
    let _clipboard = Owned::new(&x, "clipboard", "one\ntwo");
    let _primary = Owned::new(&x, "primary", "three\nfour");

    let mut want = b"one\rtwo".to_vec();
    koi.keys(&x, "ctrl+shift+v");
    wait_for(&app, &want, "the clipboard");

    want.extend_from_slice(b"three\rfour");
    koi.keys(&x, "shift+Insert");
    wait_for(&app, &want, "PRIMARY by Shift+Insert");

    want.extend_from_slice(b"three\rfour");
    let somewhere = koi.cell_center(&x, GRID, (5, 5));
    koi.click(&x, somewhere, 2, 1, &[]);
    wait_for(&app, &want, "PRIMARY by the middle button");
}
