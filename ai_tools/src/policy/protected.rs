//! Places a recursive read must not enter or contain: `/proc` and `/sys`
//! (every process's environment and memory), `/dev`, the credential directories
//! and token files in the home directory, koi's own config and data directories, and any
//! path a front end registered (the file `--config` named).

use std::path::{Path, PathBuf};

use crate::policy::credentials::{SECRET_DIRS, SECRET_HOME_PATHS};
use crate::workspace::{canonicalize_lenient, Workspace};

/// Kernel views of every process (environments, memory, keys) and the
/// device nodes (`grep -r -D read x /dev` would read the disks).
const KERNEL_DIRS: &[&str] = &["/proc", "/sys", "/dev"];

/// koi's own directories, computed as koi's config module does
/// (`$XDG_CONFIG_HOME/koi`, `$XDG_DATA_HOME/koi`) and at the usual
/// fallbacks under the home directory.
pub fn koi_dirs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    out.extend(dirs::config_dir().map(|d| d.join("koi")));
    out.extend(dirs::data_dir().map(|d| d.join("koi")));
    if let Some(home) = dirs::home_dir() {
        out.push(home.join(".config/koi"));
        out.push(home.join(".local/share/koi"));
    }
    out
}

/// Every protected place, canonical.
pub fn protected(ws: &Workspace) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = KERNEL_DIRS.iter().map(PathBuf::from).collect();
    if let Some(home) = dirs::home_dir() {
        out.extend(SECRET_DIRS.iter().map(|d| home.join(d)));
        out.extend(SECRET_HOME_PATHS.iter().map(|d| home.join(d)));
    }
    out.extend(koi_dirs());
    out.extend(ws.protected().iter().cloned());
    out.iter().map(|p| canonicalize_lenient(p)).collect()
}

/// Why a directory walk starting at `root` (canonical) is refused: it is
/// inside a protected place, or one lies beneath it.
pub fn walk_reason(root: &Path, protected: &[PathBuf]) -> Option<String> {
    for p in protected {
        if root.starts_with(p) {
            return Some(format!(
                "{} is inside {}, which holds secrets",
                root.display(),
                p.display()
            ));
        }
        if p.starts_with(root) {
            return Some(format!(
                "{} contains {}, which holds secrets",
                root.display(),
                p.display()
            ));
        }
    }
    None
}

/// Why reading `path` (canonical) is refused: it is a registered
/// protected path or inside one (the floor's addition for `--config`).
pub fn registered_reason(path: &Path, ws: &Workspace) -> Option<String> {
    ws.protected().iter().find_map(|p| {
        let p = canonicalize_lenient(p);
        path.starts_with(&p).then(|| {
            format!(
                "{} is koi's own configuration, which holds API keys",
                path.display()
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_and_containing() {
        let prot = vec![PathBuf::from("/proc"), PathBuf::from("/home/u/.ssh")];
        assert!(walk_reason(Path::new("/proc/1"), &prot).is_some());
        assert!(walk_reason(Path::new("/"), &prot).is_some());
        assert!(walk_reason(Path::new("/home/u"), &prot).is_some());
        assert!(walk_reason(Path::new("/home/u/src"), &prot).is_none());
        assert!(walk_reason(Path::new("/procx"), &prot).is_none());
    }
}
