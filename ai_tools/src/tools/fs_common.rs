//! Shared file plumbing: content revisions, atomic writes that keep
//! permissions, unified diffs, and path resolution for tools.

use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::cancel::CancelToken;
use crate::error::ToolError;
use crate::output::{head_tail, ToolOutput};
use crate::tool::ToolContext;
use crate::tools::bounded_file::{read_regular, Bounded};
use crate::workspace::{canonicalize_lenient, Workspace};

/// Largest file the file tools load. Source files are far smaller; this
/// stops a mistaken read of a disk image from eating memory.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The revision a file has when it does not exist.
pub const ABSENT: &str = "absent";

/// Hex digits of SHA-256 kept in a revision: 64 bits is plenty to detect
/// a change and short enough for the model to copy reliably.
pub const REVISION_HEX_LEN: usize = 16;

/// Lines of context around each change in a diff.
pub const DIFF_CONTEXT: usize = 3;

/// Characters of diff shown to the model after an edit; the full diff goes
/// to the UI and the session log.
pub const MAX_DIFF_CHARS: usize = 8_000;

/// The revision of some content.
pub fn revision_of(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    hex[..REVISION_HEX_LEN].to_string()
}

/// Resolve a model-given path: relative to the workspace, symlinks
/// followed, so reads and writes land where the policy looked.
pub fn resolve(ws: &Workspace, path: &str) -> PathBuf {
    canonicalize_lenient(&ws.resolve(path))
}

/// A file or directory named by the model, in the three forms the file
/// tools need.
pub struct FileTarget {
    /// The path as given, made absolute but with links not followed.
    pub lexical: PathBuf,
    /// Where reads and writes land (links followed, see [`resolve`]).
    pub path: PathBuf,
    /// How the file is named to the model and the user.
    pub shown: String,
}

impl FileTarget {
    /// The file `path` (as the model wrote it) names in `ws`.
    pub fn new(ws: &Workspace, path: &str) -> Self {
        let lexical = ws.resolve(path);
        let shown = ws.display(&lexical);
        FileTarget {
            path: canonicalize_lenient(&lexical),
            lexical,
            shown,
        }
    }

    /// The file's bytes, or `None` if it does not exist (see [`read_existing`]).
    pub fn read(&self, cancel: &CancelToken) -> Result<Option<Vec<u8>>, ToolError> {
        read_existing(&self.path, &self.shown, cancel)
    }

    /// At most [`MAX_FILE_BYTES`] of the file, saying whether it had more;
    /// `None` if it does not exist. For reads, where a cut view is useful.
    pub fn read_bounded(&self, cancel: &CancelToken) -> Result<Option<Bounded>, ToolError> {
        read_regular(&self.path, MAX_FILE_BYTES, cancel, &self.shown)
    }
}

/// A file's current bytes for an edit: the editor's buffer when an editor
/// holds the file (unsaved changes included), else the disk (see
/// [`read_existing`]).
pub fn read_current(ctx: &ToolContext, file: &FileTarget) -> Result<Option<Vec<u8>>, ToolError> {
    if let Some(text) = ctx.editor.as_ref().and_then(|e| e.read(&file.path)) {
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(too_large(&file.shown));
        }
        return Ok(Some(text.into_bytes()));
    }
    file.read(&ctx.cancel)
}

/// At most [`MAX_FILE_BYTES`] of a file for a read: the editor's buffer
/// when an editor holds it, else the disk.
pub fn read_current_bounded(
    ctx: &ToolContext,
    file: &FileTarget,
) -> Result<Option<Bounded>, ToolError> {
    if let Some(text) = ctx.editor.as_ref().and_then(|e| e.read(&file.path)) {
        let mut bytes = text.into_bytes();
        let cut = bytes.len() as u64 > MAX_FILE_BYTES;
        bytes.truncate(usize::try_from(MAX_FILE_BYTES).unwrap_or(usize::MAX));
        return Ok(Some(Bounded { bytes, cut }));
    }
    file.read_bounded(&ctx.cancel)
}

