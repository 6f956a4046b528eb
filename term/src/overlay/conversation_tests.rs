//! Unit tests of the conversation view: streaming, tools, reasoning,
//! scrolling and layout caching.

use super::*;
use crate::overlay::style::line_text;

fn dump(c: &mut Conversation, width: usize) -> Vec<String> {
    let pal = Palette::default();
    c.lines(width, &pal).iter().map(line_text).collect()
}

#[test]
fn tokens_stream_into_one_block() {
    let mut c = Conversation::new();
    c.push(Block::You {
        text: "hi".into(),
        attachments: vec!["screen".into()],
    });
    c.apply(&Event::AssistantStart);
    for t in ["Hel", "lo **wor", "ld**"] {
        assert!(c.apply(&Event::Token { text: t.into() }));
    }
    c.apply(&Event::Done);
    assert_eq!(c.blocks().len(), 2);
    assert_eq!(c.latest_answer(), Some("Hello **world**"));
    assert_eq!(
        dump(&mut c, 40),
        ["You", "  hi", "  + screen", "", "koi", "  Hello world"]
    );
    assert!(c.is_cached(0, 40) && c.is_cached(1, 40));
    c.apply(&Event::Token { text: "!".into() });
    assert!(c.is_cached(0, 40), "earlier blocks keep their layout");
    assert!(!c.is_cached(1, 40), "the growing block is re-laid");
}

#[test]
fn reasoning_first_sits_above_the_labelled_answer() {
    let mut c = Conversation::new();
    c.apply(&Event::AssistantStart);
    assert!(
        dump(&mut c, 40).is_empty(),
        "no label before the first token"
    );
    c.apply(&Event::Reasoning {
        text: "weigh it".into(),
    });
    c.apply(&Event::Token {
        text: "Answer.".into(),
    });
    c.apply(&Event::Done);
    assert_eq!(
        dump(&mut c, 40),
        ["▸ reasoning (8 chars)", "", "koi", "  Answer."]
    );
}

#[test]
fn tool_start_then_done_or_failed() {
    let mut c = Conversation::new();
    // The line shows the engine's summary, not the arguments' JSON.
    c.apply(&Event::ToolStart {
        id: "1".into(),
        name: "fs_write".into(),
        args_preview: r#"{"path":"koi-demo.txt","content":"hi\n"}"#.into(),
        summary: "koi-demo.txt (1 line)".into(),
    });
    c.apply(&Event::ToolStart {
        id: "2".into(),
        name: "shell".into(),
        args_preview: "make".into(),
        summary: "make".into(),
    });
    let lines = dump(&mut c, 40);
    assert_eq!(lines[0], "⠋ fs_write koi-demo.txt (1 line)");
    assert!(c.tick());
    assert!(dump(&mut c, 40)[0].starts_with('⠙'), "spinner advances");
    c.apply(&Event::ToolDone {
        id: "1".into(),
        preview: "120 lines".into(),
    });
    c.apply(&Event::ToolFailed {
        id: "2".into(),
        error: "denied".into(),
    });
    assert_eq!(
        dump(&mut c, 40),
        ["✓ fs_write → 120 lines", "✗ shell: denied"]
    );
    assert!(!c.tick(), "nothing running, nothing to redraw");
}

#[test]
fn progress_is_the_running_tools_status_until_it_ends() {
    let mut c = Conversation::new();
    c.apply(&Event::ToolStart {
        id: "m".into(),
        name: "mcp__s__slow".into(),
        args_preview: "{}".into(),
        summary: String::new(),
    });
    assert!(c.apply(&Event::ToolProgress {
        id: "m".into(),
        text: "2/5".into(),
    }));
    let line = dump(&mut c, 60)[0].clone();
    assert!(line.ends_with("mcp__s__slow · 2/5"), "{line:?}");
    c.apply(&Event::ToolProgress {
        id: "m".into(),
        text: "3/5".into(),
    });
    assert!(
        dump(&mut c, 60)[0].ends_with("· 3/5"),
        "the latest replaces the last"
    );
    assert!(!c.apply(&Event::ToolProgress {
        id: "other".into(),
        text: "1/2".into(),
    }));
    c.apply(&Event::ToolDone {
        id: "m".into(),
        preview: "done".into(),
    });
    assert_eq!(dump(&mut c, 60), ["✓ mcp__s__slow → done"]);
}

