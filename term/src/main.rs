//! `koi`: the terminal. `koi --headless` runs a command without a window.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context as _};
use clap::{CommandFactory as _, Parser};

use koi_terminal::palette::Palette;
use koi_terminal::GridSize;
use term::config::{Config, Loaded};
use term::headless::{self, DumpFormat, Headless};

/// A GPU-accelerated terminal with an assistant you can trust.
///
/// Examples:
///   koi                                   open a window with your shell
///   koi -e htop                           run htop instead of the shell
///   koi --headless -e ls --color=always   print what `ls` shows, no window
///   koi --headless --screenshot out.png -e neofetch
#[derive(Debug, Parser)]
#[command(name = "koi", version, verbatim_doc_comment)]
struct Cli {
    /// Read this config file instead of ~/.config/koi/koi.toml.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Run without a window: start the command in a PTY, wait for it to
    /// exit, print the final screen and exit with the command's status.
    #[arg(long)]
    headless: bool,

    /// Grid width in cells (default: the config's window.columns; 80 headless).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=2000))]
    cols: Option<u16>,

    /// Grid height in cells (default: the config's window.lines; 24 headless).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1000))]
    rows: Option<u16>,

    /// What `--headless` prints: the screen's text or every cell as JSON.
    #[arg(long, value_enum, default_value_t = DumpFormat::Text)]
    dump: DumpFormat,

    /// With `--headless`: also draw the final screen into this PNG.
    #[arg(long, value_name = "OUT.png")]
    screenshot: Option<PathBuf>,

    /// Give up on a headless command after this many seconds (exit 124).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,

    /// When the window closes, write the final grid text to PATH and the
    /// last presented frame to PATH.png (for end-to-end tests; the
    /// assistant panel's text at PATH.overlay is kept current meanwhile).
    #[arg(long, value_name = "PATH")]
    dump_on_exit: Option<PathBuf>,

    /// Start in this directory.
    #[arg(long, value_name = "DIR")]
    working_directory: Option<PathBuf>,

    /// Print the bundled themes (for `theme = "NAME"`), each with a
    /// truecolor swatch, and exit.
    #[arg(long)]
    list_themes: bool,

    /// Run this command (and its arguments) instead of the shell.
    #[arg(short = 'e', long = "command", num_args = 1.., allow_hyphen_values = true, trailing_var_arg = true, value_name = "CMD")]
    command: Vec<String>,
}

fn main() -> ExitCode {
    term::logger::init();
    // Before any thread starts (see the function).
    koi_terminal::raster_threads::reserve_a_core_for_the_parser();
    // The API key lives in this process: no tool process may read it.
    ai_tools::spawn::keep_memory_private();
    if let Some(dir) = cli_docs::requested(std::env::args_os()) {
        return cli_docs::write_or_report("koi", Cli::command(), &dir);
    }
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("koi: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// An explicit `--config` must be valid; the default file falls back to
/// the defaults with a warning, so a typo never stops the terminal opening.
fn load_config(explicit: Option<&Path>) -> anyhow::Result<(Loaded, Option<PathBuf>)> {
    let (path, loaded) = match explicit {
        Some(path) => (Some(path.to_owned()), Config::load(path)?),
        None => match Config::default_path() {
            Some(path) => match Config::load(&path) {
                Ok(loaded) => (Some(path), loaded),
                Err(err) => {
                    eprintln!("koi: {}; using the defaults", err.one_line());
                    (Some(path), Config::parse("", Path::new("defaults"))?)
                }
            },
            None => (None, Config::parse("", Path::new("defaults"))?),
        },
    };
    for warning in &loaded.warnings {
        eprintln!("koi: warning: {warning}");
    }
    Ok((loaded, path))
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if cli.list_themes {
        print!("{}", term::theme::list::render());
        return Ok(ExitCode::SUCCESS);
    }
    let (loaded, config_path) = load_config(cli.config.as_deref())?;
    if !cli.headless {
        let status = term::app::run(term::app::AppOptions {
            loaded,
            config_path,
            command: (!cli.command.is_empty()).then_some(cli.command),
            working_directory: cli.working_directory,
            cols: cli.cols,
            rows: cli.rows,
            dump_on_exit: cli.dump_on_exit,
        })?;
        let code = status.map_or(0, |s| s.code);
        return Ok(ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX)));
    }
    if cli.command.is_empty() {
        bail!("--headless needs a command: koi --headless -e CMD [ARGS…]");
    }
    let timeout = match cli.timeout {
        Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
        Some(s) => bail!("--timeout must be a positive number of seconds, not {s}"),
        None => None,
    };
    let config = loaded.config;
    let outcome = Headless {
        command: cli.command,
        size: GridSize::new(cli.cols.unwrap_or(80), cli.rows.unwrap_or(24)),
        working_directory: cli.working_directory,
        timeout,
        palette: Palette::from_theme(&config.theme()),
    }
    .run()
    .context("could not run the command")?;
    print!("{}", headless::dump(&outcome.snapshot, cli.dump));
    if let Some(path) = &cli.screenshot {
        term::screenshot::save_png(&outcome.frame, &config, path)
            .with_context(|| format!("could not write the screenshot {}", path.display()))?;
    }
    Ok(ExitCode::from(
        u8::try_from(outcome.status.code).unwrap_or(u8::MAX),
    ))
}
