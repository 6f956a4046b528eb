//! An answer on a terminal, rendered as it streams: markdown laid out at
//! the terminal's width by `koi_markdown` (the overlay's renderer) and
//! printed as SGR.
//!
//! What is printed stays: a line is printed for good once the source it
//! comes from can no longer change it (a paragraph or list line when its
//! source line has ended and the next line has begun, a code line at its
//! newline, a table once it is complete). Below the printed lines sits a
//! small live region that `k` owns and repaints on every token: the line
//! still streaming, or the rows of a table so far. It is re-wrapped when
//! the terminal is resized; what was printed above it is not.

use std::io::{self, IsTerminal, Write};

use ai_tools::terminal_text::escape_controls;
use koi_markdown::ansi::line_to_sgr;
use koi_markdown::{Palette, Renderer, StyledLine};

/// Width used when the terminal does not say.
const FALLBACK_COLUMNS: u16 = 80;
/// Rows used when the terminal does not say.
const FALLBACK_ROWS: u16 = 24;

/// Where the terminal's size comes from (a test gives a fixed one).
pub type SizeFn = Box<dyn Fn() -> Option<(u16, u16)>>;

/// Whether the terminal makes OSC 8 hyperlinks of links, from what the
/// environment says about it. `FORCE_HYPERLINK=1`/`0` overrides, as other
/// command-line tools honour it. Inside tmux (which may not forward them)
/// and on terminals not known to support them, links stay plain text:
/// a terminal that does not know OSC 8 may print its bytes.
pub fn hyperlinks_supported(env: &dyn Fn(&str) -> Option<String>) -> bool {
    match env("FORCE_HYPERLINK").as_deref() {
        Some("1") => return true,
        Some("0") => return false,
        _ => {}
    }
    if env("TMUX").is_some() {
        return false;
    }
    let program = env("TERM_PROGRAM").unwrap_or_default();
    let term = env("TERM").unwrap_or_default();
    let vte = env("VTE_VERSION")
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(0);
    // VTE gained OSC 8 in 0.50 (VTE_VERSION 5000).
    matches!(
        program.as_str(),
        "koi" | "iTerm.app" | "WezTerm" | "vscode" | "ghostty"
    ) || matches!(
        term.as_str(),
        "xterm-kitty" | "alacritty" | "foot" | "xterm-ghostty" | "wezterm"
    ) || env("KITTY_WINDOW_ID").is_some()
        || env("WT_SESSION").is_some()
        || vte >= 5000
}

/// A view for answers on stdout, when they are to be rendered: stdout is a
/// terminal, `NO_COLOR` is not set and `--raw` was not given. Otherwise
/// answers are written as the text the model wrote.
pub fn for_stdout(raw: bool) -> Option<AnswerView> {
    let rendered = !raw && io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    rendered.then(|| {
        let env = |k: &str| std::env::var(k).ok();
        AnswerView::new(hyperlinks_supported(&env), Box::new(crate::tty::size))
    })
}

/// The answer being shown.
pub struct AnswerView {
    /// The answer so far, control characters already escaped.
    src: String,
    renderer: Renderer,
    pal: Palette,
    hyperlinks: bool,
    size: SizeFn,
    /// Columns the live region was last drawn at.
    width: usize,
    /// Lines laid out from source up to here are printed for good.
    committed: usize,
    /// The live region as drawn: each line's width in cells.
    live: Vec<usize>,
    /// The live region's lines as drawn, to skip repaints that change nothing.
    live_lines: Vec<StyledLine>,
}

impl AnswerView {
    /// A view for a terminal of `size`, making links hyperlinks when asked.
    pub fn new(hyperlinks: bool, size: SizeFn) -> Self {
        AnswerView {
            src: String::new(),
            renderer: Renderer::new(),
            pal: Palette::ansi(),
            hyperlinks,
            size,
            width: 0,
            committed: 0,
            live: Vec::new(),
            live_lines: Vec::new(),
        }
    }

    fn dims(&self) -> (usize, usize) {
        let (c, r) = (self.size)().unwrap_or((FALLBACK_COLUMNS, FALLBACK_ROWS));
        (usize::from(c.max(1)), usize::from(r.max(2)))
    }

    /// Whether any answer text is shown or pending.
    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    /// Appends answer text and updates the terminal.
    pub fn push(&mut self, text: &str, out: &mut dyn Write) -> io::Result<()> {
        self.src.push_str(&escape_controls(text));
        self.update(out, false)
    }

    /// Repaints the live region if the terminal's width changed.
    pub fn check_resize(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.src.is_empty() || self.dims().0 == self.width {
            return Ok(());
        }
        self.update(out, false)
    }

