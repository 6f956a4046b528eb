//! Spots the OSC sequences koi acts on that alacritty_terminal does not:
//! shell integration marks (OSC 133), the working directory (OSC 7) and the
//! token-guarded request to open the assistant (OSC 7717). The scanner only
//! looks at bytes after an ESC, so plain output costs one `memchr`-like scan.

/// Longest OSC payload worth looking at; anything longer is not ours.
const MAX_PAYLOAD: usize = 4096;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;

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
}

#[derive(Default)]
enum State {
    #[default]
    Ground,
    Esc,
    Payload,
    PayloadEsc,
}

#[derive(Default)]
pub struct OscScanner {
    state: State,
    payload: Vec<u8>,
    overflow: bool,
}

impl OscScanner {
    /// Scan `bytes`, appending each marker with the offset just past its
    /// terminator (so the caller can parse up to there first).
    pub fn scan(&mut self, bytes: &[u8], out: &mut Vec<(usize, Marker)>) {
        let mut i = 0;
        while i < bytes.len() {
            match self.state {
                State::Ground => match bytes[i..].iter().position(|&b| b == ESC) {
                    Some(at) => {
                        i += at + 1;
                        self.state = State::Esc;
                    }
                    None => return,
                },
                State::Esc => {
                    self.state = if bytes[i] == b']' {
                        State::Payload
                    } else {
                        State::Ground
                    };
                    self.payload.clear();
                    self.overflow = false;
                    if bytes[i] == ESC {
                        self.state = State::Esc;
                    }
                    i += 1;
                }
                State::Payload => {
                    let b = bytes[i];
                    i += 1;
                    match b {
                        BEL => self.finish(i, out),
                        ESC => self.state = State::PayloadEsc,
                        // Other control bytes abort an OSC, as in the parser.
                        0x18 | 0x1a => self.state = State::Ground,
                        _ if self.payload.len() < MAX_PAYLOAD => self.payload.push(b),
                        _ => self.overflow = true,
                    }
                }
                State::PayloadEsc => {
                    if bytes[i] == b'\\' {
                        i += 1;
                        self.finish(i, out);
                    } else {
                        // ESC starts something new; this OSC is over.
                        self.state = State::Esc;
                    }
                }
            }
        }
    }

    fn finish(&mut self, end: usize, out: &mut Vec<(usize, Marker)>) {
        self.state = State::Ground;
        if self.overflow {
            return;
        }
        if let Some(marker) = parse(&self.payload) {
            out.push((end, marker));
        }
    }
}

fn parse(payload: &[u8]) -> Option<Marker> {
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
            let token = rest.strip_prefix("open-overlay;")?;
            Some(Marker::OpenOverlay(token.to_owned()))
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
    use super::*;

    fn scan_all(chunks: &[&[u8]]) -> Vec<Marker> {
        let mut scanner = OscScanner::default();
        let mut out = Vec::new();
        for chunk in chunks {
            let mut found = Vec::new();
            scanner.scan(chunk, &mut found);
            out.extend(found.into_iter().map(|(_, m)| m));
        }
        out
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
        let stream = b"x\x1b]7;file://host/tmp/a%20b\x07y\x1b]7717;open-overlay;abc123\x1b\\z";
        let want = vec![
            Marker::Cwd("/tmp/a b".into()),
            Marker::OpenOverlay("abc123".into()),
        ];
        for split in 0..stream.len() {
            let (a, b) = stream.split_at(split);
            assert_eq!(scan_all(&[a, b]), want, "split at {split}");
        }
    }

    #[test]
    fn offsets_point_past_the_terminator() {
        let mut scanner = OscScanner::default();
        let mut out = Vec::new();
        scanner.scan(b"ab\x1b]133;C\x07cd", &mut out);
        assert_eq!(out, vec![(10, Marker::Shell(ShellMark::OutputStart))]);
    }

    #[test]
    fn ignores_other_and_oversized_sequences() {
        let mut long = b"\x1b]7717;open-overlay;".to_vec();
        long.extend(std::iter::repeat_n(b'a', MAX_PAYLOAD * 2));
        long.push(BEL);
        assert!(scan_all(&[&long]).is_empty());
        assert!(
            scan_all(&[b"\x1b]0;title\x07\x1b[31m\x1b]133;Z\x07\x1b]7717;other\x07"]).is_empty()
        );
        // An ESC inside the payload that is not ST abandons the sequence.
        assert!(scan_all(&[b"\x1b]133;A\x1b[0m\x07"]).is_empty());
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut seed = 0x2545f4914f6cdd1du64;
        let mut scanner = OscScanner::default();
        let mut out = Vec::new();
        for _ in 0..2000 {
            let mut chunk = Vec::new();
            for _ in 0..64 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let alphabet = b"\x1b]7;13\x07\\abc%file:/";
                chunk.push(alphabet[(seed % alphabet.len() as u64) as usize]);
            }
            scanner.scan(&chunk, &mut out);
        }
    }
}
