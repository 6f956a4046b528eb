//! What a run needs from the parent before it forks: its private temp
//! dir, the environment it adds, and the confinement the child applies
//! (namespace plan, Landlock ruleset, seccomp program, limits).

use std::path::{Path, PathBuf};

#[cfg(target_os = "linux")]
use super::{namespace, rules, seccomp};
use super::{HiddenPaths, Isolation, Level, RunSandbox};
use crate::run_tag::RunTag;
use crate::spawn::Confinement;

/// A run's private temp dir, removed when the run is over.
#[derive(Debug)]
pub struct RunDir(PathBuf);

impl RunDir {
    /// Creates `koi-run-TAG` (mode 0700) in the system temp dir.
    pub fn create(tag: &RunTag) -> std::io::Result<RunDir> {
        use std::os::unix::fs::DirBuilderExt;
        let path = std::env::temp_dir().join(format!("koi-run-{}", tag.value()));
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        // Canonical, so the Landlock rule and TMPDIR name the same place.
        let path = path.canonicalize()?;
        Ok(RunDir(path))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Why a run could not be confined as planned.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// The temp dir could not be made.
    #[error("cannot create the run's temp dir: {0}")]
    RunDir(std::io::Error),
    /// The Landlock ruleset could not be built.
    #[error("{0}")]
    Rules(String),
    /// No seccomp program for this CPU.
    #[error("no seccomp filter for this CPU architecture")]
    Filter,
}

/// Everything a confined run needs from the parent: what the child
/// applies, its temp dir (kept alive for the run) and extra environment.
#[derive(Debug)]
pub struct Prepared {
    /// Moved into the spawn.
    pub confinement: Confinement,
    /// Removed when dropped; `None` when unconfined.
    pub run_dir: Option<RunDir>,
    /// Variables the command gets on top of the scrubbed environment.
    pub env: Vec<(&'static str, std::ffi::OsString)>,
}

/// Builds the confinement for `plan` in the parent. `workspace` is
/// writable at [`Level::WorkspaceWrite`].
pub fn prepare(
    plan: &RunSandbox,
    workspace: &Path,
    tag: &RunTag,
) -> Result<Prepared, PrepareError> {
    let RunSandbox::Confined {
        level,
        landlock_abi,
        isolation,
        writable,
        hidden,
    } = plan
    else {
        return Ok(Prepared {
            confinement: Confinement::none(),
            run_dir: None,
            env: Vec::new(),
        });
    };
    let run_dir = RunDir::create(tag).map_err(PrepareError::RunDir)?;
    let mut env = vec![("TMPDIR", run_dir.path().as_os_str().to_owned())];
    if *level == Level::ReadOnly {
        // An unasked git runs no program the system's or the user's git
        // config names (pagers, diff drivers, credential helpers): only the
        // repository's config is read, and the policy proves nothing in a
        // repository that sets such programs (what runs anyway runs here,
        // contained). An approved command keeps the user's config (their
        // name for a commit, their aliases).
        env.push(("GIT_CONFIG_NOSYSTEM", "1".into()));
        env.push(("GIT_CONFIG_GLOBAL", "/dev/null".into()));
        // `git status` refreshes the index and takes index.lock unless told
        // its locks are optional; read-only, that write would fail.
        env.push(("GIT_OPTIONAL_LOCKS", "0".into()));
    }
    let hidden = hidden.0.current();
    let job = Confine {
        level: *level,
        landlock_abi: *landlock_abi,
        isolation,
        workspace,
        extra: writable,
        hidden: &hidden,
        run_dir: run_dir.path(),
    };
    let confinement = confine(&job)?;
    Ok(Prepared {
        confinement,
        run_dir: Some(run_dir),
        env,
    })
}

/// The pseudo-terminals' directory: a run nobody approved may not open
/// one (reading the user's takes their keystrokes).
#[cfg(target_os = "linux")]
const TERMINALS: &str = "/dev/pts";

/// What [`confine`] builds from (only Linux reads most of it).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct Confine<'a> {
    level: Level,
    landlock_abi: i32,
    isolation: &'a Isolation,
    workspace: &'a Path,
    extra: &'a [PathBuf],
    hidden: &'a HiddenPaths,
    run_dir: &'a Path,
}

#[cfg(target_os = "linux")]
fn confine(job: &Confine<'_>) -> Result<Confinement, PrepareError> {
    let mut dirs = vec![job.run_dir.to_path_buf()];
    if job.level == Level::WorkspaceWrite {
        dirs.push(job.workspace.to_path_buf());
        dirs.extend(job.extra.iter().filter(|p| p.is_dir()).cloned());
    }
    let mut unreadable: Vec<PathBuf> = Vec::new();
    let namespaces = match job.isolation {
        Isolation::Namespaces => {
            let owner = namespace::Owner::current();
            let ns = namespace::NsPlan::new(owner, job.run_dir, job.hidden)
                .map_err(|e| PrepareError::Rules(e.to_string()))?;
            Some(ns)
        }
        Isolation::LandlockOnly(_) => {
            unreadable.extend(job.hidden.entries().iter().map(|e| e.path.clone()));
            None
        }
    };
    if job.level == Level::ReadOnly && Path::new(TERMINALS).is_dir() {
        // Still listed (`ps` names a process's terminal by it), not read.
        unreadable.push(PathBuf::from(TERMINALS));
    }
    let read = rules::ReadScope::AllBut(&unreadable);
    let ruleset =
        rules::ruleset(job.level, read, &dirs).map_err(|e| PrepareError::Rules(e.to_string()))?;
    let profile = match job.level {
        Level::ReadOnly => seccomp::Profile::ReadOnly {
            landlock_abi: job.landlock_abi,
        },
        Level::WorkspaceWrite => seccomp::Profile::WorkspaceWrite,
    };
    let filter = seccomp::program(profile).ok_or(PrepareError::Filter)?;
    let limits = (job.level == Level::ReadOnly).then(crate::spawn::Limits::contained);
    Ok(Confinement::new(
        Some(ruleset),
        Some(filter),
        namespaces,
        limits,
    ))
}

#[cfg(not(target_os = "linux"))]
fn confine(_job: &Confine<'_>) -> Result<Confinement, PrepareError> {
    Err(PrepareError::Filter)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_dirs_are_private_and_removed() {
        let tag = RunTag::new();
        let dir = RunDir::create(&tag).unwrap();
        let path = dir.path().to_path_buf();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        std::fs::write(path.join("f"), "x").unwrap();
        drop(dir);
        assert!(!path.exists());
    }
}
