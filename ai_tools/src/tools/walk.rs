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

/// What `path` is if opening and reading it could block: a FIFO, device
/// or socket (a directory just fails to read).
fn blocking_kind(path: &Path) -> Option<SpecialKind> {
    let meta = std::fs::metadata(path).ok()?;
    SpecialKind::of(meta.file_type()).filter(|k| *k != SpecialKind::Directory)
}

/// The first ignore file in `dir` that could block the walker.
fn unreadable_ignore_file(dir: &Path) -> Option<(PathBuf, SpecialKind)> {
    IGNORE_FILES.iter().find_map(|name| {
        let path = dir.join(name);
        blocking_kind(&path).map(|kind| (path, kind))
    })
}

/// Git's own config and ignore files outside any repository, which the
/// walker reads to find the global excludes file.
fn global_git_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("/etc/gitconfig")];
    if let Some(home) = dirs::home_dir() {
        files.push(home.join(".gitconfig"));
    }
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|x| !x.is_empty())
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|h| h.join(".config")));
    if let Some(xdg) = xdg {
        files.push(xdg.join("git/config"));
        files.push(xdg.join("git/ignore"));
    }
    for var in ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"] {
        if let Some(p) = std::env::var_os(var).filter(|p| !p.is_empty()) {
            files.push(PathBuf::from(p));
        }
    }
    files
}

/// What a walk left out because it could not be read safely.
#[derive(Debug, Default)]
pub struct Skipped {
    /// FIFOs, devices and sockets.
    special: AtomicUsize,
    /// Directories not entered because an ignore file in them could block.
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
    // Without the global excludes rather than hung on reading them.
    let global_ok = !global_git_files()
        .iter()
        .any(|p| blocking_kind(p).is_some());
    builder.git_global(global_ok);
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
