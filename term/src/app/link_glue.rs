//! Links and hints in the window: with the link modifier held (Ctrl on
//! Linux, Cmd on macOS) the link under the pointer is underlined and its
//! target shown; a click opens it with the configured `opener` (only the
//! schemes [`links::may_open`] allows), even while the application has
//! mouse reporting on. Hints mode (Ctrl+Shift+H) labels what can be
//! copied or opened; typing a label copies it, typing it in capitals opens
//! it.

use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::Term;
use render::{Color, OverlayLayer, OverlayRect, Span, StyledLine};
use winit::event::{ElementState, MouseButton};

use super::clipboard::Kind;
use super::keyboard::Translated;
use super::links::{self, Target, TargetKind};
use super::App;
use koi_terminal::input::{Key, KeyAction, Mods};

/// A link under the pointer, in the focused pane's view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hover {
    pub row: usize,
    pub start: usize,
    pub end: usize,
    pub uri: String,
}

/// Hints mode: the targets on screen, their labels, what was typed.
pub struct Hints {
    targets: Vec<(usize, Target, String)>,
    typed: String,
}

/// The modifier that makes links live.
fn link_mods(mods: Mods) -> bool {
    if cfg!(target_os = "macos") {
        mods.logo
    } else {
        mods.ctrl
    }
}

/// View row `row` of `term`: its cells' characters, one per cell.
fn row_chars<T>(term: &Term<T>, row: usize) -> Vec<char> {
    let line = Line(row as i32 - term.grid().display_offset() as i32);
    let grid_row = &term.grid()[line];
    (0..term.columns()).map(|c| grid_row[Column(c)].c).collect()
}

/// The OSC 8 hyperlinks on view row `row`: each run of cells that carries
/// one link, with the link's URI (whatever the cells say).
fn hyperlinks<T>(term: &Term<T>, row: usize) -> Vec<Target> {
    let line = Line(row as i32 - term.grid().display_offset() as i32);
    let grid_row = &term.grid()[line];
    let mut out = Vec::new();
    let mut col = 0;
    while col < term.columns() {
        let Some(link) = grid_row[Column(col)]
            .hyperlink()
            .filter(|h| !koi_terminal::graphics::is_picture_mark(h))
        else {
            col += 1;
            continue;
        };
        let start = col;
        while col < term.columns() && grid_row[Column(col)].hyperlink().as_ref() == Some(&link) {
            col += 1;
        }
        out.push(Target {
            start,
            end: col,
            text: link.uri().to_owned(),
            kind: TargetKind::Url,
        });
    }
    out
}

/// What hints mode labels on view row `row`: its OSC 8 links by their
/// URI, then the targets the row's text shows outside them.
fn hint_targets<T>(term: &Term<T>, row: usize) -> Vec<Target> {
    let mut out = hyperlinks(term, row);
    let shown: Vec<Target> = links::targets(&row_chars(term, row))
        .into_iter()
        .filter(|t| !out.iter().any(|l| l.start < t.end && t.start < l.end))
        .collect();
    out.extend(shown);
    out.sort_by_key(|t| t.start);
    out
}

/// The link at view cell (`col`, `row`): an OSC 8 hyperlink (its whole
/// run of cells), else a plain URL in the row's text.
pub fn link_at<T>(term: &Term<T>, col: usize, row: usize) -> Option<Hover> {
    if row >= term.screen_lines() || col >= term.columns() {
        return None;
    }
    let at = |t: &Target| (t.start..t.end).contains(&col);
    let target = match hyperlinks(term, row).into_iter().find(at) {
        Some(link) => link,
        None => links::urls(&row_chars(term, row)).into_iter().find(at)?,
    };
    Some(Hover {
        row,
        start: target.start,
        end: target.end,
        uri: target.text,
    })
}

