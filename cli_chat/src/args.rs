//! The command line: `k [QUESTION]…`, its flags, and the subcommands.

use std::num::{NonZeroU32, NonZeroU64};
use std::path::PathBuf;

use ai_chat_engine::goal::{parse_minutes, parse_tokens, parse_turns};
use ai_chat_engine::{BudgetLimits, ProviderKind};
use ai_tools::Mode;
use clap::{Args, Parser, Subcommand};

const AFTER_HELP: &str = "\
Examples:
  k \"why does this test fail?\"          ask once; the answer streams to stdout
  cargo build 2>&1 | k \"explain the first error\"
                                        piped input is attached as untrusted data
  git diff | k                          with a pipe and no question: explain the input
  k                                     on a terminal: an interactive chat (/help inside)
  k --new \"start over: plan a refactor\" start a fresh conversation
  k --resume                            continue this directory's latest conversation
  k --fork ID                           continue a copy of a conversation open elsewhere
  k --resume ID --rerun CALL            after a crash: run an interrupted call again
  k --resume ID --abandon CALL          …or give it up (the model is told it may have run)
  k --json \"list the TODOs\" | jq .      one JSON event per line, for scripts and editors
  k sessions                            saved conversations (id, age, size, title)
  k config                              the effective settings and where each came from
  k policy check -- 'rm -rf build'      would this run, ask or be refused? (runs nothing)
  k mcp list                            MCP servers: state, protocol, tools
  k mcp add NAME -- CMD ARGS…           add a stdio MCP server (or --url URL)
  k --overlay                           inside koi: open the Cmd+L overlay
  k --suggest \"big files this week\" print one command for the words (runs nothing)
  k fix                                 inside koi: why did the last command fail?
  make 2>&1 | k fix                     anywhere: why does this output show a failure?

By default `k` continues the latest conversation started in the current
directory (or starts a new one when that one is open in another koi or k).
A conversation is open for writing in one place at a time. After a crash,
a call that may have partly run is never repeated until you decide. Tool activity goes to stderr (`→ fs_read src/main.rs`,
`← read src/main.rs → 120 lines`). Anything that edits files or runs a command
that is not proven read-only asks `[y/N]` on the terminal; with no terminal it
is refused (mode dont-ask) unless --mode says otherwise.

Settings come from the [ai] table of ~/.config/koi/koi.toml (XDG_CONFIG_HOME
honoured); the API key from the env var it names (default KOI_API_KEY).

Exit codes: 0 answered · 1 the turn failed (provider error, cancelled, limit)
· 2 usage or configuration error · 130 interrupted by Ctrl+C.";

/// `k`: koi's assistant in any shell.
#[derive(Debug, Parser)]
#[command(
    name = "k",
    version,
    about = "koi's assistant in any shell: ask a question, get a streamed answer.",
    after_help = AFTER_HELP,
    args_override_self = true
)]
pub struct Cli {
    /// The question (several words are joined with spaces). Without one, a
    /// pipe's content is explained, and a terminal gets an interactive chat.
    #[arg(value_name = "QUESTION")]
    pub question: Vec<String>,

    /// Start a fresh conversation instead of continuing this directory's latest.
    #[arg(long, conflicts_with = "resume")]
    pub new: bool,

