//! `k` on a terminal with no question: an interactive chat with line
//! editing, history, streaming answers and slash commands.

use std::io::{self, Write};
use std::path::PathBuf;

use ai_chat_engine::{
    CancelHandle, Conversation, Engine, Event, GoalCommand, Image, Message, SlashCommand, Step,
    UserInput,
};
use ai_tools::terminal_text::escape_controls;
use ai_tools::Mode;
use anyhow::{Context, Result};
use crossbeam_channel::Receiver;
use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{Config, Editor};

use crate::answer_view;
use crate::approval::TtyApprover;
use crate::args::{mode_names, Cli, GoalFlags};
use crate::conversation::{self, Start};
use crate::exit::Exit;
use crate::goal_cmd;
use crate::interrupt::Interrupts;
use crate::memory_cmd;
use crate::pictures;
use crate::render::{Style, TextOutput};
use crate::sessions_cmd;
use crate::setup::{self, Settings};
use crate::turn::{Driver, Tokens, TurnOutcome};
use crate::uncertain;
use ai_chat_engine::Front;

/// Lines of input history kept on disk.
const HISTORY_LINES: usize = 1000;

/// The prompt.
const PROMPT: &str = "› ";

const HELP: &str = "\
Type a question and press Enter. Ctrl+C cancels a running answer; Ctrl+C twice
at an empty prompt (or Ctrl+D, or /exit) leaves.
  /new             start a fresh conversation
  /clear           clear the screen and start a fresh conversation
  /resume [ID]     continue a saved conversation (without ID: list them)
  /fork [ID]       continue a copy of a conversation (default: this one)
  /sessions        list saved conversations
  /model [NAME]    show or switch the model
  /mode [MODE]     show or switch the approval mode
  /status          model, mode, session, context, AGENTS.md files, tokens used and cached fraction
  /cost            this conversation's tokens, cache hits and (with prices) cost
  /init            draft an AGENTS.md for this project (the write asks first)
  /compact         summarise older history now (it also happens by itself)
  /goal TEXT [--turns N] [--tokens N] [--minutes N] --check COMMAND
                   work on TEXT over turns until COMMAND exits 0, within a
                   budget (default 10 turns, 2000000 tokens, 60 minutes)
  /goal            show the goal · /goal resume goes on · /goal clear ends it
  /image FILE      attach an image (PNG, JPEG, GIF, WebP) to the next message
  /memory          what the assistant remembers, and its latest changes
  /memory edit [global]
                   open this project's (or the global) memory in $EDITOR
  /exit            leave";

struct Repl {
    engine: Engine,
    /// Budgets (and a default check) for `/goal`, from the command line.
    goal_flags: GoalFlags,
    conv: Conversation,
    tokens: Tokens,
    approver: TtyApprover,
    interrupts: Interrupts,
    style: Style,
    /// `--raw`: answers as the model's text, not rendered.
    raw: bool,
    /// Images waiting for the next message (`/image`, `--image`).
    images: Vec<Image>,
}

