//! Piped standard input, bounded, attached to the question as untrusted
//! command output.

use std::collections::VecDeque;
use std::io::Read;

use ai_chat_engine::{AttachmentKind, UserInput};

/// Bytes of piped input kept from its start. Compiler errors and stack
/// traces usually begin with the cause, so the head gets most of the room.
pub const KEEP_HEAD_BYTES: usize = 48 * 1024;

/// Bytes kept from its end, where summaries and final errors are.
pub const KEEP_TAIL_BYTES: usize = 16 * 1024;

/// Reading stops after this much, so an endless pipe (`yes | k`) cannot
/// keep `k` from answering.
pub const MAX_READ_BYTES: usize = 16 * 1024 * 1024;

/// The question used when input is piped without one.
pub const DEFAULT_QUESTION: &str =
    "Explain this input. If it shows an error, what causes it and how do I fix it?";

/// What was read from a pipe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piped {
    /// Head, a marker if anything was cut, and tail.
    pub text: String,
    /// Bytes read in all.
    pub total_bytes: usize,
    /// Whether the middle was cut out.
    pub cut: bool,
    /// Whether reading stopped at [`MAX_READ_BYTES`].
    pub stopped_early: bool,
}

/// Reads `r` to its end (or [`MAX_READ_BYTES`]), keeping head and tail.
pub fn read_bounded(mut r: impl Read) -> std::io::Result<Piped> {
    let mut head = Vec::with_capacity(KEEP_HEAD_BYTES.min(64 * 1024));
    let mut tail: VecDeque<u8> = VecDeque::new();
    let mut total = 0usize;
    let mut buf = [0u8; 16 * 1024];
    let mut stopped_early = false;
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let mut chunk = &buf[..n];
        total += n;
        if head.len() < KEEP_HEAD_BYTES {
            let room = KEEP_HEAD_BYTES - head.len();
            let take = room.min(chunk.len());
            head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
        }
        tail.extend(chunk);
        while tail.len() > KEEP_TAIL_BYTES {
            tail.pop_front();
        }
        if total >= MAX_READ_BYTES {
            stopped_early = true;
            break;
        }
    }
    let kept = head.len() + tail.len();
    let cut = kept < total;
    let mut text = String::from_utf8_lossy(&head).into_owned();
    if cut {
        text.push_str(&format!(
            "\n[… {} bytes of input cut here; showing the first {} and the last {} …]\n",
            total - kept,
            head.len(),
            tail.len()
        ));
    }
    let tail: Vec<u8> = tail.into_iter().collect();
    text.push_str(&String::from_utf8_lossy(&tail));
    if stopped_early {
        text.push_str("\n[… input continued; reading stopped here …]");
    }
    Ok(Piped {
        text,
        total_bytes: total,
        cut,
        stopped_early,
    })
}

/// The user's submission: the question (or [`DEFAULT_QUESTION`]) with the
/// piped input attached. None when there is neither.
pub fn user_input(question: Option<String>, piped: Option<Piped>) -> Option<UserInput> {
    let piped = piped.filter(|p| p.total_bytes > 0);
    let text = match (question, &piped) {
        (Some(q), _) => q,
        (None, Some(_)) => DEFAULT_QUESTION.to_string(),
        (None, None) => return None,
    };
    let mut input = UserInput::text(text);
    if let Some(p) = piped {
        let label = if p.cut {
            format!("standard input, {} bytes, middle cut", p.total_bytes)
        } else {
            format!("standard input, {} bytes", p.total_bytes)
        };
        input = input.with_attachment(AttachmentKind::CommandOutput, &label, &p.text);
    }
    Some(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_input_is_kept_whole() {
        let p = read_bounded(&b"error[E0308]: mismatched types\n"[..]).unwrap();
        assert_eq!(p.text, "error[E0308]: mismatched types\n");
        assert!(!p.cut);
        let i = user_input(None, Some(p)).unwrap();
        assert_eq!(i.text, DEFAULT_QUESTION);
        assert_eq!(i.attachments.len(), 1);
        assert_eq!(i.attachments[0].kind, AttachmentKind::CommandOutput);
    }

    #[test]
    fn large_input_keeps_head_and_tail() {
        let mut data = vec![b'a'; KEEP_HEAD_BYTES];
        data.extend(vec![b'm'; 100_000]);
        data.extend(vec![b'z'; KEEP_TAIL_BYTES]);
        let p = read_bounded(&data[..]).unwrap();
        assert!(p.cut);
        assert!(p.text.starts_with('a') && p.text.ends_with('z'));
        assert!(!p.text.contains('m'));
        assert!(p.text.contains("100000 bytes of input cut"));
    }

    #[test]
    fn nothing_to_ask() {
        assert!(user_input(None, None).is_none());
        let empty = read_bounded(&b""[..]).unwrap();
        assert!(user_input(None, Some(empty)).is_none());
        assert_eq!(user_input(Some("hi".into()), None).unwrap().text, "hi");
    }
}
