//! `k --overlay`: ask the koi terminal `k` runs in to open its Cmd+L
//! overlay.
//!
//! Protocol: koi puts `TERM_PROGRAM=koi` and a random per-session secret
//! `KOI_SESSION_TOKEN` (hex) into its shell's environment. `k --overlay`
//! writes the OSC sequence `ESC ] 7717 ; open-overlay ; TOKEN BEL` to its
//! controlling terminal. koi opens the overlay only when the token matches,
//! so a program that merely prints bytes (a `cat` of a hostile file) cannot.

use std::fs::OpenOptions;
use std::io::{IsTerminal, Write};

use anyhow::{bail, Context, Result};

pub use ai_chat_engine::failed_command::OSC_NUMBER;

/// The environment variable koi puts the session's token in.
pub const TOKEN_ENV: &str = "KOI_SESSION_TOKEN";

/// Longest token accepted; koi's are 32–64 hex digits.
pub const MAX_TOKEN_LEN: usize = 128;

/// Why a token cannot go into the sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenError {
    /// Empty.
    Empty,
    /// Longer than [`MAX_TOKEN_LEN`].
    TooLong,
    /// Not only hex digits (anything else could end or extend the sequence).
    NotHex,
}

impl std::fmt::Display for TokenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TokenError::Empty => "KOI_SESSION_TOKEN is empty",
            TokenError::TooLong => "KOI_SESSION_TOKEN is too long",
            TokenError::NotHex => "KOI_SESSION_TOKEN is not hexadecimal",
        })
    }
}

impl std::error::Error for TokenError {}

/// The bytes that ask koi to open the overlay: `ESC ] 7717 ; open-overlay ;
/// TOKEN BEL`.
pub fn open_sequence(token: &str) -> Result<Vec<u8>, TokenError> {
    check_token(token)?;
    Ok(format!("\x1b]{OSC_NUMBER};open-overlay;{token}\x07").into_bytes())
}

/// Whether `token` may go into a sequence: nothing in it can end or
/// extend the sequence.
pub fn check_token(token: &str) -> Result<(), TokenError> {
    if token.is_empty() {
        return Err(TokenError::Empty);
    }
    if token.len() > MAX_TOKEN_LEN {
        return Err(TokenError::TooLong);
    }
    if !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(TokenError::NotHex);
    }
    Ok(())
}

/// Whether `k` runs in a koi terminal (`TERM_PROGRAM=koi`).
pub fn in_koi(env: &dyn Fn(&str) -> Option<String>) -> bool {
    env("TERM_PROGRAM").as_deref() == Some("koi")
}

/// Sends the request; errors say why `k` cannot (e.g. not inside koi).
pub fn run(env: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    if !in_koi(env) {
        bail!("--overlay works only inside the koi terminal (TERM_PROGRAM is not koi)");
    }
    let Some(token) = env(TOKEN_ENV) else {
        bail!("--overlay: KOI_SESSION_TOKEN is not set; is this shell running inside koi?");
    };
    let seq = open_sequence(&token).context("--overlay")?;
    match OpenOptions::new().write(true).open("/dev/tty") {
        Ok(mut tty) => {
            tty.write_all(&seq)?;
            tty.flush()?;
        }
        Err(_) if std::io::stdout().is_terminal() => {
            let mut out = std::io::stdout().lock();
            out.write_all(&seq)?;
            out.flush()?;
        }
        Err(e) => bail!("--overlay: no terminal to talk to koi through ({e})"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_bytes() {
        assert_eq!(
            open_sequence("00ff").unwrap(),
            b"\x1b]7717;open-overlay;00ff\x07".to_vec()
        );
        assert_eq!(open_sequence(""), Err(TokenError::Empty));
        assert_eq!(open_sequence("ab\x07cd"), Err(TokenError::NotHex));
        assert_eq!(open_sequence(&"a".repeat(129)), Err(TokenError::TooLong));
    }

    #[test]
    fn refuses_outside_koi() {
        let e = run(&|_| None).unwrap_err().to_string();
        assert!(e.contains("only inside the koi terminal"), "{e}");
        let e = run(&|k| (k == "TERM_PROGRAM").then(|| "koi".to_string()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("KOI_SESSION_TOKEN"), "{e}");
    }
}