/// Runs the chat until `/exit`, Ctrl+D or a second Ctrl+C.
pub fn run(cli: &Cli) -> Result<Exit> {
    let mut settings = Settings::load(&cli.common, Front::K)?;
    let resolved = settings.resolve();
    let mode = setup::effective_mode(cli.common.mode, true, resolved.approval_mode);
    let images = cli.images()?;
    let engine = settings.build_engine(mode)?;
    let start = Start::from_flags(cli.new, cli.resume.as_deref(), cli.fork.as_deref());
    let picked = conversation::pick(&engine, &start)?;
    let (conv, resumed) = (picked.conv, picked.resumed);
    let config = Config::builder()
        .max_history_size(HISTORY_LINES)?
        .auto_add_history(false)
        .build();
    let mut editor: Editor<(), FileHistory> = Editor::with_config(config)?;
    let approver = TtyApprover::open();
    // After the editors: rustyline takes SIGINT when one is created.
    let interrupts = Interrupts::install().context("cannot install the Ctrl+C handler")?;
    let mut repl = Repl {
        engine,
        goal_flags: cli.goal.clone(),
        conv,
        tokens: Tokens::default(),
        approver,
        interrupts,
        style: Style::for_stderr(),
        raw: cli.common.raw,
        images,
    };
    let history = history_path();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    for note in &picked.notes {
        say!("{}", repl.style.dim(note));
    }
    repl.banner(resumed);
    let flags = uncertain::Flags {
        rerun: cli.rerun.clone(),
        abandon: cli.abandon.clone(),
    };
    repl.continue_interrupted(&flags)?;
    let mut armed = false;
    loop {
        repl.interrupts.clear();
        let line = match editor.readline(PROMPT) {
            Ok(l) => l,
            Err(ReadlineError::Interrupted) if armed => break,
            Err(ReadlineError::Interrupted) => {
                armed = true;
                say!("{}", repl.style.dim("(Ctrl+C again to leave, or /exit)"));
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e).context("cannot read the terminal"),
        };
        armed = false;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(text);
        if let Some(h) = &history {
            let _ = editor.append_history(h);
        }
        if text.starts_with('/') {
            if repl.slash(SlashCommand::parse(text)) {
                break;
            }
        } else {
            repl.ask(text);
        }
    }
    repl.close_for_memory(true);
    Ok(Exit::Done)
}

/// `$XDG_DATA_HOME/koi/k_history` (created on demand).
fn history_path() -> Option<PathBuf> {
    let dir = ai_chat_engine::config::data_dir()?;
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir.join("k_history"))
}

impl Repl {
    fn banner(&self, resumed: bool) {
        let cfg = self.engine.config();
        say!(
            "{}",
            self.style.dim(&format!(
                "k · {} via {} · mode {} · /help for commands, Ctrl+D to leave",
                self.engine.model(),
                cfg.provider,
                self.engine.mode()
            ))
        );
        if resumed {
            let n = self
                .conv
                .messages()
                .iter()
                .filter(|m| matches!(m, Message::User { .. }))
                .count();
            say!(
                "{}",
                self.style.dim(&format!(
                    "continuing session {} ({n} earlier questions) · /new starts fresh",
                    self.conv.id()
                ))
            );
            for line in conversation::recap(&self.conv)
                .into_iter()
                .chain(conversation::notes(&self.conv))
            {
                say!("{}", self.style.dim(&escape_controls(&line)));
            }
        }
    }

    /// Decides interrupted calls with the user, then continues what the
    /// interruption left unfinished (the planner's next step).
    fn continue_interrupted(&mut self, flags: &uncertain::Flags) -> Result<()> {
        let left = uncertain::resolve(&self.engine, &self.conv, flags, Some(&mut self.approver))?;
        if !left.is_empty() {
            say!(
                "{}",
                self.style
                    .yellow(&uncertain::how_to_decide(&self.conv.id(), &left))
            );
            return Ok(());
        }
        if self.conv.next_step() != Step::Idle {
            say!("{}", self.style.dim("continuing the interrupted turn"));
            self.drive(None);
        }
        Ok(())
    }

    fn ask(&mut self, text: &str) {
        let mut input = UserInput::text(text);
        input.terminal_size = crate::tty::size();
        input.images = std::mem::take(&mut self.images);
        self.drive(Some(input));
    }

    /// Runs a turn (`None`: the continuation of an interrupted one).
    fn drive(&mut self, input: Option<UserInput>) {
        self.interrupts.clear();
        let started = match input {
            Some(input) => self.engine.submit(&self.conv, input),
            None => self.engine.resume(&self.conv),
        };
        self.follow(started);
    }

