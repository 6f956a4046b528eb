//! An answer laid out at a width: parsed whole on every call (CommonMark is
//! cheap to parse), with each top-level block's lines cached by its source,
//! so a streaming answer re-lays only the block that grows.

mod block;
mod open_spans;
mod table;

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag};

use crate::palette::Palette;
use crate::styled::StyledLine;
use block::{BlockLayout, CodeCache};

/// How many source lines (its own included) an inline span left open (a
/// `**` without its closer yet) holds the line it opened in from settling. Emphasis in an
/// answer covers a phrase, which wraps over a line or two; a held line is
/// still drawn in `k`'s live region, but that has only a screen's rows, and
/// a stray `*` must not hold the rest of its paragraph. Past this, the line
/// settles as it is laid out then.
const HOLD_LINES: usize = 4;

/// The end given to a blank separator line until the line after it is
/// known (it settles with that line).
const SEPARATOR_END: usize = usize::MAX;

/// A laid-out line and the source offset it was laid out from: it can no
/// longer change once the source is final up to there.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Laid {
    pub line: StyledLine,
    pub end: usize,
}

/// How a top-level block settles while its answer streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settles {
    /// Line by line: a line is final once its source line has ended
    /// (paragraphs, ATX headings, lists, quotes).
    ByLine,
    /// Fenced code: its lines are literal, so each is final at its newline.
    Code,
    /// Only whole (tables, HTML, indented code): a row arriving can change
    /// every line before it.
    Whole,
}

/// One top-level block of the last layout.
#[derive(Debug, Clone)]
struct BlockInfo {
    range: Range<usize>,
    settles: Settles,
    /// Possible openers of inline spans still open at the end of its last
    /// complete line (see [`open_spans`]).
    open: Vec<open_spans::Offset>,
}

/// An answer's layout: the lines, and for each the source offset it
/// depends on.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// The lines, top to bottom.
    pub lines: Vec<StyledLine>,
    /// For each line, the source offset up to which the source must be
    /// final for the line to be final.
    pub ends: Vec<usize>,
    /// The offset up to which the source can no longer change what it
    /// lays out to, given that more text may follow (see [`Layout::settled_lines`]).
    pub settled: usize,
}

impl Layout {
    /// How many leading lines can no longer change while more text may
    /// still be appended to the source.
    pub fn settled_lines(&self) -> usize {
        self.ends.iter().take_while(|e| **e <= self.settled).count()
    }
}

/// The parser options: GFM tables, task lists and strikethrough.
pub(crate) fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS | Options::ENABLE_STRIKETHROUGH
}

/// A cached top-level block.
#[derive(Debug)]
struct Cached {
    hash: u64,
    len: usize,
    width: usize,
    lines: Vec<Laid>,
    /// Where the block's content ends (its range can take in blank lines).
    content_end: usize,
    used: bool,
}

/// Lays out answers, remembering the blocks of the last one it laid out.
#[derive(Debug, Default)]
pub struct Renderer {
    palette: Option<Palette>,
    blocks: HashMap<usize, Cached>,
    codes: CodeCache,
}

impl Renderer {
    /// A renderer with nothing cached.
    pub fn new() -> Self {
        Self::default()
    }

    /// The lines of `src` at `width` cells.
    pub fn render(&mut self, src: &str, width: usize, pal: &Palette) -> Vec<StyledLine> {
        self.layout(src, width, pal).lines
    }

    /// The lines of `src` at `width` cells, with what a streaming front end
    /// needs to know about which are final.
    pub fn layout(&mut self, src: &str, width: usize, pal: &Palette) -> Layout {
        if self.palette.as_ref() != Some(pal) {
            self.blocks.clear();
            self.codes.clear();
            self.palette = Some(*pal);
        }
        self.blocks.values_mut().for_each(|c| c.used = false);
        let mut laid: Vec<Laid> = Vec::new();
        let mut infos: Vec<BlockInfo> = Vec::new();
        let mut events = Parser::new_ext(src, options())
            .into_offset_iter()
            .peekable();
        let mut last_end = 0usize;
        let complete = complete_lines(src);
        while let Some((event, range)) = events.next() {
            let settles = settles(&event, src, &range);
            let start = range.start;
            // The events of this top-level block: a start tag's run up to
            // its end tag, or a lone event (a rule).
            let mut block_events = vec![(event, range.clone())];
            let mut end = range.end;
            if matches!(block_events[0].0, Event::Start(_)) {
                let mut depth = 1usize;
                for (ev, r) in events.by_ref() {
                    match ev {
                        Event::Start(_) => depth += 1,
                        Event::End(_) => depth -= 1,
                        _ => {}
                    }
                    end = end.max(r.end);
                    block_events.push((ev, r));
                    if depth == 0 {
                        break;
                    }
                }
            }
            let end = end.min(src.len());
            if !laid.is_empty() && has_blank_line(src, last_end, start) {
                laid.push(Laid {
                    line: StyledLine::default(),
                    end: SEPARATOR_END,
                });
            }
            // Only the block that reaches the last complete line can still
            // have spans open across it.
            let open = if start < complete && end + 1 >= complete {
                open_spans::open_delimiters(src, &block_events, complete)
            } else {
                Vec::new()
            };
            let slice = src.get(start..end).unwrap_or("");
            let hash = hash_of(slice);
            let hit = self
                .blocks
                .get_mut(&start)
                .filter(|c| c.hash == hash && c.len == slice.len() && c.width == width);
            let content_end = match hit {
                Some(cached) => {
                    cached.used = true;
                    laid.extend(cached.lines.iter().cloned());
                    cached.content_end
                }
                None => {
                    let mut b = BlockLayout::new(src, width, pal, &mut self.codes);
                    for (ev, r) in block_events {
                        b.event(ev, r);
                    }
                    let (lines, content_end) = b.finish();
                    laid.extend(lines.iter().cloned());
                    self.blocks.insert(
                        start,
                        Cached {
                            hash,
                            len: slice.len(),
                            width,
                            lines,
                            content_end,
                            used: true,
                        },
                    );
                    content_end
                }
            };
            infos.push(BlockInfo {
                range: start..end,
                settles,
                open,
            });
            last_end = content_end.max(start);
        }
        self.blocks.retain(|_, c| c.used);
        self.codes
            .retain(|k, _| infos.iter().any(|i| i.range.contains(k)));
        // A separator settles with the line after it.
        let mut next = SEPARATOR_END;
        for l in laid.iter_mut().rev() {
            if l.end == SEPARATOR_END {
                l.end = next;
            } else {
                next = l.end;
            }
        }
        let settled = settled_offset(src, &infos);
        let (lines, ends) = laid.into_iter().map(|l| (l.line, l.end)).unzip();
        Layout {
            lines,
            ends,
            settled,
        }
    }
}

