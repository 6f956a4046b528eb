//! Renders a frame that exercises every feature into a PNG:
//! `cargo run -p render --example showcase -- out.png [size_pt]`.

use render::{
    Border, Cell, CellFlags, Color, CursorShape, CursorSpec, FontConfig, Frame, Gpu, NamedColor,
    OverlayLayer, OverlayRect, Renderer, Rgb, SelectionSpan, Span, StyledLine, Theme,
    UnderlineStyle, OFFSCREEN_FORMAT,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = args.next().unwrap_or_else(|| "showcase.png".into());
    let size_pt = args.next().and_then(|s| s.parse().ok()).unwrap_or(12.0);
    let gpu = Gpu::new_headless()?;
    let font = FontConfig {
        family: None,
        size_pt,
        scale_factor: 1.0,
        ..FontConfig::default()
    };
    let mut renderer = Renderer::new(&gpu, font, Theme::default(), OFFSCREEN_FORMAT)?;
    renderer.set_padding(6);
    let frame = showcase(64, 22);
    let (cw, ch) = renderer.cell_size();
    let (w, h) = (64 * cw + 12, 22 * ch + 12);
    renderer.render_to_image(&frame, w, h)?.save_png(&out)?;
    println!(
        "{out}: {w}x{h}, cell {cw}x{ch}, adapter {}",
        gpu.adapter_summary()
    );
    Ok(())
}

fn showcase(cols: usize, rows: usize) -> Frame {
    let mut f = Frame::blank(cols, rows);
    let plain = Cell::new(' ');
    let styled = |flags: CellFlags, fg: Color| Cell {
        flags,
        fg,
        ..Cell::new(' ')
    };
    f.write_str(0, 0, "plain ", &plain);
    f.write_str(
        6,
        0,
        "bold ",
        &styled(CellFlags::BOLD, Color::Named(NamedColor::Red)),
    );
    f.write_str(
        11,
        0,
        "italic ",
        &styled(CellFlags::ITALIC, Color::Named(NamedColor::Green)),
    );
    let bi = CellFlags::BOLD | CellFlags::ITALIC;
    f.write_str(
        18,
        0,
        "bold-italic ",
        &styled(bi, Color::Named(NamedColor::Yellow)),
    );
    f.write_str(
        30,
        0,
        "dim ",
        &styled(CellFlags::DIM, Color::Named(NamedColor::Foreground)),
    );
    f.write_str(
        34,
        0,
        "inverse",
        &styled(CellFlags::INVERSE, Color::Named(NamedColor::Blue)),
    );
    f.write_str(
        42,
        0,
        "strike",
        &styled(CellFlags::STRIKEOUT, Color::Named(NamedColor::Cyan)),
    );
    for (i, style) in [
        UnderlineStyle::Single,
        UnderlineStyle::Double,
        UnderlineStyle::Curly,
        UnderlineStyle::Dotted,
        UnderlineStyle::Dashed,
    ]
    .into_iter()
    .enumerate()
    {
        let cell = Cell {
            underline: style,
            underline_color: Some(Color::Named(NamedColor::Magenta)),
            ..Cell::new(' ')
        };
        f.write_str(i * 9, 1, &format!("{style:?}"), &cell);
    }
    for i in 0..cols {
        if let Some(c) = f.cell_mut(i, 2) {
            c.bg = Color::Indexed((16 + i * 3) as u8);
        }
        if let Some(c) = f.cell_mut(i, 3) {
            let v = (i * 255 / cols) as u8;
            c.bg = Color::Rgb(Rgb::new(v, 64, 255 - v));
        }
    }
    f.write_str(0, 4, "CJK: 你好，世界  emoji: 😀🚀👍🏽  a你b", &plain);
    f.write_str(
        0,
        5,
        "┌──┬──┐ ╔══╦══╗ ┏━━┳━━┓ ╭──╮ ░▒▓█ ▀▄▌▐ ⣿⠿⡇ ╱╲╳",
        &plain,
    );
    f.write_str(
        0,
        6,
        "│  │  │ ║  ║  ║ ┃  ┃  ┃ │  │ ▁▂▃▄▅▆▇█ ▖▗▘▙▚▛▜▝▞▟",
        &plain,
    );
    f.write_str(0, 7, "├──┼──┤ ╠══╬══╣ ┣━━╋━━┫ ╰──╯ ┄┅┆┇┈┉┊┋ ╌╍╎╏", &plain);
    f.write_str(
        0,
        8,
        "└──┴──┘ ╚══╩══╝ ┗━━┻━━┛ e\u{301} a\u{308} ✔️ ❤️",
        &plain,
    );
    let seg = |bg: NamedColor| Cell {
        bg: Color::Named(bg),
        fg: Color::Named(NamedColor::Black),
        ..Cell::new(' ')
    };
    let arrow = |fg: NamedColor, bg: NamedColor| Cell {
        fg: Color::Named(fg),
        bg: Color::Named(bg),
        ..Cell::new(' ')
    };
    f.write_str(40, 8, " ~/koi ", &seg(NamedColor::Blue));
    f.write_str(
        47,
        8,
        "\u{E0B0}",
        &arrow(NamedColor::Blue, NamedColor::Green),
    );
    f.write_str(48, 8, " main ", &seg(NamedColor::Green));
    f.write_str(
        54,
        8,
        "\u{E0B0}\u{E0B1}",
        &arrow(NamedColor::Green, NamedColor::Background),
    );
    f.write_str(0, 9, "$ cargo test -p render   # selected", &plain);
    f.selection.push(SelectionSpan {
        row: 9,
        start_col: 2,
        end_col: 23,
    });
    f.write_str(0, 10, "block", &plain);
    f.cursor = Some(CursorSpec {
        col: 6,
        row: 10,
        shape: CursorShape::Block,
        focused: true,
    });
    f.overlays.push(OverlayLayer {
        rect: OverlayRect::Cells {
            col: 20,
            row: 12,
            cols: 40,
            rows: 8,
        },
        background: Color::Rgb(Rgb::new(30, 32, 48)),
        border: Some(Border {
            color: Color::Rgb(Rgb::new(120, 140, 220)),
            width_px: 2,
        }),
        padding_px: 6,
        lines: vec![
            StyledLine::new(vec![
                Span {
                    bold: true,
                    ..Span::new("koi ", Color::Named(NamedColor::Cyan))
                },
                Span::new(
                    "overlay with styled spans",
                    Color::Named(NamedColor::Foreground),
                ),
            ]),
            StyledLine::new(vec![Span {
                bg: Some(Color::Named(NamedColor::Red)),
                ..Span::new("error banner 错误", Color::Named(NamedColor::BrightWhite))
            }]),
        ],
        pictures: Vec::new(),
    });
    f
}
