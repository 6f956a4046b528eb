//! `koi --headless`: run a command in a PTY, wait for it, report the screen.
//! The scripting and testing entry point: no window, and no GPU unless a
//! screenshot is asked for.

use std::path::PathBuf;
use std::time::Duration;

use crate::frame::{CursorOptions, FrameBuilder};
use koi_terminal::palette::Palette;
use koi_terminal::session::{ExitStatus, GridSize, Session, SessionError, SessionOptions};
use koi_terminal::snapshot::Snapshot;

/// What `--dump` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum DumpFormat {
    /// The screen's text, one line per row.
    #[default]
    Text,
    /// Every cell with its colours and attributes.
    Json,
}

/// Status reported when `--timeout` passes, as coreutils' `timeout` does.
pub const TIMEOUT_STATUS: u32 = 124;

/// A headless run's inputs.
pub struct Headless {
    pub command: Vec<String>,
    pub size: GridSize,
    pub working_directory: Option<PathBuf>,
    /// Hang the command up after this long.
    pub timeout: Option<Duration>,
    /// The theme applications see when they query colours.
    pub palette: Palette,
}

/// The result of a headless run.
pub struct Outcome {
    pub status: ExitStatus,
    pub snapshot: Snapshot,
    /// The final screen as the renderer would draw it.
    pub frame: render::Frame,
}

impl Headless {
    /// Run the command until it exits (or the timeout passes, in which case
    /// it is hung up) and capture the final screen.
    pub fn run(self) -> Result<Outcome, SessionError> {
        let options = SessionOptions {
            command: Some(self.command),
            size: self.size,
            working_directory: self.working_directory,
            palette: self.palette,
            ..SessionOptions::default()
        };
        let session = Session::spawn(options, || {})?;
        let status = session.wait_exit(self.timeout);
        let (snapshot, frame) = {
            let term = session.terminal().lock();
            let cursor = CursorOptions {
                focused: true,
                blinked_off: false,
            };
            let mut frame = FrameBuilder::default()
                .build_from(&term, cursor, render::Damage::Full)
                .clone();
            frame.pictures = session.graphics().lock().tiles(&term);
            (Snapshot::capture(&term), frame)
        };
        let status = status.unwrap_or(ExitStatus {
            code: TIMEOUT_STATUS,
            signal: Some("timeout".into()),
        });
        Ok(Outcome {
            status,
            snapshot,
            frame,
        })
    }
}

/// The screen as `format`, for stdout.
pub fn dump(snapshot: &Snapshot, format: DumpFormat) -> String {
    match format {
        DumpFormat::Text => snapshot.text(),
        DumpFormat::Json => match serde_json::to_string(snapshot) {
            Ok(json) => json + "\n",
            Err(e) => format!("{{\"error\":{:?}}}\n", e.to_string()),
        },
    }
}
