//! The Landlock ruleset of one run, built in the parent: which paths the
//! child may write, and (read-only) no TCP, no abstract unix sockets and
//! no signals to processes outside the run.

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

/// Device files every run may open for writing: the bit bucket and the
/// user's terminal (a prompt a program writes there is not a change).
const DEVICES: [&str; 2] = ["/dev/null", "/dev/tty"];

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

/// The ruleset for `level`: the whole tree readable, `writable` (each an
/// existing directory) writable in full, the devices writable.
pub fn ruleset(level: Level, writable: &[PathBuf]) -> Result<OwnedFd, RulesError> {
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
    created = created
        .add_rule(PathBeneath::new(
            PathFd::new("/").map_err(err)?,
            AccessFs::from_read(TARGET),
        ))
        .map_err(err)?;
    for dir in writable {
        created = created
            .add_rule(PathBeneath::new(PathFd::new(dir).map_err(err)?, fs))
            .map_err(err)?;
    }
    let devices: Vec<&str> = match level {
        Level::ReadOnly => DEVICES.to_vec(),
        Level::WorkspaceWrite => DEVICES.iter().chain(&APPROVED_DEVICES).copied().collect(),
    };
    for dev in devices {
        // A machine without a terminal device (some containers) lacks
        // /dev/tty: nothing to allow.
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