    /// Continue a saved conversation: ID from `k sessions`, or without ID
    /// this directory's latest (an error when there is none).
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "")]
    pub resume: Option<String>,

    /// Continue a copy of saved conversation ID under a new id (works
    /// while the original is open elsewhere; its log says where it came
    /// from).
    #[arg(long, value_name = "ID", conflicts_with_all = ["new", "resume"])]
    pub fork: Option<String>,

    /// Run an interrupted call again (CALL from the `uncertain` notice).
    /// Repeatable.
    #[arg(long, value_name = "CALL")]
    pub rerun: Vec<String>,

    /// Give up an interrupted call; the model is told its effect is
    /// unknown. Repeatable.
    #[arg(long, value_name = "CALL")]
    pub abandon: Vec<String>,

    /// Do not read piped standard input.
    #[arg(long)]
    pub no_stdin: bool,

    /// Attach an image (PNG, JPEG, GIF or WebP, up to 5 MB) to the
    /// question, or to the first message of the chat; repeatable.
    #[arg(long, value_name = "FILE")]
    pub image: Vec<PathBuf>,

    /// Ask the running koi to open its Cmd+L overlay (only inside koi).
    #[arg(long, conflicts_with_all = ["question", "new", "resume"])]
    pub overlay: bool,

    /// Print one shell command for WORDS and exit; runs nothing (plan
    /// mode: only read-only tools). For prompt widgets outside koi.
    #[arg(
        long,
        value_name = "WORDS",
        conflicts_with_all = ["question", "new", "resume", "fork", "overlay", "goal"]
    )]
    pub suggest: Option<String>,

    #[command(flatten)]
    pub goal: GoalFlags,

    #[command(flatten)]
    pub common: Common,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Goal mode: work on a task over turns until a check passes.
#[derive(Debug, Clone, Args, Default)]
pub struct GoalFlags {
    /// Work on TEXT over several turns until the --check command exits 0
    /// (within the budget below); the REPL's /goal does the same.
    #[arg(long, value_name = "TEXT", conflicts_with_all = ["question", "overlay"])]
    pub goal: Option<String>,

    /// The goal's check: a shell command (run in the workspace, sandboxed
    /// workspace-write) whose exit 0 means the goal is complete.
    #[arg(long, value_name = "COMMAND")]
    pub check: Option<String>,

    /// Most turns the goal may take (default 10; /goal's --turns).
    #[arg(long, value_name = "N", value_parser = parse_turns)]
    pub goal_turns: Option<NonZeroU32>,

    /// Most tokens (input + output) the goal may spend (default 2000000;
    /// /goal's --tokens).
    #[arg(long, value_name = "N", value_parser = parse_tokens)]
    pub goal_tokens: Option<NonZeroU64>,

    /// Most minutes the goal may take (default 60; /goal's --minutes).
    #[arg(long, value_name = "N", value_parser = parse_minutes)]
    pub goal_minutes: Option<NonZeroU64>,
}

impl GoalFlags {
    /// The budget limits these flags name.
    pub fn limits(&self) -> BudgetLimits {
        BudgetLimits {
            turns: self.goal_turns,
            tokens: self.goal_tokens,
            minutes: self.goal_minutes,
        }
    }
}

/// Flags every form of `k` accepts.
#[derive(Debug, Clone, Args, Default)]
pub struct Common {
    /// Approval mode: default | accept-edits | plan | dont-ask | bypass.
    #[arg(long, global = true, value_name = "MODE", value_parser = parse_mode)]
    pub mode: Option<Mode>,

    /// One JSON object per line instead of text (schema in cli_chat/README.md).
    #[arg(long, global = true)]
    pub json: bool,

    /// Show answers as the raw text the model wrote, not rendered markdown
    /// (a pipe, a file and NO_COLOR always get the raw text).
    #[arg(long, global = true)]
    pub raw: bool,

    /// Model for this run (overrides [ai] model).
    #[arg(long, global = true, value_name = "M")]
    pub model: Option<String>,

    /// Provider for this run: openai | openai-responses | anthropic | demo.
    #[arg(long, global = true, value_name = "P", value_parser = parse_provider)]
    pub provider: Option<ProviderKind>,

    /// API base URL for this run, e.g. http://127.0.0.1:11434/v1.
    #[arg(long, global = true, value_name = "URL")]
    pub base_url: Option<String>,

