//! Panel behaviour: keys, approval safety, Esc semantics, layout bounds.

use ai_chat_engine::{EngineError, Event};
use render::{OverlayRect, Theme};

use super::wrap::line_width;
use super::*;
use alacritty_terminal::index::Side;
use koi_terminal::input::Mods;

pub(super) fn key(k: Key) -> KeyEvent {
    KeyEvent::press(k, Mods::NONE)
}

pub(super) fn open_overlay() -> Overlay {
    let mut o = Overlay::new(OverlayConfig::default());
    o.open();
    o.set_status("qwen", "ask");
    o
}

pub(super) fn type_text(o: &mut Overlay, s: &str) {
    for c in s.chars() {
        o.handle_key(&key(Key::Char(c)), None);
    }
}

fn approval_msg() -> Event {
    Event::ApprovalAsked {
        id: Some("call_1".into()),
        summary: "write src/lib.rs".into(),
        detail: "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-old\n+new".into(),
    }
}

#[test]
fn submit_shows_message_and_goes_busy() {
    let mut o = open_overlay();
    o.set_attachments(vec![
        Attachment {
            label: "screen".into(),
            included: true,
        },
        Attachment {
            label: "selection".into(),
            included: true,
        },
    ]);
    // Tab moves to the second chip, Ctrl+D drops it.
    assert_eq!(o.handle_key(&key(Key::Tab), None), OverlayAction::Redraw);
    o.handle_key(&KeyEvent::press(Key::Char('d'), Mods::CTRL), None);
    assert!(!o.attachments()[1].included);
    type_text(&mut o, "why?");
    assert_eq!(
        o.handle_key(&key(Key::Enter), None),
        OverlayAction::Submit("why?".into())
    );
    assert!(o.is_busy());
    assert_eq!(
        o.conversation().blocks().last(),
        Some(&Block::You {
            text: "why?".into(),
            attachments: vec!["screen".into()]
        })
    );
}

#[test]
fn esc_cancels_when_busy_then_closes() {
    let mut o = open_overlay();
    type_text(&mut o, "go");
    o.handle_key(&key(Key::Enter), None);
    assert_eq!(o.handle_key(&key(Key::Escape), None), OverlayAction::Cancel);
    assert!(o.is_open());
    assert_eq!(o.handle_key(&key(Key::Escape), None), OverlayAction::Close);
    assert!(!o.is_open());
    o.open();
    o.apply(&EngineError::Cancelled.to_event());
    assert!(!o.is_busy());
    assert_eq!(o.handle_key(&key(Key::Escape), None), OverlayAction::Close);
    assert_eq!(
        o.handle_key(&key(Key::Escape), None),
        OverlayAction::None,
        "closed"
    );
}

#[test]
fn approval_swallows_every_other_key() {
    let mut o = open_overlay();
    o.set_busy(true);
    assert!(o.apply(&approval_msg()));
    for k in [
        Key::Char('y'),
        Key::Char('A'),
        Key::Tab,
        Key::Backspace,
        Key::Char(' '),
        Key::F(1),
    ] {
        assert_eq!(
            o.handle_key(&key(k.clone()), None),
            OverlayAction::None,
            "{k:?}"
        );
    }
    let shift_enter = KeyEvent::press(Key::Enter, Mods::SHIFT);
    assert_eq!(o.handle_key(&shift_enter, None), OverlayAction::None);
    let ctrl_a = KeyEvent::press(Key::Char('a'), Mods::CTRL);
    assert_eq!(o.handle_key(&ctrl_a, None), OverlayAction::None);
    o.paste("sneaky\n");
    assert!(o.input().is_empty(), "paste is ignored during approval");
    assert!(o.approval().is_some());
    assert_eq!(o.handle_key(&key(Key::Enter), None), OverlayAction::Approve);
    assert!(o.approval().is_none());

    o.apply(&approval_msg());
    assert_eq!(
        o.handle_key(&key(Key::Char('a')), None),
        OverlayAction::ApproveForConversation
    );
    o.apply(&approval_msg());
    assert_eq!(o.handle_key(&key(Key::Escape), None), OverlayAction::Deny);
    assert!(o.is_open(), "denying does not close the panel");
}

