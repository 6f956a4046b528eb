//! The OS sandbox under every shell command: the guarantee under the
//! policy. Two levels:
//! - [`Level::ReadOnly`] for every command that runs unasked (proven
//!   read-only, or contained): nothing writable but `/dev/null` and a
//!   private temp dir; no sockets at all, no metadata changes, no signals
//!   or tracing outside the run, bounded processes and memory. A proof
//!   that is wrong changes nothing.
//! - [`Level::WorkspaceWrite`] for what the user approved (or bypass
//!   allows): the workspace, the temp dir and the configured extra paths
//!   writable; the network open.
//!
//! At both levels the run is confidential: the credentials under the home
//! directory, koi's own config and data, `sandbox_hidden` and the
//! workspace's secret files ([`hidden`], [`secret_scan`]) are empty mounts
//! in a mount namespace of the run's own ([`namespace`]), or unreadable
//! under Landlock alone where namespaces are refused; the run has no
//! capabilities and no terminal, and koi is not dumpable, so its
//! environment (the API key) is out of reach.
//!
//! Landlock rules the files ([`rules`]), seccomp what Landlock does not
//! cover ([`seccomp`]); everything is built in the parent and applied by
//! the child in [`crate::spawn`]. Where the kernel lacks Landlock or
//! seccomp, koi says so (the status label) and runs commands as before,
//! by the proof alone; with [`SandboxMode::Require`] such a command asks
//! first instead.

pub mod hidden;
#[cfg(target_os = "linux")]
pub mod namespace;
mod prepare;
pub mod probe;
#[cfg(target_os = "linux")]
pub mod rules;
#[cfg(target_os = "linux")]
pub mod seccomp;
pub mod secret_scan;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

pub use hidden::HiddenPaths;
pub use prepare::{prepare, PrepareError, Prepared, RunDir};
pub use probe::{support, Isolation, Support};
use secret_scan::SecretIndex;

/// `[ai] sandbox`: whether shell commands run sandboxed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxMode {
    /// Sandbox where the kernel can; elsewhere run as before and say so.
    #[default]
    Auto,
    /// Never sandbox.
    Off,
    /// Sandbox, and where the kernel cannot, ask before every command.
    Require,
}

impl SandboxMode {
    /// The config spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Auto => "auto",
            SandboxMode::Off => "off",
            SandboxMode::Require => "require",
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `sandbox` value that is none of the three.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sandbox mode {0:?} (use auto, off or require)")]
pub struct ParseSandboxModeError(String);

impl std::str::FromStr for SandboxMode {
    type Err = ParseSandboxModeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(SandboxMode::Auto),
            "off" => Ok(SandboxMode::Off),
            "require" => Ok(SandboxMode::Require),
            other => Err(ParseSandboxModeError(other.to_string())),
        }
    }
}

/// How much a sandboxed command may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Proven read-only: writes only to its temp dir, no network.
    ReadOnly,
    /// Approved: writes in the workspace and the extra paths; network open.
    WorkspaceWrite,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::ReadOnly => "read-only",
            Level::WorkspaceWrite => "workspace-write",
        })
    }
}

/// Build caches an approved `cargo build` or `npm install` writes to,
/// relative to the home directory (each used only if it exists).
pub const DEFAULT_WRITABLE: [&str; 4] = [".cache", ".cargo", ".npm", ".rustup"];

/// The sandbox settings a registry is built with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxConfig {
    /// `auto`, `off` or `require`.
    pub mode: SandboxMode,
    /// Paths an approved command may write besides the workspace and its
    /// temp dir (absolute, `~` already expanded).
    pub writable: Vec<PathBuf>,
    /// Paths hidden from every command besides the built-in credentials
    /// (`sandbox_hidden`, and the config file koi was started with).
    pub hidden: Vec<PathBuf>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            mode: SandboxMode::Auto,
            writable: default_writable(),
            hidden: Vec::new(),
        }
    }
}

/// [`DEFAULT_WRITABLE`] under the home directory.
pub fn default_writable() -> Vec<PathBuf> {
    dirs::home_dir()
        .map(|home| DEFAULT_WRITABLE.iter().map(|d| home.join(d)).collect())
        .unwrap_or_default()
}

/// `~` or `~/x` expanded against the home directory; other paths as given.
pub fn expand_tilde(path: &str) -> PathBuf {
    let home = dirs::home_dir();
    match (path.strip_prefix('~'), home) {
        (Some(""), Some(h)) => h,
        (Some(rest), Some(h)) if rest.starts_with('/') => h.join(&rest[1..]),
        _ => PathBuf::from(path),
    }
}

