//! One top-level block of an answer, from parser events to styled lines:
//! the containers it sits in (quotes, list items), inline styles, code and
//! tables. Each line records the source offset it was laid out from, so a
//! streaming front end knows which lines can no longer change.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Tag, TagEnd};

use super::table::Table;
use super::{Laid, SEPARATOR_END};
use crate::highlight::CodeHighlighter;
use crate::palette::Palette;
use crate::styled::{Span, StyledLine};
use crate::wrap::{str_width, wrap, WrapOpts};

/// Deepest nesting of containers drawn; deeper ones draw at this level so
/// a pathological answer cannot push its text off the line.
const MAX_DEPTH: usize = 6;

/// Highlighters of the code blocks seen, by the block's source offset.
pub(crate) type CodeCache = std::collections::HashMap<usize, (String, CodeHighlighter)>;

/// A container a line sits in.
#[derive(Debug)]
enum Container {
    Quote,
    /// A list: the number of its next item (`None`: bullets).
    List(Option<u64>),
    /// A list item: its marker, and whether a line has shown it yet.
    Item {
        marker: String,
        shown: bool,
    },
}

/// Inline style in force.
#[derive(Debug, Default, Clone)]
struct InlineStyle {
    bold: usize,
    italic: usize,
    strike: usize,
    heading: Option<HeadingLevel>,
    link: Option<String>,
    image: bool,
}

/// An open fenced or indented code block.
#[derive(Debug)]
struct OpenCode {
    start: usize,
    info: String,
    /// The code's lines and the source offset each ends at.
    lines: Vec<(String, usize)>,
    /// The last line has no newline yet.
    partial: bool,
}

/// Lays out the events of one top-level block.
pub(crate) struct BlockLayout<'a> {
    src: &'a str,
    width: usize,
    pal: &'a Palette,
    codes: &'a mut CodeCache,
    out: Vec<Laid>,
    containers: Vec<Container>,
    style: InlineStyle,
    /// The line being built.
    cur: Vec<Span>,
    /// The source offset the line being built reaches.
    cur_end: usize,
    /// Where the last content ended (for blank lines between blocks):
    /// text, not block ends, whose ranges can take in the blank lines
    /// after them.
    last_end: usize,
    code: Option<OpenCode>,
    table: Option<Table>,
}

impl<'a> BlockLayout<'a> {
    pub(crate) fn new(
        src: &'a str,
        width: usize,
        pal: &'a Palette,
        codes: &'a mut CodeCache,
    ) -> Self {
        Self {
            src,
            width,
            pal,
            codes,
            out: Vec::new(),
            containers: Vec::new(),
            style: InlineStyle::default(),
            cur: Vec::new(),
            cur_end: 0,
            last_end: 0,
            code: None,
            table: None,
        }
    }

    /// The lines laid out, and where their content ends in the source.
    pub(crate) fn finish(mut self) -> (Vec<Laid>, usize) {
        self.flush_inline();
        self.close_code();
        (self.out, self.last_end)
    }

