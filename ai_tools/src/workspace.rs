//! The workspace root (the directory the chat started in) and path
//! resolution against it: lexical normalisation, `~`, and canonicalisation
//! that follows symlinks even for paths that do not exist yet.

use std::io;
use std::path::{Component, Path, PathBuf};

/// The directory tools work in. Relative paths resolve against it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
    /// Extra paths no tool reads and no recursive read enters (the config
    /// file a front end was given with `--config`, which holds API keys).
    protected: Vec<PathBuf>,
}

impl Workspace {
    /// A workspace rooted at `root` (canonicalised; it must exist).
    pub fn new(root: impl AsRef<Path>) -> io::Result<Self> {
        let root = root.as_ref().canonicalize()?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("{} is not a directory", root.display()),
            ));
        }
        Ok(Workspace {
            root,
            protected: Vec::new(),
        })
    }

    /// The same workspace with more protected paths (see
    /// [`Workspace::protected`]).
    pub fn with_protected(mut self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        self.protected.extend(paths);
        self
    }

    /// Paths the policy treats like credentials: never read, never walked
    /// into.
    pub fn protected(&self) -> &[PathBuf] {
        &self.protected
    }

    /// The canonical root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolve a path the model gave: `~` and `~/…` expand to the home
    /// directory, relative paths join the root, `.`/`..` are removed
    /// lexically. Symlinks are not followed (see [`Workspace::canonical`]).
    pub fn resolve(&self, path: &str) -> PathBuf {
        let expanded = expand_tilde(path);
        let joined = if expanded.is_absolute() {
            expanded
        } else {
            self.root.join(expanded)
        };
        normalize(&joined)
    }

    /// [`Workspace::resolve`], then follow symlinks: the longest existing
    /// prefix is canonicalised and the rest appended, so a path that does
    /// not exist yet under a symlinked directory still lands where a write
    /// would really go.
    pub fn canonical(&self, path: &str) -> PathBuf {
        canonicalize_lenient(&self.resolve(path))
    }

    /// Is this path (after following symlinks) inside the workspace?
    pub fn contains(&self, path: &str) -> bool {
        self.canonical(path).starts_with(&self.root)
    }

    /// A short name for messages: relative to the root when inside it.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }
}

/// Expand a leading `~` or `~/` to the home directory (other `~user`
/// forms are left alone and stay relative).
pub fn expand_tilde(path: &str) -> PathBuf {
    if path == "~" {
        if let Some(home) = dirs::home_dir() {
            return home;
        }
    } else if let Some(rest) = path.strip_prefix("~/") {
        if let Some(home) = dirs::home_dir() {
            return home.join(rest);
        }
    }
    PathBuf::from(path)
}

/// Remove `.` and `..` lexically (`..` at the root stays at the root).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Most symlinks [`physical`] follows in one path, as the kernel's own
/// limit (`ELOOP` after 40).
const MAX_SYMLINKS: usize = 40;

/// Resolve an absolute path as the kernel does when a program opens it:
/// component by component, following each symlink as it is met, so `..`
/// after a symlink climbs from the link's target (`link/../x` where `link`
/// points at `/proc/self` is `/proc/x`), not lexically. The last
/// component is followed only when `follow_last` is set (metadata reads of
/// a link stop at the link). Components that do not exist are appended as
/// written.
pub fn physical(path: &Path, follow_last: bool) -> PathBuf {
    let mut budget = MAX_SYMLINKS;
    physical_within(path, follow_last, &mut budget)
}

fn physical_within(path: &Path, follow_last: bool, budget: &mut usize) -> PathBuf {
    let comps: Vec<Component<'_>> = path.components().collect();
    let mut out = PathBuf::new();
    for (i, comp) in comps.iter().enumerate() {
        match comp {
            Component::Prefix(_) | Component::RootDir => out.push(comp.as_os_str()),
            Component::CurDir => {}
            // `out` holds no symlinks, so its parent is the physical one.
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                if i + 1 == comps.len() && !follow_last {
                    continue;
                }
                match std::fs::read_link(&out) {
                    Ok(target) if *budget > 0 => {
                        *budget -= 1;
                        let base = out.parent().map(Path::to_path_buf).unwrap_or_default();
                        out = physical_within(&base.join(target), true, budget);
                    }
                    // A loop: the kernel gives up, and so does the walk.
                    Ok(_) => return normalize(path),
                    Err(_) => {}
                }
            }
        }
    }
    out
}

/// Canonicalise the longest existing prefix of an absolute, normalised
/// path and append the rest. Symlink loops or unreadable prefixes fall back
/// to the lexical path, which callers then treat as-is.
pub fn canonicalize_lenient(path: &Path) -> PathBuf {
    if let Ok(c) = path.canonicalize() {
        return c;
    }
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    let mut cur = path;
    // Walk up until an ancestor exists; bounded by the number of components.
    while let Some(parent) = cur.parent() {
        if let Some(name) = cur.file_name() {
            rest.push(name);
        }
        if let Ok(c) = parent.canonicalize() {
            let mut out = c;
            for name in rest.iter().rev() {
                out.push(name);
            }
            // A dangling symlink as the last component: follow its target.
            if let Ok(target) = std::fs::read_link(&out) {
                let base = out.parent().map(Path::to_path_buf).unwrap_or_default();
                return normalize(&base.join(target));
            }
            return out;
        }
        cur = parent;
    }
    path.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn physical_climbs_from_a_links_target() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let base = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(base.join("ws/sub")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(base.join("secret/inner")).unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink(base.join("secret/inner"), base.join("ws/link"))
            .unwrap_or_else(|e| panic!("{e}"));
        let p = base.join("ws/link/../x");
        assert_eq!(physical(&p, true), base.join("secret/x"));
        assert_eq!(normalize(&p), base.join("ws/x"), "lexically it stays");
        assert_eq!(
            physical(&base.join("ws/sub/../link"), false),
            base.join("ws/link")
        );
        assert_eq!(
            physical(&base.join("ws/link"), true),
            base.join("secret/inner")
        );
        assert_eq!(physical(&base.join("ws/new/../a"), true), base.join("ws/a"));
        std::os::unix::fs::symlink("loop", base.join("ws/loop")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            physical(&base.join("ws/loop/x"), true),
            base.join("ws/loop/x")
        );
    }
}
