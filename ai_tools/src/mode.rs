//! Permission modes and the decisions the policy hands back.

use std::fmt;
use std::str::FromStr;

/// How much the user lets the assistant do without asking. Serialised as
/// its CLI name (`accept-edits`, …).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Anything proven read-only runs; anything else asks.
    #[default]
    Default,
    /// File edits inside the workspace run too; shell and network writes ask.
    AcceptEdits,
    /// Read-only only; everything else is denied with a reason.
    Plan,
    /// Unattended: whatever would ask is denied instead.
    DontAsk,
    /// Runs everything except what the floor forbids or asks about.
    Bypass,
}

impl Mode {
    /// Every mode, in the order the CLI lists them.
    pub const ALL: [Mode; 5] = [
        Mode::Default,
        Mode::AcceptEdits,
        Mode::Plan,
        Mode::DontAsk,
        Mode::Bypass,
    ];

    /// The name used in config files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "accept-edits",
            Mode::Plan => "plan",
            Mode::DontAsk => "dont-ask",
            Mode::Bypass => "bypass",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mode name that is not one of `default|accept-edits|plan|dont-ask|bypass`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode {0:?}: expected one of default, accept-edits, plan, dont-ask, bypass")]
pub struct ParseModeError(pub String);

impl FromStr for Mode {
    type Err = ParseModeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "default" => Ok(Mode::Default),
            "accept-edits" | "acceptedits" => Ok(Mode::AcceptEdits),
            "plan" => Ok(Mode::Plan),
            "dont-ask" | "dontask" => Ok(Mode::DontAsk),
            "bypass" => Ok(Mode::Bypass),
            _ => Err(ParseModeError(s.to_string())),
        }
    }
}

/// What the approval policy says about one tool call. Serialises as
/// `{"decision": "ask", "summary": …, "detail": …}` (for `--json`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "decision", rename_all = "lowercase")]
pub enum Decision {
    /// Run it without asking.
    Allow,
    /// Ask the user. `summary` is one line (for a shell call: the exact
    /// command with control characters made visible); `detail` says why.
    Ask {
        /// One line naming exactly what would run or change.
        summary: String,
        /// Why approval is needed.
        detail: String,
    },
    /// Refuse; `reason` is told to the model so it can find another way.
    Deny {
        /// Why, in words the model can act on.
        reason: String,
    },
}

impl Decision {
    /// A short label: `allow`, `ask` or `deny` (used by tables and `--json`).
    pub fn label(&self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask { .. } => "ask",
            Decision::Deny { .. } => "deny",
        }
    }

    /// True for [`Decision::Allow`].
    pub fn is_allow(&self) -> bool {
        matches!(self, Decision::Allow)
    }
}
