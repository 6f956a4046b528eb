//! Helpers for driving a real shell in a real PTY.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use koi_terminal::snapshot::Snapshot;
use koi_terminal::{GridSize, Session, SessionOptions};

/// Generous: CI machines are shared and slow, and these waits end early on success.
pub const WAIT: Duration = Duration::from_secs(20);

pub fn spawn(cmd: &[&str], cols: u16, rows: u16) -> Session {
    let options = SessionOptions {
        command: Some(cmd.iter().map(|s| s.to_string()).collect()),
        size: GridSize::new(cols, rows),
        ..SessionOptions::default()
    };
    Session::spawn(options, || {}).expect("spawn session")
}

pub fn sh(script: &str) -> Session {
    spawn(&["sh", "-c", script], 80, 24)
}

pub fn snapshot(session: &Session) -> Snapshot {
    Snapshot::capture(&*session.terminal().lock())
}

/// Wait until `pred` holds for the screen, or panic showing the screen.
pub fn wait_for(session: &Session, what: &str, pred: impl Fn(&Snapshot) -> bool) -> Snapshot {
    koi_testkit::poll::until(what, WAIT, || {
        let snap = snapshot(session);
        if pred(&snap) {
            Ok(snap)
        } else {
            Err(format!("screen:\n{}", snap.text()))
        }
    })
}

pub fn wait_text(session: &Session, needle: &str) -> Snapshot {
    wait_for(session, needle, |s| s.contains(needle))
}

/// Run a script to completion and return its final screen.
pub fn run_to_exit(session: &Session) -> Snapshot {
    session.wait_exit(Some(WAIT)).expect("command should exit");
    snapshot(session)
}

/// Send `query` from inside the PTY and return the raw reply bytes the
/// terminal wrote back, read in raw mode and printed as hex by `od`.
pub fn query_reply(query: &str) -> Vec<u8> {
    query_reply_script(&format!("printf '{query}'"))
}

/// Like [`query_reply`], with the shell commands that send the request.
#[allow(dead_code)]
pub fn query_reply_script(send: &str) -> Vec<u8> {
    let script = format!(
        "stty raw -echo min 0 time 10; {send}; reply=$(dd bs=256 count=1 2>/dev/null | od -An -tx1 | tr -d ' \\n'); stty sane; echo \"REPLY:$reply:END\""
    );
    let session = sh(&script);
    let snap = run_to_exit(&session);
    let text = snap.lines.join("");
    let start = text.find("REPLY:").expect("reply marker") + "REPLY:".len();
    let end = text[start..].find(":END").expect("end marker") + start;
    let hex = &text[start..end];
    (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}
