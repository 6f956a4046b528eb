//! Finding every process a tool run started, including those that left its
//! process group (`setsid`, `nohup … &` under a new session, daemons). Each
//! run gets a random tag in its environment, which children inherit across
//! `fork`, `exec` and `setsid`; killing the run kills its group and then every
//! process of ours still carrying the tag.
//!
//! A program that scrubs its own environment escapes the tag; that takes
//! intent, and the gate in front of `shell_exec` is what stands against it.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::spawn::kill_group;

/// The environment variable carrying the tag.
pub const RUN_TAG_VAR: &str = "KOI_TOOL_RUN";

/// Rescans after killing tagged processes: one that forked between the
/// scan and the kill is found by the next pass; three passes end any
/// realistic race without looping on a process that cannot be killed.
const KILL_PASSES: usize = 3;

/// The tag of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunTag(String);

impl RunTag {
    /// A fresh tag: 64 random bits (the hasher is seeded by the OS) plus a
    /// per-process counter, so two runs never share one.
    pub fn new() -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(std::process::id());
        h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
        RunTag(format!("{:016x}", h.finish()))
    }

    /// The tag of an earlier run, as recorded (e.g. in a session log), to
    /// find and end what that run left behind. `None` for anything that
    /// is not a tag this module made (16 hex digits).
    pub fn from_recorded(value: &str) -> Option<Self> {
        (value.len() == 16 && value.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| RunTag(value.to_string()))
    }

    /// The value set in the run's environment.
    pub fn value(&self) -> &str {
        &self.0
    }

    /// Kills the run: the process group `pgid` (when given: only for a
    /// child not yet reaped, whose pid cannot have been reused), then every
    /// process still carrying this tag. Returns how many tagged processes
    /// outside the group were killed.
    pub fn kill(&self, pgid: Option<u32>) -> usize {
        if let Some(pgid) = pgid {
            kill_group(pgid);
        }
        // A process killed in one pass may still be listed in the next
        // (not yet gone from /proc): count each once.
        let mut killed = std::collections::HashSet::new();
        for _ in 0..KILL_PASSES {
            let found = tagged_pids(self);
            if found.is_empty() {
                break;
            }
            for pid in found {
                // SAFETY: kill only sends a signal; the pid was read from
                // /proc just now and carries our tag in its environment.
                if unsafe { libc::kill(pid, libc::SIGKILL) } == 0 {
                    killed.insert(pid);
                }
            }
        }
        killed.len()
    }
}

impl Default for RunTag {
    fn default() -> Self {
        Self::new()
    }
}

/// Processes whose environment holds `tag` (Linux: read from /proc; only
/// our own processes are readable, which are the only ones we could kill).
#[cfg(target_os = "linux")]
fn tagged_pids(tag: &RunTag) -> Vec<libc::pid_t> {
    let needle = format!("{RUN_TAG_VAR}={}", tag.value());
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != me)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| {
                env.split(|b| *b == 0)
                    .any(|entry| entry == needle.as_bytes())
            })
        })
        .filter_map(|pid| libc::pid_t::try_from(pid).ok())
        .collect()
}

/// Elsewhere there is no portable way to read another process's
/// environment; the process group kill is all there is.
#[cfg(not(target_os = "linux"))]
fn tagged_pids(_tag: &RunTag) -> Vec<libc::pid_t> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_well_formed_tags_are_taken_back() {
        let t = RunTag::new();
        assert_eq!(RunTag::from_recorded(t.value()), Some(t));
        assert_eq!(RunTag::from_recorded("x"), None);
        assert_eq!(RunTag::from_recorded("0123456789abcdeg"), None);
    }

    #[test]
    fn tags_are_unique() {
        let tags: std::collections::HashSet<String> = (0..1000).map(|_| RunTag::new().0).collect();
        assert_eq!(tags.len(), 1000);
    }
}
