//! Turning an [`OverlayLayer`] into rectangles and glyph lines.

use std::sync::Arc;

use crate::font::Fonts;
use crate::ligature::Ligatures;
use crate::line::{build_line, LineContent, LineLayout};
use crate::overlay::{layout_cells, OverlayLayer, OverlayPicture, OverlayRect};
use crate::picture::PicturePixels;
use crate::rects::RectInstance;
use crate::shaping::ShapeCache;
use crate::theme::Theme;

/// What every overlay of a frame shares.
pub(crate) struct OverlayCtx<'a> {
    pub size: (u32, u32),
    pub padding: u32,
    pub theme: &'a Theme,
    pub srgb: bool,
}

/// A pixel rectangle as (left, top, right, bottom), clipped to the target.
type Px = (i64, i64, i64, i64);

fn placement(rect: &OverlayRect, ctx: &OverlayCtx<'_>, cell: (u32, u32)) -> Px {
    let (w, h) = (i64::from(ctx.size.0), i64::from(ctx.size.1));
    let (l, t, r, b) = match *rect {
        OverlayRect::Pixels {
            x,
            y,
            width,
            height,
        } => {
            let (x, y) = (i64::from(x), i64::from(y));
            (x, y, x + i64::from(width), y + i64::from(height))
        }
        OverlayRect::Cells {
            col,
            row,
            cols,
            rows,
        } => {
            let to_px = |n: usize, size: u32| {
                i64::try_from(n)
                    .unwrap_or(i64::MAX / 4)
                    .min(i64::from(u32::MAX))
                    .saturating_mul(i64::from(size))
            };
            let pad = i64::from(ctx.padding);
            let (x, y) = (
                pad.saturating_add(to_px(col, cell.0)),
                pad.saturating_add(to_px(row, cell.1)),
            );
            (
                x,
                y,
                x.saturating_add(to_px(cols, cell.0)),
                y.saturating_add(to_px(rows, cell.1)),
            )
        }
    };
    (l.clamp(0, w), t.clamp(0, h), r.clamp(0, w), b.clamp(0, h))
}

/// A picture placed in target pixels: the quad and the part of the
/// picture it shows (both `[x, y, width, height]`, the second in fractions
/// of the picture).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlacedPicture {
    pub pixels: Arc<PicturePixels>,
    pub quad: [f32; 4],
    pub uv: [f32; 4],
}

/// What an overlay layer becomes.
pub(crate) struct Built<'a> {
    pub lines: &'a mut Vec<LineContent>,
    pub rects: &'a mut Vec<RectInstance>,
    pub pictures: &'a mut Vec<PlacedPicture>,
}

/// Fits `picture` into its cell box whose top-left text cell is at
/// `origin` (pixels), then cuts it to its clip rows and to `clip`.
fn place_picture(
    picture: &OverlayPicture,
    origin: (i64, i64),
    cell: (u32, u32),
    clip: Px,
) -> Option<PlacedPicture> {
    let (cw, ch) = (cell.0.max(1) as f32, cell.1.max(1) as f32);
    let (pw, ph) = (
        picture.pixels.width() as f32,
        picture.pixels.height() as f32,
    );
    let (bw, bh) = (picture.cols as f32 * cw, picture.rows as f32 * ch);
    let scale = (bw / pw).min(bh / ph).min(1.0);
    let (w, h) = (pw * scale, ph * scale);
    let x0 = origin.0 as f32 + picture.col as f32 * cw;
    let y0 = origin.1 as f32 + picture.row as f32 * ch;
    let band = (
        origin.1 as f32 + picture.clip_rows.0 as f32 * ch,
        origin.1 as f32 + picture.clip_rows.1 as f32 * ch,
    );
    let left = x0.max(clip.0 as f32);
    let right = (x0 + w).min(clip.2 as f32);
    let top = y0.max(band.0).max(clip.1 as f32);
    let bottom = (y0 + h).min(band.1).min(clip.3 as f32);
    if right <= left || bottom <= top || w <= 0.0 || h <= 0.0 {
        return None;
    }
    Some(PlacedPicture {
        pixels: picture.pixels.clone(),
        quad: [left, top, right - left, bottom - top],
        uv: [
            (left - x0) / w,
            (top - y0) / h,
            (right - left) / w,
            (bottom - top) / h,
        ],
    })
}

