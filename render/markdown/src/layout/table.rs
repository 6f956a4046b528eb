//! GFM tables: columns sized to their content, shrunk to fit the width
//! with cells word-wrapped inside their column, and box-drawing rules.

use pulldown_cmark::Alignment;

use crate::palette::Palette;
use crate::styled::{Span, StyledLine};
use crate::wrap::{line_width, wrap, WrapOpts};

/// Between two columns.
const COLUMN_GAP: &str = " │ ";
/// Under the header row, where a column gap crosses the rule.
const RULE_CROSS: &str = "─┼─";
/// Cells of [`COLUMN_GAP`].
const GAP_WIDTH: usize = 3;

/// A table being collected.
#[derive(Debug)]
pub(crate) struct Table {
    aligns: Vec<Alignment>,
    /// Rows of cells of spans; the first row is the header.
    rows: Vec<Vec<Vec<Span>>>,
}

impl Table {
    pub(crate) fn new(aligns: Vec<Alignment>) -> Self {
        Self {
            aligns,
            rows: Vec::new(),
        }
    }

    pub(crate) fn row(&mut self) {
        self.rows.push(Vec::new());
    }

    pub(crate) fn cell(&mut self) {
        if self.rows.is_empty() {
            self.row();
        }
        if let Some(row) = self.rows.last_mut() {
            row.push(Vec::new());
        }
    }

    fn current(&mut self) -> Option<&mut Vec<Span>> {
        self.rows.last_mut()?.last_mut()
    }

    /// The spans of the cell being filled.
    pub(crate) fn current_spans(&self) -> &[Span] {
        self.rows
            .last()
            .and_then(|r| r.last())
            .map_or(&[], Vec::as_slice)
    }

    pub(crate) fn push(&mut self, span: Span) {
        if self.current().is_none() {
            self.cell();
        }
        if let Some(cell) = self.current() {
            cell.push(span);
        }
    }

    /// The table's lines at `width`.
    pub(crate) fn layout(mut self, width: usize, pal: &Palette) -> Vec<StyledLine> {
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        if cols == 0 || width == 0 {
            return Vec::new();
        }
        for (i, row) in self.rows.iter_mut().enumerate() {
            row.resize_with(cols, Vec::new);
            if i == 0 {
                for span in row.iter_mut().flatten() {
                    span.bold = true;
                }
            }
        }
        let natural: Vec<usize> = (0..cols)
            .map(|c| {
                self.rows
                    .iter()
                    .map(|r| line_width(&StyledLine::new(r[c].clone())))
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        let gaps = GAP_WIDTH * (cols - 1);
        if width < gaps + cols {
            return self.narrow(width, pal);
        }
        let widths = fit(&natural, width - gaps);
        let mut out = Vec::new();
        for (i, row) in self.rows.iter().enumerate() {
            let cells: Vec<Vec<StyledLine>> = row
                .iter()
                .zip(&widths)
                .map(|(cell, w)| wrap(cell, *w, &WrapOpts::default()))
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(1);
            for r in 0..height {
                let mut spans = Vec::new();
                for (c, lines) in cells.iter().enumerate() {
                    if c > 0 {
                        spans.push(Span::new(COLUMN_GAP, pal.dim));
                    }
                    let line = lines.get(r).cloned().unwrap_or_default();
                    let pad = widths[c].saturating_sub(line_width(&line));
                    let (before, after) = match self.aligns.get(c) {
                        Some(Alignment::Right) => (pad, 0),
                        Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                        _ => (0, pad),
                    };
                    if before > 0 {
                        spans.push(Span::new(" ".repeat(before), pal.fg));
                    }
                    spans.extend(line.spans);
                    // The last column needs no padding: it would only be
                    // trailing blanks.
                    if after > 0 && c + 1 < cols {
                        spans.push(Span::new(" ".repeat(after), pal.fg));
                    }
                }
                out.push(StyledLine::new(spans));
            }
            if i == 0 {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                out.push(StyledLine::new(vec![Span::new(
                    rule.join(RULE_CROSS),
                    pal.dim,
                )]));
            }
        }
        out
    }

    /// Too narrow for columns: each row as its cells joined by bars,
    /// wrapped like a paragraph.
    fn narrow(self, width: usize, pal: &Palette) -> Vec<StyledLine> {
        let mut out = Vec::new();
        for row in self.rows {
            let mut spans = Vec::new();
            for (c, cell) in row.into_iter().enumerate() {
                if c > 0 {
                    spans.push(Span::new(COLUMN_GAP, pal.dim));
                }
                spans.extend(cell);
            }
            out.extend(wrap(&spans, width, &WrapOpts::default()));
        }
        out
    }
}

/// Column widths that add up to at most `room`: narrow columns keep their
/// natural width, and the rest share what is left evenly.
fn fit(natural: &[usize], room: usize) -> Vec<usize> {
    if natural.iter().sum::<usize>() <= room {
        return natural.to_vec();
    }
    let mut order: Vec<usize> = (0..natural.len()).collect();
    order.sort_by_key(|&i| natural[i]);
    let mut out = vec![0; natural.len()];
    let (mut left, mut cols) = (room, natural.len());
    for i in order {
        let share = (left / cols).max(1);
        out[i] = natural[i].min(share);
        left = left.saturating_sub(out[i]);
        cols -= 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_keeps_narrow_columns_and_shares_the_rest() {
        assert_eq!(fit(&[3, 10], 20), [3, 10]);
        assert_eq!(fit(&[3, 30, 30], 23), [3, 10, 10]);
        assert_eq!(fit(&[5, 5], 4), [2, 2]);
    }
}