/// Writes an edit's result: through the editor when one writes files,
/// else atomically to the disk ([`atomic_write`]).
pub fn write_new(
    ctx: &ToolContext,
    path: &Path,
    content: &str,
    shown: &str,
) -> Result<(), ToolError> {
    match ctx.editor.as_ref().and_then(|e| e.write(path, content)) {
        Some(Ok(())) => Ok(()),
        Some(Err(why)) => Err(ToolError::Failed(format!(
            "the editor did not write {shown}: {why}"
        ))),
        None => atomic_write(path, content.as_bytes(), shown),
    }
}

/// A file's current content as text (empty when it does not exist), for
/// diffs.
pub fn lossy_text(current: Option<&[u8]>) -> Cow<'_, str> {
    current.map(String::from_utf8_lossy).unwrap_or_default()
}

/// The diff an approval request shows: `old` to `new`, cut to
/// [`MAX_DIFF_CHARS`].
pub fn diff_preview(old: &str, new: &str, shown: &str) -> String {
    head_tail(&unified_diff(old, new, shown), MAX_DIFF_CHARS)
}

/// The result of a file change, shared by write, patch and delete.
pub fn change_output(shown: &str, old: &str, new: &str, verb: &str) -> ToolOutput {
    let diff = unified_diff(old, new, shown);
    let (added, removed) = diff_counts(old, new);
    let revision = revision_of(new.as_bytes());
    let summary = format!("{verb} {shown} (+{added} -{removed}); new revision {revision}\n");
    ToolOutput {
        for_model: format!("{summary}{}", head_tail(&diff, MAX_DIFF_CHARS)),
        full: format!("{summary}{diff}"),
        preview: format!("{verb} {shown} → +{added} -{removed}"),
        diff: Some(diff),
    }
}

/// A regular file's whole content, or `None` if it does not exist. A file
/// past [`MAX_FILE_BYTES`] (counted while reading, not taken from its
/// size) is an error: edits need all of it.
pub fn read_existing(
    path: &Path,
    shown: &str,
    cancel: &CancelToken,
) -> Result<Option<Vec<u8>>, ToolError> {
    match read_regular(path, MAX_FILE_BYTES, cancel, shown)? {
        None => Ok(None),
        Some(Bounded { cut: true, .. }) => Err(too_large(shown)),
        Some(Bounded { bytes, .. }) => Ok(Some(bytes)),
    }
}

/// The error for a file too large for the file tools.
pub fn too_large(shown: &str) -> ToolError {
    ToolError::Path(format!(
        "{shown} is more than {MAX_FILE_BYTES} bytes, the limit for file tools"
    ))
}

/// The current revision (or [`ABSENT`]) must equal `expected`.
pub fn check_revision(
    current: Option<&[u8]>,
    expected: &str,
    shown: &str,
) -> Result<(), ToolError> {
    let current_rev = current.map_or_else(|| ABSENT.to_string(), revision_of);
    if current_rev != expected.trim() {
        return Err(ToolError::StaleRevision {
            path: shown.to_string(),
            expected: expected.to_string(),
            current: current_rev,
        });
    }
    Ok(())
}

/// Write `content` to `path` atomically: a temp file in the same directory,
/// flushed, given the old file's permissions, then renamed over the target.
pub fn atomic_write(path: &Path, content: &[u8], shown: &str) -> Result<(), ToolError> {
    let dir = path
        .parent()
        .ok_or_else(|| ToolError::Path(format!("{shown} has no parent directory")))?;
    std::fs::create_dir_all(dir).map_err(|e| ToolError::io(dir.display(), e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.koi-{}-{}.tmp",
        std::process::id(),
        unique()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(content)?;
        f.sync_all()?;
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(ToolError::io(shown, e));
    }
    Ok(())
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A unified diff between two texts, with `a/` and `b/` headers.
pub fn unified_diff(old: &str, new: &str, shown: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(DIFF_CONTEXT)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string()
}

/// Lines added and removed, for previews.
pub fn diff_counts(old: &str, new: &str) -> (usize, usize) {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut added = 0;
    let mut removed = 0;
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    (added, removed)
}