/// Fills `out`'s rectangles (box, border, span backgrounds), lines (text)
/// and pictures for `layer`.
pub(crate) fn build(
    layer: &OverlayLayer,
    ctx: &OverlayCtx<'_>,
    out: Built<'_>,
    fonts: &mut Fonts,
    shapes: &mut ShapeCache,
) {
    let Built {
        lines,
        rects,
        pictures,
    } = out;
    rects.clear();
    pictures.clear();
    let m = fonts.metrics;
    let (l, t, r, b) = placement(&layer.rect, ctx, (m.width, m.height));
    if r <= l || b <= t {
        lines.clear();
        return;
    }
    let theme = ctx.theme;
    let rect = |l: i64, t: i64, r: i64, b: i64, color| {
        RectInstance::new(
            l as f32,
            t as f32,
            (r - l) as f32,
            (b - t) as f32,
            theme.resolve(color),
            ctx.srgb,
        )
    };
    rects.push(rect(l, t, r, b, layer.background));
    let mut inner = (l, t, r, b);
    if let Some(border) = layer.border {
        let bw = i64::from(border.width_px).min((r - l) / 2).min((b - t) / 2);
        if bw > 0 {
            rects.push(rect(l, t, r, t + bw, border.color));
            rects.push(rect(l, b - bw, r, b, border.color));
            rects.push(rect(l, t + bw, l + bw, b - bw, border.color));
            rects.push(rect(r - bw, t + bw, r, b - bw, border.color));
            inner = (l + bw, t + bw, r - bw, b - bw);
        }
    }
    let pad = i64::from(layer.padding_px);
    let text = (inner.0 + pad, inner.1 + pad, inner.2 - pad, inner.3 - pad);
    let cols = usize::try_from((text.2 - text.0).max(0) / i64::from(m.width.max(1))).unwrap_or(0);
    let max_rows =
        usize::try_from((text.3 - text.1).max(0) / i64::from(m.height.max(1))).unwrap_or(0);
    let cells = layout_cells(&layer.lines, cols, max_rows, layer.background);
    lines.resize_with(cells.rows, LineContent::default);
    pictures.extend(
        layer
            .pictures
            .iter()
            .filter_map(|p| place_picture(p, (text.0, text.1), (m.width, m.height), inner)),
    );
    let clip = (
        inner.0 as i32,
        inner.1 as i32,
        inner.2 as i32,
        inner.3 as i32,
    );
    // The overlay's fill counts as the default background inside it, so
    // plain cells add no rectangles of their own.
    let fill = theme.resolve(layer.background);
    let owned;
    let line_theme = if fill == theme.background {
        theme
    } else {
        owned = Theme {
            background: fill,
            ..theme.clone()
        };
        &owned
    };
    for (i, line) in lines.iter_mut().enumerate() {
        let row = &cells.cells[i * cells.cols..(i + 1) * cells.cols];
        let layout = LineLayout {
            x: text.0 as i32,
            y: (text.1 + i as i64 * i64::from(m.height)) as i32,
            clip,
            selection: &[],
            block_cursor: None,
            skip_default_bg: true,
            ligatures: Ligatures::Off,
        };
        build_line(line, row, &layout, line_theme, ctx.srgb, fonts, shapes);
        rects.append(&mut line.backgrounds);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(w: u32, h: u32) -> Arc<PicturePixels> {
        let rgba = vec![255; (w * h * 4) as usize];
        Arc::new(PicturePixels::new(w, h, rgba).unwrap())
    }

    #[test]
    fn a_picture_keeps_its_aspect_and_is_cut_to_its_rows() {
        let wide = OverlayPicture {
            pixels: picture(400, 100),
            col: 1,
            row: 2,
            cols: 20,
            rows: 10,
            clip_rows: (0, 100),
        };
        // 20 cells of 10 px: 200 px wide, so half size, 50 px high.
        let placed = place_picture(&wide, (5, 7), (10, 20), (0, 0, 1000, 1000)).unwrap();
        assert_eq!(placed.quad, [15.0, 47.0, 200.0, 50.0]);
        assert_eq!(placed.uv, [0.0, 0.0, 1.0, 1.0]);
        // Never larger than its own pixels.
        let small = OverlayPicture {
            pixels: picture(30, 30),
            ..wide
        };
        let placed = place_picture(&small, (0, 0), (10, 20), (0, 0, 1000, 1000)).unwrap();
        assert_eq!(placed.quad, [10.0, 40.0, 30.0, 30.0]);
        // Starting a row above the band: its top 20 px (of 50) are cut.
        let scrolled = OverlayPicture {
            row: -1,
            clip_rows: (0, 3),
            ..wide.clone()
        };
        let placed = place_picture(&scrolled, (0, 0), (10, 20), (0, 0, 1000, 1000)).unwrap();
        assert_eq!(placed.quad, [10.0, 0.0, 200.0, 30.0]);
        assert_eq!(placed.uv, [0.0, 0.4, 1.0, 0.6]);
        // Wholly outside its band: nothing.
        let gone = OverlayPicture {
            row: 5,
            clip_rows: (0, 3),
            ..wide
        };
        assert!(place_picture(&gone, (0, 0), (10, 20), (0, 0, 1000, 1000)).is_none());
    }
}