    /// Read settings from FILE instead of ~/.config/koi/koi.toml.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List saved conversations, most recent first.
    Sessions {
        /// List every session (default: the 20 most recent).
        #[arg(long)]
        all: bool,
    },
    /// Print the effective settings, secrets masked, and where each came from.
    Config,
    /// Approval policy tools.
    Policy {
        #[command(subcommand)]
        action: PolicyAction,
    },
    /// MCP servers: list them (state, tools), add one, remove one.
    Mcp {
        #[command(subcommand)]
        action: McpAction,
    },
    /// Ask why the last command failed and how to fix it: inside koi, koi
    /// hands over the command, its output and exit status; elsewhere pipe
    /// the output in (`cmd 2>&1 | k fix`). Nothing runs again.
    Fix,
    /// Serve editors over the Agent Client Protocol on stdin/stdout (Zed,
    /// JetBrains, any ACP client): each session is a koi conversation that
    /// `k --resume ID` continues.
    Acp,
}

/// `k mcp …`.
#[derive(Debug, Subcommand)]
pub enum McpAction {
    /// Every configured server: whether it starts, its protocol, its tools.
    List,
    /// Add a server to the config file.
    #[command(after_help = "\
Examples:
  k mcp add files -- npx -y @modelcontextprotocol/server-filesystem ~/notes
  k mcp add files --trust annotations -- mcp-server-filesystem ~/notes
  k mcp add remote --url https://mcp.example.test/mcp --bearer-token-env-var EXAMPLE_TOKEN")]
    Add(McpAdd),
    /// Remove a server from the config file.
    Remove {
        /// The server's name.
        name: String,
    },
}

/// `k mcp add` arguments.
#[derive(Debug, Args)]
pub struct McpAdd {
    /// The server's name (letters, digits, '-', single '_').
    pub name: String,
    /// A Streamable HTTP endpoint instead of a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,
    /// An HTTP header NAME=VALUE (with --url). Repeatable.
    #[arg(long = "header", value_name = "NAME=VALUE", requires = "url")]
    pub headers: Vec<String>,
    /// An env var holding a bearer token (with --url).
    #[arg(long, value_name = "VAR", requires = "url")]
    pub bearer_token_env_var: Option<String>,
    /// An environment variable KEY=VALUE for the server (with a command). Repeatable.
    #[arg(long = "env", value_name = "KEY=VALUE", conflicts_with = "url")]
    pub env: Vec<String>,
    /// How far to trust the server: none (every call asks) or annotations
    /// (its read-only hints let read-only tools run unasked).
    #[arg(long, value_name = "TRUST", default_value = "none", value_parser = parse_trust)]
    pub trust: ai_tools::McpTrust,
    /// The command and its arguments, after `--`.
    #[arg(value_name = "COMMAND", last = true)]
    pub command: Vec<String>,
}

fn parse_trust(s: &str) -> Result<ai_tools::McpTrust, String> {
    match s {
        "none" => Ok(ai_tools::McpTrust::None),
        "annotations" => Ok(ai_tools::McpTrust::Annotations),
        _ => Err(format!("unknown trust {s:?}; use none or annotations")),
    }
}

/// `k policy …`.
#[derive(Debug, Subcommand)]
pub enum PolicyAction {
    /// Print what the approval policy decides for a command or tool call,
    /// and why, without running anything.
    #[command(after_help = "\
Examples:
  k policy check -- git status
  k policy check --mode plan -- 'cat notes.txt > copy.txt'
  k policy check --all-modes --json -- 'find . -delete'
  k policy check --tool fs_write --args '{\"path\":\"a.txt\",\"content\":\"x\",\"expected_revision\":\"absent\"}'

A single argument after -- is judged verbatim; several are shell-quoted and joined.")]
    Check(PolicyCheck),
}

/// `k policy check` arguments.
#[derive(Debug, Args)]
pub struct PolicyCheck {
    /// Judge in every mode (one line each).
    #[arg(long, conflicts_with = "mode")]
    pub all_modes: bool,

