//! What a tool call touches, so the engine can run independent calls in
//! parallel. Leaving the declaration out means "exclusive".

use std::path::{Path, PathBuf};

/// One thing a call reads or changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// Reads this path (a file, or a directory and everything below it).
    Read(PathBuf),
    /// Writes or deletes this path (and everything below it).
    Write(PathBuf),
    /// Starts, polls or stops a process in the background table.
    Process,
    /// Talks to the network; `mutating` for anything but GET/HEAD.
    Network {
        /// True when the request may change remote state.
        mutating: bool,
    },
}

/// Everything one call touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Footprint {
    /// Unknown or unbounded: runs alone.
    Exclusive,
    /// Exactly these accesses.
    Accesses(Vec<Access>),
}

impl Footprint {
    /// Can these two calls not run at the same time?
    pub fn conflicts_with(&self, other: &Footprint) -> bool {
        match (self, other) {
            (Footprint::Exclusive, _) | (_, Footprint::Exclusive) => true,
            (Footprint::Accesses(a), Footprint::Accesses(b)) => {
                a.iter().any(|x| b.iter().any(|y| access_conflict(x, y)))
            }
        }
    }

    /// True if the call only reads (files or network GETs).
    pub fn is_read_only(&self) -> bool {
        match self {
            Footprint::Exclusive => false,
            Footprint::Accesses(list) => list
                .iter()
                .all(|a| matches!(a, Access::Read(_) | Access::Network { mutating: false })),
        }
    }
}

fn overlaps(a: &Path, b: &Path) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

fn access_conflict(a: &Access, b: &Access) -> bool {
    use Access::*;
    match (a, b) {
        (Read(_), Read(_)) => false,
        (Read(x), Write(y)) | (Write(x), Read(y)) | (Write(x), Write(y)) => overlaps(x, y),
        (Process, Process) => true,
        (Network { mutating: m1 }, Network { mutating: m2 }) => *m1 || *m2,
        _ => false,
    }
}
