//! The tab bar across a row of the window (the top or the bottom one):
//! each tab's number, title and marks (printed •, bell !, failed command
//! ×), the shown tab set apart.

use crate::chrome::{ChromeColors, TabLabel};
use crate::color::Color;
use crate::fit::{fit, Part};
use crate::frame::{Cell, CellFlags, Frame};

/// The text of one label: its number, title and marks, kept short so that
/// several fit.
fn label_text(index: usize, label: &TabLabel, width: usize) -> String {
    let mut marks = String::new();
    if label.failed {
        marks.push('×');
    }
    if label.bell {
        marks.push('!');
    }
    if label.activity {
        marks.push('•');
    }
    let head = format!(" {} ", index + 1);
    let tail = if marks.is_empty() {
        " ".to_owned()
    } else {
        format!(" {marks} ")
    };
    let room = width.saturating_sub(head.chars().count() + tail.chars().count());
    // Whole words (or path components) only, as every fixed text.
    let title = fit(&[Part::new(&label.title, 1)], "", room).join("");
    let mut text = format!("{head}{title}{tail}");
    let len = text.chars().count();
    if len < width {
        text.extend(std::iter::repeat_n(' ', width - len));
    }
    text.chars().take(width).collect()
}

/// The widest a tab's label grows, so one long title cannot push the others
/// off the bar.
const MAX_LABEL_WIDTH: usize = 32;

fn label_width(cols: usize, tabs: usize) -> usize {
    (cols / tabs.max(1)).clamp(1, MAX_LABEL_WIDTH)
}

/// Which tab's label covers column `col` of a bar `cols` wide.
pub fn tab_at(col: usize, cols: usize, tabs: usize) -> Option<usize> {
    let index = col / label_width(cols, tabs);
    (index < tabs).then_some(index)
}

pub(crate) fn draw(out: &mut Frame, row: usize, labels: &[TabLabel], colors: &ChromeColors) {
    let cols = out.cols;
    let background = Cell {
        bg: Color::Rgb(colors.bar_background),
        fg: Color::Rgb(colors.bar_foreground),
        ..Cell::default()
    };
    for col in 0..cols {
        if let Some(cell) = out.cell_mut(col, row) {
            *cell = background.clone();
        }
    }
    if labels.is_empty() {
        return;
    }
    let width = label_width(cols, labels.len());
    for (index, label) in labels.iter().enumerate() {
        let text = label_text(index, label, width);
        let (fg, bg) = if label.active {
            (colors.active_foreground, colors.active_background)
        } else {
            (colors.bar_foreground, colors.bar_background)
        };
        let template = Cell {
            fg: Color::Rgb(fg),
            bg: Color::Rgb(bg),
            flags: if label.active {
                CellFlags::BOLD
            } else {
                CellFlags::empty()
            },
            ..Cell::default()
        };
        let start = index * width;
        out.write_str(start, row, &text, &template);
        // The marks stand out in their own colours.
        for (offset, ch) in text.chars().enumerate() {
            let mark = match ch {
                '×' => colors.failed,
                '!' | '•' => colors.mark,
                _ => continue,
            };
            if let Some(cell) = out.cell_mut(start + offset, row) {
                cell.fg = Color::Rgb(mark);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_titles_are_shortened_at_words_to_the_label() {
        let label = TabLabel {
            title: "a very long title indeed".into(),
            ..TabLabel::default()
        };
        let text = label_text(0, &label, 12);
        assert_eq!(text.chars().count(), 12);
        assert_eq!(text, " 1 a very … ");
        let path = TabLabel {
            title: "~/src/koi/term".into(),
            ..TabLabel::default()
        };
        assert_eq!(label_text(0, &path, 14), " 1 ~/src/ …   ");
    }
}
