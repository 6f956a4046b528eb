//! The approval policy: a pure function of (call effect, mode, workspace)
//! to Allow / Ask / Deny, with a floor that holds in every mode.
//!
//! - `default`: anything proven read-only runs; anything else asks.
//! - `accept-edits`: file edits inside the workspace run too.
//! - `plan`: read-only only; everything else is denied with a reason.
//! - `dont-ask`: whatever would ask is denied.
//! - `bypass`: everything runs except what the floor denies or asks about.

pub mod ansi_c;
pub mod credentials;
pub mod expand;
pub mod floor;
pub mod git_config;
pub mod programs;
pub mod protected;
pub mod readonly;
pub mod repository;
pub mod shell_lex;
pub mod shell_parse;
pub mod shell_words;
pub mod unicode;
pub mod walk;
pub mod wrappers;

use std::path::{Path, PathBuf};

use crate::effect::Effect;
use crate::mode::{Decision, Mode};
use crate::sandbox::Level;
use crate::workspace::{canonicalize_lenient, Workspace};
use floor::Floor;

/// What a call is, before the mode is applied.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Class {
    /// Proven to change nothing.
    ReadOnly,
    /// Changes files inside the workspace.
    Edit,
    /// Anything else with side effects (shell, network writes, edits to
    /// files that make git run programs).
    SideEffect(String),
}

/// Whether the policy proved a call changes nothing. The OS sandbox a shell
/// command runs under follows this, not the mode: a proven command runs
/// read-only even in bypass mode, anything else at most workspace-write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    /// Proven read-only: nothing is written, nothing is contacted.
    ReadOnly,
    /// Not proven (it may write, connect, or the proof abstained).
    Unproven,
}

impl Proof {
    /// The sandbox level a call with this proof runs at: the policy
    /// decides, the sandbox only enforces.
    pub fn level(self) -> Level {
        match self {
            Proof::ReadOnly => Level::ReadOnly,
            Proof::Unproven => Level::WorkspaceWrite,
        }
    }
}

/// The proof for one call's effect (pure, like [`decide`]).
pub fn proof(effect: &Effect, ws: &Workspace) -> Proof {
    let (floor, class) = classify(effect, ws);
    proof_of(&floor, &class)
}

fn proof_of(floor: &Floor, class: &Class) -> Proof {
    match (floor, class) {
        (Floor::Deny(_), _) => Proof::Unproven,
        (_, Class::ReadOnly) => Proof::ReadOnly,
        _ => Proof::Unproven,
    }
}

/// Judge one call's effect in `mode`.
pub fn decide(effect: &Effect, mode: Mode, ws: &Workspace) -> Decision {
    let (floor, class) = classify(effect, ws);
    decision(effect, mode, ws, floor, class)
}

/// The policy's whole answer for one call, from one parse of the command:
/// what a runner needs (whether to run, under which sandbox).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// Allow, ask or deny in the mode asked about.
    pub decision: Decision,
    /// Whether the call was proven read-only.
    pub proof: Proof,
    /// Whether the floor had nothing to say (no credential, no path that
    /// asks in every mode): an unproven command may then run contained.
    pub floor_clear: bool,
}

/// [`decide`] and [`proof`] together, from one parse of the command.
pub fn judge(effect: &Effect, mode: Mode, ws: &Workspace) -> Judgement {
    let (floor, class) = classify(effect, ws);
    let proof = proof_of(&floor, &class);
    let floor_clear = floor == Floor::Clear;
    Judgement {
        decision: decision(effect, mode, ws, floor, class),
        proof,
        floor_clear,
    }
}

