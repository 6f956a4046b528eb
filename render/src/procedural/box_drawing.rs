//! Box drawing (U+2500–257F): lines of light, heavy and double weight
//! meeting at the cell centre, dashed lines, rounded corners and diagonals.

use super::Mask;

/// Weight of one arm from the centre to an edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arm {
    None,
    Light,
    Heavy,
    Double,
}

/// Arms up, right, down, left for U+2500 + index, as four letters
/// (`0` none, `l` light, `h` heavy, `d` double). Dashes, arcs and
/// diagonals are `-` and drawn separately.
const ARMS: [&str; 128] = [
    "0l0l", "0h0h", "l0l0", "h0h0", "-", "-", "-", "-", "-", "-", "-", "-", // 2500
    "0ll0", "0hl0", "0lh0", "0hh0", "00ll", "00lh", "00hl", "00hh", // 250C
    "ll00", "lh00", "hl00", "hh00", "l00l", "l00h", "h00l", "h00h", // 2514
    "lll0", "lhl0", "hll0", "llh0", "hlh0", "hhl0", "lhh0", "hhh0", // 251C
    "l0ll", "l0lh", "h0ll", "l0hl", "h0hl", "h0lh", "l0hh", "h0hh", // 2524
    "0lll", "0llh", "0hll", "0hlh", "0lhl", "0lhh", "0hhl", "0hhh", // 252C
    "ll0l", "ll0h", "lh0l", "lh0h", "hl0l", "hl0h", "hh0l", "hh0h", // 2534
    "llll", "lllh", "lhll", "lhlh", "hlll", "llhl", "hlhl", "hllh", // 253C
    "hhll", "llhh", "lhhl", "hhlh", "lhhh", "hlhh", "hhhl", "hhhh", // 2544
    "-", "-", "-", "-", // 254C
    "0d0d", "d0d0", "0dl0", "0ld0", "0dd0", "00ld", "00dl", "00dd", // 2550
    "ld00", "dl00", "dd00", "l00d", "d00l", "d00d", "ldl0", "dld0", // 2558
    "ddd0", "l0ld", "d0dl", "d0dd", "0dld", "0ldl", "0ddd", "ld0d", // 2560
    "dl0l", "dd0d", "ldld", "dldl", "dddd", // 2568
    "-", "-", "-", "-", "-", "-", "-", // 256D
    "000l", "l000", "0l00", "00l0", "000h", "h000", "0h00", "00h0", // 2574
    "0h0l", "l0h0", "0l0h", "h0l0", // 257C
];

/// Draws `ch` if it is a box-drawing character; `false` otherwise.
pub(super) fn draw(mask: &mut Mask, ch: char, stroke: u32) -> bool {
    let cp = u32::from(ch);
    if !(0x2500..=0x257F).contains(&cp) {
        return false;
    }
    let index = (cp - 0x2500) as usize;
    let t = i64::from(stroke.max(1));
    match ARMS[index].as_bytes() {
        [u, r, d, l] => {
            let arm = |b: &u8| match b {
                b'l' => Arm::Light,
                b'h' => Arm::Heavy,
                b'd' => Arm::Double,
                _ => Arm::None,
            };
            draw_arms(mask, [arm(u), arm(r), arm(d), arm(l)], t);
        }
        _ => draw_special(mask, cp, t),
    }
    true
}

/// Thickness of a light or heavy line.
fn thickness(arm: Arm, t: i64) -> i64 {
    match arm {
        Arm::Heavy => t * 2,
        _ => t,
    }
}

/// The band `[start, end)` a centred line of `thick` pixels occupies in a
/// span of `len` pixels; shared by every cell so neighbours line up.
fn band(len: i64, thick: i64) -> (i64, i64) {
    let start = (len - thick).div_euclid(2);
    (start, start + thick)
}

/// The outer extent of the perpendicular arms at the centre: where a line
/// arriving from one side must reach to join them.
fn span_of(arms: &[Arm], len: i64, t: i64) -> Option<(i64, i64)> {
    arms.iter()
        .filter(|a| **a != Arm::None)
        .map(|a| match a {
            Arm::Double => {
                let (s, _) = band(len, t);
                (s - t, s + 2 * t)
            }
            _ => band(len, thickness(*a, t)),
        })
        .reduce(|(a0, a1), (b0, b1)| (a0.min(b0), a1.max(b1)))
}

