//! Underline styles and strikeout, drawn as full-cell masks so they join
//! across cells.

use super::{Decoration, Mask};
use crate::font::CellMetrics;
use crate::frame::UnderlineStyle;

pub(super) fn draw(mask: &mut Mask, decoration: Decoration, m: &CellMetrics) {
    let (w, h) = (mask.width as i64, mask.height as i64);
    let s = i64::from(m.stroke.max(1));
    let top = i64::from(m.underline_top).min(h - s).max(0);
    match decoration {
        Decoration::Strikeout => {
            let y = i64::from(m.strikeout_top).min(h - s).max(0);
            mask.fill(0, y, w, y + s);
        }
        Decoration::Underline(UnderlineStyle::None) => {}
        Decoration::Underline(UnderlineStyle::Single) => mask.fill(0, top, w, top + s),
        Decoration::Underline(UnderlineStyle::Double) => {
            // Two strokes with a stroke-wide gap, kept inside the cell.
            let y = top.min(h - 3 * s).max(0);
            mask.fill(0, y, w, y + s);
            mask.fill(0, y + 2 * s, w, y + 3 * s);
        }
        Decoration::Underline(UnderlineStyle::Dotted) => {
            // Square dots one stroke wide, one stroke apart.
            let mut x = 0;
            while x < w {
                mask.fill(x, top, x + s, top + s);
                x += 2 * s;
            }
        }
        Decoration::Underline(UnderlineStyle::Dashed) => {
            // One dash per cell, centred, three quarters of the cell long,
            // so dashes are evenly spaced across cells.
            let gap = (w / 8).max(1);
            mask.fill(gap, top, w - gap, top + s);
        }
        Decoration::Underline(UnderlineStyle::Curly) => {
            // The wave lives between the baseline and the cell bottom, as
            // tall as that room allows (up to 1.5 strokes each way).
            let half = s as f32 / 2.0;
            let room = (h - i64::from(m.baseline).min(h - 1)) as f32;
            let amp = ((room - s as f32 - 1.0) / 2.0).clamp(0.5, s as f32 * 1.5);
            let centre = h as f32 - room / 2.0;
            let k = std::f32::consts::TAU / w.max(1) as f32;
            mask.paint(|x, y| {
                let cy = centre - amp * (x * k).sin();
                let slope = amp * k * (x * k).cos();
                let d = (y - cy).abs() / (1.0 + slope * slope).sqrt();
                half + 0.5 - d
            });
        }
    }
}
