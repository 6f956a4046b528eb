//! Writing koi's scripts to a private per-user directory. The shell runs
//! whatever is there, so the directory must be the user's own and closed
//! to everyone else (0700): a file another user could swap would run as
//! this user.

use std::path::{Path, PathBuf};

use super::{versioned, FILES};

/// Why the scripts could not be put in place.
#[derive(Debug, thiserror::Error)]
pub enum IntegrationError {
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not private to this user ({why})")]
    NotPrivate { path: PathBuf, why: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> IntegrationError + '_ {
    move |source| IntegrationError::Io {
        path: path.to_owned(),
        source,
    }
}

/// koi's per-user runtime directory: `$XDG_RUNTIME_DIR/koi`, else
/// `koi-UID` in the temporary directory.
pub fn runtime_root() -> PathBuf {
    if let Some(dir) = dirs::runtime_dir() {
        return dir.join("koi");
    }
    #[cfg(unix)]
    // SAFETY: getuid(2) cannot fail and touches no memory.
    let user = unsafe { libc::getuid() }.to_string();
    #[cfg(not(unix))]
    let user = std::env::var("USERNAME").unwrap_or_default();
    std::env::temp_dir().join(format!("koi-{user}"))
}

/// Creates `dir` (and its parents) private to this user, or checks that
/// an existing one is.
fn private_dir(dir: &Path) -> Result<(), IntegrationError> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(io(dir))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::symlink_metadata(dir).map_err(io(dir))?;
        // SAFETY: getuid(2) cannot fail and touches no memory.
        let uid = unsafe { libc::getuid() };
        let not_private = |why: String| IntegrationError::NotPrivate {
            path: dir.to_owned(),
            why,
        };
        if !meta.is_dir() {
            return Err(not_private("not a directory".into()));
        }
        if meta.uid() != uid {
            return Err(not_private(format!("owned by uid {}", meta.uid())));
        }
        if meta.mode() & 0o077 != 0 {
            return Err(not_private(format!("mode {:o}", meta.mode() & 0o777)));
        }
    }
    Ok(())
}

/// Writes `text` to `path` unless it already holds exactly that, through
/// a temporary file renamed into place so a shell starting at the same
/// moment reads the old script or the new one, never half of one.
fn write_if_changed(path: &Path, text: &str) -> Result<(), IntegrationError> {
    if std::fs::read(path).is_ok_and(|old| old == text.as_bytes()) {
        return Ok(());
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(path)(e)
    })
}

/// Puts koi's scripts under `root` (see [`runtime_root`]); returns the
/// directory that holds them.
pub fn install(root: &Path) -> Result<PathBuf, IntegrationError> {
    private_dir(root)?;
    let dir = versioned(root);
    private_dir(&dir)?;
    for (rel, text) in FILES {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            private_dir(parent)?;
        }
        write_if_changed(&path, text)?;
    }
    Ok(dir)
}