/// How the block an event opens settles.
fn settles(event: &Event<'_>, src: &str, range: &Range<usize>) -> Settles {
    match event {
        Event::Start(Tag::CodeBlock(pulldown_cmark::CodeBlockKind::Fenced(_))) => Settles::Code,
        Event::Start(Tag::Heading { .. }) => {
            // A setext heading's underline arrives after its text.
            let atx = src
                .get(range.clone())
                .is_some_and(|s| s.trim_start().starts_with('#'));
            if atx {
                Settles::ByLine
            } else {
                Settles::Whole
            }
        }
        Event::Start(Tag::Paragraph | Tag::List(_) | Tag::BlockQuote(_)) | Event::Rule => {
            Settles::ByLine
        }
        _ => Settles::Whole,
    }
}

/// The source offset up to which the layout can no longer change when
/// more text is appended.
fn settled_offset(src: &str, infos: &[BlockInfo]) -> usize {
    let complete = complete_lines(src);
    let Some(last) = infos.iter().rposition(|b| b.range.start < complete) else {
        return 0;
    };
    let block = &infos[last];
    let tail = &src[complete..];
    let last_line_start = src[..complete.saturating_sub(1)]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let last_line_blank = src[last_line_start..complete].trim().is_empty();
    match block.settles {
        Settles::Code => complete,
        Settles::Whole if last_line_blank && complete > 0 => complete,
        Settles::Whole => block.range.start,
        Settles::ByLine => {
            // The next line may still turn the last one into a setext
            // heading (`===`, `---`) or a table's header (`|---|`).
            let may_underline = tail.chars().all(|c| " \t=-|:".contains(c));
            let settled = if may_underline && !last_line_blank {
                last_line_start
            } else {
                complete
            };
            settled.min(held_from(src, &block.open, complete))
        }
    }
}

/// Where the source ends its last whole line: the partial line after it
/// can still become anything.
fn complete_lines(src: &str) -> usize {
    src.rfind('\n').map_or(0, |i| i + 1)
}

/// The start of the line of the first span opener in `open` that can still
/// be closed (no blank line has ended its paragraph) and has held its line
/// for fewer than [`HOLD_LINES`] lines; `complete` when there is none.
fn held_from(src: &str, open: &[open_spans::Offset], complete: usize) -> usize {
    open.iter()
        .copied()
        .filter(|&at| at < complete)
        .find(|&at| {
            let lines = src[at..complete].matches('\n').count();
            lines <= HOLD_LINES && !has_blank_line(src, at, complete)
        })
        .map_or(complete, |at| src[..at].rfind('\n').map_or(0, |i| i + 1))
}

fn hash_of(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// Whether the source between `from` and `to` holds a blank line (one of
/// only whitespace and quote markers), the mark of a paragraph break that
/// the layout keeps.
fn has_blank_line(src: &str, from: usize, to: usize) -> bool {
    let (from, to) = (from.min(src.len()), to.min(src.len()));
    if from >= to {
        return false;
    }
    let bytes = src.as_bytes();
    let mut p = from;
    while p < to {
        let at_line_start = p == 0 || bytes[p - 1] == b'\n';
        let line_end = src[p..].find('\n').map(|i| p + i);
        if at_line_start {
            if let Some(e) = line_end {
                if e < to {
                    let line = &src[p..e];
                    if line.chars().all(|c| c.is_whitespace() || c == '>') {
                        return true;
                    }
                }
            }
        }
        match line_end {
            Some(e) => p = e + 1,
            None => break,
        }
    }
    false
}

/// Lays `src` out as lines no wider than `width` cells, in one go.
pub fn render(src: &str, width: usize, pal: &Palette) -> Vec<StyledLine> {
    Renderer::new().render(src, width, pal)
}