fn draw_arms(mask: &mut Mask, [up, right, down, left]: [Arm; 4], t: i64) {
    let (w, h) = (mask.width as i64, mask.height as i64);
    let (cx, _) = band(w, t);
    let (cy, _) = band(h, t);
    // Where horizontal arms meet the vertical ones and vice versa.
    let vspan = span_of(&[up, down], w, t).unwrap_or(band(w, t));
    let hspan = span_of(&[left, right], h, t).unwrap_or(band(h, t));

    // Horizontal arms.
    for (arm, is_right) in [(right, true), (left, false)] {
        match arm {
            Arm::None => {}
            Arm::Light | Arm::Heavy => {
                let (y0, y1) = band(h, thickness(arm, t));
                if is_right {
                    mask.fill(vspan.0, y0, w, y1);
                } else {
                    mask.fill(0, y0, vspan.1, y1);
                }
            }
            Arm::Double => {
                // Upper line at [cy - t, cy), lower at [cy + t, cy + 2t).
                for (y0, toward) in [(cy - t, up), (cy + t, down)] {
                    let inner = toward != Arm::None;
                    if is_right {
                        let x0 = if inner { cx + t } else { cx - t };
                        mask.fill(x0, y0, w, y0 + t);
                    } else {
                        let x1 = if inner { cx } else { cx + 2 * t };
                        mask.fill(0, y0, x1, y0 + t);
                    }
                }
            }
        }
    }
    // Vertical arms.
    for (arm, is_down) in [(down, true), (up, false)] {
        match arm {
            Arm::None => {}
            Arm::Light | Arm::Heavy => {
                let (x0, x1) = band(w, thickness(arm, t));
                if is_down {
                    mask.fill(x0, hspan.0, x1, h);
                } else {
                    mask.fill(x0, 0, x1, hspan.1);
                }
            }
            Arm::Double => {
                for (x0, toward) in [(cx - t, left), (cx + t, right)] {
                    let inner = toward != Arm::None;
                    if is_down {
                        let y0 = if inner { cy + t } else { cy - t };
                        mask.fill(x0, y0, x0 + t, h);
                    } else {
                        let y1 = if inner { cy } else { cy + 2 * t };
                        mask.fill(x0, 0, x0 + t, y1);
                    }
                }
            }
        }
    }
}

/// Dashed lines, rounded corners and diagonals.
fn draw_special(mask: &mut Mask, cp: u32, t: i64) {
    // (dash count, heavy, vertical)
    let dashes = match cp {
        0x2504 => Some((3, false, false)),
        0x2505 => Some((3, true, false)),
        0x2506 => Some((3, false, true)),
        0x2507 => Some((3, true, true)),
        0x2508 => Some((4, false, false)),
        0x2509 => Some((4, true, false)),
        0x250A => Some((4, false, true)),
        0x250B => Some((4, true, true)),
        0x254C => Some((2, false, false)),
        0x254D => Some((2, true, false)),
        0x254E => Some((2, false, true)),
        0x254F => Some((2, true, true)),
        _ => None,
    };
    if let Some((count, heavy, vertical)) = dashes {
        draw_dashes(mask, count, if heavy { 2 * t } else { t }, vertical);
        return;
    }
    match cp {
        0x256D..=0x2570 => draw_arc(mask, cp, t),
        0x2571..=0x2573 => draw_diagonals(mask, cp, t),
        _ => {}
    }
}

fn draw_dashes(mask: &mut Mask, count: i64, thick: i64, vertical: bool) {
    let (w, h) = (mask.width as i64, mask.height as i64);
    let len = if vertical { h } else { w };
    for i in 0..count {
        // Each dash fills the middle of its slot, so the gaps at cell
        // edges equal the gaps between dashes.
        let slot0 = i * len / count;
        let slot1 = (i + 1) * len / count;
        let gap = ((slot1 - slot0) / 4).max(1);
        let (a, b) = (slot0 + gap / 2, slot1 - (gap - gap / 2));
        if vertical {
            let (x0, x1) = band(w, thick);
            mask.fill(x0, a, x1, b);
        } else {
            let (y0, y1) = band(h, thick);
            mask.fill(a, y0, b, y1);
        }
    }
}

