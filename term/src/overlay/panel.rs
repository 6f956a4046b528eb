//! The panel's geometry and drawing: where it sits on the grid, how its
//! rows are shared between title, attachment chips, conversation, input
//! (or approval dialog) and help, and the [`OverlayLayer`]s it becomes.

use render::{Border, OverlayLayer, OverlayPicture, OverlayRect, Part, Span, StyledLine, Theme};

use super::config::Position;
use super::mouse::TextArea;
use super::selection::highlight;
use super::style::{line_text, Palette};
use super::wrap::{wrap, WrapOpts};
use super::Overlay;

/// Grid assumed by [`Overlay::text_dump`] before anything was drawn: the
/// classic terminal size.
pub(crate) const FALLBACK_GRID: (usize, usize) = (80, 24);
/// Narrowest panel worth drawing when the grid allows: a short answer line
/// plus the prompt still fits.
const MIN_PANEL_COLS: usize = 30;
/// Lowest panel when docked at the bottom: title, a few lines, input, help.
const MIN_PANEL_ROWS: usize = 8;
/// Input rows shown at most; longer drafts scroll around the cursor so the
/// conversation keeps most of the panel.
const MAX_INPUT_ROWS: usize = 8;
/// Border thickness in physical pixels: a hairline that separates the panel
/// from the terminal without costing a cell.
const BORDER_PX: u32 = 1;

/// A rectangle in grid cells: (col, row, cols, rows).
type CellRect = (usize, usize, usize, usize);

/// How the content rows are shared.
#[derive(Debug, Clone, Copy, Default)]
struct Plan {
    title: usize,
    chips: usize,
    conv: usize,
    bottom: usize,
    help: usize,
}

impl Overlay {
    /// The panel's rectangle on a `cols × rows` grid.
    fn panel_rect(&self, cols: usize, rows: usize) -> CellRect {
        let frac = |n: usize, f: f32, min: usize| {
            let want = (n as f32 * f).round() as usize;
            want.max(min).min(n)
        };
        match self.config.position {
            Position::Right => {
                let w = frac(cols, self.config.width, MIN_PANEL_COLS);
                (cols - w, 0, w, rows)
            }
            Position::Bottom => {
                let h = frac(rows, self.config.height, MIN_PANEL_ROWS);
                (0, rows - h, cols, h)
            }
        }
    }

    /// The text area inside the border (the whole panel when too small for
    /// a margin).
    fn content_rect(&self, cols: usize, rows: usize) -> CellRect {
        let (c, r, w, h) = self.panel_rect(cols, rows);
        if w >= 3 && h >= 3 {
            (c + 1, r + 1, w - 2, h - 2)
        } else {
            (c, r, w, h)
        }
    }

    fn plan(&self, height: usize, bottom_len: usize) -> Plan {
        let mut left = height;
        let mut plan = Plan::default();
        let bottom_cap = if self.approval.is_some() {
            (height * 2 / 3).max(3)
        } else {
            MAX_INPUT_ROWS.min(height / 3).max(1)
        };
        plan.bottom = bottom_len.min(bottom_cap).min(left);
        left -= plan.bottom;
        // Title, then help, then chips, each only while the conversation
        // keeps a couple of rows.
        if left >= 2 {
            plan.title = 1;
            left -= 1;
        }
        if left >= 3 && self.approval.is_none() {
            plan.help = 1;
            left -= 1;
        }
        if left >= 4 && !self.attachments.is_empty() {
            plan.chips = 1;
            left -= 1;
        }
        plan.conv = left;
        plan
    }

    fn approval_lines(
        &self,
        a: &super::PendingApproval,
        width: usize,
        rows: usize,
        pal: &Palette,
    ) -> Vec<StyledLine> {
        let fill = Span {
            bg: Some(pal.approval_bg),
            ..Span::new("", pal.fg)
        };
        let opts = WrapOpts {
            fill: Some(&fill),
            ..WrapOpts::default()
        };
        let on = |s: Span| Span {
            bg: Some(pal.approval_bg),
            ..s
        };
        let mut head = wrap(
            &[
                on(Span {
                    bold: true,
                    ..Span::new("⚠ approve? ", pal.warning)
                }),
                on(Span {
                    bold: true,
                    ..Span::new(a.summary.clone(), pal.fg)
                }),
            ],
            width,
            &opts,
        );
        let mut body = Vec::new();
        for line in a.detail.lines() {
            let fg = if line.starts_with("+++") || line.starts_with("---") {
                pal.dim
            } else if line.starts_with('+') {
                pal.success
            } else if line.starts_with('-') {
                pal.error
            } else if line.starts_with("@@") {
                pal.accent
            } else {
                pal.fg
            };
            let code = WrapOpts {
                hard: true,
                ..opts.clone()
            };
            body.extend(wrap(&[on(Span::new(line, fg))], width, &code));
        }
        let hint = wrap(
            &[on(Span::new(fit_first(APPROVAL_HINTS, width), pal.dim))],
            width,
            &opts,
        );
        // The summary (two lines at most) and the key hint always show;
        // the detail scrolls between them.
        head.truncate(2.min(rows));
        let hint: Vec<StyledLine> = hint.into_iter().take(1).take(rows - head.len()).collect();
        let room = rows - head.len() - hint.len();
        let skip = a.scroll.min(body.len().saturating_sub(1));
        head.extend(body.into_iter().skip(skip).take(room));
        head.extend(hint);
        head
    }

