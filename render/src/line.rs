//! Turning one line of cells into what the GPU draws: background
//! rectangles, one text area per glyph (positioned by its column), and
//! custom glyphs for procedural characters and decorations.

use glyphon::{CustomGlyph, TextArea, TextBounds};

use crate::color::{Rgb, RgbGpu};
use crate::font::{CellMetrics, Fonts};
use crate::frame::{Cell, CellFlags, UnderlineStyle};
use crate::procedural::{self, Decoration};
use crate::rects::RectInstance;
use crate::shaping::ShapeCache;
use crate::theme::{ResolveCell, Theme};

/// One glyph to draw: a shaped buffer placed at its cell.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GlyphPlacement {
    pub shaped: u32,
    pub left: f32,
    pub top: f32,
    pub scale: f32,
    pub color: glyphon::Color,
    pub bounds: TextBounds,
}

/// Everything one line draws.
#[derive(Default)]
pub(crate) struct LineContent {
    pub glyphs: Vec<GlyphPlacement>,
    pub custom: Vec<CustomGlyph>,
    pub backgrounds: Vec<RectInstance>,
    /// Bounds for the custom glyphs' text area.
    pub bounds: Option<TextBounds>,
}

impl LineContent {
    pub fn clear(&mut self) {
        self.glyphs.clear();
        self.custom.clear();
        self.backgrounds.clear();
        self.bounds = None;
    }

    /// The text areas glyphon prepares for this line; `empty` is a blank
    /// buffer that carries the custom glyphs.
    pub fn text_areas<'a>(
        &'a self,
        shapes: &'a ShapeCache,
        empty: &'a glyphon::Buffer,
    ) -> impl Iterator<Item = TextArea<'a>> + 'a {
        let glyphs = self.glyphs.iter().filter_map(move |g| {
            let shaped = shapes.get(g.shaped)?;
            Some(TextArea {
                buffer: &shaped.buffer,
                left: g.left,
                top: g.top,
                scale: g.scale,
                bounds: g.bounds,
                default_color: g.color,
                custom_glyphs: &[],
            })
        });
        let custom = self
            .bounds
            .filter(|_| !self.custom.is_empty())
            .map(|bounds| TextArea {
                buffer: empty,
                left: 0.0,
                top: 0.0,
                scale: 1.0,
                bounds,
                default_color: glyphon::Color::rgb(255, 255, 255),
                custom_glyphs: &self.custom,
            });
        glyphs.chain(custom)
    }
}

/// Where a line goes and what decorates it.
pub(crate) struct LineLayout<'a> {
    /// Pixel position of the line's first cell.
    pub x: i32,
    pub y: i32,
    /// Pixel clip rectangle (left, top, right, bottom).
    pub clip: (i32, i32, i32, i32),
    /// Selected column ranges on this line.
    pub selection: &'a [(usize, usize)],
    /// Columns covered by a block cursor, if any.
    pub block_cursor: Option<(usize, usize)>,
    /// Whether to skip backgrounds equal to the theme background (the
    /// grid, over a cleared target) or paint every cell (overlays).
    pub skip_default_bg: bool,
}