impl App {
    /// The pointer moved or a modifier changed: underline the link under
    /// the pointer while the link modifier is held.
    pub(super) fn update_hover(&mut self) {
        let mods = self.mods();
        let Some(t) = &mut self.terminal else { return };
        let geometry = t.geometry();
        let pane = t.workspace.focused_mut();
        let hover = if link_mods(mods) {
            let (col, row, _) = geometry.cell_at(self.mouse.position);
            link_at(&pane.session.terminal().lock(), col, row)
        } else {
            None
        };
        if hover != pane.hover {
            t.display.link = hover.as_ref().map(|h| {
                let verdict = if links::may_open(&h.uri) {
                    "click opens"
                } else {
                    "will not open (scheme not allowed)"
                };
                format!("{} · {verdict}", h.uri)
            });
            pane.hover = hover;
            pane.touch();
            t.display.window.request_redraw();
        }
    }

    /// A press with the link modifier held on a link opens it; returns
    /// whether the press was taken (it then reaches nothing else).
    pub(super) fn link_button(&mut self, state: ElementState, button: MouseButton) -> bool {
        if button != MouseButton::Left || !link_mods(self.mods()) {
            return false;
        }
        self.update_hover();
        let Some(t) = &mut self.terminal else {
            return false;
        };
        let Some(hover) = t.workspace.focused().hover.clone() else {
            return false;
        };
        if state == ElementState::Pressed {
            self.open_target(&hover.uri);
        }
        true
    }

    /// Hand `uri` to the configured opener, if its scheme may open.
    fn open_target(&mut self, uri: &str) {
        let Some(t) = &mut self.terminal else { return };
        if !links::may_open(uri) {
            t.display.link = Some(format!(
                "not opened: {uri} (only http, https, mailto and file open)"
            ));
            return;
        }
        let opener = &self.options.loaded.config.links.opener;
        let spawned = std::process::Command::new(opener)
            .arg(uri)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        match spawned {
            // Reaped off the UI thread: a browser may run for hours.
            Ok(mut child) => {
                std::thread::spawn(move || child.wait());
                t.display.link = Some(format!("opened {uri}"));
            }
            Err(e) => {
                t.display.link = Some(format!("could not run {opener}: {e}"));
            }
        }
    }

    /// Label the focused pane's targets (Ctrl+Shift+H).
    pub(super) fn open_hints(&mut self) {
        let Some(t) = &mut self.terminal else { return };
        let pane = t.workspace.focused();
        let term = pane.session.terminal().lock();
        let mut found = Vec::new();
        for row in 0..term.screen_lines() {
            for target in hint_targets(&term, row) {
                found.push((row, target));
            }
        }
        drop(term);
        let labels = links::labels(found.len());
        let targets = found
            .into_iter()
            .zip(labels)
            .map(|((row, target), label)| (row, target, label))
            .collect();
        self.hints = Some(Hints {
            targets,
            typed: String::new(),
        });
        self.redraw();
    }

    /// A key while hints are shown; returns whether it took the key.
    pub(super) fn hints_key(&mut self, translated: &Translated) -> bool {
        let Some(hints) = self.hints.as_mut() else {
            return false;
        };
        let c = match translated {
            Translated::Key(key) if key.action == KeyAction::Release => return true,
            Translated::Key(key) => match key.key {
                Key::Char(c) if c.is_ascii_alphabetic() => c,
                Key::Backspace => {
                    hints.typed.pop();
                    self.redraw();
                    return true;
                }
                _ => {
                    self.hints = None;
                    self.redraw();
                    return true;
                }
            },
            Translated::Text(_) => return true,
        };
        hints.typed.push(c);
        let typed = hints.typed.to_ascii_lowercase();
        let open = hints.typed.chars().any(|c| c.is_ascii_uppercase());
        let chosen = hints
            .targets
            .iter()
            .find(|(_, _, label)| *label == typed)
            .map(|(_, t, _)| t.clone());
        let any_left = hints.targets.iter().any(|(_, _, l)| l.starts_with(&typed));
        if let Some(target) = chosen {
            self.hints = None;
            if open && target.kind == TargetKind::Url {
                self.open_target(&target.text);
            } else {
                self.clipboard.store(Kind::Clipboard, target.text);
            }
        } else if !any_left {
            self.hints = None;
        }
        self.redraw();
        true
    }

