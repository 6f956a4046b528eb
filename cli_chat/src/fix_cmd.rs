//! `k fix`: ask why the last command failed and how to fix it. It never
//! runs the command again.
//!
//! - `cmd 2>&1 | k fix`: the piped text is the failed command's output.
//! - Inside koi, with a terminal on stdin: `k fix` asks the running koi for
//!   the last command block (command, output, exit status) through the
//!   terminal, with the per-session token `k --overlay` uses: it writes
//!   `ESC ] 7717 ; last-command ; TOKEN BEL` to the terminal and reads
//!   koi's reply (see [`ai_chat_engine::failed_command`]) from it in raw
//!   mode, so the reply is neither echoed nor waits for a newline.
//! - Anywhere else there is no record of what the command printed, and
//!   `k fix` says so.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use ai_chat_engine::failed_command::{FailedCommand, OSC_NUMBER, REPLY_TAG};
use anyhow::{bail, Context, Result};

use crate::args::Cli;
use crate::exit::Exit;
use crate::oneshot;
use crate::overlay::{check_token, in_koi};

/// How long koi has to answer. It answers from its reader thread as soon
/// as it parses the request, within milliseconds; a koi too old to know
/// the request never answers.
const REPLY_TIMEOUT: Duration = Duration::from_secs(3);

/// A reply longer than this is not koi's (koi's are under 30 KiB).
const MAX_REPLY_BYTES: usize = 256 * 1024;

/// What to tell the user when there is nothing to go on.
const PIPE_HINT: &str = "pipe the output instead: cmd 2>&1 | k fix";

/// Why koi's record could not be had.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("no record of the last command here: only the koi terminal keeps one; {PIPE_HINT}")]
    OutsideKoi,
    #[error("koi has no command on record in this shell yet (its shell integration reports them); {PIPE_HINT}")]
    NoneYet,
    #[error("koi did not answer within {0:?}; {PIPE_HINT}")]
    NoAnswer(Duration),
    #[error("cannot talk to koi through the terminal: {0}")]
    Tty(#[from] std::io::Error),
    #[error(transparent)]
    Token(#[from] crate::overlay::TokenError),
    #[error(transparent)]
    Reply(#[from] ai_chat_engine::failed_command::ReplyError),
}

/// Runs `k fix`.
pub fn run(cli: &Cli) -> Result<Exit> {
    let failed = match oneshot::read_piped_stdin(cli)? {
        Some(piped) if piped.total_bytes == 0 => {
            bail!("fix: the piped input is empty; {PIPE_HINT}")
        }
        Some(piped) => FailedCommand {
            command: None,
            output: piped.text,
            exit_code: None,
        },
        None => {
            let block = ask_koi(&|k| std::env::var(k).ok()).context("fix")?;
            if block.exit_code == Some(0) {
                bail!(
                    "fix: the last command succeeded (`{}`, exit status 0): nothing to fix",
                    ai_tools::terminal_text::escape_controls(
                        block.command.as_deref().unwrap_or_default()
                    )
                );
            }
            block
        }
    };
    oneshot::run_input(cli, Some(failed.user_input()))
}

/// The last command block of the koi this shell runs in.
pub fn ask_koi(env: &dyn Fn(&str) -> Option<String>) -> Result<FailedCommand, RecordError> {
    if !in_koi(env) {
        return Err(RecordError::OutsideKoi);
    }
    let Some(token) = env(crate::overlay::TOKEN_ENV) else {
        return Err(RecordError::OutsideKoi);
    };
    check_token(&token)?;
    let request = format!("\x1b]{OSC_NUMBER};{REPLY_TAG};{token}\x07");
    let mut tty = OpenOptions::new().read(true).write(true).open("/dev/tty")?;
    let reply = {
        let _raw = RawMode::enter(&tty)?;
        tty.write_all(request.as_bytes())?;
        tty.flush()?;
        read_reply(&mut tty, REPLY_TIMEOUT)?
    };
    FailedCommand::parse_reply(&reply)?.ok_or(RecordError::NoneYet)
}

/// Reads until koi's reply has arrived whole; returns its payload (the
/// bytes between `ESC ]` and BEL). Keys typed meanwhile are dropped.
fn read_reply(tty: &mut File, timeout: Duration) -> Result<String, RecordError> {
    let start = format!("\x1b]{OSC_NUMBER};{REPLY_TAG};");
    let deadline = Instant::now() + timeout;
    let mut got: Vec<u8> = Vec::new();
    let mut buf = [0u8; 4096];
    while Instant::now() < deadline && got.len() < MAX_REPLY_BYTES {
        // Raw mode with VMIN 0 / VTIME 1: a read returns after 100 ms idle.
        let n = match tty.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        got.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&got);
        if let Some(at) = text.find(&start) {
            if let Some(len) = text[at..].find('\x07') {
                return Ok(text[at + 2..at + len].to_owned());
            }
        }
    }
    Err(RecordError::NoAnswer(timeout))
}

/// The terminal without echo or line editing while koi's reply comes in;
/// restored on drop (before the file it was entered on closes).
struct RawMode {
    fd: std::os::fd::RawFd,
    saved: libc::termios,
}

impl RawMode {
    fn enter(tty: &File) -> std::io::Result<Self> {
        let fd = tty.as_raw_fd();
        // SAFETY: termios is plain old data; tcgetattr fills it whole or fails.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: a valid open fd and a live termios to write into.
        if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut raw = saved;
        raw.c_lflag &= !(libc::ICANON | libc::ECHO | libc::IEXTEN);
        raw.c_iflag &= !(libc::ICRNL | libc::IXON);
        raw.c_cc[libc::VMIN] = 0;
        raw.c_cc[libc::VTIME] = 1;
        // SAFETY: as above, with a termios derived from the current one.
        if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &raw) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Self { fd, saved })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        // SAFETY: restoring the settings read in `enter` on the same fd,
        // which the caller keeps open for as long as this guard lives.
        unsafe { libc::tcsetattr(self.fd, libc::TCSANOW, &self.saved) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_koi_there_is_no_record() {
        let e = ask_koi(&|_| None).unwrap_err();
        assert!(matches!(e, RecordError::OutsideKoi));
        assert!(e.to_string().contains("cmd 2>&1 | k fix"), "{e}");
        let e = ask_koi(&|k| (k == "TERM_PROGRAM").then(|| "koi".into())).unwrap_err();
        assert!(matches!(e, RecordError::OutsideKoi), "{e}");
        let e = ask_koi(&|k| match k {
            "TERM_PROGRAM" => Some("koi".into()),
            _ => Some("not-hex;".into()),
        })
        .unwrap_err();
        assert!(matches!(e, RecordError::Token(_)), "{e}");
    }
}