    /// A tool name to judge instead of a shell command.
    #[arg(
        long,
        value_name = "NAME",
        requires = "args",
        conflicts_with = "command"
    )]
    pub tool: Option<String>,

    /// The tool's JSON arguments (with --tool).
    #[arg(long, value_name = "JSON", requires = "tool")]
    pub args: Option<String>,

    /// The shell command, after `--`.
    #[arg(value_name = "COMMAND", last = true)]
    pub command: Vec<String>,
}

fn parse_mode(s: &str) -> Result<Mode, String> {
    s.parse::<Mode>()
        .map_err(|_| format!("unknown mode {s:?}; use one of {}", mode_names()))
}

fn parse_provider(s: &str) -> Result<ProviderKind, String> {
    ProviderKind::parse(s).ok_or_else(|| {
        format!("unknown provider {s:?}; use openai, openai-responses, anthropic or demo")
    })
}

/// `default, accept-edits, …` for messages.
pub fn mode_names() -> String {
    Mode::ALL
        .iter()
        .map(|m| m.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Cli {
    /// The `--image` files, read and validated.
    pub fn images(&self) -> anyhow::Result<Vec<ai_chat_engine::Image>> {
        self.image
            .iter()
            .map(|p| ai_chat_engine::Image::load(p).map_err(anyhow::Error::from))
            .collect()
    }

    /// The question as one string, if any words were given.
    pub fn question_text(&self) -> Option<String> {
        let q = self.question.join(" ");
        (!q.trim().is_empty()).then_some(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_forms() {
        let c = Cli::try_parse_from(["k", "why", "does", "this", "fail?"]).unwrap();
        assert_eq!(c.question_text().as_deref(), Some("why does this fail?"));
        let c = Cli::try_parse_from(["k", "--resume"]).unwrap();
        assert_eq!(c.resume.as_deref(), Some(""));
        let c = Cli::try_parse_from(["k", "--resume", "abc", "hi"]).unwrap();
        assert_eq!(c.resume.as_deref(), Some("abc"));
        let c =
            Cli::try_parse_from(["k", "policy", "check", "--mode", "plan", "--", "ls"]).unwrap();
        assert_eq!(c.common.mode, Some(Mode::Plan));
        assert!(matches!(c.command, Some(Command::Policy { .. })));
        let c = Cli::try_parse_from(["k", "sessions", "--json"]).unwrap();
        assert!(c.common.json);
        assert!(Cli::try_parse_from(["k", "--mode", "yolo", "x"]).is_err());
        assert!(Cli::try_parse_from(["k", "--new", "--resume", "x"]).is_err());
        let c = Cli::try_parse_from(["k", "--resume", "s", "--rerun", "c1", "--abandon", "c2"])
            .unwrap();
        assert_eq!(
            (c.rerun, c.abandon),
            (vec!["c1".to_string()], vec!["c2".to_string()])
        );
        assert!(Cli::try_parse_from(["k", "--fork", "s", "--new"]).is_err());
        let c = Cli::try_parse_from([
            "k", "mcp", "add", "fs", "--env", "A=1", "--", "npx", "-y", "x",
        ])
        .unwrap();
        let Some(Command::Mcp {
            action: McpAction::Add(add),
        }) = c.command
        else {
            panic!("not mcp add");
        };
        assert_eq!(
            (add.name.as_str(), add.command.len(), add.env.len()),
            ("fs", 3, 1)
        );
        assert!(
            Cli::try_parse_from(["k", "mcp", "add", "r", "--url", "http://h", "--", "x"]).is_err()
        );
        assert!(
            Cli::try_parse_from(["k", "mcp", "add", "r", "--trust", "all", "--", "x"]).is_err()
        );
        let c =
            Cli::try_parse_from(["k", "--image", "a.png", "--image", "b.jpg", "what?"]).unwrap();
        assert_eq!(c.image, [PathBuf::from("a.png"), PathBuf::from("b.jpg")]);
    }
}