/// A quarter circle joining the centre lines, then straight to the edges.
fn draw_arc(mask: &mut Mask, cp: u32, t: i64) {
    let (w, h) = (mask.width as f32, mask.height as f32);
    let tf = t as f32;
    // Centre of the light line band on each axis.
    let (bx, _) = band(mask.width as i64, t);
    let (by, _) = band(mask.height as i64, t);
    let (lx, ly) = (bx as f32 + tf / 2.0, by as f32 + tf / 2.0);
    let r = (w / 2.0).min(h / 2.0).max(tf);
    // Direction from the line centre towards the arc's two edges.
    let (sx, sy) = match cp {
        0x256D => (1.0, 1.0),   // ╭ down and right
        0x256E => (-1.0, 1.0),  // ╮ down and left
        0x256F => (-1.0, -1.0), // ╯ up and left
        _ => (1.0, -1.0),       // ╰ up and right
    };
    let (ccx, ccy) = (lx + sx * r, ly + sy * r);
    mask.paint(|x, y| {
        let in_quadrant = (x - ccx) * sx <= 0.0 && (y - ccy) * sy <= 0.0;
        let mut cover = 0.0f32;
        if in_quadrant {
            let d = ((x - ccx).powi(2) + (y - ccy).powi(2)).sqrt();
            cover = tf / 2.0 + 0.5 - (d - r).abs();
        }
        // Straight runs from the arc's ends to the edges.
        let horizontal = (x - ccx) * sx >= 0.0 && (y - ly).abs() <= tf / 2.0;
        let vertical = (y - ccy) * sy >= 0.0 && (x - lx).abs() <= tf / 2.0;
        if horizontal || vertical {
            cover = 1.0;
        }
        cover
    });
}

/// ╱ ╲ ╳: lines between opposite corners, antialiased.
fn draw_diagonals(mask: &mut Mask, cp: u32, t: i64) {
    let (w, h) = (mask.width as f32, mask.height as f32);
    let half = t as f32 / 2.0;
    let len = (w * w + h * h).sqrt();
    let rising = cp == 0x2571 || cp == 0x2573;
    let falling = cp == 0x2572 || cp == 0x2573;
    mask.paint(|x, y| {
        let mut cover = 0.0f32;
        if rising {
            // Line from (0, h) to (w, 0): h*x + w*y - w*h = 0.
            let d = (h * x + w * y - w * h).abs() / len;
            cover = cover.max(half + 0.5 - d);
        }
        if falling {
            // Line from (0, 0) to (w, h): h*x - w*y = 0.
            let d = (h * x - w * y).abs() / len;
            cover = cover.max(half + 0.5 - d);
        }
        cover
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ink(mask: &Mask, x: usize, y: usize) -> bool {
        mask.data[y * mask.width + x] == 255
    }

    #[test]
    fn corner_joins_its_arms() {
        let mut m = Mask::new(9, 17);
        assert!(draw(&mut m, '┌', 1));
        // Right arm reaches the right edge on the centre row; down arm the bottom.
        assert!(ink(&m, 8, 8) && ink(&m, 4, 16));
        // The corner pixel is inked and nothing is drawn above or left of it.
        assert!(ink(&m, 4, 8));
        assert!(!ink(&m, 4, 7) && !ink(&m, 3, 8));
    }

    #[test]
    fn double_vertical_is_two_lines() {
        let mut m = Mask::new(9, 17);
        assert!(draw(&mut m, '║', 1));
        let inked: Vec<usize> = (0..9).filter(|&x| ink(&m, x, 0)).collect();
        assert_eq!(inked, vec![3, 5]);
    }

    #[test]
    fn double_corner_has_no_inner_cross() {
        let mut m = Mask::new(9, 17);
        assert!(draw(&mut m, '╔', 1));
        // Inside the corner (between the two lines) stays empty.
        assert!(!ink(&m, 4, 8));
        assert!(ink(&m, 3, 7) && ink(&m, 5, 9));
    }
}
