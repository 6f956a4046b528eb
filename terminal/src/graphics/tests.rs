//! The graphics module against a real `Term`: kitty replies compared with a
//! table written from kitty's specification (and its source for the exact
//! error texts), placements, deletes, scrolling, clear and resize, and
//! bad input.

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::grid::{Dimensions, Scroll};
use alacritty_terminal::term::{Config, Term};
use alacritty_terminal::vte::ansi::{Processor, StdSyncHandler};
use base64::Engine as _;

use super::*;
use crate::session::GridSize;

/// The nominal cell every test places in.
const CELL: CellPx = (8, 16);

fn term(cols: u16, rows: u16) -> Term<VoidListener> {
    let size = GridSize::new(cols, rows);
    let config = Config {
        scrolling_history: 1000,
        ..Config::default()
    };
    Term::new(config, &size, VoidListener)
}

fn feed(term: &mut Term<VoidListener>, bytes: &[u8]) {
    let mut parser: Processor<StdSyncHandler> = Processor::new();
    parser.advance(term, bytes);
}

fn b64(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// Sends `control;payload` (payload base64-encoded here) and returns the reply.
fn kitty(
    g: &mut Graphics,
    term: &mut Term<VoidListener>,
    control: &str,
    payload: &[u8],
) -> Option<String> {
    let body = if payload.is_empty() {
        control.to_owned()
    } else {
        format!("{control};{}", b64(payload))
    };
    g.kitty(term, CELL, body.as_bytes())
}

fn ok(id: &str) -> Option<String> {
    Some(format!("\x1b_G{id};OK\x1b\\"))
}

fn err(id: &str, text: &str) -> Option<String> {
    Some(format!("\x1b_G{id};{text}\x1b\\"))
}

/// `w × h` pixels of RGB, all `rgb`.
fn rgb(w: usize, h: usize, rgb: [u8; 3]) -> Vec<u8> {
    rgb.repeat(w * h)
}

fn png_bytes(w: u32, h: u32, rgba: [u8; 4]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().unwrap();
        writer
            .write_image_data(&rgba.repeat((w * h) as usize))
            .unwrap();
    }
    out
}

/// (row, col) of every tile on display, sorted.
fn tile_cells(g: &Graphics, term: &Term<VoidListener>) -> Vec<(usize, usize)> {
    let mut cells: Vec<_> = g.tiles(term).iter().map(|t| (t.row, t.col)).collect();
    cells.sort_unstable();
    cells
}

fn cursor(term: &Term<VoidListener>) -> (i32, usize) {
    let p = term.grid().cursor.point;
    (p.line.0, p.column.0)
}