    /// Lays the panel out; also the source of [`Overlay::text_dump`].
    fn content(&mut self, cols: usize, rows: usize, theme: &Theme) -> Vec<StyledLine> {
        let pal = Palette::from_theme(theme);
        let (cc, cr, w, h) = self.content_rect(cols, rows);
        if self.selection.as_ref().is_some_and(|s| s.width() != w) {
            // Re-wrapped: the selected points now name other text.
            self.selection = None;
        }
        if let Some(a) = &mut self.approval {
            // Keep the scroll within the detail so Down never runs away.
            a.scroll = a.scroll.min(a.detail.lines().count().saturating_sub(1));
        }
        let (plan, bottom) = match &self.approval {
            Some(a) => {
                let full = self.approval_lines(a, w, usize::MAX, &pal).len();
                let plan = self.plan(h, full);
                self.input_area = None;
                (plan, self.approval_lines(a, w, plan.bottom, &pal))
            }
            None => {
                let (lines, (_, line)) = self.input.layout(w, &pal);
                let plan = self.plan(h, lines.len());
                let first_line = window_start(lines.len(), plan.bottom, Some(line));
                self.input_area = Some(TextArea {
                    col: cc,
                    row: cr + plan.title + plan.chips + plan.conv,
                    cols: w,
                    rows: plan.bottom,
                    first_line,
                });
                (plan, tail_window(lines, plan.bottom, Some(line)))
            }
        };
        let mut out = Vec::with_capacity(h);
        if plan.title == 1 {
            let working = format!("{} working", self.conversation.spinner_frame());
            let parts = [
                Part::new("koi assistant", title_rank::NAME),
                Part::new(or_dash(&self.model), title_rank::MODEL),
                Part::new(or_dash(&self.mode), title_rank::MODE),
                Part::new(if self.busy { &working } else { "" }, title_rank::BUSY),
                Part::new(&self.sandbox, title_rank::SANDBOX),
            ];
            let title = render::fit(&parts, " · ", w).join(" · ");
            let span = Span {
                bold: true,
                ..Span::new(title, pal.accent)
            };
            out.extend(wrap(&[span], w, &WrapOpts::default()).into_iter().take(1));
        }
        if plan.chips == 1 {
            let mut spans = Vec::new();
            for (i, a) in self.attachments.iter().enumerate() {
                let mark = if a.included { "✓" } else { "✗" };
                let fg = if a.included { pal.fg } else { pal.dim };
                spans.push(Span {
                    underline: i == self.chip_focus && self.input.is_empty(),
                    ..Span::new(format!("[{} {mark}]", a.label), fg)
                });
                spans.push(Span::new(" ", pal.fg));
            }
            out.extend(wrap(&spans, w, &WrapOpts::default()).into_iter().take(1));
        }
        let mut conv = self.conversation.view(w, plan.conv, &pal);
        conv.resize(plan.conv, StyledLine::default());
        let area = TextArea {
            col: cc,
            row: cr + plan.title + plan.chips,
            cols: w,
            rows: plan.conv,
            first_line: self.conversation.view_start(),
        };
        self.conv_area = Some(area);
        let top = plan.title + plan.chips;
        self.conv_pictures = self
            .conversation
            .shown_pictures()
            .iter()
            .map(|shown| OverlayPicture {
                pixels: shown.picture.pixels.clone(),
                col: shown.picture.col,
                row: top as isize + shown.row,
                cols: shown.picture.cols,
                rows: shown.picture.rows,
                clip_rows: (top, top + plan.conv),
            })
            .collect();
        if let Some(range) = self.selection.as_ref().and_then(|s| s.range()) {
            for (i, line) in conv.iter_mut().enumerate() {
                if let Some(cols) = range.columns(area.first_line + i, w) {
                    *line = highlight(line, cols, w, &pal);
                }
            }
        }
        out.extend(conv);
        out.extend(bottom);
        if plan.help == 1 {
            let variants = if self.conversation.scroll_offset() > 0 {
                SCROLLED_HINTS
            } else if self.busy {
                BUSY_HINTS
            } else {
                IDLE_HINTS
            };
            let text = fit_first(variants, w);
            out.extend(
                wrap(&[Span::new(text, pal.dim)], w, &WrapOpts::default())
                    .into_iter()
                    .take(1),
            );
        }
        out.truncate(h);
        out
    }

