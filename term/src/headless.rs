//! `koi --headless`: run a command in a PTY, wait for it, report the screen.
//! The scripting and testing entry point: no window, no GPU needed (unless a
//! screenshot is asked for).

use std::time::Duration;

use crate::session::{ExitStatus, GridSize, Session, SessionError, SessionOptions};
use crate::snapshot::Snapshot;

/// What `--dump` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum DumpFormat {
    /// The screen's text, one line per row.
    #[default]
    Text,
    /// Every cell with its colours and attributes.
    Json,
}

/// The result of a headless run.
pub struct Outcome {
    pub status: ExitStatus,
    pub snapshot: Snapshot,
}

/// Run `command` in a `size` PTY until it exits (or `timeout` passes, in
/// which case it is hung up) and capture the final screen.
pub fn run(
    command: Vec<String>,
    size: GridSize,
    working_directory: Option<std::path::PathBuf>,
    timeout: Option<Duration>,
) -> Result<Outcome, SessionError> {
    let options = SessionOptions {
        command: Some(command),
        size,
        working_directory,
        ..SessionOptions::default()
    };
    let session = Session::spawn(options, || {})?;
    let status = session.wait_exit(timeout);
    let snapshot = Snapshot::capture(&*session.terminal().lock());
    let status = match status {
        Some(status) => status,
        None => {
            drop(session);
            ExitStatus {
                code: 124,
                signal: Some("timeout".into()),
            }
        }
    };
    Ok(Outcome { status, snapshot })
}

/// Render `outcome`'s screen as `format` for stdout.
pub fn dump(snapshot: &Snapshot, format: DumpFormat) -> String {
    match format {
        DumpFormat::Text => snapshot.text(),
        DumpFormat::Json => {
            // Serializing plain strings and numbers cannot fail.
            serde_json::to_string(snapshot).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
                + "\n"
        }
    }
}