/// Builds `out` for `cells`.
pub(crate) fn build_line(
    out: &mut LineContent,
    cells: &[Cell],
    layout: &LineLayout<'_>,
    theme: &Theme,
    srgb: bool,
    fonts: &mut Fonts,
    shapes: &mut ShapeCache,
) {
    out.clear();
    let m: CellMetrics = fonts.metrics;
    let (cw, ch) = (m.width as i32, m.height as i32);
    let (clip_l, clip_t, clip_r, clip_b) = layout.clip;
    let top = layout.y;
    let row_bounds = TextBounds {
        left: clip_l,
        top: top.max(clip_t),
        right: clip_r,
        bottom: (top + ch).min(clip_b),
    };
    out.bounds = Some(row_bounds);
    // The run of equal backgrounds being merged: (first col, end col, colour).
    let mut run: Option<(usize, usize, Rgb)> = None;

    for (col, cell) in cells.iter().enumerate() {
        let selected = layout
            .selection
            .iter()
            .any(|&(start, end)| (start..end).contains(&col));
        let block = layout
            .block_cursor
            .is_some_and(|(start, end)| (start..end).contains(&col));
        let colors = theme.resolve_cell(cell, selected, block);
        let x = layout.x + col as i32 * cw;

        // Backgrounds, merged across equal neighbours.
        let paint = !(layout.skip_default_bg && colors.bg == theme.background);
        match (&mut run, paint) {
            (Some((_, end, color)), true) if *end == col && *color == colors.bg => *end = col + 1,
            (_, true) => {
                flush_run(out, run.take(), layout, cw, ch, srgb);
                run = Some((col, col + 1, colors.bg));
            }
            (_, false) => flush_run(out, run.take(), layout, cw, ch, srgb),
        }

        if cell.flags.contains(CellFlags::HIDDEN) {
            continue;
        }
        let fg = colors.fg;
        if cell.has_text() {
            let span = if cell.flags.contains(CellFlags::WIDE) {
                2
            } else {
                1
            };
            match procedural::glyph_id(cell.ch).filter(|_| cell.zerowidth.is_none()) {
                Some(id) => out.custom.push(custom_glyph(id, x, top, cw, ch, fg)),
                None => {
                    let id = shapes.id_for(fonts, cell);
                    if let Some(shaped) = shapes.get(id) {
                        out.glyphs.push(GlyphPlacement {
                            shaped: id,
                            left: (x as f32) + shaped.x_offset,
                            top: (top as f32) + shaped.y_offset,
                            scale: shaped.scale,
                            color: fg.to_glyphon(),
                            bounds: TextBounds {
                                left: x.max(clip_l),
                                top: row_bounds.top,
                                right: (x + span * cw).min(clip_r),
                                bottom: row_bounds.bottom,
                            },
                        });
                    }
                }
            }
        }
        let deco_color = cell.underline_color.map(|c| theme.resolve(c)).unwrap_or(fg);
        if cell.underline != UnderlineStyle::None {
            let id = Decoration::Underline(cell.underline).id();
            out.custom
                .push(custom_glyph(id, x, top, cw, ch, deco_color));
        }
        if cell.flags.contains(CellFlags::STRIKEOUT) {
            let id = Decoration::Strikeout.id();
            out.custom.push(custom_glyph(id, x, top, cw, ch, fg));
        }
    }
    flush_run(out, run, layout, cw, ch, srgb);
}

fn flush_run(
    out: &mut LineContent,
    run: Option<(usize, usize, Rgb)>,
    layout: &LineLayout<'_>,
    cw: i32,
    ch: i32,
    srgb: bool,
) {
    let Some((start, end, color)) = run else {
        return;
    };
    let (clip_l, clip_t, clip_r, clip_b) = layout.clip;
    let x0 = (layout.x + start as i32 * cw).max(clip_l);
    let x1 = (layout.x + end as i32 * cw).min(clip_r);
    let y0 = layout.y.max(clip_t);
    let y1 = (layout.y + ch).min(clip_b);
    if x1 > x0 && y1 > y0 {
        out.backgrounds.push(RectInstance::new(
            x0 as f32,
            y0 as f32,
            (x1 - x0) as f32,
            (y1 - y0) as f32,
            color,
            srgb,
        ));
    }
}

fn custom_glyph(id: u16, x: i32, y: i32, w: i32, h: i32, color: Rgb) -> CustomGlyph {
    CustomGlyph {
        id,
        left: x as f32,
        top: y as f32,
        width: w as f32,
        height: h as f32,
        color: Some(color.to_glyphon()),
        snap_to_physical_pixel: true,
        metadata: 0,
    }
}