    /// The overlay's layers for a `grid_cols × grid_rows` grid: the framed
    /// panel, then its text, both inside the grid. Empty when closed.
    pub fn layers(
        &mut self,
        grid_cols: usize,
        grid_rows: usize,
        theme: &Theme,
    ) -> Vec<OverlayLayer> {
        self.last_grid = (grid_cols, grid_rows);
        if self.last_theme != *theme {
            self.last_theme = theme.clone();
        }
        if !self.open || grid_cols == 0 || grid_rows == 0 {
            return Vec::new();
        }
        let pal = Palette::from_theme(theme);
        let (pc, pr, pw, ph) = self.panel_rect(grid_cols, grid_rows);
        let (cc, cr, cw, ch) = self.content_rect(grid_cols, grid_rows);
        let lines = self.content(grid_cols, grid_rows, theme);
        vec![
            OverlayLayer {
                rect: OverlayRect::Cells {
                    col: pc,
                    row: pr,
                    cols: pw,
                    rows: ph,
                },
                background: pal.bg,
                border: Some(Border {
                    color: pal.border,
                    width_px: BORDER_PX,
                }),
                padding_px: 0,
                lines: Vec::new(),
                pictures: Vec::new(),
            },
            OverlayLayer {
                rect: OverlayRect::Cells {
                    col: cc,
                    row: cr,
                    cols: cw,
                    rows: ch,
                },
                background: pal.bg,
                border: None,
                padding_px: 0,
                lines,
                pictures: std::mem::take(&mut self.conv_pictures),
            },
        ]
    }

    /// The grid cell of the input cursor (for IME placement); `None` when
    /// closed, when an approval replaces the input, or on a grid too small
    /// to show it.
    pub fn cursor_cell(&self, grid_cols: usize, grid_rows: usize) -> Option<(usize, usize)> {
        if !self.open || self.approval.is_some() || grid_cols == 0 || grid_rows == 0 {
            return None;
        }
        let pal = Palette::from_theme(&self.last_theme);
        let (cc, cr, cw, ch) = self.content_rect(grid_cols, grid_rows);
        let (lines, (col, line)) = self.input.layout(cw, &pal);
        let plan = self.plan(ch, lines.len());
        let start = window_start(lines.len(), plan.bottom, Some(line));
        let row_in = line.checked_sub(start).filter(|r| *r < plan.bottom)?;
        let row = plan.title + plan.chips + plan.conv + row_in;
        (col < cw && row < ch).then_some((cc + col, cr + row))
    }

    /// The panel's text as drawn at the last grid size (80×24 before the
    /// first draw), one line per row, trailing spaces trimmed.
    pub fn text_dump(&mut self) -> String {
        let (cols, rows) = self.last_grid;
        let theme = self.last_theme.clone();
        self.content(cols.max(1), rows.max(1), &theme)
            .iter()
            .map(|l| line_text(l).trim_end().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Help lines from most to least complete; the first that fits is shown.
const IDLE_HINTS: &[&str] = &[
    "Enter send · Shift+Enter newline · Ctrl+Y insert code · /help · Esc close",
    "Enter send · Ctrl+Y insert code · /help · Esc close",
    "Enter send · Ctrl+Y insert · Esc close",
    "/help · Esc close",
];
/// Help while a turn streams.
const BUSY_HINTS: &[&str] = &[
    "Esc cancel · PgUp/PgDn scroll · Enter interrupts and sends",
    "Esc cancel · PgUp/PgDn scroll",
    "Esc cancel",
];
/// Help while the conversation is scrolled back.
const SCROLLED_HINTS: &[&str] = &["↓ scrolled back · PgDn for newer", "↓ PgDn"];
/// The approval dialog's key line.
const APPROVAL_HINTS: &[&str] = &[
    "Enter allow · Esc deny · a allow for this conversation · ↑↓ scroll",
    "Enter allow · Esc deny · a allow for chat",
    "Enter allow · Esc deny",
    "Enter ok · Esc deny",
];

/// How much each part of the panel's title matters when the panel is too
/// narrow for all of them ([`render::fit`]): the sandbox's state goes
/// last, since it says what a command may do; the name goes first, since
/// the panel is recognisable without it.
mod title_rank {
    pub const NAME: u8 = 1;
    pub const MODE: u8 = 2;
    pub const MODEL: u8 = 3;
    pub const BUSY: u8 = 4;
    pub const SANDBOX: u8 = 5;
}

/// The first of `variants` no wider than `width`; the last one otherwise,
/// fitted: its later hints dropped first.
fn fit_first(variants: &'static [&'static str], width: usize) -> String {
    if let Some(v) = variants.iter().find(|v| super::wrap::str_width(v) <= width) {
        return (*v).to_owned();
    }
    let last = variants.last().copied().unwrap_or("");
    render::fit_ranked_by_order(last, " · ", width)
}

fn or_dash(s: &str) -> &str {
    if s.is_empty() {
        "—"
    } else {
        s
    }
}

/// First line of a `rows`-high window over `len` lines that keeps `focus`
/// visible (the bottom of the text when there is no focus).
fn window_start(len: usize, rows: usize, focus: Option<usize>) -> usize {
    let bottom = len.saturating_sub(rows);
    match focus {
        Some(f) if f < bottom => f.saturating_sub(rows.saturating_sub(1)),
        _ => bottom,
    }
}

fn tail_window(lines: Vec<StyledLine>, rows: usize, focus: Option<usize>) -> Vec<StyledLine> {
    let start = window_start(lines.len(), rows, focus);
    lines.into_iter().skip(start).take(rows).collect()
}
