//! Block elements (U+2580–259F), braille patterns (U+2800–28FF) and the
//! Powerline separators (U+E0B0–E0B3).

use super::Mask;

/// Coverage of the light, medium and dark shades (░ ▒ ▓): flat alpha
/// rather than a dither pattern, so shaded areas join seamlessly.
const SHADES: [u8; 3] = [64, 128, 192];

/// Draws a block element; `false` if `ch` is not one.
pub(super) fn draw_block(mask: &mut Mask, ch: char) -> bool {
    let (w, h) = (mask.width as i64, mask.height as i64);
    let eighth_h = |k: i64| (h * k + 4) / 8;
    let eighth_w = |k: i64| (w * k + 4) / 8;
    let (mx, my) = (w / 2, h / 2);
    let cp = u32::from(ch);
    match cp {
        0x2580 => mask.fill(0, 0, w, my),
        // ▁..█: lower k eighths.
        0x2581..=0x2588 => mask.fill(0, h - eighth_h(i64::from(cp - 0x2580)), w, h),
        // ▉..▏: left (8 - k) eighths.
        0x2589..=0x258F => mask.fill(0, 0, eighth_w(8 - i64::from(cp - 0x2588)), h),
        0x2590 => mask.fill(mx, 0, w, h),
        0x2591..=0x2593 => mask.fill_alpha(0, 0, w, h, SHADES[(cp - 0x2591) as usize]),
        0x2594 => mask.fill(0, 0, w, eighth_h(1)),
        0x2595 => mask.fill(w - eighth_w(1), 0, w, h),
        0x2596..=0x259F => {
            // Quadrants as bits: upper-left, upper-right, lower-left, lower-right.
            let bits: u8 = match cp {
                0x2596 => 0b0010,
                0x2597 => 0b0001,
                0x2598 => 0b1000,
                0x2599 => 0b1011,
                0x259A => 0b1001,
                0x259B => 0b1110,
                0x259C => 0b1101,
                0x259D => 0b0100,
                0x259E => 0b0110,
                _ => 0b0111,
            };
            if bits & 0b1000 != 0 {
                mask.fill(0, 0, mx, my);
            }
            if bits & 0b0100 != 0 {
                mask.fill(mx, 0, w, my);
            }
            if bits & 0b0010 != 0 {
                mask.fill(0, my, mx, h);
            }
            if bits & 0b0001 != 0 {
                mask.fill(mx, my, w, h);
            }
        }
        _ => return false,
    }
    true
}

/// Draws braille pattern `bits` (dot n is bit n-1, per Unicode) as round
/// dots on a 2×4 lattice.
pub(super) fn draw_braille(mask: &mut Mask, bits: u8) {
    // (column, row) of dots 1..8.
    const DOTS: [(f32, f32); 8] = [
        (0.0, 0.0),
        (0.0, 1.0),
        (0.0, 2.0),
        (1.0, 0.0),
        (1.0, 1.0),
        (1.0, 2.0),
        (0.0, 3.0),
        (1.0, 3.0),
    ];
    let (w, h) = (mask.width as f32, mask.height as f32);
    let (sw, sh) = (w / 2.0, h / 4.0);
    let radius = (sw.min(sh) * 0.3).max(0.5);
    let centres: Vec<(f32, f32)> = DOTS
        .iter()
        .enumerate()
        .filter(|(i, _)| bits & (1 << i) != 0)
        .map(|(_, (c, r))| ((c + 0.5) * sw, (r + 0.5) * sh))
        .collect();
    mask.paint(|x, y| {
        centres
            .iter()
            .map(|(cx, cy)| radius + 0.5 - ((x - cx).powi(2) + (y - cy).powi(2)).sqrt())
            .fold(0.0, f32::max)
    });
}

/// Powerline separator `index` (0: U+E0B0 solid right-pointing, 1: U+E0B1
/// thin right-pointing, 2: U+E0B2 solid left-pointing, 3: U+E0B3 thin):
/// triangles spanning the full cell height, so they meet the coloured
/// segments beside them exactly.
pub(super) fn draw_powerline(mask: &mut Mask, index: u16, stroke: u32) {
    let (w, h) = (mask.width as f32, mask.height as f32);
    let solid = index.is_multiple_of(2);
    let pointing_right = index < 2;
    let half_t = stroke.max(1) as f32 / 2.0;
    // Distance from the cell's left edge (right edge when mirrored) to
    // the triangle's outer edges, per row.
    let len = (w * w + (h / 2.0) * (h / 2.0)).sqrt();
    mask.paint(|x, y| {
        let x = if pointing_right { x } else { w - x };
        // Edges run from (0, 0) to (w, h/2) and from (0, h) to (w, h/2).
        let dy = (y - h / 2.0).abs();
        let edge_x = w * (1.0 - dy / (h / 2.0));
        if solid {
            // Antialias along the slanted edge.
            let d = (x - edge_x) * (h / 2.0) / len;
            0.5 - d
        } else {
            let d = ((x - edge_x) * (h / 2.0) / len).abs();
            half_t + 0.5 - d
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_block_fills_and_lower_half_is_half() {
        let mut m = Mask::new(8, 16);
        assert!(draw_block(&mut m, '█'));
        assert!(m.data.iter().all(|&a| a == 255));
        let mut m = Mask::new(8, 16);
        assert!(draw_block(&mut m, '▄'));
        assert_eq!(m.data.iter().filter(|&&a| a == 255).count(), 64);
        assert!(m.data[..64].iter().all(|&a| a == 0));
    }

    #[test]
    fn braille_dot_one_is_top_left() {
        let mut m = Mask::new(10, 20);
        draw_braille(&mut m, 0x01);
        assert!(m.data[2 * 10 + 2] > 128);
        assert_eq!(m.data[17 * 10 + 7], 0);
    }
}