    /// Prints the rest of the answer for good and starts over (the answer
    /// ended, or something else is about to be printed below it).
    pub fn finish(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if self.src.is_empty() && self.live.is_empty() {
            return Ok(());
        }
        self.update(out, true)?;
        self.src.clear();
        self.renderer = Renderer::new();
        self.committed = 0;
        self.live.clear();
        self.live_lines.clear();
        Ok(())
    }

    fn update(&mut self, out: &mut dyn Write, all: bool) -> io::Result<()> {
        let (cols, rows) = self.dims();
        let resized = self.width != 0 && cols != self.width;
        if resized {
            // Terminals that reflow re-wrap the live lines at the new
            // width: count the rows they take now.
            let rows_now: usize = self.live.iter().map(|w| w.div_ceil(cols).max(1)).sum();
            self.live = vec![0; rows_now];
        }
        self.width = cols;
        let layout = self.renderer.layout(&self.src, cols, &self.pal);
        let settled = if all { usize::MAX } else { layout.settled };
        let mut commit = Vec::new();
        let mut live = Vec::new();
        for (line, end) in layout.lines.iter().zip(&layout.ends) {
            if *end <= self.committed && !(all && *end == usize::MAX) {
                continue;
            }
            if *end <= settled {
                commit.push(line);
            } else {
                live.push(line.clone());
            }
        }
        // Only the rows that fit on the screen can be repainted.
        let keep = rows - 1;
        if live.len() > keep {
            live.drain(..live.len() - keep);
        }
        if commit.is_empty() && live == self.live_lines && !resized {
            return Ok(());
        }
        let mut buf = String::new();
        if !self.live.is_empty() {
            buf.push('\r');
            if self.live.len() > 1 {
                buf.push_str(&format!("\x1b[{}A", self.live.len() - 1));
            }
            buf.push_str("\x1b[J");
        }
        for line in &commit {
            buf.push_str(&line_to_sgr(line, self.hyperlinks));
            buf.push('\n');
        }
        for (i, line) in live.iter().enumerate() {
            if i > 0 {
                buf.push('\n');
            }
            buf.push_str(&line_to_sgr(line, self.hyperlinks));
        }
        out.write_all(buf.as_bytes())?;
        out.flush()?;
        if !all {
            self.committed = self.committed.max(settled);
        }
        self.live = live.iter().map(koi_markdown::wrap::line_width).collect();
        self.live_lines = live;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(cols: u16) -> AnswerView {
        AnswerView::new(false, Box::new(move || Some((cols, 10))))
    }

    /// What a terminal would show, roughly: the output with its SGR
    /// removed and the live region's repaints applied.
    fn screen(bytes: &[u8]) -> Vec<String> {
        let s = String::from_utf8(bytes.to_vec()).unwrap();
        let mut lines: Vec<String> = vec![String::new()];
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\x1b' => {
                    let mut seq = String::new();
                    for d in chars.by_ref() {
                        seq.push(d);
                        if d.is_ascii_alphabetic() {
                            break;
                        }
                    }
                    let n: usize = seq
                        .trim_start_matches('[')
                        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
                        .parse()
                        .unwrap_or(1);
                    if seq.ends_with('A') {
                        for _ in 0..n {
                            lines.pop();
                        }
                        if lines.is_empty() {
                            lines.push(String::new());
                        }
                    } else if seq.ends_with('J') {
                        if let Some(l) = lines.last_mut() {
                            l.clear();
                        }
                    }
                }
                '\r' => {
                    if let Some(l) = lines.last_mut() {
                        l.clear();
                    }
                }
                '\n' => lines.push(String::new()),
                c => lines.last_mut().unwrap().push(c),
            }
        }
        lines
    }

    #[test]
    fn streams_line_by_line_and_ends_like_one_shot() {
        let src = "# Plan\n\nSome **bold** words that wrap around the edge.\n\n- one\n- two\n\n```rust\nfn main() {}\n```\ndone";
        let mut out = Vec::new();
        let mut v = view(20);
        for piece in src.as_bytes().chunks(3) {
            v.push(std::str::from_utf8(piece).unwrap(), &mut out)
                .unwrap();
        }
        v.finish(&mut out).unwrap();
        let shown = screen(&out);
        let expected: Vec<String> = koi_markdown::render(src, 20, &Palette::ansi())
            .iter()
            .map(StyledLine::text)
            .chain([String::new()])
            .collect();
        assert_eq!(shown, expected);
    }

    /// Streams `src` in pieces of `chunk` bytes into a view `cols` wide.
    fn stream(src: &str, cols: u16, chunk: usize) -> (AnswerView, Vec<u8>) {
        let mut out = Vec::new();
        let mut v = view(cols);
        for piece in src.as_bytes().chunks(chunk) {
            v.push(std::str::from_utf8(piece).unwrap(), &mut out)
                .unwrap();
        }
        (v, out)
    }

    #[test]
    fn emphasis_across_a_soft_break_is_printed_once_it_closes() {
        // The first line used to be printed for good as `Some **bold`
        // before the `**` closing it on the next line arrived.
        let src = "Some **bold\nwords** here.\nnext line\n\nafter";
        let (mut v, mut out) = stream(src, 40, 1);
        v.finish(&mut out).unwrap();
        let shown = screen(&out);
        assert_eq!(
            shown,
            ["Some bold", "words here.", "next line", "", "after", ""]
        );
        // The literal opener was only ever drawn in the live region
        // (repainted); the line printed for good is bold.
        let s = String::from_utf8(out).unwrap();
        assert!(s.contains("\x1b[0;1mbold"), "{s:?}");
    }

    #[test]
    fn a_stray_opener_holds_its_line_for_a_few_lines_only() {
        // Held while its closer may still come…
        let (v, _) = stream("a **stray\nl2\nl3\n", 40, 4);
        assert_eq!(v.committed, 0);
        // …and printed once the bound has passed.
        let (v, out) = stream("a **stray\nl2\nl3\nl4\nl5\nl6\n", 40, 4);
        assert!(v.committed > 0);
        assert!(String::from_utf8(out).unwrap().contains("a **stray\n"));
    }

    #[test]
    fn a_table_waits_until_complete() {
        let mut out = Vec::new();
        let mut v = view(40);
        v.push("| a | b |\n|---|---|\n| 1 | 2 |\n", &mut out)
            .unwrap();
        let before = out.len();
        v.push("| 3 | 4 |\n", &mut out).unwrap();
        // Still live: repainted from the region's top, nothing below it.
        let repaint = String::from_utf8_lossy(&out[before..]).to_string();
        assert!(repaint.starts_with("\r\x1b[2A\x1b[J"), "{repaint:?}");
        v.push("\nafter", &mut out).unwrap();
        v.finish(&mut out).unwrap();
        let shown = screen(&out);
        assert_eq!(
            shown[..6],
            ["a │ b", "──┼──", "1 │ 2", "3 │ 4", "", "after"]
        );
    }

    #[test]
    fn a_resize_rewraps_the_live_line() {
        let mut out = Vec::new();
        let cols = std::rc::Rc::new(std::cell::Cell::new(40u16));
        let c = std::rc::Rc::clone(&cols);
        let mut v = AnswerView::new(false, Box::new(move || Some((c.get(), 10))));
        v.push("done.\n\nafter the table, a long line of words", &mut out)
            .unwrap();
        let before = out.len();
        cols.set(12);
        v.check_resize(&mut out).unwrap();
        // The live region is the blank line before the paragraph and its
        // 37-cell line, which now takes 4 rows of 12: back up 4, repaint.
        let repaint = String::from_utf8_lossy(&out[before..]).to_string();
        assert_eq!(
            repaint,
            "\r\x1b[4A\x1b[J\nafter the\ntable, a\nlong line of\nwords"
        );
    }

    #[test]
    fn links_become_hyperlinks_only_where_supported() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert!(hyperlinks_supported(&env(&[("TERM_PROGRAM", "koi")])));
        assert!(!hyperlinks_supported(&env(&[("TERM", "xterm-256color")])));
        assert!(!hyperlinks_supported(&env(&[
            ("TERM_PROGRAM", "koi"),
            ("TMUX", "/tmp/x")
        ])));
        assert!(hyperlinks_supported(&env(&[
            ("TMUX", "/tmp/x"),
            ("FORCE_HYPERLINK", "1")
        ])));
        let mut out = Vec::new();
        let mut v = AnswerView::new(true, Box::new(|| Some((60, 10))));
        v.push("see [docs](https://x.example/a)\n", &mut out)
            .unwrap();
        v.finish(&mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.contains("\x1b]8;;https://x.example/a\x1b\\"), "{s:?}");
    }

    #[test]
    fn control_sequences_stay_escaped() {
        let mut out = Vec::new();
        let mut v = view(40);
        v.push("a\x1b[2Jb\x07\n", &mut out).unwrap();
        v.finish(&mut out).unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.contains("a␛[2Jb␇"), "{s:?}");
        assert!(!s.contains("\x1b[2J"));
    }
}
