//! The pictures a frame shows: one tile per marked cell on screen.

use render_types::PictureTile;

use super::anchor::ScreenMark;
use super::placeholder::Placeholder;
use super::store::{Geometry, PxRect, Store};

/// Tiles for the marked cells in `marks` whose placement and picture are
/// still stored.
pub(crate) fn tiles(store: &Store, marks: &[ScreenMark]) -> Vec<PictureTile> {
    let mut out = Vec::with_capacity(marks.len());
    for &(row, col, mark) in marks {
        let Some(placement) = store.placement(mark.key) else {
            continue;
        };
        let Some(image) = store.image(placement.image) else {
            continue;
        };
        let size = (image.pixels.width() as f32, image.pixels.height() as f32);
        let Some((dest, source)) = tile_rects(&placement.geometry, size, mark.col, mark.row) else {
            continue;
        };
        out.push(PictureTile {
            pixels: image.pixels.clone(),
            col,
            row,
            dest,
            source,
            z: placement.z,
        });
    }
    out
}

/// Tiles for Unicode placeholder cells: each shows its part of the image
/// its colour names, fitted (aspect kept, centred) into the box of its
/// virtual placement.
pub(crate) fn placeholder_tiles(store: &Store, cells: &[Placeholder]) -> Vec<PictureTile> {
    let mut out = Vec::new();
    for cell in cells {
        let Some(key) = store.by_client_id(cell.image_id) else {
            continue;
        };
        let Some(placement) = store.virtual_of(key, cell.placement_id) else {
            continue;
        };
        let Some(image) = store.image(key) else {
            continue;
        };
        let g = fitted(&placement.geometry, &image.pixels);
        let size = (image.pixels.width() as f32, image.pixels.height() as f32);
        if cell.col >= g.cols || cell.row >= g.rows {
            continue;
        }
        let Some((dest, source)) = tile_rects(&g, size, cell.col, cell.row) else {
            continue;
        };
        out.push(PictureTile {
            pixels: image.pixels.clone(),
            col: cell.screen_col,
            row: cell.screen_row,
            dest,
            source,
            z: placement.z,
        });
    }
    out
}

/// A virtual placement's box with the whole picture fitted into it.
fn fitted(g: &Geometry, pixels: &render_types::PicturePixels) -> Geometry {
    let (iw, ih) = (pixels.width() as f32, pixels.height() as f32);
    let box_w = g.cols as f32 * g.cell.0;
    let box_h = g.rows as f32 * g.cell.1;
    let scale = (box_w / iw).min(box_h / ih);
    let (w, h) = (iw * scale, ih * scale);
    Geometry {
        source: PxRect {
            x: 0.0,
            y: 0.0,
            w: iw,
            h: ih,
        },
        dest: PxRect {
            x: (box_w - w) / 2.0,
            y: (box_h - h) / 2.0,
            w,
            h,
        },
        ..*g
    }
}

/// The part of cell (`col`, `row`) of a placement that its picture covers
/// (in cell units) and the part of the picture shown there (as fractions
/// of `size`); `None` when the picture does not reach that cell.
fn tile_rects(g: &Geometry, size: (f32, f32), col: u32, row: u32) -> Option<([f32; 4], [f32; 4])> {
    let (cw, ch) = g.cell;
    let cell_x = col as f32 * cw;
    let cell_y = row as f32 * ch;
    let x0 = g.dest.x.max(cell_x);
    let y0 = g.dest.y.max(cell_y);
    let x1 = (g.dest.x + g.dest.w).min(cell_x + cw);
    let y1 = (g.dest.y + g.dest.h).min(cell_y + ch);
    if x1 <= x0 || y1 <= y0 || g.dest.w <= 0.0 || g.dest.h <= 0.0 {
        return None;
    }
    let dest = [
        (x0 - cell_x) / cw,
        (y0 - cell_y) / ch,
        (x1 - cell_x) / cw,
        (y1 - cell_y) / ch,
    ];
    let sx = |x: f32| (g.source.x + (x - g.dest.x) / g.dest.w * g.source.w) / size.0;
    let sy = |y: f32| (g.source.y + (y - g.dest.y) / g.dest.h * g.source.h) / size.1;
    let source = [sx(x0), sy(y0), sx(x1), sy(y1)];
    Some((dest, source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_is_cut_into_cell_tiles() {
        // 20×10 picture drawn at its own size in 8×16 cells: 3 columns, 1 row.
        let g = Geometry {
            source: PxRect {
                x: 0.0,
                y: 0.0,
                w: 20.0,
                h: 10.0,
            },
            dest: PxRect {
                x: 0.0,
                y: 0.0,
                w: 20.0,
                h: 10.0,
            },
            cell: (8.0, 16.0),
            cols: 3,
            rows: 1,
        };
        let (dest, source) = tile_rects(&g, (20.0, 10.0), 0, 0).unwrap();
        assert_eq!(dest, [0.0, 0.0, 1.0, 10.0 / 16.0]);
        assert_eq!(source, [0.0, 0.0, 8.0 / 20.0, 1.0]);
        let (dest, source) = tile_rects(&g, (20.0, 10.0), 2, 0).unwrap();
        assert_eq!(dest, [0.0, 0.0, 0.5, 10.0 / 16.0]);
        assert_eq!(source, [16.0 / 20.0, 0.0, 1.0, 1.0]);
        assert!(tile_rects(&g, (20.0, 10.0), 3, 0).is_none());
        assert!(tile_rects(&g, (20.0, 10.0), 0, 1).is_none());
    }
}
