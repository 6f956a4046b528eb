//! The one error type every tool returns; its `Display` is written for the
//! model to read and act on.

/// Why a tool call did not produce a result.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The model asked for a tool this registry does not have.
    #[error("unknown tool {0:?}")]
    UnknownTool(String),
    /// The arguments did not match the tool's schema.
    #[error("invalid arguments for {tool}: {message}")]
    BadArgs {
        /// Tool name.
        tool: String,
        /// What was wrong, e.g. the serde message.
        message: String,
    },
    /// The file changed since the model read it; nothing was written.
    #[error("{path} changed since you read it (expected revision {expected}, current {current}); re-read the file and try again. Nothing was written.")]
    StaleRevision {
        /// Workspace-relative path.
        path: String,
        /// The revision the model sent.
        expected: String,
        /// The revision on disk now (`absent` if there is no file).
        current: String,
    },
    /// A patch's `old` text matched zero or several times.
    #[error("edit {index}: `old` must match exactly once in {path}, but it matched {count} times; include more surrounding context. Nothing was written.")]
    MatchCount {
        /// Workspace-relative path.
        path: String,
        /// Which edit (0-based).
        index: usize,
        /// How many matches were found.
        count: usize,
    },
    /// The policy floor refused this call regardless of mode.
    #[error("refused: {0}")]
    Refused(String),
    /// A path could not be used (outside the workspace, not found, …).
    #[error("{0}")]
    Path(String),
    /// The path is a FIFO, device, socket or directory: file tools read
    /// only regular files, since the others can block or never end.
    #[error("{path} is {kind}, not a regular file; file tools read only regular files")]
    NotRegularFile {
        /// Workspace-relative path.
        path: String,
        /// What it is instead.
        kind: SpecialKind,
    },
    /// The tool panicked; the call failed but the turn goes on.
    #[error("the tool panicked: {0}. This is a bug in koi; the call did not complete")]
    Panicked(String),
    /// An I/O error on a named path.
    #[error("{path}: {source}")]
    Io {
        /// The path involved.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The call was cancelled by the user.
    #[error("cancelled by the user")]
    Cancelled,
    /// Anything else, described for the model.
    #[error("{0}")]
    Failed(String),
}

impl ToolError {
    /// Shorthand for [`ToolError::Io`].
    pub fn io(path: impl std::fmt::Display, source: std::io::Error) -> Self {
        ToolError::Io {
            path: path.to_string(),
            source,
        }
    }
}

/// What a path is, when it is not a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialKind {
    /// A directory.
    Directory,
    /// A named pipe: reading it waits for a writer, possibly forever.
    Fifo,
    /// A character device (`/dev/zero`, a terminal): may never end.
    CharDevice,
    /// A block device (a disk): huge, and not text.
    BlockDevice,
    /// A unix socket.
    Socket,
    /// Anything else the kernel reports.
    Other,
}

impl SpecialKind {
    /// The kind of `ft`, or `None` for a regular file.
    pub fn of(ft: std::fs::FileType) -> Option<SpecialKind> {
        use std::os::unix::fs::FileTypeExt;
        Some(if ft.is_file() {
            return None;
        } else if ft.is_dir() {
            SpecialKind::Directory
        } else if ft.is_fifo() {
            SpecialKind::Fifo
        } else if ft.is_char_device() {
            SpecialKind::CharDevice
        } else if ft.is_block_device() {
            SpecialKind::BlockDevice
        } else if ft.is_socket() {
            SpecialKind::Socket
        } else {
            SpecialKind::Other
        })
    }

    /// How the kind is named in an error, with its article.
    pub fn describe(self) -> &'static str {
        match self {
            SpecialKind::Directory => "a directory",
            SpecialKind::Fifo => "a FIFO (named pipe)",
            SpecialKind::CharDevice => "a character device",
            SpecialKind::BlockDevice => "a block device",
            SpecialKind::Socket => "a socket",
            SpecialKind::Other => "a special file",
        }
    }
}

impl std::fmt::Display for SpecialKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}