fn decision(effect: &Effect, mode: Mode, ws: &Workspace, floor: Floor, class: Class) -> Decision {
    let summary = summarize(effect, ws);
    match floor {
        Floor::Deny(reason) => return Decision::Deny { reason },
        Floor::Ask(why) => {
            return match mode {
                Mode::Plan => Decision::Deny {
                    reason: format!("plan mode is read-only, and {why}"),
                },
                Mode::DontAsk => Decision::Deny {
                    reason: format!(
                        "{why}, which needs approval; dont-ask mode denies it, so find another way"
                    ),
                },
                _ => Decision::Ask {
                    summary,
                    detail: why,
                },
            }
        }
        Floor::Clear => {}
    }
    match (class, mode) {
        (Class::ReadOnly, _) => Decision::Allow,
        (Class::Edit, Mode::AcceptEdits | Mode::Bypass) => Decision::Allow,
        (Class::SideEffect(_), Mode::Bypass) => Decision::Allow,
        (Class::Edit, Mode::Default) => Decision::Ask {
            summary,
            detail: "edits a file in the workspace".into(),
        },
        (Class::SideEffect(why), Mode::Default | Mode::AcceptEdits) => Decision::Ask { summary, detail: why },
        (Class::Edit, Mode::Plan) | (Class::SideEffect(_), Mode::Plan) => Decision::Deny {
            reason: format!("plan mode is read-only: {summary} would change things; describe the change instead"),
        },
        (Class::Edit, Mode::DontAsk) => Decision::Deny {
            reason: format!("{summary} needs approval, and dont-ask mode denies it; find another way"),
        },
        (Class::SideEffect(why), Mode::DontAsk) => Decision::Deny {
            reason: format!("{summary} needs approval ({why}), and dont-ask mode denies it; find another way"),
        },
    }
}

