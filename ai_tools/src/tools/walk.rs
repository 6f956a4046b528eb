//! The directory walk `grep_search` and `file_tree` share: ripgrep's
//! `ignore` walker, kept away from files that would hang it.
//!
//! The walker opens each directory's `.gitignore`, `.ignore` and
//! `.git/info/exclude` with a blocking open, so a FIFO under one of those
//! names would stop the walk for good. A directory holding one is not
//! entered (and the walk of a root holding one is refused); FIFOs, devices
//! and sockets met along the way are skipped and counted.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use ignore::WalkBuilder;

use crate::error::ToolError;
use crate::tools::bounded_file::SpecialKind;

/// Files the walker reads in each directory it enters.
const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".git/info/exclude"];

/// The first ignore file in `dir` that is not a regular file.
fn unreadable_ignore_file(dir: &Path) -> Option<(PathBuf, SpecialKind)> {
    IGNORE_FILES.iter().find_map(|name| {
        let path = dir.join(name);
        let meta = std::fs::metadata(&path).ok()?;
        SpecialKind::of(meta.file_type()).map(|kind| (path, kind))
    })
}

/// What a walk left out because it could not be read safely.
#[derive(Debug, Default)]
pub struct Skipped {
    /// FIFOs, devices and sockets.
    special: AtomicUsize,
    /// Directories not entered because an ignore file in them is special.
    dirs: Mutex<Vec<PathBuf>>,
}

impl Skipped {
    /// Count a skipped FIFO, device or socket.
    pub fn special_file(&self) {
        self.special.fetch_add(1, Ordering::Relaxed);
    }

    /// A note for the model on what was skipped, empty when nothing was.
    pub fn note(&self, ws: &crate::workspace::Workspace) -> String {
        let mut out = String::new();
        let special = self.special.load(Ordering::Relaxed);
        if special > 0 {
            out.push_str(&format!(
                "[{special} FIFOs, devices or sockets were skipped: only regular files are read]\n"
            ));
        }
        let dirs = self.dirs.lock().unwrap_or_else(PoisonError::into_inner);
        for dir in dirs.iter() {
            out.push_str(&format!(
                "[{}/ was not entered: an ignore file in it is not a regular file]\n",
                ws.display(dir)
            ));
        }
        out
    }
}

/// A walker over `root` that skips special files and directories whose
/// ignore files are special, recording both in the returned [`Skipped`].
/// Refused outright when `root` or one of its parents (whose ignore files
/// the walker also reads) holds such a file.
pub fn safe_walker(root: &Path, shown: &str) -> Result<(WalkBuilder, Arc<Skipped>), ToolError> {
    for dir in root.ancestors() {
        if let Some((path, kind)) = unreadable_ignore_file(dir) {
            return Err(ToolError::Failed(format!(
                "cannot walk {shown}: {} is {kind}, not a regular file, and reading it would hang",
                path.display()
            )));
        }
    }
    let skipped = Arc::new(Skipped::default());
    let seen = Arc::clone(&skipped);
    let mut builder = WalkBuilder::new(root);
    builder.require_git(false).filter_entry(move |entry| {
        let Some(ft) = entry.file_type() else {
            return true;
        };
        if ft.is_dir() {
            if unreadable_ignore_file(entry.path()).is_some() {
                seen.dirs
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(entry.path().to_path_buf());
                return false;
            }
            return true;
        }
        if ft.is_file() || ft.is_symlink() {
            return true;
        }
        seen.special_file();
        false
    });
    Ok((builder, skipped))
}
