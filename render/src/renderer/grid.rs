//! Grid rows: finding the rows that changed and rebuilding only those.

use super::{PixelDamage, PrepareStats, Renderer, RowState, FULL_REBUILD_INTERVAL};
use crate::cursor::block_cursor;
use crate::error::RenderError;
use crate::frame::{Damage, Frame};
use crate::ligature::{unjoined_columns, Ligatures};
use crate::line::{build_line, LineContent, LineLayout};

impl Renderer {
    pub(super) fn prepare_text(&mut self, frame: &Frame) -> Result<(), RenderError> {
        self.partial_frames += 1;
        if self.partial_frames > FULL_REBUILD_INTERVAL {
            self.invalid = true;
        }
        let full = self.invalid;
        self.damage = if full {
            PixelDamage::Full
        } else {
            PixelDamage::Rows(0, 0)
        };
        if full {
            self.partial_frames = 0;
            // Nothing prepared so far stays on screen, so every glyph may
            // be evicted. Partial frames never trim: glyphs of rows that
            // are not re-prepared must stay in the atlas.
            self.glyphs.trim();
        }
        let m = self.fonts.metrics;
        let pad = self.padding as i32;
        let (w, h) = self.size;
        let visible =
            |len: u32, cell: u32| (len.saturating_sub(self.padding)).div_ceil(cell.max(1));
        let cols = frame.cols.min(visible(w, m.width) as usize);
        let rows = frame.rows.min(visible(h, m.height) as usize);
        // A damage hint is relative to the previous frame's grid; after a
        // change of width every row is compared.
        let trust_hint = cols == self.visible_cols;
        self.visible_cols = cols;
        if rows != self.rows.len() {
            self.rects_dirty = true;
            self.damage = PixelDamage::Full;
        }
        self.resize_rows(rows);

        let mut selection: Vec<Vec<(usize, usize)>> = vec![Vec::new(); rows];
        for span in &frame.selection {
            if let Some(list) = selection.get_mut(span.row) {
                list.push((span.start_col, span.end_col.min(cols)));
            }
        }
        let block = block_cursor(frame);
        // With ligatures off, or a font that has none, no cell is ever
        // joined: a moving cursor rebuilds no more rows than before.
        let ligatures = self.fonts.config.ligatures && self.fonts.has_ligatures;
        let mut unjoined = if ligatures {
            unjoined_columns(frame, rows)
        } else {
            vec![Vec::new(); rows]
        };
        let damaged: Option<Vec<bool>> = match &frame.damage {
            Damage::Rows(list) if trust_hint => {
                let mut marks = vec![false; rows];
                for &r in list {
                    if let Some(mark) = marks.get_mut(r) {
                        *mark = true;
                    }
                }
                Some(marks)
            }
            _ => None,
        };

        let mut prepared = 0;
        for (r, row) in self.rows.iter_mut().enumerate() {
            let cells = frame.row_cells(r);
            let cells = &cells[..cells.len().min(cols)];
            let row_block = block.filter(|b| b.0 == r).map(|b| (b.1, b.2));
            let may_differ = damaged.as_ref().is_none_or(|d| d[r]);
            let same = row.valid
                && !full
                && row.selection == selection[r]
                && row.block_cursor == row_block
                && row.unjoined == unjoined[r]
                && (!may_differ || row.cells.as_slice() == cells);
            if same {
                continue;
            }
            row.valid = false;
            row.cells.clear();
            row.cells.extend_from_slice(cells);
            row.selection = std::mem::take(&mut selection[r]);
            row.block_cursor = row_block;
            row.unjoined = std::mem::take(&mut unjoined[r]);
            let y = pad + r as i32 * m.height as i32;
            let layout = LineLayout {
                x: pad,
                y,
                clip: (0, 0, w as i32, h as i32),
                selection: &row.selection,
                block_cursor: row.block_cursor,
                skip_default_bg: true,
                ligatures: if ligatures {
                    Ligatures::On {
                        unjoined: &row.unjoined,
                    }
                } else {
                    Ligatures::Off
                },
            };
            build_line(
                &mut row.content,
                &row.cells,
                &layout,
                &self.theme,
                self.srgb,
                &mut self.fonts,
                &mut self.shapes,
            );
            self.glyphs.prepare(
                &mut row.text,
                &mut self.fonts.system,
                m,
                row.content.text_areas(&self.shapes, &self.empty),
            )?;
            row.valid = true;
            prepared += 1;
            let top = y.max(0) as u32;
            self.damage.add(top.min(h), (top + m.height).min(h));
        }

        // Overlays that changed, or went away, leave pixels anywhere.
        let overlays = self.prepare_overlays(frame, full)?;
        if overlays.is_some() {
            self.damage = PixelDamage::Full;
        }
        let overlays_prepared = overlays.unwrap_or(0);
        if prepared > 0 || overlays.is_some() || full {
            self.rects_dirty = true;
        }
        self.invalid = false;
        self.stats = PrepareStats {
            rows_prepared: prepared,
            rows_visible: rows,
            overlays_prepared,
            full,
            changed_px_rows: None,
        };
        Ok(())
    }

    pub(super) fn resize_rows(&mut self, rows: usize) {
        self.rows.truncate(rows);
        while self.rows.len() < rows {
            self.rows.push(RowState {
                text: self.glyphs.new_batch(),
                content: LineContent::default(),
                cells: Vec::new(),
                selection: Vec::new(),
                block_cursor: None,
                unjoined: Vec::new(),
                valid: false,
            });
        }
    }
}