    /// The labels to draw over the focused pane, in window cells.
    pub(super) fn hint_layers(&self) -> Vec<OverlayLayer> {
        let (Some(hints), Some(t)) = (&self.hints, &self.terminal) else {
            return Vec::new();
        };
        let rect = t.workspace.focused().rect;
        let typed = hints.typed.to_ascii_lowercase();
        hints
            .targets
            .iter()
            .filter(|(_, _, label)| label.starts_with(&typed))
            .map(|(row, target, label)| OverlayLayer {
                rect: OverlayRect::Cells {
                    col: rect.col + target.start,
                    row: rect.row + row,
                    cols: label.len(),
                    rows: 1,
                },
                background: Color::Rgb(t.display.chrome.label_background),
                border: None,
                padding_px: 0,
                lines: vec![StyledLine::new(vec![Span::new(
                    label.clone(),
                    Color::Rgb(t.display.chrome.label_foreground),
                )])],
                pictures: Vec::new(),
            })
            .collect()
    }
}

/// Underline the hovered link in a pane's freshly built frame.
pub fn underline(frame: &mut render::Frame, hover: &Hover) {
    for col in hover.start..hover.end {
        if let Some(cell) = frame.cell_mut(col, hover.row) {
            cell.underline = render::UnderlineStyle::Single;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alacritty_terminal::event::VoidListener;
    use alacritty_terminal::term::Config;
    use alacritty_terminal::vte::ansi::Processor;

    fn term_with(bytes: &str) -> Term<VoidListener> {
        let mut term = Term::new(
            Config::default(),
            &koi_terminal::GridSize::new(100, 3),
            VoidListener,
        );
        let mut parser: Processor = Processor::new();
        parser.advance(&mut term, bytes.as_bytes());
        term
    }

    /// An OSC 8 link around `text`.
    fn osc8(uri: &str, text: &str) -> String {
        format!("\x1b]8;;{uri}\x1b\\{text}\x1b]8;;\x1b\\")
    }

    #[test]
    fn hints_label_an_osc8_link_by_its_uri_and_the_plain_targets_beside_it() {
        let row = format!(
            "{} see https://plain.example/x {} abc1234f",
            osc8("https://example.com/docs", "the docs"),
            osc8("https://example.com/same", "https://example.com/same"),
        );
        let term = term_with(&row);
        let targets = hint_targets(&term, 0);
        let found: Vec<(usize, usize, &str, TargetKind)> = targets
            .iter()
            .map(|t| (t.start, t.end, t.text.as_str(), t.kind))
            .collect();
        // The second link's text is a URL too: it is labelled once, by
        // its link.
        assert_eq!(
            found,
            [
                (0, 8, "https://example.com/docs", TargetKind::Url),
                (13, 36, "https://plain.example/x", TargetKind::Url),
                (37, 61, "https://example.com/same", TargetKind::Url),
                (62, 70, "abc1234f", TargetKind::GitHash),
            ],
            "{targets:?}"
        );
    }

    #[test]
    fn the_link_under_a_cell_is_its_osc8_uri_else_the_url_the_text_shows() {
        let row = format!(
            "{} https://plain.example/x",
            osc8("https://example.com/docs", "docs")
        );
        let term = term_with(&row);
        let hover = link_at(&term, 2, 0).expect("the OSC 8 link");
        assert_eq!(
            (hover.start, hover.end, hover.uri.as_str()),
            (0, 4, "https://example.com/docs")
        );
        let hover = link_at(&term, 10, 0).expect("the plain URL");
        assert_eq!(
            (hover.start, hover.end, hover.uri.as_str()),
            (5, 28, "https://plain.example/x")
        );
        assert_eq!(link_at(&term, 4, 0), None, "the space between them");
    }
}
