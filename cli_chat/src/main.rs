//! `k`: koi's assistant as a command in any shell.

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory as _, Parser};
use cli_chat::args::Cli;
use cli_chat::exit::Exit;

fn main() -> ExitCode {
    ai_tools::spawn::keep_memory_private();
    if let Some(dir) = cli_docs::requested(std::env::args_os()) {
        return cli_docs::write_or_report("k", Cli::command(), &dir);
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // --help and --version print to stdout and succeed.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                Exit::Usage.code()
            } else {
                0
            });
        }
    };
    match cli_chat::run(cli) {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "k: {e:#}");
            ExitCode::from(Exit::Usage.code())
        }
    }
}
