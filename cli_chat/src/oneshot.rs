//! `k QUESTION` and `… | k`: one turn, streamed, then exit.

use std::io::{self, IsTerminal, Read};

use ai_tools::terminal_text::escape_controls;
use anyhow::{bail, Context, Result};

use crate::approval::{Approver, NoTty, TtyApprover};
use crate::args::Cli;
use crate::conversation::{self, Start};
use crate::exit::Exit;
use crate::interrupt::Interrupts;
use crate::json_events::Event;
use crate::piped::{self, Piped};
use crate::render::{JsonOutput, Output, Style, TextOutput};
use crate::setup::{self, Front, Settings};
use crate::tty;
use crate::turn::{Driver, TurnOutcome};

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

/// Runs one turn for `question` and/or `piped`.
pub fn run(cli: &Cli, question: Option<String>, piped: Option<Piped>) -> Result<Exit> {
    let Some(mut input) = piped::user_input(question, piped) else {
        bail!("nothing to ask: give a question, or pipe some input (`k --help`)");
    };
    input.terminal_size = tty::size();
    let settings = Settings::load(&cli.common)?;
    let resolved = settings.resolve();
    let can_ask = tty::has_tty();
    let mode = setup::effective_mode(cli.common.mode, can_ask, resolved.approval_mode);
    let (provider, model) = (resolved.provider.to_string(), resolved.model.clone());
    let engine = setup::build_engine(resolved, mode, Front::OneShot, settings.file.as_deref())?;
    let start = Start::from_flags(cli.new, cli.resume.as_deref());
    let (conv, resumed) = conversation::pick(&engine, &start)?;

    let stdout = io::stdout();
    let mut output: Box<dyn Output> = if cli.common.json {
        Box::new(JsonOutput::new(stdout.lock()))
    } else {
        let raw = !stdout.is_terminal();
        Box::new(TextOutput::new(stdout.lock(), io::stderr(), Style::for_stderr()).raw_answer(raw))
    };
    let mut approver: Box<dyn Approver> = if can_ask {
        Box::new(TtyApprover::open())
    } else {
        Box::new(NoTty)
    };
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
    if !cli.common.json && resumed {
        for note in conversation::notes(&conv) {
            say!("{}", Style::for_stderr().dim(&escape_controls(&note)));
        }
    }
    // From here on Ctrl+C cancels the turn instead of killing `k`.
    let interrupts = Interrupts::install().context("cannot install the Ctrl+C handler")?;
    let (rx, cancel) = engine.submit(&conv, input);
    let result = Driver {
        output: output.as_mut(),
        approver: approver.as_mut(),
        interrupts: &interrupts,
    }
    .drive(&rx, &cancel);
    Ok(match result.outcome {
        TurnOutcome::Done => Exit::Done,
        TurnOutcome::Failed(_) | TurnOutcome::OutputClosed => Exit::TurnFailed,
        TurnOutcome::Lost => {
            say!("k: the engine stopped without finishing the turn");
            Exit::TurnFailed
        }
        TurnOutcome::Interrupted => {
            if cli.common.json {
                let _ = output.event(&Event::Error {
                    kind: "interrupted".into(),
                    message: "interrupted by Ctrl+C".into(),
                });
            } else {
                say!("\nk: interrupted");
            }
            Exit::Interrupted
        }
    })
}