#[test]
fn approval_visible_while_scrolled_with_coloured_diff() {
    let mut o = open_overlay();
    for i in 0..100 {
        o.apply(&Event::Token {
            text: format!("line {i}\n"),
        });
    }
    o.scroll(50);
    o.apply(&approval_msg());
    let layers = o.layers(120, 40, &Theme::default());
    let dump = o.text_dump();
    assert!(dump.contains("approve? write src/lib.rs"), "{dump}");
    assert!(dump.contains("Esc deny"));
    let pal = style::Palette::default();
    let lines = &layers[1].lines;
    let plus = lines
        .iter()
        .flat_map(|l| &l.spans)
        .find(|s| s.text == "+new")
        .map(|s| s.fg);
    assert_eq!(plus, Some(pal.success));
    let minus = lines
        .iter()
        .flat_map(|l| &l.spans)
        .find(|s| s.text == "-old")
        .map(|s| s.fg);
    assert_eq!(minus, Some(pal.error));
}

#[test]
fn streamed_answer_in_dump_and_copy_insert() {
    let mut o = open_overlay();
    type_text(&mut o, "list files");
    o.handle_key(&key(Key::Enter), None);
    o.apply(&Event::AssistantStart);
    for t in ["Use ", "this:\n```sh\nls ", "-la\n```\n"] {
        o.apply(&Event::Token { text: t.into() });
    }
    o.apply(&Event::Done);
    o.layers(100, 30, &Theme::default());
    let dump = o.text_dump();
    assert!(dump.contains("koi assistant · qwen · ask"), "{dump}");
    assert!(dump.contains("Use this:"), "{dump}");
    assert!(dump.contains("ls -la"), "{dump}");
    assert_eq!(
        o.handle_key(&KeyEvent::press(Key::Char('y'), Mods::CTRL), None),
        OverlayAction::InsertIntoTerminal("ls -la".into())
    );
    let copy = KeyEvent::press(Key::Char('C'), Mods::CTRL.with(Mods::SHIFT));
    assert_eq!(
        o.handle_key(&copy, None),
        OverlayAction::Copy("Use this:\n```sh\nls -la\n```\n".into())
    );
}

#[test]
fn typing_while_busy_interrupts_and_submits() {
    let mut o = open_overlay();
    type_text(&mut o, "first");
    o.handle_key(&key(Key::Enter), None);
    o.apply(&Event::ToolStart {
        id: "1".into(),
        name: "shell".into(),
        args_preview: "sleep 9".into(),
        summary: "sleep 9".into(),
    });
    type_text(&mut o, "second");
    assert_eq!(
        o.handle_key(&key(Key::Enter), None),
        OverlayAction::Submit("second".into())
    );
    assert!(o.is_busy());
    let blocks = o.conversation().blocks();
    assert!(matches!(
        &blocks[1],
        Block::Tool { state: ToolState::Failed(e), .. } if e == "interrupted"
    ));
    assert_eq!(blocks[2], Block::Notice("interrupted".into()));
    assert!(matches!(&blocks[3], Block::You { text, .. } if text == "second"));
}

#[test]
fn slash_commands() {
    let mut o = open_overlay();
    type_text(&mut o, "/model  gpt-x ");
    assert_eq!(
        o.handle_key(&key(Key::Enter), None),
        OverlayAction::Slash(SlashCommand::Model(Some("gpt-x".into())))
    );
    type_text(&mut o, "/resume");
    assert_eq!(
        o.handle_key(&key(Key::Enter), None),
        OverlayAction::Slash(SlashCommand::Resume(None))
    );
    type_text(&mut o, "/memory edit global");
    assert_eq!(
        o.handle_key(&key(Key::Enter), None),
        OverlayAction::Slash(SlashCommand::Memory(ai_chat_engine::MemoryCommand::Edit(
            ai_chat_engine::MemoryScope::Global
        )))
    );
    type_text(&mut o, "/bogus");
    assert_eq!(o.handle_key(&key(Key::Enter), None), OverlayAction::Redraw);
    assert!(matches!(
        o.conversation().blocks().last(),
        Some(Block::Error(e)) if e.contains("/bogus")
    ));
    assert!(!o.is_busy(), "slash commands do not start a turn");
}