#[test]
fn errors_cancel_and_reasoning_fold() {
    let mut c = Conversation::new();
    c.apply(&Event::Reasoning {
        text: "think".into(),
    });
    c.apply(&Event::Reasoning { text: "ing".into() });
    c.apply(&Event::ToolStart {
        id: "x".into(),
        name: "grep".into(),
        args_preview: String::new(),
        summary: String::new(),
    });
    c.apply(&Event::AssistantStart);
    c.apply(&ai_chat_engine::EngineError::Network("reset".into()).to_event());
    let lines = dump(&mut c, 60);
    assert_eq!(lines[0], "▸ reasoning (8 chars)");
    assert_eq!(lines[1], "✗ grep: interrupted");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("✗ network error: reset")
    );
    let pal = Palette::default();
    let red = c.lines(60, &pal).last().map(|l| l.spans[0].fg);
    assert_eq!(red, Some(pal.error));
    c.toggle_reasoning();
    assert_eq!(&dump(&mut c, 60)[..2], ["▾ reasoning", "  thinking"]);
    c.apply(&ai_chat_engine::EngineError::Cancelled.to_event());
    assert_eq!(c.blocks().last(), Some(&Block::Notice("cancelled".into())));
    assert!(!c.apply(&Event::Usage {
        input: 5,
        cached_input: 1,
        output: 2,
        reasoning: 0
    }));
    assert_eq!(c.usage(), Some((5, 1, 2)));
}

#[test]
fn scroll_is_clamped_to_content() {
    let pal = Palette::default();
    let mut c = Conversation::new();
    c.apply(&Event::Token {
        text: (0..20).map(|i| format!("l{i}\n")).collect(),
    });
    let bottom = c.view(20, 5, &pal);
    assert_eq!(line_text(&bottom[4]), "  l19");
    c.scroll(3);
    assert_eq!(line_text(&c.view(20, 5, &pal)[4]), "  l16");
    c.scroll(1000);
    let top = c.view(20, 5, &pal);
    assert_eq!(line_text(&top[0]), "koi");
    assert_eq!(c.scroll_offset(), 16);
    c.scroll(-1000);
    assert_eq!(c.scroll_offset(), 0);
}

#[test]
fn a_subagent_nests_under_its_call_and_collapses_when_done() {
    use ai_chat_engine::SubagentStep;
    let mut c = Conversation::new();
    c.apply(&Event::ToolStart {
        id: "e1".into(),
        name: "explore".into(),
        args_preview: String::new(),
        summary: "how is config loaded?".into(),
    });
    let step = |step| Event::Subagent {
        parent: "e1".into(),
        step,
    };
    assert!(c.apply(&step(SubagentStep::ToolStart {
        id: "r1".into(),
        name: "fs_read".into(),
        summary: "src/config.rs".into(),
    })));
    c.apply(&step(SubagentStep::ToolStart {
        id: "w1".into(),
        name: "fs_write".into(),
        summary: "x".into(),
    }));
    c.apply(&step(SubagentStep::ToolFailed {
        id: "w1".into(),
        error: "refused".into(),
    }));
    let lines = dump(&mut c, 60);
    let at = lines.iter().position(|l| l.contains("explore")).unwrap();
    assert_eq!(lines[at + 1], "  │ · fs_read src/config.rs");
    assert_eq!(lines[at + 2], "  │ ✗ fs_write x");
    c.apply(&Event::ToolDone {
        id: "e1".into(),
        preview: "explore: 2 rounds, 2 tool calls".into(),
    });
    let lines = dump(&mut c, 60);
    assert_eq!(lines, ["✓ explore → explore: 2 rounds, 2 tool calls"]);
}

#[test]
fn a_named_picture_takes_rows_in_its_answer_and_scrolls_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::File::create(dir.path().join("p.png")).unwrap();
    let mut enc = png::Encoder::new(file, 40, 60);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header().unwrap();
    writer.write_image_data(&[90; 40 * 60 * 3]).unwrap();
    drop(writer);
    let mut c = Conversation::new();
    c.set_picture_context(dir.path(), (10, 20));
    c.push(Block::Assistant("Look: ![p](p.png)".into()));
    let pal = Palette::default();
    // The answer's line, a gap, three rows of 20 px for 60 px, the caption.
    assert_eq!(
        dump(&mut c, 30),
        ["koi", "  Look: p (p.png)", "", "  ", "  ", "  ", "  p.png"]
    );
    c.view(30, 7, &pal);
    let shown = c.shown_pictures();
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0].row, 3);
    assert_eq!((shown[0].picture.cols, shown[0].picture.rows), (4, 3));
    // A 2-line view of the bottom shows its last row: its box starts two
    // lines above the view.
    c.view(30, 2, &pal);
    assert_eq!(c.shown_pictures()[0].row, -2);
    // Scrolled back past it: not shown.
    c.scroll(5);
    c.view(30, 2, &pal);
    assert!(c.shown_pictures().is_empty());
    // A new cell size lays the answer out again.
    c.set_picture_context(dir.path(), (10, 30));
    assert!(!c.is_cached(0, 30));
}
