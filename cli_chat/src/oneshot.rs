//! `k QUESTION` and `… | k`: one turn, streamed, then exit.

use std::io::{self, IsTerminal, Read};

use ai_chat_engine::{BudgetLimits, GoalState, Step, UserInput};
use ai_tools::terminal_text::escape_controls;
use anyhow::{bail, Context, Result};

use crate::answer_view;
use crate::approval::{Approver, NoTty, TtyApprover};
use crate::args::Cli;
use crate::conversation::{self, Start};
use crate::exit::Exit;
use crate::goal_cmd;
use crate::interrupt::Interrupts;
use crate::pictures;
use crate::piped::{self, Piped};
use crate::render::{JsonOutput, Output, Style, TextOutput};
use crate::setup::{self, Settings};
use crate::tty;
use crate::turn::{Driver, TurnOutcome};
use crate::uncertain;
use ai_chat_engine::Front;
use koi_protocol::{ErrorKind, Event};

/// Reads piped stdin unless it is a terminal or `--no-stdin` was given.
pub fn read_piped_stdin(cli: &Cli) -> Result<Option<Piped>> {
    let stdin = io::stdin();
    if cli.no_stdin || stdin.is_terminal() {
        return Ok(None);
    }
    let lock: Box<dyn Read> = Box::new(stdin.lock());
    Ok(Some(
        piped::read_bounded(lock).context("cannot read standard input")?,
    ))
}

/// Runs one turn for `question` and/or `piped`; with neither, continues
/// what a crash left unfinished in the resumed conversation.
pub fn run(cli: &Cli, question: Option<String>, piped: Option<Piped>) -> Result<Exit> {
    run_input(cli, piped::user_input(question, piped))
}

/// Runs one turn for `input`; with none, continues what a crash left
/// unfinished in the resumed conversation.
pub fn run_input(cli: &Cli, mut input: Option<UserInput>) -> Result<Exit> {
    let goal = match &cli.goal.goal {
        Some(text) => Some(
            goal_cmd::spec(text, None, BudgetLimits::default(), &cli.goal)
                .map_err(|e| anyhow::anyhow!("{e}"))?,
        ),
        None => None,
    };
    let images = cli.images()?;
    if input.is_none() && !images.is_empty() {
        bail!("--image needs a question to go with it (`k --image FILE \"what is this?\"`)");
    }
    if input.is_none() && goal.is_none() && cli.resume.is_none() && cli.fork.is_none() {
        bail!("nothing to ask: give a question, or pipe some input (`k --help`)");
    }
    if let Some(i) = input.as_mut() {
        i.images = images;
    }
    if let Some(i) = input.as_mut() {
        i.terminal_size = tty::size();
    }
    let mut settings = Settings::load(&cli.common, Front::KOneShot)?;
    let resolved = settings.resolve();
    let can_ask = tty::has_tty();
    let mode = setup::effective_mode(cli.common.mode, can_ask, resolved.approval_mode);
    let (provider, model) = (resolved.provider.to_string(), resolved.model);
    let engine = settings.build_engine(mode)?;
    let start = Start::from_flags(cli.new, cli.resume.as_deref(), cli.fork.as_deref());
    let picked = conversation::pick(&engine, &start)?;
    let (conv, resumed) = (picked.conv, picked.resumed);

    let stdout = io::stdout();
    let mut output: Box<dyn Output> = if cli.common.json {
        Box::new(JsonOutput::new(stdout.lock()))
    } else {
        let raw = !stdout.is_terminal();
        Box::new(
            TextOutput::new(stdout.lock(), io::stderr(), Style::for_stderr())
                .raw_answer(raw)
                .rendered(answer_view::for_stdout(cli.common.raw))
                .pictures(pictures::for_stdout(cli.common.raw)),
        )
    };
    let mut tty_approver = can_ask.then(TtyApprover::open);
    let session = Event::Session {
        id: conv.id(),
        resumed,
        provider,
        model,
        mode: mode.to_string(),
    };
    if output.event(&session).is_err() {
        return Ok(Exit::TurnFailed);
    }
    if !cli.common.json {
        let notes = picked.notes.into_iter().chain(if resumed {
            conversation::notes(&conv)
        } else {
            Vec::new()
        });
        for note in notes {
            say!("{}", Style::for_stderr().dim(&escape_controls(&note)));
        }
    }
    // Interrupted calls are decided before anything else happens: by
    // flag, on the terminal (not for --json, whose reader is a program),
    // or not at all, and then `k` stops.
    let flags = uncertain::Flags {
        rerun: cli.rerun.clone(),
        abandon: cli.abandon.clone(),
    };
    let ask = if cli.common.json {
        None
    } else {
        tty_approver.as_mut()
    };
    let undecided = uncertain::resolve(&engine, &conv, &flags, ask)?;
    if !undecided.is_empty() {
        let how = uncertain::how_to_decide(&conv.id(), &undecided);
        if cli.common.json {
            for ev in uncertain::events(&engine, &conv.id(), &undecided) {
                let _ = output.event(&ev);
            }
            let _ = output.event(&Event::Error {
                kind: ErrorKind::Uncertain,
                message: how,
            });
        } else {
            for u in &undecided {
                say_raw!("{}", uncertain::describe(&engine, u, Style::for_stderr()));
            }
            say!("k: {how}");
        }
        return Ok(Exit::TurnFailed);
    }
    if input.is_none() && goal.is_none() && conv.next_step() == Step::Idle {
        // A decision alone (or a fork) with nothing to continue.
        let _ = output.event(&Event::Done);
        return Ok(Exit::Done);
    }
    let mut approver: Box<dyn Approver> = match tty_approver {
        Some(t) => Box::new(t),
        None => Box::new(NoTty),
    };
    // From here on Ctrl+C cancels the turn instead of killing `k`.
    let interrupts = Interrupts::install().context("cannot install the Ctrl+C handler")?;
    let goal_run = goal.is_some();
    let (rx, cancel) = match (goal, input) {
        (Some(spec), _) => engine.start_goal(&conv, spec),
        (None, Some(input)) => engine.submit(&conv, input),
        (None, None) => engine.resume(&conv),
    };
    let result = Driver {
        output: output.as_mut(),
        approver: approver.as_mut(),
        interrupts: &interrupts,
    }
    .drive(&rx, &cancel);
    // A goal run is a success only when its check passed.
    let complete = !goal_run || conv.goal().is_some_and(|g| g.state == GoalState::Complete);
    Ok(match result.outcome {
        TurnOutcome::Done if complete => Exit::Done,
        TurnOutcome::Done => Exit::TurnFailed,
        TurnOutcome::Failed(_) | TurnOutcome::OutputClosed => Exit::TurnFailed,
        TurnOutcome::Lost => {
            say!("k: the engine stopped without finishing the turn");
            Exit::TurnFailed
        }
        TurnOutcome::Interrupted => {
            if cli.common.json {
                let _ = output.event(&Event::Error {
                    kind: ErrorKind::Interrupted,
                    message: "interrupted by Ctrl+C".into(),
                });
            } else {
                say!("\nk: interrupted");
            }
            Exit::Interrupted
        }
    })
}