#[test]
fn layers_fit_inside_grid_at_every_size() {
    let theme = Theme::default();
    for position in [Position::Right, Position::Bottom] {
        let mut o = Overlay::new(OverlayConfig {
            position,
            ..OverlayConfig::default()
        });
        o.open();
        o.set_attachments(vec![Attachment {
            label: "screen".into(),
            included: true,
        }]);
        o.apply(&Event::Token {
            text: "答え: **bold** `code`\n```rust\nfn x() {}\n```".into(),
        });
        o.paste("multi\nline 漢字 input");
        for (cols, rows) in [
            (10, 4),
            (1, 1),
            (2, 2),
            (3, 3),
            (17, 5),
            (80, 24),
            (300, 100),
        ] {
            for approval in [false, true] {
                if approval {
                    o.apply(&approval_msg());
                } else {
                    o.set_approval(None);
                }
                let layers = o.layers(cols, rows, &theme);
                assert_eq!(layers.len(), 2);
                for layer in &layers {
                    let OverlayRect::Cells {
                        col,
                        row,
                        cols: w,
                        rows: h,
                    } = layer.rect
                    else {
                        panic!("cells expected");
                    };
                    assert!(
                        col + w <= cols && row + h <= rows,
                        "{cols}x{rows}: {:?}",
                        layer.rect
                    );
                    assert!(layer.lines.len() <= h, "{cols}x{rows}");
                    for line in &layer.lines {
                        assert!(line_width(line) <= w, "{cols}x{rows}: {line:?}");
                    }
                }
                if let Some((c, r)) = o.cursor_cell(cols, rows) {
                    assert!(c < cols && r < rows);
                }
            }
        }
    }
    let mut o = Overlay::new(OverlayConfig::default());
    o.open();
    let layers = o.layers(200, 50, &theme);
    let OverlayRect::Cells { cols, .. } = layers[0].rect else {
        panic!("cells expected");
    };
    assert_eq!(cols, 90, "45% of 200 columns");
    assert!(o.layers(0, 0, &theme).is_empty());
}

#[test]
fn cursor_cell_tracks_input() {
    let mut o = open_overlay();
    o.layers(100, 30, &Theme::default());
    let (c0, r0) = o.cursor_cell(100, 30).expect("cursor");
    type_text(&mut o, "abc");
    let (c1, r1) = o.cursor_cell(100, 30).expect("cursor");
    assert_eq!((c1, r1), (c0 + 3, r0));
    // The input row in the dump holds the typed text at the cursor's row.
    let dump = o.text_dump();
    let row_text = dump.lines().nth(r1 - 1).unwrap_or("");
    assert_eq!(row_text, "› abc");
    assert_eq!(c0, 55 + 1 + 2, "panel at col 55, border margin, prompt");
}

#[test]
fn random_keys_never_panic_and_always_fit() {
    let theme = Theme::default();
    let keys = [
        Key::Char('x'),
        Key::Char('漢'),
        Key::Char('/'),
        Key::Char('a'),
        Key::Backspace,
        Key::Delete,
        Key::Left,
        Key::Right,
        Key::Up,
        Key::Down,
        Key::Home,
        Key::End,
        Key::Enter,
        Key::Tab,
        Key::PageUp,
        Key::PageDown,
        Key::Escape,
    ];
    let mods = [Mods::NONE, Mods::SHIFT, Mods::CTRL, Mods::ALT];
    let mut o = open_overlay();
    o.set_attachments(vec![Attachment {
        label: "screen".into(),
        included: true,
    }]);
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for step in 0..800 {
        o.open();
        let ev = KeyEvent::press(keys[next(keys.len())].clone(), mods[next(mods.len())]);
        o.handle_key(&ev, None);
        match next(14) {
            0 => o.paste("pa\r\nste é\u{301}"),
            1 => {
                o.apply(&Event::Token {
                    text: "tok `c` 😀\n".into(),
                });
            }
            2 => {
                o.apply(&approval_msg());
            }
            3 => o.set_preedit(Some("にほ".into())),
            4 => o.scroll(3),
            5 => {
                let kind = SelectionKind::from_clicks(next(4) as u8);
                o.press(next(130), next(60), Side::Left, kind);
            }
            6 => {
                o.drag(next(130), next(60), Side::Right);
            }
            7 => {
                o.release();
            }
            _ => {}
        }
        let (cols, rows) = (1 + next(120), 1 + next(50));
        for layer in o.layers(cols, rows, &theme) {
            if let OverlayRect::Cells {
                cols: w, rows: h, ..
            } = layer.rect
            {
                assert!(
                    layer.lines.len() <= h,
                    "step {step} {cols}x{rows} h={h} n={}",
                    layer.lines.len()
                );
                for l in &layer.lines {
                    assert!(line_width(l) <= w, "step {step} {cols}x{rows}: {l:?}");
                }
            }
        }
        if let Some((c, r)) = o.cursor_cell(cols, rows) {
            assert!(c < cols && r < rows, "step {step}");
        }
    }
}