    /// Feeds one event.
    pub(crate) fn event(&mut self, event: Event<'_>, range: Range<usize>) {
        match event {
            Event::Start(tag) => self.start(tag, range),
            Event::End(tag) => self.end(tag, range),
            Event::Text(text) => {
                if self.code.is_some() {
                    self.code_text(&text, range);
                } else {
                    self.text(&text, range.end);
                }
            }
            Event::Code(text) => {
                let span = Span {
                    bg: self.pal.code_bg,
                    ..Span::new(text.as_ref(), self.pal.string)
                };
                self.push_span(span, range.end);
            }
            Event::Html(text) | Event::InlineHtml(text) => {
                // Shown as written: an answer's HTML is rarely meant to run.
                let mut first = true;
                for piece in text.split('\n') {
                    if !first {
                        self.flush_line(self.cur_end.max(range.start + 1));
                    }
                    first = false;
                    self.text(piece, range.end);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                // A soft break stays a line break: chat answers are written
                // one thought per line.
                if self.table.is_some() {
                    let space = self.style_span(" ");
                    if let Some(table) = &mut self.table {
                        table.push(space);
                    }
                } else {
                    self.flush_line(range.end);
                }
            }
            Event::Rule => {
                self.blank_before(range.start);
                let room = self.width.saturating_sub(self.prefix_width());
                let line = vec![Span::new("─".repeat(room.max(1)), self.pal.dim)];
                self.emit_wrapped(&line, &WrapOpts::default(), range.end);
                self.last_end = self.last_end.max(range.end);
            }
            Event::TaskListMarker(done) => {
                if let Some(Container::Item { marker, .. }) = self.containers.last_mut() {
                    *marker = if done { "[x]" } else { "[ ]" }.to_string();
                }
            }
            Event::FootnoteReference(name) => self.text(&format!("[^{name}]"), range.end),
            Event::InlineMath(text) | Event::DisplayMath(text) => {
                self.text(&text, range.end);
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>, range: Range<usize>) {
        match tag {
            Tag::Paragraph => self.begin_block(range.start),
            Tag::Heading { level, .. } => {
                self.begin_block(range.start);
                self.style.heading = Some(level);
            }
            Tag::BlockQuote(_) => {
                self.begin_block(range.start);
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.begin_block(range.start);
                let info = match kind {
                    CodeBlockKind::Fenced(info) => Some(info.to_string()),
                    CodeBlockKind::Indented => None,
                };
                if let Some(info) = &info {
                    self.code_label(info, range.start, range.end);
                }
                self.code = Some(OpenCode {
                    start: range.start,
                    info: info.unwrap_or_default(),
                    lines: Vec::new(),
                    partial: false,
                });
            }
            Tag::HtmlBlock => self.begin_block(range.start),
            Tag::List(first) => {
                self.begin_block(range.start);
                self.containers.push(Container::List(first));
            }
            Tag::Item => {
                self.begin_block(range.start);
                let marker = match self.containers.last_mut() {
                    Some(Container::List(Some(n))) => {
                        let m = format!("{n}.");
                        *n = n.saturating_add(1);
                        m
                    }
                    _ => "•".to_string(),
                };
                self.containers.push(Container::Item {
                    marker,
                    shown: false,
                });
            }
            Tag::Table(aligns) => {
                self.begin_block(range.start);
                self.table = Some(Table::new(aligns));
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.row();
                }
            }
            Tag::TableCell => {
                if let Some(t) = &mut self.table {
                    t.cell();
                }
            }
            Tag::Emphasis => self.style.italic += 1,
            Tag::Strong => self.style.bold += 1,
            Tag::Strikethrough => self.style.strike += 1,
            Tag::Link { dest_url, .. } => self.style.link = Some(dest_url.to_string()),
            Tag::Image { dest_url, .. } => {
                self.style.image = true;
                self.style.link = Some(dest_url.to_string());
            }
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_)
            | Tag::Superscript
            | Tag::Subscript => self.begin_block(range.start),
        }
    }

    fn end(&mut self, tag: TagEnd, range: Range<usize>) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => self.end_block(range.end),
            TagEnd::Heading(_) => {
                self.end_block(range.end);
                self.style.heading = None;
            }
            TagEnd::BlockQuote(_) => {
                self.end_block(range.end);
                self.containers.pop();
            }
            TagEnd::CodeBlock => self.close_code(),
            TagEnd::List(_) | TagEnd::Item => {
                self.end_block(range.end);
                self.containers.pop();
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    let lines =
                        table.layout(self.width.saturating_sub(self.prefix_width()), self.pal);
                    for line in lines {
                        self.emit_plain(line, range.end);
                    }
                }
            }
            TagEnd::TableHead | TagEnd::TableRow | TagEnd::TableCell => {}
            TagEnd::Emphasis => self.style.italic = self.style.italic.saturating_sub(1),
            TagEnd::Strong => self.style.bold = self.style.bold.saturating_sub(1),
            TagEnd::Strikethrough => self.style.strike = self.style.strike.saturating_sub(1),
            TagEnd::Link | TagEnd::Image => {
                let url = self.style.link.take().unwrap_or_default();
                let text: String = self.link_text();
                self.style.image = false;
                let mailto = url.strip_prefix("mailto:").unwrap_or(&url);
                if !url.is_empty() && text != url && text != mailto {
                    let shown = Span {
                        link: Some(url.clone()),
                        ..Span::new(format!(" ({url})"), self.pal.dim)
                    };
                    self.push_span(shown, range.end);
                }
            }
            TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::MetadataBlock(_)
            | TagEnd::Superscript
            | TagEnd::Subscript => self.end_block(range.end),
        }
    }

    /// The text of the link just closed: the spans at the end of the line
    /// that carry its target.
    fn link_text(&self) -> String {
        let spans = match &self.table {
            Some(t) => t.current_spans(),
            None => &self.cur,
        };
        let url = self.style.link.as_deref();
        let mut parts: Vec<&str> = spans
            .iter()
            .rev()
            .take_while(|s| s.link.is_some() && (url.is_none() || s.link.as_deref() == url))
            .map(|s| s.text.as_str())
            .collect();
        parts.reverse();
        parts.concat()
    }

    /// A block starts at `start`: the line before it ends, and a blank line
    /// in the source between them is kept.
    fn begin_block(&mut self, start: usize) {
        self.flush_inline();
        self.blank_before(start);
    }

    fn end_block(&mut self, _end: usize) {
        self.flush_inline();
    }

    fn blank_before(&mut self, start: usize) {
        let after_content = self.out.iter().any(|l| !l.line.spans.is_empty());
        let last_blank = self.out.last().is_some_and(|l| l.line.spans.is_empty());
        if after_content && !last_blank && super::has_blank_line(self.src, self.last_end, start) {
            self.out.push(Laid {
                line: StyledLine::default(),
                end: SEPARATOR_END,
            });
        }
    }

    /// The span style for text in the current inline state.
    fn style_span(&self, text: &str) -> Span {
        let s = &self.style;
        let mut span = Span {
            bold: s.bold > 0 || s.heading.is_some(),
            italic: s.italic > 0
                || s.image
                || self
                    .containers
                    .iter()
                    .any(|c| matches!(c, Container::Quote)),
            strike: s.strike > 0,
            ..Span::new(text, self.pal.fg)
        };
        if s.heading.is_some() {
            span.fg = self.pal.accent;
            span.underline = s.heading == Some(HeadingLevel::H1);
        }
        if let Some(url) = &s.link {
            span.link = Some(url.clone());
            span.underline = true;
            span.fg = if s.image {
                self.pal.dim
            } else {
                self.pal.accent
            };
        }
        span
    }

    fn text(&mut self, text: &str, end: usize) {
        if text.is_empty() {
            return;
        }
        let span = self.style_span(text);
        self.push_span(span, end);
    }

    fn push_span(&mut self, mut span: Span, end: usize) {
        if self.style.heading.is_some() && span.bg.is_none() {
            span.bold = true;
            span.fg = self.pal.accent;
        }
        if let Some(table) = &mut self.table {
            table.push(span);
            self.last_end = self.last_end.max(end);
            return;
        }
        match self.cur.last_mut() {
            Some(last) if same_style(last, &span) => last.text.push_str(&span.text),
            _ => self.cur.push(span),
        }
        self.cur_end = self.cur_end.max(end);
        self.last_end = self.last_end.max(end);
    }

    /// Ends the line being built, if it has anything.
    fn flush_inline(&mut self) {
        if !self.cur.is_empty() {
            let end = self.cur_end;
            self.flush_line(end);
        }
    }

    /// Ends the line being built at source offset `end`.
    fn flush_line(&mut self, end: usize) {
        let spans = std::mem::take(&mut self.cur);
        self.cur_end = 0;
        self.emit_wrapped(&spans, &WrapOpts::default(), end);
        self.last_end = self.last_end.max(end);
    }

    /// The prefixes of the next line: (first row, following rows).
    fn prefixes(&mut self) -> (Vec<Span>, Vec<Span>) {
        let (mut first, mut cont) = (Vec::new(), Vec::new());
        let pal = self.pal;
        for c in self.containers.iter_mut().take(MAX_DEPTH * 2) {
            match c {
                Container::Quote => {
                    first.push(Span::new("│ ", pal.dim));
                    cont.push(Span::new("│ ", pal.dim));
                }
                Container::List(_) => {}
                Container::Item { marker, shown } => {
                    let hang = " ".repeat(str_width(marker) + 1);
                    if *shown {
                        first.push(Span::new(hang.clone(), pal.fg));
                    } else {
                        first.push(Span::new(format!("{marker} "), pal.accent));
                        *shown = true;
                    }
                    cont.push(Span::new(hang, pal.fg));
                }
            }
        }
        (merge(first), merge(cont))
    }

    fn prefix_width(&self) -> usize {
        self.containers
            .iter()
            .map(|c| match c {
                Container::Quote => 2,
                Container::List(_) => 0,
                Container::Item { marker, .. } => str_width(marker) + 1,
            })
            .sum()
    }

    fn emit_wrapped(&mut self, body: &[Span], opts: &WrapOpts<'_>, end: usize) {
        let (first, cont) = self.prefixes();
        let opts = WrapOpts {
            first_prefix: &first,
            cont_prefix: &cont,
            ..opts.clone()
        };
        for line in wrap(body, self.width, &opts) {
            self.out.push(Laid { line, end });
        }
    }

    /// A line laid out already (a table row), behind the containers' prefix.
    fn emit_plain(&mut self, line: StyledLine, end: usize) {
        let (first, _) = self.prefixes();
        let margin = line.margin + leading_blanks(&first);
        let mut spans = first;
        spans.extend(line.spans);
        self.out.push(Laid {
            line: StyledLine {
                spans,
                margin,
                continues: line.continues,
            },
            end,
        });
    }

    fn code_label(&mut self, info: &str, start: usize, block_end: usize) {
        let lang = info.split_whitespace().next().unwrap_or("");
        if lang.is_empty() && self.pal.code_bg.is_none() {
            return;
        }
        let fence_end = self.src[start.min(self.src.len())..]
            .find('\n')
            .map_or(block_end, |i| start + i + 1);
        let label = Span {
            bg: self.pal.code_bg,
            italic: true,
            ..Span::new(if lang.is_empty() { " " } else { lang }, self.pal.dim)
        };
        let fill = self.code_fill();
        let opts = WrapOpts {
            hard: true,
            fill: fill.as_ref(),
            ..WrapOpts::default()
        };
        self.emit_wrapped(&[label], &opts, fence_end);
        self.last_end = self.last_end.max(fence_end);
    }

    fn code_fill(&self) -> Option<Span> {
        self.pal.code_bg.map(|bg| Span {
            bg: Some(bg),
            ..Span::new("", self.pal.fg)
        })
    }

    fn code_text(&mut self, text: &str, range: Range<usize>) {
        let Some(code) = &mut self.code else { return };
        let mut offset = range.start;
        for piece in text.split_inclusive('\n') {
            let (body, newline) = match piece.strip_suffix('\n') {
                Some(b) => (b, true),
                None => (piece, false),
            };
            let end = (offset + piece.len()).min(range.end.max(range.start + 1));
            if code.partial {
                if let Some((last, last_end)) = code.lines.last_mut() {
                    last.push_str(body);
                    *last_end = end;
                }
            } else {
                code.lines.push((body.to_string(), end));
            }
            code.partial = !newline;
            offset += piece.len();
        }
    }

    fn close_code(&mut self) {
        let Some(code) = self.code.take() else { return };
        let entry = self
            .codes
            .entry(code.start)
            .or_insert_with(|| (code.info.clone(), CodeHighlighter::new(&code.info)));
        if entry.0 != code.info {
            *entry = (code.info.clone(), CodeHighlighter::new(&code.info));
        }
        let texts: Vec<&str> = code.lines.iter().map(|(t, _)| t.as_str()).collect();
        let highlighted = entry.1.lines(&texts, self.pal);
        let fill = self.code_fill();
        let opts = WrapOpts {
            hard: true,
            fill: fill.as_ref(),
            ..WrapOpts::default()
        };
        for (mut spans, (_, end)) in highlighted.into_iter().zip(code.lines.iter()) {
            for s in &mut spans {
                s.bg = self.pal.code_bg;
            }
            self.emit_wrapped(&spans, &opts, *end);
        }
        self.last_end = self
            .last_end
            .max(code.lines.last().map_or(code.start, |l| l.1));
    }
}

fn same_style(a: &Span, b: &Span) -> bool {
    a.fg == b.fg
        && a.bg == b.bg
        && a.bold == b.bold
        && a.italic == b.italic
        && a.underline == b.underline
        && a.strike == b.strike
        && a.link == b.link
}

/// Adjacent prefix spans of one style as one span.
fn merge(spans: Vec<Span>) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        match out.last_mut() {
            Some(last) if same_style(last, &s) => last.text.push_str(&s.text),
            _ => out.push(s),
        }
    }
    out
}

fn leading_blanks(spans: &[Span]) -> usize {
    spans
        .iter()
        .flat_map(|s| s.text.chars())
        .take_while(|c| *c == ' ')
        .count()
}