/// What the sandbox does in this process, for `k config`, `/status` and
/// the overlay header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxStatus {
    /// Switched off in the config.
    Off,
    /// Active with this Landlock ABI (and seccomp).
    Active {
        /// The kernel's Landlock ABI.
        landlock_abi: i32,
        /// Namespaces, or Landlock alone.
        isolation: Isolation,
        /// Whether `require` was asked for.
        required: bool,
    },
    /// Wanted but the kernel cannot: commands run unsandboxed (`auto`) or
    /// ask first (`require`).
    Unavailable {
        /// What is missing.
        why: String,
        /// Whether `require` was asked for.
        required: bool,
    },
}

impl SandboxStatus {
    /// The status for `mode` on this kernel.
    pub fn of(mode: SandboxMode) -> SandboxStatus {
        Self::with_support(mode, support())
    }

    /// The status for `mode` where the kernel offers `support`.
    pub fn with_support(mode: SandboxMode, support: &Support) -> SandboxStatus {
        let required = mode == SandboxMode::Require;
        match (mode, support) {
            (SandboxMode::Off, _) => SandboxStatus::Off,
            (
                _,
                Support::Available {
                    landlock_abi,
                    isolation,
                },
            ) => SandboxStatus::Active {
                landlock_abi: *landlock_abi,
                isolation: isolation.clone(),
                required,
            },
            (_, Support::Unavailable(why)) => SandboxStatus::Unavailable {
                why: why.clone(),
                required,
            },
        }
    }

    /// Whether commands are sandboxed.
    pub fn is_active(&self) -> bool {
        matches!(self, SandboxStatus::Active { .. })
    }
}

impl fmt::Display for SandboxStatus {
    /// One short label: `sandbox: namespaces + landlock v7`, `sandbox:
    /// landlock v7 only (<why>)`, `sandbox: off`, `sandbox unavailable:
    /// <why>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxStatus::Off => f.write_str("sandbox: off"),
            SandboxStatus::Active {
                landlock_abi,
                isolation: Isolation::Namespaces,
                ..
            } => write!(f, "sandbox: namespaces + landlock v{landlock_abi}"),
            SandboxStatus::Active {
                landlock_abi,
                isolation: Isolation::LandlockOnly(why),
                ..
            } => write!(f, "sandbox: landlock v{landlock_abi} only ({why})"),
            SandboxStatus::Unavailable { why, required } => {
                write!(f, "sandbox unavailable: {why}")?;
                if *required {
                    f.write_str(" (sandbox = \"require\": every command asks)")?;
                }
                Ok(())
            }
        }
    }
}

/// How one run is confined, decided by the registry per call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunSandbox {
    /// Run as koi always did (sandbox off or unavailable).
    Unconfined(SandboxStatus),
    /// Run confined at this level.
    Confined {
        /// The level.
        level: Level,
        /// The kernel's Landlock ABI.
        landlock_abi: i32,
        /// How secrets are hidden.
        isolation: Isolation,
        /// Extra writable paths (workspace-write only).
        writable: Arc<Vec<PathBuf>>,
        /// What the run cannot see, found when it starts.
        hidden: Hidden,
    },
}

/// Where a run's hidden set comes from: the registry's index, asked when
/// a process starts (a plan made for a tool that starts none, or for
/// showing a verdict, walks nothing).
#[derive(Debug, Clone)]
pub struct Hidden(pub Arc<SecretIndex>);

impl PartialEq for Hidden {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Hidden {}

impl RunSandbox {
    /// The plan for a call at `level` where the sandbox is in `status`.
    pub fn plan(
        status: SandboxStatus,
        writable: &Arc<Vec<PathBuf>>,
        hidden: Hidden,
        level: Level,
    ) -> Self {
        match status {
            SandboxStatus::Active {
                landlock_abi,
                isolation,
                ..
            } => RunSandbox::Confined {
                level,
                landlock_abi,
                isolation,
                writable: Arc::clone(writable),
                hidden,
            },
            other => RunSandbox::Unconfined(other),
        }
    }

    /// What a run started now cannot see (`None` where it is unconfined).
    pub fn hidden(&self) -> Option<HiddenPaths> {
        match self {
            RunSandbox::Confined { hidden, .. } => Some(hidden.0.current()),
            RunSandbox::Unconfined(_) => None,
        }
    }

