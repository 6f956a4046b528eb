//! The search bar (Ctrl+Shift+F, Cmd+F): keys while it is open, the
//! budgeted scan each frame, and the bar itself on the pane's last row.

use render::{Color, OverlayLayer, OverlayRect, Part, Span, StyledLine};

use super::fixed_text;
use super::keyboard::Translated;
use super::search::{QueryKind, Search, SCAN_BUDGET};
use super::App;
use koi_terminal::input::{Key, KeyAction};

impl App {
    /// Open the focused pane's search bar (it keeps its last query).
    pub(super) fn open_search(&mut self) {
        let Some(t) = &mut self.terminal else { return };
        let pane = t.workspace.focused_mut();
        if pane.search.is_none() {
            pane.search = Some(Search::new());
        }
        pane.touch();
    }

    /// A key while the bar is open; returns whether it took the key.
    pub(super) fn search_key(&mut self, translated: &Translated) -> bool {
        let Some(t) = &mut self.terminal else {
            return false;
        };
        let pane = t.workspace.focused_mut();
        let Some(search) = pane.search.as_mut() else {
            return false;
        };
        let mut term = pane.session.terminal().lock();
        match translated {
            Translated::Text(text) => {
                search.query.push_str(text);
                search.restart(&term);
            }
            Translated::Key(key) if key.action == KeyAction::Release => return true,
            Translated::Key(key) => match &key.key {
                Key::Escape => {
                    drop(term);
                    pane.search = None;
                }
                Key::Enter => search.step(&mut term, !key.mods.shift),
                Key::Tab => {
                    search.select_current(&mut term);
                    drop(term);
                    pane.search = None;
                }
                Key::Backspace => {
                    search.query.pop();
                    search.restart(&term);
                }
                Key::Char('r') | Key::Char('R') if key.mods.alt => search.toggle_kind(&term),
                Key::Char(c) if !key.mods.ctrl && !key.mods.logo && !key.mods.alt => {
                    search.query.push(*c);
                    search.restart(&term);
                }
                // Anything else (arrows, F-keys) does nothing while searching.
                _ => {}
            },
        }
        pane.touch();
        t.display.window.request_redraw();
        true
    }
}

/// Scan the focused pane's history a slice further (from the start when
/// output arrived since, `output` being the pane's count of bytes read);
/// returns whether the scan goes on (another frame is wanted).
pub(super) fn scan(
    search: &mut Search,
    term: &mut koi_terminal::session::Terminal,
    output: u64,
) -> bool {
    if search.seen_output.is_some_and(|seen| seen != output) {
        search.restart(term);
    }
    search.seen_output = Some(output);
    if search.scanning() {
        search.scan(term, SCAN_BUDGET);
    }
    search.scanning()
}

/// The bar on the last row of the pane at `rect`.
pub(super) fn bar_layer(
    search: &Search,
    rect: render::CellRect,
    chrome: &render::ChromeColors,
) -> OverlayLayer {
    let kind = match search.kind {
        QueryKind::Plain => "text",
        QueryKind::Regex => "regex",
    };
    let fg = Color::Rgb(chrome.strip_foreground);
    let dim = Color::Rgb(chrome.strip_dim);
    let label = format!("find {kind}:");
    let query = format!("{}▏", search.query);
    let count = search.count_text();
    let error = search.error.as_deref().unwrap_or_default();
    // The query and its count matter most; the key hints least, the
    // rarer ones first.
    let parts = [
        (Part::new(&label, 5), dim),
        (Part::new(&query, 7), fg),
        (Part::new(&count, 6), fg),
        (Part::new(error, 4), Color::Rgb(chrome.error)),
        (Part::new("Enter ↑ · Shift+Enter ↓", 3), dim),
        (Part::new("Alt+R regex", 2), dim),
        (Part::new("Tab select", 1), dim),
        (Part::new("Esc", 3), dim),
    ];
    let mut spans = vec![Span::new(" ", fg)];
    spans.extend(fixed_text::spans(&parts, "  ", rect.cols.saturating_sub(1)));
    OverlayLayer {
        rect: OverlayRect::Cells {
            col: rect.col,
            row: rect.row + rect.rows.saturating_sub(1),
            cols: rect.cols.max(1),
            rows: 1,
        },
        background: Color::Rgb(chrome.strip_background),
        border: None,
        padding_px: 0,
        lines: vec![StyledLine::new(spans)],
        pictures: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fits_every_width_and_keeps_the_query() {
        let mut search = Search::new();
        search.query = "needle".into();
        let chrome = render::ChromeColors::default();
        for cols in 1..=200 {
            let rect = render::CellRect {
                col: 0,
                row: 0,
                cols,
                rows: 5,
            };
            let layer = bar_layer(&search, rect, &chrome);
            let text: String = layer.lines[0]
                .spans
                .iter()
                .map(|s| s.text.as_str())
                .collect();
            let width = unicode_width::UnicodeWidthStr::width(text.as_str());
            assert!(width <= cols.max(1), "{cols}: {text:?}");
            if cols >= 20 {
                assert!(text.contains("needle▏"), "{cols}: {text:?}");
            }
            if cols >= 87 {
                // Whole: " find text:  needle▏  no matches  Enter ↑ … Esc".
                assert!(text.ends_with("Tab select  Esc"), "{cols}: {text:?}");
            } else if cols > 1 {
                assert!(text.ends_with('…'), "{cols}: {text:?}");
            }
        }
    }
}