/// One line for the approval prompt; a shell call shows the exact command
/// with control characters made visible.
fn summarize(effect: &Effect, ws: &Workspace) -> String {
    let names = |paths: &[PathBuf]| {
        paths
            .iter()
            .map(|p| ws.display(p))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match effect {
        Effect::Read(p) => format!("read {}", unicode::visible(&names(p))),
        Effect::Write(p) => {
            // A file that is not there yet is created, not edited.
            let (new, old): (Vec<PathBuf>, Vec<PathBuf>) = p
                .iter()
                .cloned()
                .partition(|path| std::fs::symlink_metadata(path).is_err());
            let mut parts = Vec::new();
            if !new.is_empty() {
                parts.push(format!("create {}", unicode::visible(&names(&new))));
            }
            if !old.is_empty() {
                parts.push(format!("edit {}", unicode::visible(&names(&old))));
            }
            parts.join("; ")
        }
        Effect::Shell { command, .. } => unicode::visible(command),
        Effect::NetworkRead { url } => format!("GET {}", unicode::visible(url)),
        Effect::NetworkWrite { method, url } => format!("{method} {}", unicode::visible(url)),
        Effect::WebSearch { provider, query } => {
            format!(
                "search the web ({provider}) for {}",
                unicode::visible(query)
            )
        }
        Effect::OwnProcess => "manage a background process".into(),
        Effect::Mcp(call) => call.summary(),
    }
}

fn classify(effect: &Effect, ws: &Workspace) -> (Floor, Class) {
    match effect {
        Effect::Read(paths) => {
            let floor = paths_credential_floor(paths, ws);
            match unknown_hard_link(paths, ws) {
                Some(why) => (
                    floor,
                    Class::SideEffect(format!("not proven read-only: {why}")),
                ),
                None => (floor, Class::ReadOnly),
            }
        }
        Effect::Write(paths) => {
            let floor = paths_credential_floor(paths, ws);
            if floor != Floor::Clear {
                return (floor, Class::Edit);
            }
            for p in paths {
                let canonical = canonicalize_lenient(p);
                if !canonical.starts_with(ws.root()) {
                    return (
                        Floor::Ask(format!(
                            "writes {}, outside the workspace",
                            canonical.display()
                        )),
                        Class::Edit,
                    );
                }
                if let Ok(rel) = canonical.strip_prefix(ws.root()) {
                    if rel.components().any(|c| c.as_os_str() == ".git") {
                        return (
                            Floor::Clear,
                            Class::SideEffect(
                                "changes git's internals, which can make git run programs".into(),
                            ),
                        );
                    }
                }
            }
            (Floor::Clear, Class::Edit)
        }
        Effect::Shell { command, cwd } => shell_class(command, cwd, ws),
        Effect::NetworkRead { url } => match reqwest::Url::parse(url)
            .ok()
            .and_then(|u| crate::net_scope::local_reason(&u))
        {
            Some(why) => (
                Floor::Clear,
                Class::SideEffect(format!(
                    "{why}; a GET there can reach services that trust the local network"
                )),
            ),
            None => (Floor::Clear, Class::ReadOnly),
        },
        Effect::NetworkWrite { method, .. } => (
            Floor::Clear,
            Class::SideEffect(format!("an HTTP {method} request may change remote state")),
        ),
        Effect::WebSearch { .. } | Effect::OwnProcess => (Floor::Clear, Class::ReadOnly),
        Effect::Mcp(call) if call.trusted_read_only() => (Floor::Clear, Class::ReadOnly),
        Effect::Mcp(call) => (Floor::Clear, Class::SideEffect(call.why())),
    }
}

/// A file outside the workspace with several names may be a credential
/// under another one the checker cannot see: reading it is not proven.
fn unknown_hard_link(paths: &[PathBuf], ws: &Workspace) -> Option<String> {
    paths.iter().find_map(
        |p| match credentials::hard_link(&canonicalize_lenient(p), ws.root()) {
            Some(credentials::HardLink::Unknown(why)) => Some(why),
            _ => None,
        },
    )
}

fn paths_credential_floor(paths: &[PathBuf], ws: &Workspace) -> Floor {
    for p in paths {
        let canonical = canonicalize_lenient(p);
        let linked = match credentials::hard_link(&canonical, ws.root()) {
            Some(credentials::HardLink::Credential(why)) => Some(why),
            _ => None,
        };
        if let Some(why) = credentials::path_reason(p, &canonical)
            .or_else(|| protected::registered_reason(&canonical, ws))
            .or(linked)
        {
            return Floor::Deny(format!(
                "{why}; credentials are never read or written by tools"
            ));
        }
    }
    Floor::Clear
}

fn shell_class(command: &str, cwd: &Path, ws: &Workspace) -> (Floor, Class) {
    if let Some(why) = credentials::path_reason(cwd, &canonicalize_lenient(cwd)) {
        return (
            Floor::Deny(format!("runs inside a credential directory: {why}")),
            Class::SideEffect(String::new()),
        );
    }
    // Parsed once, walked once: the floor and the proof judge the same
    // expanded steps.
    let parsed = shell_parse::parse(command);
    let walked = parsed.as_ref().ok().map(|script| walk::walk(script, cwd));
    let floor = match floor::shell_floor(command, walked.as_ref(), ws, cwd) {
        Floor::Deny(why) => {
            return (
                Floor::Deny(format!("{why}; this is refused in every mode")),
                Class::SideEffect(String::new()),
            )
        }
        other => other,
    };
    let proof = if command
        .chars()
        .any(|c| unicode::is_invisible(c) || (c.is_control() && c != '\n' && c != '\t'))
    {
        Err("contains invisible or control characters".to_string())
    } else {
        match (&parsed, &walked) {
            (Ok(_), Some(w)) => readonly::prove(w, ws),
            (Err(e), _) => Err(format!("the command could not be parsed ({e})")),
            (Ok(_), None) => Err("the command could not be walked".to_string()),
        }
    };
    match proof {
        Ok(()) => (floor, Class::ReadOnly),
        Err(why) => {
            let floor = match floor {
                Floor::Clear if !canonicalize_lenient(cwd).starts_with(ws.root()) => {
                    Floor::Ask("runs outside the workspace".into())
                }
                other => other,
            };
            (
                floor,
                Class::SideEffect(format!("not proven read-only: {why}")),
            )
        }
    }
}

/// Judge a shell command as `k policy check` does, with the current
/// directory as the workspace.
pub fn check_command(cmd: &str, mode: Mode) -> Decision {
    let ws = std::env::current_dir()
        .ok()
        .and_then(|d| Workspace::new(d).ok())
        .or_else(|| Workspace::new("/").ok());
    match ws {
        Some(ws) => check_command_in(cmd, mode, &ws),
        None => Decision::Deny {
            reason: "no usable working directory".to_string(),
        },
    }
}

/// Judge a shell command run in `ws`'s root.
pub fn check_command_in(cmd: &str, mode: Mode, ws: &Workspace) -> Decision {
    decide(
        &Effect::Shell {
            command: cmd.to_string(),
            cwd: ws.root().to_path_buf(),
        },
        mode,
        ws,
    )
}