    /// The same plan at another level (a tool that knows its own command
    /// is read-only, such as `project_summary`'s `git status`).
    pub fn at(&self, level: Level) -> Self {
        match self {
            RunSandbox::Confined { .. } => {
                let mut plan = self.clone();
                if let RunSandbox::Confined { level: l, .. } = &mut plan {
                    *l = level;
                }
                plan
            }
            other => other.clone(),
        }
    }

    /// The level, when confined.
    pub fn level(&self) -> Option<Level> {
        match self {
            RunSandbox::Confined { level, .. } => Some(*level),
            RunSandbox::Unconfined(_) => None,
        }
    }
}

impl fmt::Display for RunSandbox {
    /// `read-only`, `workspace-write`, `none (off)`, `none (unavailable: …)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunSandbox::Confined { level, .. } => write!(f, "{level}"),
            RunSandbox::Unconfined(SandboxStatus::Unavailable { why, .. }) => {
                write!(f, "none (unavailable: {why})")
            }
            RunSandbox::Unconfined(_) => f.write_str("none (off)"),
        }
    }
}

/// What the model is told when a read-only run was refused something.
pub const REFUSAL_NOTE: &str = "[sandbox] this command ran in koi's read-only sandbox, which refused a write \
or a connection. If the change is needed, run it again with \"escalate\": true and a \"reason\" (the user \
sees the request and can approve it with write and network access) instead of retrying the same command.";

/// Error texts a refused write, metadata change or socket produces:
/// EACCES, EPERM, EROFS as programs print them, and what resolvers and
/// HTTP clients say when they cannot open a socket.
const REFUSAL_SIGNS: [&str; 8] = [
    "permission denied",
    "operation not permitted",
    "read-only file system",
    "eacces",
    "eperm",
    "could not resolve",
    "temporary failure in name resolution",
    "couldn't connect",
];

/// The note for a run at `level` whose error output is `text`, if the
/// sandbox likely refused it something.
pub fn refusal_note(level: Option<Level>, text: &str) -> Option<&'static str> {
    if level != Some(Level::ReadOnly) {
        return None;
    }
    let lower = text.to_lowercase();
    REFUSAL_SIGNS
        .iter()
        .any(|s| lower.contains(s))
        .then_some(REFUSAL_NOTE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_round_trip_and_bad_ones_are_named() {
        for m in [SandboxMode::Auto, SandboxMode::Off, SandboxMode::Require] {
            assert_eq!(m.as_str().parse::<SandboxMode>(), Ok(m));
        }
        let e = "strict".parse::<SandboxMode>().unwrap_err().to_string();
        assert!(e.contains("strict") && e.contains("require"), "{e}");
    }

    #[test]
    fn tilde_expands_to_home() {
        let home = dirs::home_dir().unwrap_or_default();
        assert_eq!(expand_tilde("~/.cache"), home.join(".cache"));
        assert_eq!(expand_tilde("~"), home);
        assert_eq!(expand_tilde("/opt/x"), PathBuf::from("/opt/x"));
        assert_eq!(expand_tilde("~user/x"), PathBuf::from("~user/x"));
    }

    #[test]
    fn the_note_is_for_refused_read_only_runs_only() {
        let denied = "touch: cannot touch 'x': Permission denied";
        assert_eq!(
            refusal_note(Some(Level::ReadOnly), denied),
            Some(REFUSAL_NOTE)
        );
        assert_eq!(refusal_note(Some(Level::WorkspaceWrite), denied), None);
        assert_eq!(refusal_note(None, denied), None);
        assert_eq!(
            refusal_note(Some(Level::ReadOnly), "ls: no such file"),
            None
        );
    }

    #[test]
    fn labels_say_what_runs() {
        assert_eq!(SandboxStatus::Off.to_string(), "sandbox: off");
        let a = SandboxStatus::Active {
            landlock_abi: 7,
            isolation: Isolation::Namespaces,
            required: false,
        };
        assert_eq!(a.to_string(), "sandbox: namespaces + landlock v7");
        let l = SandboxStatus::Active {
            landlock_abi: 6,
            isolation: Isolation::LandlockOnly("user namespaces are refused".into()),
            required: false,
        };
        assert_eq!(
            l.to_string(),
            "sandbox: landlock v6 only (user namespaces are refused)"
        );
        let u = SandboxStatus::Unavailable {
            why: "no Landlock".into(),
            required: true,
        };
        assert!(u
            .to_string()
            .starts_with("sandbox unavailable: no Landlock"));
        assert_eq!(
            RunSandbox::Unconfined(SandboxStatus::Off).to_string(),
            "none (off)"
        );
        assert_eq!(
            RunSandbox::Unconfined(u).to_string(),
            "none (unavailable: no Landlock)"
        );
    }
}
