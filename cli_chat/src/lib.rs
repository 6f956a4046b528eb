//! `k`: koi's assistant as a command in any shell.
//!
//! A thin front end over [`ai_chat_engine`]: it loads the same `[ai]`
//! config, builds the same tool registry, submits turns and shows the
//! engine's [`ai_chat_engine::Event`]s. It assembles no prompts and
//! builds no provider requests of its own.

/// `eprintln!` that cannot panic: a closed stderr is not worth dying for.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that cannot panic.
macro_rules! say_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

pub mod acp;
pub mod answer_view;
pub mod approval;
pub mod args;
pub mod config_cmd;
pub mod conversation;
pub mod exit;
pub mod fix_cmd;
pub mod goal_cmd;
pub mod interrupt;
pub mod mcp_cmd;
pub mod memory_cmd;
pub mod oneshot;
pub mod overlay;
pub mod pictures;
pub mod piped;
pub mod policy_cmd;
pub mod render;
pub mod repl;
pub mod sessions_cmd;
pub mod setup;
pub mod suggest_cmd;
pub mod tty;
pub mod turn;
pub mod uncertain;

use std::io::{IsTerminal, Write};

use ai_chat_engine::store::session_log;
use ai_tools::Mode;
use anyhow::Result;

use crate::args::{Cli, Command, McpAction, PolicyAction, PolicyCheck};
use crate::exit::Exit;
use crate::setup::Settings;

/// Runs `k` as the command line asks.
pub fn run(cli: Cli) -> Result<Exit> {
    if cli.overlay {
        overlay::run(&|k| std::env::var(k).ok())?;
        return Ok(Exit::Done);
    }
    if let Some(words) = &cli.suggest {
        return suggest_cmd::run(&cli, words);
    }
    match &cli.command {
        Some(Command::Sessions { all }) => sessions(&cli, *all),
        Some(Command::Config) => config(&cli),
        Some(Command::Policy {
            action: PolicyAction::Check(check),
        }) => policy_check(&cli, check),
        Some(Command::Mcp { action }) => mcp(&cli, action),
        Some(Command::Fix) => fix_cmd::run(&cli),
        Some(Command::Acp) => acp::run(&cli),
        None => {
            let question = cli.question_text();
            let piped = oneshot::read_piped_stdin(&cli)?;
            let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
            let goal = cli.goal.goal.is_some();
            if !goal && question.is_none() && piped.is_none() && interactive && !cli.common.json {
                repl::run(&cli)
            } else {
                oneshot::run(&cli, question, piped)
            }
        }
    }
}

/// Prints a report on stdout. Reports quote outside text (session titles
/// the model wrote, paths), so on a terminal control characters are shown
/// escaped; a pipe gets the exact bytes.
fn print(text: &str) -> Result<Exit> {
    let mut out = std::io::stdout().lock();
    let shown = if out.is_terminal() {
        ai_tools::terminal_text::escape_controls(text)
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    // A closed pipe (`k sessions | head -1`) is not an error worth a message.
    let _ = out.write_all(shown.as_bytes()).and_then(|()| out.flush());
    Ok(Exit::Done)
}

fn sessions(cli: &Cli, all: bool) -> Result<Exit> {
    let cwd = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    let infos = session_log::default_sessions_dir()
        .map(|d| session_log::list_sessions(&d))
        .unwrap_or_default();
    let shown = if all {
        &infos[..]
    } else {
        &infos[..infos.len().min(sessions_cmd::DEFAULT_LIMIT)]
    };
    let rows = sessions_cmd::list(shown, &cwd, ai_chat_engine::time::now_secs());
    if cli.common.json {
        print(&sessions_cmd::to_json_lines(&rows))
    } else {
        print(&sessions_cmd::to_text(
            &rows,
            infos.len() - shown.len(),
            "k sessions --all",
            "k --resume ID",
        ))
    }
}

fn config(cli: &Cli) -> Result<Exit> {
    let mut settings = Settings::load(&cli.common, ai_chat_engine::Front::K)?;
    let resolved = settings.resolve();
    let tty = tty::has_tty();
    let mode = setup::effective_mode(cli.common.mode, tty, resolved.approval_mode);
    let why = match (cli.common.mode, tty) {
        (Some(_), _) => "flag --mode",
        (None, false) => "no terminal to ask: dont-ask",
        (None, true) => "approval_mode",
    };
    let report = config_cmd::report(&settings, &resolved, mode, why);
    if cli.common.json {
        print(&format!("{}\n", report.to_json()))
    } else {
        print(&report.to_text())
    }
}

fn config_file(cli: &Cli) -> Option<std::path::PathBuf> {
    cli.common
        .config
        .clone()
        .or_else(ai_chat_engine::config::config_path)
}

fn mcp(cli: &Cli, action: &McpAction) -> Result<Exit> {
    let file = config_file(cli);
    let text = match action {
        McpAction::List => mcp_cmd::list(file.as_deref(), cli.common.json)?,
        McpAction::Add(a) => mcp_cmd::add(file, a)?,
        McpAction::Remove { name } => mcp_cmd::remove(file, name)?,
    };
    print(&text)
}

fn policy_check(cli: &Cli, check: &PolicyCheck) -> Result<Exit> {
    let subject = policy_cmd::Subject::from_args(
        check.tool.as_deref(),
        check.args.as_deref(),
        &check.command,
    )?;
    let settings = Settings::load(&cli.common, ai_chat_engine::Front::K)?;
    let modes: Vec<Mode> = if check.all_modes {
        Mode::ALL.to_vec()
    } else if let Some(m) = cli.common.mode {
        vec![m]
    } else {
        // The mode the user configured (a terminal session's mode).
        let configured = settings
            .ai()
            .approval_mode
            .as_deref()
            .and_then(|m| m.parse().ok())
            .unwrap_or_default();
        vec![configured]
    };
    let mut registry = settings.builder.policy_registry()?;
    // An MCP tool is judged by its server's annotations and trust: start
    // the servers (bounded by their startup timeouts) to read them.
    let names_mcp = check.tool.as_deref().is_some_and(|t| t.starts_with("mcp"));
    if names_mcp {
        let ws = registry.workspace().root().to_path_buf();
        if let Some(hub) = settings.builder.mcp_hub(&ws, Vec::new())? {
            hub.start_all();
            hub.wait_started(std::time::Duration::from_secs(60));
            registry = registry.with_source(hub);
        }
    }
    let mut text = String::new();
    for mode in modes {
        let v = policy_cmd::judge(&subject, mode, &registry);
        if cli.common.json {
            text.push_str(&policy_cmd::to_json(&v));
            text.push('\n');
        } else {
            text.push_str(&v.to_text());
        }
    }
    print(&text)
}
