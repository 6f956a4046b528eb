//! Manual pages and shell completions for koi's command lines, generated
//! from their clap definitions so they can never disagree with `--help`.
//!
//! Each binary answers `BIN --generate DIR` (see [`requested`]) by calling
//! [`write_share`] with its own [`clap::Command`]; `scripts/install` runs
//! it into a staging directory laid out like `PREFIX/share` and installs
//! what it finds there. The flag is read before clap parses, so it is in
//! neither the help, the manual nor the completions it writes.

#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap_complete::Shell;

/// The shells completions are written for, with where each one's files go
/// under `share/` and what the file is called for a command `name`.
const SHELLS: &[(Shell, &str)] = &[
    (Shell::Bash, "bash-completion/completions"),
    (Shell::Zsh, "zsh/site-functions"),
    (Shell::Fish, "fish/vendor_completions.d"),
];

/// The flag that asks a binary for its manual and completions.
pub const FLAG: &str = "--generate";

/// The directory when a command line (program name first) is exactly
/// `BIN --generate DIR`; `None` for every other command line.
pub fn requested(args: impl IntoIterator<Item = OsString>) -> Option<PathBuf> {
    let mut args = args.into_iter().skip(1);
    let (flag, dir) = (args.next()?, args.next()?);
    (flag == FLAG && args.next().is_none() && !dir.is_empty()).then(|| PathBuf::from(dir))
}

/// [`write_share`] for binary `bin`, with its failure said on stderr:
/// the exit status for `BIN --generate DIR`.
pub fn write_or_report(bin: &str, cmd: clap::Command, dir: &Path) -> ExitCode {
    match write_share(cmd, dir) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(
                io::stderr(),
                "{bin}: could not write the manual and completions under {}: {e}",
                dir.display()
            );
            ExitCode::from(2)
        }
    }
}

/// Where the manual pages go under `share/`.
const MAN_DIR: &str = "man/man1";

/// The file a shell loads the completions of command `name` from: bash's
/// bash-completion loads `NAME` on first use, zsh's compinit autoloads
/// `_NAME` from `$fpath`, fish reads `NAME.fish`.
fn completion_file(shell: Shell, name: &str) -> String {
    match shell {
        Shell::Zsh => format!("_{name}"),
        Shell::Fish => format!("{name}.fish"),
        _ => name.to_owned(),
    }
}

/// Writes the manual pages (one for the command and one for each visible
/// subcommand, `NAME-SUB.1`) and the bash, zsh and fish completions of
/// `cmd` under `share`, in the directories a `PREFIX/share` uses. Returns
/// the files written, sorted.
pub fn write_share(cmd: clap::Command, share: &Path) -> io::Result<Vec<PathBuf>> {
    // `help` is a page of its own nowhere; every other visible command is.
    let mut pages = cmd.clone().disable_help_subcommand(true);
    pages.build();
    let mut cmd = cmd;
    cmd.build();
    let name = cmd.get_name().to_owned();
    let mut written = Vec::new();
    for (shell, dir) in SHELLS {
        let dir = share.join(dir);
        fs::create_dir_all(&dir)?;
        let path = dir.join(completion_file(*shell, &name));
        let mut text = Vec::new();
        clap_complete::generate(*shell, &mut cmd, name.clone(), &mut text);
        fs::write(&path, text)?;
        written.push(path);
    }
    let man_dir = share.join(MAN_DIR);
    fs::create_dir_all(&man_dir)?;
    write_pages(pages, &man_dir, &mut written)?;
    written.sort();
    Ok(written)
}

/// The page of `cmd`, then the pages of its visible subcommands; after
/// [`clap::Command::build`], a subcommand's display name is its page's
/// name (`k-mcp-add`).
fn write_pages(cmd: clap::Command, dir: &Path, written: &mut Vec<PathBuf>) -> io::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub.clone(), dir, written)?;
    }
    written.push(clap_mangen::Man::new(cmd).generate_to(dir)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use clap::{Arg, Command};

    fn sample() -> Command {
        Command::new("demo")
            .about("A demo command.")
            .arg(Arg::new("loud").long("loud").help("Shout."))
            .subcommand(
                Command::new("greet")
                    .about("Say hello.")
                    .subcommand(Command::new("twice").about("Say it twice.")),
            )
            .subcommand(Command::new("secret").hide(true))
    }

    #[test]
    fn only_the_exact_generate_command_line_is_a_request() {
        let args = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            requested(args(&["k", "--generate", "out"])),
            Some(PathBuf::from("out"))
        );
        assert_eq!(requested(args(&["k", "--generate"])), None);
        assert_eq!(requested(args(&["k", "--generate", ""])), None);
        assert_eq!(requested(args(&["k", "--generate", "out", "x"])), None);
        assert_eq!(requested(args(&["k", "what", "--generate"])), None);
        assert_eq!(requested(args(&["k"])), None);
    }

    #[test]
    fn writes_a_page_per_visible_command_and_each_shells_completions() {
        let dir = tempfile::tempdir().unwrap();
        let written = write_share(sample(), dir.path()).unwrap();
        let rel: Vec<String> = written
            .iter()
            .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(
            rel,
            [
                "bash-completion/completions/demo",
                "fish/vendor_completions.d/demo.fish",
                "man/man1/demo-greet-twice.1",
                "man/man1/demo-greet.1",
                "man/man1/demo.1",
                "zsh/site-functions/_demo",
            ]
        );
        let page = fs::read_to_string(dir.path().join("man/man1/demo.1")).unwrap();
        assert!(page.contains(".TH demo 1"), "{page}");
        assert!(page.contains("Shout."), "{page}");
        let bash = fs::read_to_string(&written[0]).unwrap();
        assert!(bash.contains("complete -F _demo"), "{bash}");
        let zsh = fs::read_to_string(dir.path().join("zsh/site-functions/_demo")).unwrap();
        assert!(zsh.starts_with("#compdef demo"), "{zsh}");
    }
}