    /// Shows a stream to its end (a turn, a compaction, a goal run).
    fn follow(&mut self, (rx, cancel): (Receiver<Event>, CancelHandle)) {
        self.interrupts.clear();
        let mut output = TextOutput::new(io::stdout(), io::stderr(), self.style)
            .rendered(answer_view::for_stdout(self.raw))
            .pictures(pictures::for_stdout(self.raw));
        let result = Driver {
            output: &mut output,
            approver: &mut self.approver,
            interrupts: &self.interrupts,
        }
        .drive(&rx, &cancel);
        // Prints what the answer's live region still holds.
        drop(output);
        self.tokens.add(result.tokens);
        match result.outcome {
            TurnOutcome::Interrupted => say!("{}", self.style.yellow("^C cancelled")),
            TurnOutcome::Lost => say!("k: the engine stopped without finishing the turn"),
            TurnOutcome::Done | TurnOutcome::Failed(_) | TurnOutcome::OutputClosed => {}
        }
        let _ = io::stdout().flush();
    }

    /// Runs a slash command; true means leave.
    fn slash(&mut self, cmd: SlashCommand) -> bool {
        match cmd {
            SlashCommand::Exit => return true,
            SlashCommand::Help => say!("{HELP}"),
            SlashCommand::New => self.fresh("new conversation"),
            SlashCommand::Clear => {
                let _ = write!(io::stdout(), "\x1b[H\x1b[2J");
                let _ = io::stdout().flush();
                self.fresh("new conversation");
            }
            SlashCommand::Resume(None) => {
                self.list_sessions();
                say!("continue one with /resume ID");
            }
            SlashCommand::Resume(Some(id)) => self.switch(&Start::Resume(id)),
            SlashCommand::Fork(id) => {
                let id = id.unwrap_or_else(|| self.conv.id());
                self.switch(&Start::Fork(id));
            }
            SlashCommand::Sessions => self.list_sessions(),
            SlashCommand::Model(None) => say!("model: {}", self.engine.model()),
            SlashCommand::Model(Some(name)) => self.switch_model(&name),
            SlashCommand::Mode(None) => {
                say!("mode: {} (one of {})", self.engine.mode(), mode_names())
            }
            SlashCommand::Mode(Some(name)) => match name.parse::<Mode>() {
                Ok(m) => {
                    self.engine.set_mode(m);
                    say!("mode: {m}");
                }
                Err(_) => say!("k: unknown mode {name:?}; use one of {}", mode_names()),
            },
            SlashCommand::Status => say!("{}", self.status()),
            SlashCommand::Cost => say!("{}", self.conv.usage_report(&self.engine.config().prices)),
            SlashCommand::Cd(_) => {
                say!("k: /cd is for koi's panel; here, run k in the directory to work in")
            }
            SlashCommand::Init => self.ask(ai_chat_engine::project_instructions::INIT_PROMPT),
            SlashCommand::Compact => {
                let started = self.engine.compact(&self.conv);
                self.follow(started);
            }
            SlashCommand::Goal(cmd) => self.goal(cmd),
            SlashCommand::Image(Some(file)) => match Image::load(std::path::Path::new(&file)) {
                Ok(image) => {
                    say!("attached {} to the next message", image.describe());
                    self.images.push(image);
                }
                Err(e) => say!("k: {e}"),
            },
            SlashCommand::Image(None) => say!("{}", self.pending_images()),
            SlashCommand::Memory(cmd) => say!("{}", memory_cmd::run(&self.engine, &cmd)),
            SlashCommand::Unknown(c) => say!("k: unknown command {c}; /help lists them"),
        }
        false
    }

