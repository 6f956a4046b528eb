//! The OSC sequences koi acts on that alacritty_terminal does not: shell
//! integration marks (OSC 133), the working directory (OSC 7) and the
//! token-guarded requests of `k` (OSC 7717: open the assistant, send the
//! last command block). The bytes are
//! found by [`super::seq_scan`]; this module reads their payloads.

/// A shell-integration mark (FinalTerm / OSC 133).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShellMark {
    /// `A`: a prompt starts.
    PromptStart,
    /// `B`: the prompt ended; the user types the command.
    CommandStart,
    /// `C`: the command runs; its output follows.
    OutputStart,
    /// `D[;status]`: the command finished.
    CommandEnd(Option<i32>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Marker {
    Shell(ShellMark),
    /// OSC 7 `file://host/path`, percent-decoded.
    Cwd(String),
    /// OSC 7717 `open-overlay;TOKEN`.
    OpenOverlay(String),
    /// OSC 7717 `suggest;TOKEN;…`: `#` at the prompt
    /// ([`crate::prompt_suggest`]).
    Suggest {
        token: String,
        request: crate::prompt_suggest::SuggestRequest,
    },
    /// OSC 7717 `last-command;TOKEN`: `k fix` asks for the last block.
    LastCommand(String),
}

/// The marker an OSC payload (raw, `;` kept) carries, if it is one of koi's.
pub(crate) fn parse(payload: &[u8]) -> Option<Marker> {
    let text = std::str::from_utf8(payload).ok()?;
    let (code, rest) = text.split_once(';')?;
    match code {
        "133" => {
            let mut parts = rest.split(';');
            let mark = match parts.next()? {
                "A" => ShellMark::PromptStart,
                "B" => ShellMark::CommandStart,
                "C" => ShellMark::OutputStart,
                "D" => ShellMark::CommandEnd(parts.next().and_then(|s| s.parse().ok())),
                _ => return None,
            };
            Some(Marker::Shell(mark))
        }
        "7" => {
            let path = rest.strip_prefix("file://")?;
            let path = &path[path.find('/')?..];
            Some(Marker::Cwd(percent_decode(path)))
        }
        "7717" => {
            if let Some(rest) = rest.strip_prefix("suggest;") {
                let (token, request) = crate::prompt_suggest::parse(rest)?;
                return Some(Marker::Suggest { token, request });
            }
            let (request, token) = rest.split_once(';')?;
            match request {
                "open-overlay" => Some(Marker::OpenOverlay(token.to_owned())),
                ai_chat_engine::failed_command::REPLY_TAG => {
                    Some(Marker::LastCommand(token.to_owned()))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Some(v) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::super::seq_scan::{Seq, SeqScanner, MAX_STRING};
    use super::*;

    fn scan_with_offsets(chunks: &[&[u8]]) -> Vec<(usize, Marker)> {
        let mut scanner = SeqScanner::default();
        let mut out = Vec::new();
        let mut base = 0;
        for chunk in chunks {
            scanner.scan(chunk, |end, seq| {
                if let Seq::Osc(Some(payload)) = seq {
                    if let Some(marker) = parse(payload) {
                        out.push((base + end, marker));
                    }
                }
            });
            base += chunk.len();
        }
        out
    }

    fn scan_all(chunks: &[&[u8]]) -> Vec<Marker> {
        scan_with_offsets(chunks)
            .into_iter()
            .map(|(_, m)| m)
            .collect()
    }

    #[test]
    fn finds_marks_with_either_terminator() {
        let got = scan_all(&[
            b"ab\x1b]133;A\x07$ \x1b]133;B\x1b\\ls\r\n\x1b]133;C\x07out\x1b]133;D;2\x07",
        ]);
        assert_eq!(
            got,
            vec![
                Marker::Shell(ShellMark::PromptStart),
                Marker::Shell(ShellMark::CommandStart),
                Marker::Shell(ShellMark::OutputStart),
                Marker::Shell(ShellMark::CommandEnd(Some(2))),
            ]
        );
    }

    #[test]
    fn survives_chunk_boundaries_anywhere() {
        let stream = b"x\x1b]7;file://host/tmp/a%20b\x07y\x1b]7717;open-overlay;abc123\x1b\\z\x1b]7717;last-command;ff\x07";
        let want = vec![
            Marker::Cwd("/tmp/a b".into()),
            Marker::OpenOverlay("abc123".into()),
            Marker::LastCommand("ff".into()),
        ];
        for split in 0..stream.len() {
            let (a, b) = stream.split_at(split);
            assert_eq!(scan_all(&[a, b]), want, "split at {split}");
        }
    }

    #[test]
    fn offsets_point_past_the_terminator() {
        assert_eq!(
            scan_with_offsets(&[b"ab\x1b]133;C\x07cd"]),
            vec![(10, Marker::Shell(ShellMark::OutputStart))]
        );
        // An OSC ends at the ESC of its ST, where the parser acts on it.
        assert_eq!(
            scan_with_offsets(&[b"ab\x1b]133;C\x1b\\cd"]),
            vec![(10, Marker::Shell(ShellMark::OutputStart))]
        );
    }

    #[test]
    fn ignores_other_and_oversized_sequences() {
        let mut long = b"\x1b]7717;open-overlay;".to_vec();
        long.extend(std::iter::repeat_n(b'a', MAX_STRING * 2));
        long.push(0x07);
        assert!(scan_all(&[&long]).is_empty());
        assert!(
            scan_all(&[b"\x1b]0;title\x07\x1b[31m\x1b]133;Z\x07\x1b]7717;other\x07"]).is_empty()
        );
        // CAN aborts the string before the mark is complete.
        assert!(scan_all(&[b"\x1b]13\x183;A\x07"]).is_empty());
    }
}
