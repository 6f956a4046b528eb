//! `#` at the prompt, the wire between koi's shell integration and koi.
//!
//! The shell's Enter widget writes a request to the terminal and blocks
//! reading its input for the answer:
//!
//! ```text
//! shell ─► ESC ] 7717 ; suggest ; TOKEN ; NONCE ; SHELL ; WORDS BEL
//! koi   ─► koi-suggest:NONCE:STATUS:TEXT END     (typed into the PTY)
//! ```
//!
//! TOKEN is the session's secret (`KOI_SESSION_TOKEN`), so bytes a program
//! prints cannot make koi call the model. NONCE ties the answer to the
//! request. STATUS is `ok` (TEXT is the command), `cancelled` or `error`
//! (TEXT says why). TEXT has every byte outside printable ASCII and every
//! backslash written `\xHH`, so the shell's own `printf %b` (or zsh's
//! `print`) restores it and it cannot carry a line end or a control key.
//! END is BEL for bash and zsh, whose `read -d` stops there, and a newline
//! for fish, which reads the line with `sh`'s `read` (fish's own `read`
//! would open its line editor on a terminal), one byte at a time, so keys
//! typed right behind the answer stay for the shell's line editor.

/// A request for a suggestion, from the shell of one session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuggestRequest {
    pub nonce: String,
    /// The shell that asked (`bash`, `zsh`, `fish`).
    pub shell: String,
    /// What the user typed after the prefix.
    pub words: String,
}

/// How a request ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The suggested command line.
    Command(String),
    /// Esc or Ctrl+C while koi was thinking: the shell keeps the line.
    Cancelled,
    /// No suggestion (no model, a failed request); the shell keeps the line.
    Failed(String),
}

/// Longest nonce koi answers: the scripts send two `$RANDOM`s.
const MAX_NONCE: usize = 32;

/// The request in an OSC 7717 payload after `suggest;`, with its token.
pub(crate) fn parse(rest: &str) -> Option<(String, SuggestRequest)> {
    let mut parts = rest.splitn(4, ';');
    let token = parts.next()?.to_owned();
    let nonce = parts.next()?;
    let shell = parts.next()?;
    let words = parts.next()?;
    let plain = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if nonce.is_empty() || nonce.len() > MAX_NONCE || !plain(nonce) || !plain(shell) {
        return None;
    }
    Some((
        token,
        SuggestRequest {
            nonce: nonce.to_owned(),
            shell: shell.to_owned(),
            words: words.to_owned(),
        },
    ))
}

/// `text` with every byte the shell must not see raw written `\xHH`.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if (0x20..0x7f).contains(&byte) && byte != b'\\' {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

/// The bytes koi types into the shell's input to answer `request`.
pub fn reply(request: &SuggestRequest, outcome: &Outcome) -> Vec<u8> {
    let (status, text) = match outcome {
        Outcome::Command(command) => ("ok", command.as_str()),
        Outcome::Cancelled => ("cancelled", ""),
        Outcome::Failed(why) => ("error", why.as_str()),
    };
    let end = if request.shell == "fish" {
        '\n'
    } else {
        '\x07'
    };
    format!(
        "koi-suggest:{}:{status}:{}{end}",
        request.nonce,
        escape(text)
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_parse_with_words_that_hold_semicolons() {
        let (token, req) = parse("tok;123;bash;list files; newest first").unwrap();
        assert_eq!(token, "tok");
        assert_eq!(
            req,
            SuggestRequest {
                nonce: "123".into(),
                shell: "bash".into(),
                words: "list files; newest first".into(),
            }
        );
        assert!(parse("tok;12:3;bash;x").is_none());
        assert!(parse("tok;;bash;x").is_none());
        assert!(parse("tok;1;ba sh;x").is_none());
        assert!(parse("tok;1;bash").is_none());
    }

    #[test]
    fn replies_escape_what_the_shell_must_not_see_raw() {
        let req = |shell: &str| SuggestRequest {
            nonce: "42".into(),
            shell: shell.into(),
            words: String::new(),
        };
        let cmd = Outcome::Command(r"grep -r 'a\b' . # é".into());
        assert_eq!(
            reply(&req("bash"), &cmd),
            b"koi-suggest:42:ok:grep -r 'a\\x5cb' . # \\xc3\\xa9\x07".to_vec()
        );
        assert_eq!(
            reply(&req("fish"), &Outcome::Cancelled),
            b"koi-suggest:42:cancelled:\n".to_vec()
        );
        assert_eq!(
            reply(&req("zsh"), &Outcome::Failed("no\nmodel".into())),
            b"koi-suggest:42:error:no\\x0amodel\x07".to_vec()
        );
    }
}
