//! Turning an [`OverlayLayer`] into rectangles and glyph lines.

use crate::font::Fonts;
use crate::ligature::Ligatures;
use crate::line::{build_line, LineContent, LineLayout};
use crate::overlay::{layout_cells, OverlayLayer, OverlayRect};
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

/// Fills `rects` (box, border, span backgrounds) and `lines` (text) for
/// `layer`.
pub(crate) fn build(
    layer: &OverlayLayer,
    ctx: &OverlayCtx<'_>,
    lines: &mut Vec<LineContent>,
    rects: &mut Vec<RectInstance>,
    fonts: &mut Fonts,
    shapes: &mut ShapeCache,
) {
    rects.clear();
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