#[test]
fn the_title_names_the_sandbox_after_the_spinner() {
    let mut o = open_overlay();
    o.set_sandbox("sandbox: landlock v7");
    o.layers(120, 30, &Theme::default());
    let dump = o.text_dump();
    assert!(
        dump.contains("koi assistant · qwen · ask · sandbox: landlock v7"),
        "{dump}"
    );
    type_text(&mut o, "hi");
    o.handle_key(&key(Key::Enter), None);
    o.layers(120, 30, &Theme::default());
    let dump = o.text_dump();
    // The first row is the title (its name may have gone to make room).
    let title = dump.lines().next().unwrap_or("");
    let (working, sandbox) = (title.find("working"), title.find("sandbox:"));
    assert!(working.is_some() && working < sandbox, "{title}");
}

/// The words of a title, separators, the ellipsis and the spinner (whose
/// frame moves on between two draws) left out.
fn title_words(text: &str) -> Vec<&str> {
    let spinner = |w: &str| w.chars().all(|c| ('\u{2800}'..='\u{28ff}').contains(&c));
    text.split(' ')
        .filter(|w| !w.is_empty() && *w != "·" && *w != render::ELLIPSIS && !spinner(w))
        .collect()
}

#[test]
fn the_title_shortens_by_parts_and_keeps_the_sandbox_from_60_columns() {
    let labels = [
        "sandbox: landlock v7",
        "sandbox unavailable: Landlock is not supported by this kernel (5.4)",
    ];
    for sandbox in labels {
        for busy in [false, true] {
            let mut o = Overlay::new(OverlayConfig {
                position: Position::Bottom,
                ..OverlayConfig::default()
            });
            o.open();
            o.set_status("qwen2.5-coder:32b (demo)", "workspace-write");
            o.set_sandbox(sandbox);
            o.layers(250, 30, &Theme::default());
            if busy {
                type_text(&mut o, "hi");
                o.handle_key(&key(Key::Enter), None);
            }
            let full = title_of(&mut o, 250);
            assert!(!full.ends_with(render::ELLIPSIS), "{full}");
            assert!(full.starts_with("koi assistant · "), "{full}");
            let source = title_words(&full);
            for panel in 30..=200 {
                let title = title_of(&mut o, panel);
                // The panel's border takes a column on each side.
                assert!(
                    super::wrap::str_width(&title) <= panel - 2,
                    "{panel}: {title:?}"
                );
                for word in title_words(&title) {
                    assert!(
                        source.contains(&word),
                        "{panel}: cut word {word:?} in {title:?}"
                    );
                }
                assert_eq!(
                    title.ends_with(render::ELLIPSIS),
                    title != full,
                    "{panel}: {title:?}"
                );
                let state = sandbox.split(':').next().unwrap_or_default();
                if panel >= 60 {
                    assert!(title.contains(state), "{panel}: {title:?} lost {state:?}");
                }
                if busy && panel >= 60 && sandbox.len() < 30 {
                    assert!(title.contains("working"), "{panel}: {title:?}");
                }
            }
        }
    }
}

/// The title row of the panel on a `cols`-wide grid (the panel docked at
/// the bottom is as wide as the grid).
fn title_of(o: &mut Overlay, cols: usize) -> String {
    o.layers(cols, 30, &Theme::default());
    o.text_dump().lines().next().unwrap_or_default().to_owned()
}
