//! `koi`: the terminal. `koi --headless` runs a command without a window.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context as _};
use clap::Parser;

use term::headless::{self, DumpFormat};
use term::GridSize;

/// koi — a GPU-accelerated terminal with an assistant you can trust.
#[derive(Debug, Parser)]
#[command(version, about, long_about = None)]
struct Cli {
    /// Run without a window: start the command in a PTY, wait for it to
    /// exit, print the final screen and exit with the command's status.
    #[arg(long)]
    headless: bool,

    /// Grid width in cells.
    #[arg(long, default_value_t = 80, value_parser = clap::value_parser!(u16).range(1..=2000))]
    cols: u16,

    /// Grid height in cells.
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u16).range(1..=1000))]
    rows: u16,

    /// What `--headless` prints: the screen's text or every cell as JSON.
    #[arg(long, value_enum, default_value_t = DumpFormat::Text)]
    dump: DumpFormat,

    /// Give up on a headless command after this many seconds (exit 124).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,

    /// Start in this directory.
    #[arg(long, value_name = "DIR")]
    working_directory: Option<PathBuf>,

    /// Run this command (and its arguments) instead of the shell.
    #[arg(short = 'e', long = "command", num_args = 1.., allow_hyphen_values = true, trailing_var_arg = true, value_name = "CMD")]
    command: Vec<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("koi: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if !cli.headless {
        bail!("the windowed terminal is not built yet; use `koi --headless -e CMD`");
    }
    if cli.command.is_empty() {
        bail!("--headless needs a command: koi --headless -e CMD [ARGS…]");
    }
    let timeout = match cli.timeout {
        Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
        Some(s) => bail!("--timeout must be a positive number of seconds, not {s}"),
        None => None,
    };
    let outcome = headless::run(
        cli.command,
        GridSize::new(cli.cols, cli.rows),
        cli.working_directory,
        timeout,
    )
    .context("could not run the command")?;
    print!("{}", headless::dump(&outcome.snapshot, cli.dump));
    Ok(ExitCode::from(
        u8::try_from(outcome.status.code).unwrap_or(u8::MAX),
    ))
}