#[test]
fn replies_follow_the_specification_table() {
    let one_px = rgb(1, 1, [1, 2, 3]);
    // (control data, payload, kitty's reply)
    let table: Vec<(&str, Vec<u8>, Option<String>)> = vec![
        ("a=q,i=31,s=1,v=1,f=24", one_px.clone(), ok("i=31")),
        ("a=q,i=31,s=1,v=1,f=24,q=1", one_px.clone(), None),
        (
            "a=q,i=31,s=2,v=2,f=24",
            one_px.clone(),
            err("i=31", "ENODATA:Insufficient image data: 3 < 12"),
        ),
        ("a=q,i=31,s=2,v=2,f=24,q=2", one_px.clone(), None),
        // No id, no number: kitty never answers.
        ("a=T,f=24,s=1,v=1", one_px.clone(), None),
        ("a=t,f=24,s=1,v=1,i=4", one_px.clone(), ok("i=4")),
        ("a=t,f=24,s=1,v=1,i=4,p=3", one_px.clone(), ok("i=4,p=3")),
        ("a=t,f=24,s=1,v=1,i=4,q=1", one_px.clone(), None),
        (
            "a=p,i=99",
            vec![],
            err(
                "i=99",
                "ENOENT:Put command refers to non-existent image with id: 99 and number: 0",
            ),
        ),
        (
            "a=t,i=1,I=2",
            vec![],
            err(
                "i=1,I=2",
                "EINVAL:Must not specify both image id and image number",
            ),
        ),
        (
            "a=t,f=32,s=20000,v=1,i=5",
            vec![],
            err(
                "i=5",
                "EINVAL:Image too large, width or height greater than 10000",
            ),
        ),
        (
            "a=t,f=7,s=1,v=1,i=5",
            vec![],
            err("i=5", "EINVAL:Unknown image format: 7"),
        ),
        (
            "a=t,f=24,s=0,v=1,i=5",
            vec![],
            err("i=5", "EINVAL:Zero width/height not allowed"),
        ),
        // A 1 GB PNG announced up front.
        (
            "a=t,f=100,S=1000000000,i=6",
            vec![],
            err("i=6", "EINVAL:PNG data size too large"),
        ),
        (
            "a=t,t=f,f=100,i=7",
            b"/nonexistent/koi-picture.png".to_vec(),
            err(
                "i=7",
                "EBADF:Failed to open file for graphics transmission with error: [2] No such file or directory",
            ),
        ),
        // An image number without an id gets the first free id.
        ("a=t,f=24,s=1,v=1,I=13", one_px, ok("i=1,I=13")),
        // Deletes are never answered.
        ("a=d,d=A", vec![], None),
    ];
    let mut failures = Vec::new();
    for (control, payload, want) in table {
        let mut t = term(20, 5);
        let mut g = Graphics::default();
        let got = kitty(&mut g, &mut t, control, &payload);
        if got != want {
            failures.push(format!("{control}: got {got:?}, want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn chunks_compression_png_and_media_load() {
    let mut t = term(20, 5);
    let mut g = Graphics::default();
    // Two chunks: no reply until the last.
    let data = rgb(2, 1, [9, 9, 9]);
    assert_eq!(
        kitty(&mut g, &mut t, "a=t,f=24,s=2,v=1,i=9,m=1", &data[..3]),
        None
    );
    assert_eq!(kitty(&mut g, &mut t, "m=0", &data[3..]), ok("i=9"));
    // A truncated transfer: the last chunk comes short.
    assert_eq!(
        kitty(&mut g, &mut t, "a=t,f=24,s=2,v=1,i=10,m=1", &data[..3]),
        None
    );
    assert_eq!(
        g.kitty(&mut t, CELL, b"m=0"),
        err("i=10", "ENODATA:Insufficient image data: 3 < 6")
    );
    // zlib.
    let packed = miniz_oxide::deflate::compress_to_vec_zlib(&rgb(3, 3, [5, 6, 7]), 6);
    assert_eq!(
        kitty(&mut g, &mut t, "a=t,f=24,s=3,v=3,o=z,i=11", &packed),
        ok("i=11")
    );
    // PNG.
    let png = png_bytes(4, 2, [255, 0, 0, 255]);
    assert_eq!(kitty(&mut g, &mut t, "a=t,f=100,i=12", &png), ok("i=12"));
    let bad = kitty(&mut g, &mut t, "a=t,f=100,i=13", b"not a png at all");
    assert!(
        bad.as_deref()
            .is_some_and(|r| r.starts_with("\x1b_Gi=13;EBADPNG:")),
        "{bad:?}"
    );
    // A file stays, a temporary file named for the protocol is removed.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("picture.png");
    std::fs::write(&file, &png).unwrap();
    let path = file.to_str().unwrap().as_bytes();
    assert_eq!(
        kitty(&mut g, &mut t, "a=t,t=f,f=100,i=14", path),
        ok("i=14")
    );
    assert!(file.exists());
    let temp = dir.path().join("tty-graphics-protocol-1.png");
    std::fs::write(&temp, &png).unwrap();
    let temp_path = temp.to_str().unwrap().as_bytes();
    assert_eq!(
        kitty(&mut g, &mut t, "a=t,t=t,f=100,i=15", temp_path),
        ok("i=15")
    );
    assert!(!temp.exists(), "the temporary file is deleted");
    // Shared memory (a file under /dev/shm on Linux), removed after use.
    let name = format!("koi-test-{}", std::process::id());
    let shm = std::path::Path::new("/dev/shm").join(&name);
    if std::fs::write(&shm, rgb(1, 1, [1, 1, 1])).is_ok() {
        let reply = kitty(&mut g, &mut t, "a=t,t=s,f=24,s=1,v=1,i=16", name.as_bytes());
        assert_eq!(reply, ok("i=16"));
        assert!(!shm.exists(), "the shared memory object is unlinked");
    }
    // With an offset and size into a file.
    let raw = dir.path().join("raw");
    std::fs::write(&raw, [0, 0, 10, 20, 30, 0]).unwrap();
    let raw_path = raw.to_str().unwrap().as_bytes();
    assert_eq!(
        kitty(
            &mut g,
            &mut t,
            "a=t,t=f,f=24,s=1,v=1,O=2,S=3,i=17",
            raw_path
        ),
        ok("i=17")
    );
}

#[test]
fn bad_input_gets_no_panic_and_bounded_memory() {
    let mut t = term(20, 5);
    let mut g = Graphics::default();
    // Malformed control data and base64: kitty logs and answers nothing.
    for body in [
        &b"a=x"[..],
        b"i=abc",
        b"a=T,i=1;@@@@",
        b"",
        b"=,,,=;",
        b"i=99999999999",
    ] {
        assert_eq!(g.kitty(&mut t, CELL, body), None);
    }
    // A transfer that keeps sending past its declared size is refused.
    let chunk = vec![0u8; 3000];
    assert_eq!(
        kitty(&mut g, &mut t, "a=t,f=32,s=10,v=10,i=2,m=1", &chunk[..300]),
        None
    );
    assert_eq!(
        kitty(&mut g, &mut t, "m=1", &chunk),
        err("i=2", "EFBIG:Too much data")
    );
    // Pixels larger than the whole budget are refused before any arrive.
    let mut small = Graphics::new(1024);
    assert_eq!(
        kitty(&mut small, &mut t, "a=t,f=32,s=100,v=100,i=3", &[]),
        err("i=3", "EFBIG:Too much data")
    );
    assert_eq!(g.stats().images, 0);
}

#[test]
fn a_placement_covers_its_cells_and_moves_the_cursor() {
    let mut t = term(20, 6);
    let mut g = Graphics::default();
    // 20×20 pixels in 8×16 cells: 3 columns, 2 rows.
    let data = rgb(20, 20, [200, 0, 0]);
    assert_eq!(
        kitty(&mut g, &mut t, "a=T,f=24,s=20,v=20,i=1", &data),
        ok("i=1")
    );
    let cells = tile_cells(&g, &t);
    assert_eq!(cells, [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]);
    // Kitty: the column after the picture on its last row.
    assert_eq!(cursor(&t), (1, 3));
    // C=1 leaves the cursor alone; c/r scale into 4×3 cells; z is kept.
    feed(&mut t, b"\x1b[4;10H");
    assert_eq!(
        kitty(&mut g, &mut t, "a=p,i=1,p=7,c=4,r=3,C=1,z=-3", &[]),
        ok("i=1,p=7")
    );
    assert_eq!(cursor(&t), (3, 9));
    let tiles = g.tiles(&t);
    let scaled: Vec<_> = tiles.iter().filter(|t| t.z == -3).collect();
    assert_eq!(scaled.len(), 12);
    assert!(scaled.iter().all(|t| t.dest == [0.0, 0.0, 1.0, 1.0]));
    // Placing p=7 again moves it: the old cells show nothing.
    feed(&mut t, b"\x1b[1;15H");
    assert_eq!(kitty(&mut g, &mut t, "a=p,i=1,p=7,c=1,r=1,q=1", &[]), None);
    let moved: Vec<_> = g.tiles(&t).into_iter().filter(|t| t.z == 0).collect();
    assert_eq!(moved.len(), 7, "6 tiles of the first placement, 1 of p=7");
}

#[test]
fn a_picture_at_the_bottom_scrolls_the_screen_and_then_into_the_scrollback() {
    let mut t = term(10, 4);
    let mut g = Graphics::default();
    feed(&mut t, b"top\r\n\r\n\r\nbottom");
    feed(&mut t, b"\x1b[4;1H");
    // 3 rows tall at the last line: two lines scroll away.
    let data = rgb(8, 48, [0, 0, 255]);
    kitty(&mut g, &mut t, "a=T,f=24,s=8,v=48,i=1", &data);
    assert_eq!(tile_cells(&g, &t), [(1, 0), (2, 0), (3, 0)]);
    assert_eq!(t.grid().history_size(), 2);
    // Text pushes it into the scrollback with its lines…
    feed(&mut t, b"\r\n1\r\n2\r\n3\r\n4\r\n");
    assert!(tile_cells(&g, &t).is_empty());
    // …where scrolling back shows it again, as it was.
    t.scroll_display(Scroll::Delta(5));
    assert_eq!(tile_cells(&g, &t), [(1, 0), (2, 0), (3, 0)]);
    t.scroll_display(Scroll::Bottom);
    // Scrolled out of the scrollback entirely: collected.
    let mut big = term(10, 4);
    let mut g2 = Graphics::default();
    kitty(
        &mut g2,
        &mut big,
        "a=T,f=24,s=8,v=16",
        &rgb(8, 16, [1, 1, 1]),
    );
    assert_eq!(g2.stats().placements, 1);
    feed(&mut big, &b"\r\n".repeat(1100));
    g2.collect(&big);
    assert_eq!(g2.stats().placements, 0);
    assert_eq!(
        g2.stats().images,
        0,
        "an anonymous image goes with its last placement"
    );
}

#[test]
fn clear_erase_and_overwrite_cut_the_picture() {
    let mut t = term(10, 5);
    let mut g = Graphics::default();
    // 2 columns × 3 rows.
    kitty(
        &mut g,
        &mut t,
        "a=T,f=24,s=16,v=48,i=1",
        &rgb(16, 48, [0, 255, 0]),
    );
    assert_eq!(tile_cells(&g, &t).len(), 6);
    // EL on row 2 cuts that row only.
    feed(&mut t, b"\x1b[2;1H\x1b[2K");
    assert_eq!(tile_cells(&g, &t), [(0, 0), (0, 1), (2, 0), (2, 1)]);
    // Text written over a cell takes its place.
    feed(&mut t, b"\x1b[3;2HX");
    assert_eq!(tile_cells(&g, &t), [(0, 0), (0, 1), (2, 0)]);
    // ED 2 clears the rest.
    feed(&mut t, b"\x1b[2J");
    assert!(tile_cells(&g, &t).is_empty());
}

#[test]
fn resize_cuts_what_leaves_the_grid() {
    let mut t = term(10, 5);
    let mut g = Graphics::default();
    feed(&mut t, b"\x1b[1;6H");
    // 4 columns × 2 rows at column 6.
    kitty(
        &mut g,
        &mut t,
        "a=T,f=24,s=32,v=32,i=1,C=1",
        &rgb(32, 32, [9, 9, 9]),
    );
    assert_eq!(tile_cells(&g, &t).len(), 8);
    // Narrower: alacritty reflows, every tile stays on some cell or goes.
    t.resize(GridSize::new(7, 5));
    let after = tile_cells(&g, &t);
    assert!(after.len() <= 8);
    assert!(after.iter().all(|&(_, col)| col < 7));
    // Fewer rows with the cursor at the bottom push rows into history.
    let mut t2 = term(10, 5);
    let mut g2 = Graphics::default();
    kitty(
        &mut g2,
        &mut t2,
        "a=T,f=24,s=8,v=16,i=1",
        &rgb(8, 16, [9, 9, 9]),
    );
    feed(&mut t2, b"\x1b[5;1H");
    t2.resize(GridSize::new(10, 2));
    assert!(tile_cells(&g2, &t2).is_empty());
    t2.scroll_display(Scroll::Top);
    assert_eq!(tile_cells(&g2, &t2), [(0, 0)]);
}

/// Places image `id` (one cell) at 1-based (`row`, `col`) with z `z` and
/// placement id `p`.
fn place_at(
    g: &mut Graphics,
    t: &mut Term<VoidListener>,
    id: u32,
    p: u32,
    row: u32,
    col: u32,
    z: i32,
) {
    feed(t, format!("\x1b[{row};{col}H").as_bytes());
    let r = kitty(g, t, &format!("a=p,i={id},p={p},c=1,r=1,z={z},q=2"), &[]);
    assert_eq!(r, None);
}

/// A delete command, the cells still showing a picture, the images left.
type DeleteCase = (&'static str, &'static [(usize, usize)], usize);

#[test]
fn every_delete_removes_what_it_names() {
    let setup = || {
        let mut t = term(20, 6);
        let mut g = Graphics::default();
        for id in 1..=3 {
            kitty(
                &mut g,
                &mut t,
                &format!("a=t,f=24,s=1,v=1,i={id},q=2"),
                &rgb(1, 1, [0, 0, 0]),
            );
        }
        kitty(
            &mut g,
            &mut t,
            "a=t,f=24,s=1,v=1,I=40,q=2",
            &rgb(1, 1, [0, 0, 0]),
        );
        place_at(&mut g, &mut t, 1, 1, 1, 1, 0);
        place_at(&mut g, &mut t, 1, 2, 2, 5, 0);
        place_at(&mut g, &mut t, 2, 0, 3, 5, 5);
        place_at(&mut g, &mut t, 3, 0, 4, 8, -2);
        feed(&mut t, b"\x1b[6;1H");
        (t, g)
    };
    let at = |g: &Graphics, t: &Term<VoidListener>| tile_cells(g, t);
    // (delete, cells left, images left)
    let cases: &[DeleteCase] = &[
        ("d=a", &[], 4),
        ("d=A", &[], 1),
        ("d=i,i=1", &[(2, 4), (3, 7)], 4),
        ("d=I,i=1", &[(2, 4), (3, 7)], 3),
        ("d=i,i=1,p=2", &[(0, 0), (2, 4), (3, 7)], 4),
        ("d=p,x=5,y=2", &[(0, 0), (2, 4), (3, 7)], 4),
        ("d=q,x=5,y=3,z=5", &[(0, 0), (1, 4), (3, 7)], 4),
        ("d=q,x=5,y=3,z=4", &[(0, 0), (1, 4), (2, 4), (3, 7)], 4),
        ("d=x,x=5", &[(0, 0), (3, 7)], 4),
        ("d=y,y=4", &[(0, 0), (1, 4), (2, 4)], 4),
        ("d=z,z=-2", &[(0, 0), (1, 4), (2, 4)], 4),
        ("d=Z,z=-2", &[(0, 0), (1, 4), (2, 4)], 3),
        ("d=r,x=2,y=3", &[(0, 0), (1, 4)], 4),
        ("d=R,x=2,y=3", &[(0, 0), (1, 4)], 2),
        ("d=N,I=40", &[(0, 0), (1, 4), (2, 4), (3, 7)], 3),
    ];
    let mut failures = Vec::new();
    for (delete, cells, images) in cases {
        let (mut t, mut g) = setup();
        assert_eq!(kitty(&mut g, &mut t, &format!("a=d,{delete}"), &[]), None);
        let left = at(&g, &t);
        if left != *cells || g.stats().images != *images {
            failures.push(format!(
                "{delete}: cells {left:?} images {} (want {cells:?}, {images})",
                g.stats().images
            ));
        }
    }
    // d=c: the placement under the cursor.
    let (mut t, mut g) = setup();
    feed(&mut t, b"\x1b[3;5H");
    kitty(&mut g, &mut t, "a=d,d=c", &[]);
    if at(&g, &t) != [(0, 0), (1, 4), (3, 7)] {
        failures.push(format!("d=c: {:?}", at(&g, &t)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ten_thousand_placements_stay_bounded() {
    let mut t = term(20, 6);
    let mut g = Graphics::default();
    kitty(
        &mut g,
        &mut t,
        "a=t,f=24,s=1,v=1,i=1,q=2",
        &rgb(1, 1, [0, 0, 0]),
    );
    for n in 0..10_000 {
        let row = n % 6 + 1;
        let col = n % 20 + 1;
        feed(&mut t, format!("\x1b[{row};{col}H").as_bytes());
        kitty(&mut g, &mut t, "a=p,i=1,c=1,r=1,C=1,q=2", &[]);
    }
    // At most one placement per cell is alive; dead ones are collected.
    let stats = g.stats();
    assert!(stats.placements <= 2 * 20 * 6 + 64, "{stats:?}");
    assert_eq!(stats.images, 1);
    assert_eq!(stats.bytes, 4);
}

#[test]
fn the_budget_evicts_the_oldest_pictures() {
    let mut t = term(40, 10);
    // Room for two 16×16 RGBA pictures (1 KiB each).
    let mut g = Graphics::new(2048 + 100);
    for id in 1..=5 {
        kitty(
            &mut g,
            &mut t,
            &format!("a=T,f=24,s=16,v=16,i={id},q=2"),
            &rgb(16, 16, [id as u8, 0, 0]),
        );
    }
    let stats = g.stats();
    assert!(stats.bytes <= 2048 + 100, "{stats:?}");
    assert_eq!(stats.images, 2);
    assert_eq!(
        kitty(&mut g, &mut t, "a=p,i=1", &[]),
        err(
            "i=1",
            "ENOENT:Put command refers to non-existent image with id: 1 and number: 0"
        )
    );
    assert_eq!(kitty(&mut g, &mut t, "a=p,i=5,C=1", &[]), ok("i=5"));
}

#[test]
fn sixel_and_iterm_pictures_land_at_the_cursor() {
    let mut t = term(20, 6);
    let mut g = Graphics::default();
    feed(&mut t, b"\x1b[2;3H");
    // 16×12 pixels of red: 2 columns, 1 row; then the line below.
    g.sixel(
        &mut t,
        CELL,
        &[0, 1, 0],
        b"\"1;1;16;12#1;2;100;0;0#1!16~-!16~",
    );
    assert_eq!(tile_cells(&g, &t), [(1, 2), (1, 3)]);
    assert_eq!(cursor(&t), (2, 2));
    // A huge repeat is clamped, not allocated.
    g.sixel(&mut t, CELL, &[0, 1, 0], b"#1!999999999~");
    assert!(g.stats().bytes <= 64 * 1024 * 1024);
    // iTerm2: a 24×16 PNG two cells high (width auto keeps the aspect).
    let png = png_bytes(24, 16, [0, 0, 255, 255]);
    feed(&mut t, b"\x1b[5;1H");
    let body = format!("inline=1;height=2:{}", b64(&png));
    g.iterm(&mut t, CELL, body.as_bytes());
    let mut rows: Vec<_> = g
        .tiles(&t)
        .into_iter()
        .filter(|t| t.row >= 3)
        .map(|t| (t.row, t.col))
        .collect();
    rows.sort_unstable();
    assert_eq!(rows.len(), 12, "48×32 pixels: 6 columns, 2 rows: {rows:?}");
    // Not inline (a download) or not an image: nothing happens.
    let before = g.stats();
    g.iterm(&mut t, CELL, format!("name=eA==:{}", b64(&png)).as_bytes());
    g.iterm(&mut t, CELL, b"inline=1:AAAA");
    g.iterm(&mut t, CELL, b"inline=1");
    assert_eq!(g.stats(), before);
}

#[test]
fn a_full_reset_forgets_every_picture() {
    let mut t = term(20, 6);
    let mut g = Graphics::default();
    kitty(
        &mut g,
        &mut t,
        "a=T,f=24,s=1,v=1,i=1",
        &rgb(1, 1, [0, 0, 0]),
    );
    g.reset();
    assert_eq!(g.stats().images, 0);
    assert!(g.tiles(&t).is_empty());
    assert_eq!(t.screen_lines(), 6);
}

#[test]
fn unicode_placeholders_show_a_virtual_placement() {
    let mut t = term(20, 6);
    let mut g = Graphics::default();
    // A 32×16 picture in a 4×1 box (8×16 cells: it fills it exactly).
    assert_eq!(
        kitty(
            &mut g,
            &mut t,
            "a=t,f=24,s=32,v=16,i=42,q=2",
            &rgb(32, 16, [1, 2, 3])
        ),
        None
    );
    assert_eq!(
        kitty(&mut g, &mut t, "a=p,U=1,i=42,c=4,r=1", &[]),
        ok("i=42")
    );
    assert_eq!(
        cursor(&t),
        (0, 0),
        "a virtual placement does not move the cursor"
    );
    assert!(
        g.tiles(&t).is_empty(),
        "nothing shows until placeholders do"
    );
    // Row 0 with explicit row/column marks on the first cell only; the
    // others inherit (column + 1).
    feed(
        &mut t,
        "\x1b[2;3H\x1b[38;5;42m\u{10EEEE}\u{305}\u{305}\u{10EEEE}\u{10EEEE}\u{10EEEE}\x1b[39m"
            .as_bytes(),
    );
    let tiles = g.tiles(&t);
    let cells: Vec<_> = tiles.iter().map(|t| (t.row, t.col)).collect();
    assert_eq!(cells, [(1, 2), (1, 3), (1, 4), (1, 5)]);
    let sources: Vec<_> = tiles.iter().map(|t| t.source[0]).collect();
    assert_eq!(sources, [0.0, 0.25, 0.5, 0.75]);
    // A 24-bit colour with a third mark for the id's high byte.
    let id = 42 + (2 << 24);
    kitty(
        &mut g,
        &mut t,
        &format!("a=T,U=1,f=24,s=8,v=16,i={id},c=1,r=1,q=2"),
        &rgb(8, 16, [9, 9, 9]),
    );
    feed(
        &mut t,
        "\x1b[5;1H\x1b[38;2;0;0;42m\u{10EEEE}\u{305}\u{305}\u{30E}\x1b[39m".as_bytes(),
    );
    let high: Vec<_> = g.tiles(&t).into_iter().filter(|t| t.row == 4).collect();
    assert_eq!(high.len(), 1);
    // Deleting the image removes its virtual placement: the text stays,
    // the picture goes.
    kitty(&mut g, &mut t, "a=d,d=I,i=42", &[]);
    assert!(g.tiles(&t).iter().all(|t| t.row != 1));
}
