//! The Landlock ruleset of one run, built in the parent: which paths the
//! child may write, and (read-only) no TCP, no abstract unix sockets and
//! no signals to processes outside the run.
//!
//! Reading: the whole tree, or ([`ReadScope::AllBut`]) every sibling along
//! each unreadable path instead of `/` as a whole, so those paths alone
//! stay unreadable: the secrets where no mount namespace can hide them, and
//! the terminals (`/dev/pts`: a read there takes the user's keystrokes) for
//! a run nobody approved.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, ABI,
};

use super::Level;

/// The newest ABI this code was written and tested against. The crate
/// drops, best effort, what an older kernel lacks, so a 5.13 kernel still
/// gets its file rules and a 6.12 one its scopes.
const TARGET: ABI = ABI::V10;

/// Device files every run may open for writing: the bit bucket. Not the
/// terminal: a run has none (it is a session of its own), and bytes
/// written to the user's terminal could set the clipboard or fake a prompt.
const DEVICES: [&str; 1] = ["/dev/null"];

/// Extra devices an approved run may use: pseudo-terminals (a test suite
/// that spawns a PTY), and the harmless sources and sinks.
const APPROVED_DEVICES: [&str; 6] = [
    "/dev/ptmx",
    "/dev/pts",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// Why a ruleset could not be made.
#[derive(Debug, thiserror::Error)]
#[error("cannot build the Landlock ruleset: {0}")]
pub struct RulesError(String);

fn err(e: impl std::fmt::Display) -> RulesError {
    RulesError(e.to_string())
}

/// Every file-system right this code knows, less connecting to pathname
/// unix sockets where the network stays open.
fn handled_fs(level: Level) -> BitFlags<AccessFs> {
    let all = AccessFs::from_all(TARGET);
    match level {
        Level::ReadOnly => all,
        Level::WorkspaceWrite => all & !AccessFs::ResolveUnix,
    }
}

/// Opening and writing an existing file (with `O_TRUNC`, as `>` does).
fn file_write() -> BitFlags<AccessFs> {
    AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate
}

/// What a run may read.
#[derive(Debug, Clone, Copy)]
pub enum ReadScope<'a> {
    /// Everything.
    All,
    /// Everything but these paths (canonical): the secrets where no mount
    /// namespace hides them, and the terminals at the read-only level.
    AllBut(&'a [PathBuf]),
}

/// Rules that grant reading everything but `unreadable`: each directory on
/// the way to an unreadable path may be listed, and each of its other
/// entries read in full. Entries made later in those directories are not
/// readable: the price of hiding without a mount.
fn read_tree(unreadable: &[PathBuf]) -> Vec<(PathBuf, BitFlags<AccessFs>)> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::from("/")];
    while let Some(dir) = stack.pop() {
        out.push((dir.clone(), AccessFs::ReadDir.into()));
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            // A rule names what its path opens to: a symbolic link's
            // target, which has a rule of its own where it may be read (one
            // into an unreadable place must not grant it).
            if kind.is_symlink() || unreadable.contains(&path) {
                continue;
            }
            let ancestor = unreadable.iter().any(|t| t.starts_with(&path));
            let is_dir = kind.is_dir();
            if ancestor && is_dir {
                stack.push(path);
            } else {
                out.push((path, AccessFs::from_read(TARGET)));
            }
        }
    }
    out
}

/// The ruleset for `level`: `read` readable, `writable` (each an existing
/// directory) writable, the devices writable.
pub fn ruleset(
    level: Level,
    read: ReadScope<'_>,
    writable: &[PathBuf],
) -> Result<OwnedFd, RulesError> {
    let fs = handled_fs(level);
    let mut ruleset = Ruleset::default().handle_access(fs).map_err(err)?;
    if level == Level::ReadOnly {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(TARGET))
            .map_err(err)?
            .scope(Scope::from_all(TARGET))
            .map_err(err)?;
    }
    let mut created = ruleset.create().map_err(err)?;
    let reads = match read {
        ReadScope::AllBut(unreadable) if !unreadable.is_empty() => read_tree(unreadable),
        _ => vec![(PathBuf::from("/"), AccessFs::from_read(TARGET))],
    };
    for (path, rights) in reads {
        // An entry that vanished since it was listed needs no rule.
        let Ok(fd) = PathFd::new(&path) else {
            continue;
        };
        created = created
            .add_rule(PathBeneath::new(fd, rights))
            .map_err(err)?;
    }
    // Writable places may be read through the read rules only, so a
    // hidden file inside the workspace stays unreadable there too.
    let write = match read {
        ReadScope::All => fs,
        ReadScope::AllBut(_) => fs & !AccessFs::from_read(TARGET),
    };
    for dir in writable {
        created = created
            .add_rule(PathBeneath::new(PathFd::new(dir).map_err(err)?, write))
            .map_err(err)?;
    }
    let devices: Vec<&str> = match level {
        Level::ReadOnly => DEVICES.to_vec(),
        Level::WorkspaceWrite => DEVICES.iter().chain(&APPROVED_DEVICES).copied().collect(),
    };
    for dev in devices {
        // A device this machine lacks (some containers) needs no rule.
        if !Path::new(dev).exists() {
            continue;
        }
        let rights = match level {
            Level::ReadOnly => file_write(),
            // Terminal programs need their ioctls on a PTY they opened.
            Level::WorkspaceWrite => file_write() | AccessFs::IoctlDev,
        };
        created = created
            .add_rule(PathBeneath::new(PathFd::new(dev).map_err(err)?, rights))
            .map_err(err)?;
    }
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| RulesError("the kernel made no ruleset (Landlock unsupported)".into()))
}