    fn goal(&mut self, cmd: GoalCommand) {
        match cmd {
            GoalCommand::Show => say!("{}", goal_cmd::show(&self.conv)),
            GoalCommand::Clear => match self.engine.clear_goal(&self.conv) {
                Ok(true) => say!("goal cleared"),
                Ok(false) => say!("no goal to clear"),
                Err(e) => say!("k: {e}"),
            },
            GoalCommand::Resume => {
                let started = self.engine.continue_goal(&self.conv);
                self.follow(started);
            }
            GoalCommand::Set {
                objective,
                check,
                limits,
            } => match goal_cmd::spec(&objective, check.as_deref(), limits, &self.goal_flags) {
                Ok(spec) => {
                    let started = self.engine.start_goal(&self.conv, spec);
                    self.follow(started);
                }
                Err(e) => say!("k: {e}"),
            },
            GoalCommand::Invalid(e) => say!("k: {e}"),
        }
    }

    /// What `/image` with no file says.
    fn pending_images(&self) -> String {
        if self.images.is_empty() {
            return "no image attached; /image FILE attaches one to the next message".into();
        }
        let names: Vec<String> = self.images.iter().map(Image::describe).collect();
        format!("attached to the next message: {}", names.join(", "))
    }

    /// Continues another conversation (its interrupted calls decided
    /// first).
    fn switch(&mut self, start: &Start) {
        self.close_for_memory(false);
        // This chat's own hold on it must not count as someone else's.
        if matches!(start, Start::Resume(id) if *id == self.conv.id()) {
            self.conv = self.engine.new_conversation();
        }
        match conversation::pick(&self.engine, start) {
            Ok(picked) => {
                self.conv = picked.conv;
                self.tokens = Tokens::default();
                for note in &picked.notes {
                    say!("{}", self.style.dim(note));
                }
                self.banner(true);
                if let Err(e) = self.continue_interrupted(&uncertain::Flags::default()) {
                    say!("k: {e:#}");
                }
            }
            Err(e) => say!("k: {e:#}"),
        }
    }

    fn list_sessions(&self) {
        let cwd = self.conv.cwd().display().to_string();
        let infos = self.engine.sessions();
        say_raw!(
            "{}",
            sessions_cmd::table(
                &infos,
                &cwd,
                sessions_cmd::DEFAULT_LIMIT,
                "k sessions --all",
                "/resume ID"
            )
        );
    }

    /// Hands the conversation being left to the memory curator; at exit
    /// (`wait`), waits a bounded time for it and says what it kept.
    fn close_for_memory(&self, wait: bool) {
        if let Some(line) = memory_cmd::close(&self.engine, &self.conv, wait) {
            say!("{}", self.style.dim(&line));
        }
    }

    fn fresh(&mut self, what: &str) {
        self.close_for_memory(false);
        self.conv = self.engine.new_conversation();
        self.tokens = Tokens::default();
        say!("{}", self.style.dim(what));
    }

    fn switch_model(&mut self, name: &str) {
        match self.engine.set_model(name) {
            Ok(()) => say!("model: {}", self.engine.model()),
            Err(e) => say!("k: {e:#}"),
        }
    }

    fn status(&self) -> String {
        let cfg = self.engine.config();
        let t = self.tokens;
        let cached = if t.input == 0 {
            "-".to_string()
        } else {
            format!("{:.0}%", 100.0 * t.cached_input as f64 / t.input as f64)
        };
        let window = self.engine.context_window();
        let context = format!(
            "context: {} KB of a {} KB window ({window})",
            self.engine.request_bytes(&self.conv) / 1024,
            window.bytes() / 1024
        );
        format!(
            "model: {} via {} ({})\nmode: {}\n{}\ninstructions: {}\nsession: {}{}\n{context}\ntokens: {} in ({} cached, {cached}), {} out",
            self.engine.model(),
            cfg.provider,
            if cfg.base_url.is_empty() { "offline" } else { &cfg.base_url },
            self.engine.mode(),
            self.engine.sandbox_status(),
            ai_chat_engine::project_instructions::provenance(
                &self.conv.cwd(),
                ai_chat_engine::config::config_dir().as_deref()
            ),
            self.conv.id(),
            self.conv
                .title()
                .map(|t| format!(" — {t}"))
                .unwrap_or_default(),
            t.input,
            t.cached_input,
            t.output
        )
    }
}
