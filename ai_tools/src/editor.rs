//! Files as an editor holds them. When koi runs inside an editor (`k acp`
//! with a client that offers file access), the file tools read the
//! editor's buffers, unsaved changes included, and write through the
//! editor, so the user sees each change in the buffer it lands in. The
//! policy has judged the path before any of this is asked; without an
//! editor, or when it has nothing for a path, the disk is used as always.

use std::path::Path;
use std::sync::Arc;

/// An editor's view of the workspace's files.
pub trait EditorFiles: Send + Sync + std::fmt::Debug {
    /// The text the editor holds for `path` (absolute), saved or not;
    /// `None` when it has none to give (the disk is read instead).
    fn read(&self, path: &Path) -> Option<String>;

    /// Writes `text` to `path` (absolute) through the editor: `None` when
    /// the editor does not write files (the disk is written instead),
    /// otherwise whether it did, and why not.
    fn write(&self, path: &Path, text: &str) -> Option<Result<(), String>>;
}

/// The editor a registry's file tools go through, if any.
pub type Editor = Option<Arc<dyn EditorFiles>>;
