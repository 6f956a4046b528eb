use std::path::Path;
use std::time::Duration;

use super::*;
use koi_terminal::input::{Key, Mods};

fn parse(text: &str) -> Result<Loaded, ConfigError> {
    Config::parse(text, Path::new("koi.toml"))
}

#[test]
fn shipped_default_parses_cleanly_and_matches_the_built_in_defaults() {
    let loaded = parse(DEFAULT_TOML).expect("assets/koi.toml parses");
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert_eq!(loaded.config, Config::default());
    assert_eq!(loaded.config.theme(), Config::default().theme());
}

#[test]
fn empty_file_is_the_default() {
    let loaded = parse("").unwrap();
    assert_eq!(loaded.config, Config::default());
    assert_eq!(loaded.bindings, Bindings::default());
}

#[test]
fn colours_override_the_theme() {
    let loaded =
        parse("[colors]\nbackground = \"#102030\"\n[colors.normal]\nred = \"0xff0000\"\n").unwrap();
    let theme = loaded.config.theme();
    assert_eq!(theme.background, render::Rgb::new(0x10, 0x20, 0x30));
    assert_eq!(theme.palette[1], render::Rgb::new(0xff, 0, 0));
    assert_eq!(theme.foreground, render::Theme::default().foreground);
}

#[test]
fn unknown_keys_are_warnings_not_errors() {
    let loaded =
        parse("bogus = 1\n[font]\nsize = 14.0\nsizes = 3\n[colors.normal]\npurple = \"#000000\"\n")
            .unwrap();
    assert_eq!(loaded.config.font.size, 14.0);
    assert_eq!(loaded.warnings.len(), 3, "{:?}", loaded.warnings);
    for key in ["`bogus`", "`font.sizes`", "`colors.normal.purple`"] {
        assert!(
            loaded.warnings.iter().any(|w| w.contains(key)),
            "{key}: {:?}",
            loaded.warnings
        );
    }
}

#[test]
fn shell_integration_and_the_prefix_can_be_set_without_a_program() {
    let default = parse("").unwrap().config;
    assert!(default.shell.integration);
    assert_eq!(default.shell.suggest_prefix, "# ");
    assert_eq!(default.shell_argv(), None);
    let off = parse("[shell]\nintegration = false\nsuggest_prefix = \"\"\n").unwrap();
    assert!(off.warnings.is_empty(), "{:?}", off.warnings);
    assert!(!off.config.shell.integration);
    assert_eq!(off.config.shell.suggest_prefix, "");
    let zsh = parse("[shell]\nprogram = \"zsh\"\nargs = [\"-l\"]\n").unwrap();
    assert_eq!(
        zsh.config.shell_argv(),
        Some(vec!["zsh".into(), "-l".into()])
    );
}

#[test]
fn ai_table_is_passed_through_untouched() {
    let loaded = parse("[ai]\nprovider = \"openai\"\nanything = { nested = true }\n").unwrap();
    assert!(loaded.warnings.is_empty());
    let ai = loaded.config.ai.unwrap();
    assert_eq!(ai["provider"].as_str(), Some("openai"));
}

#[test]
fn bad_input_is_a_clear_error() {
    let cases: &[(&str, &str)] = &[
        ("[font\nsize = 1", "koi.toml"),
        ("[font]\nsize = \"big\"", "size"),
        ("[font]\nsize = 1000.0", "font.size"),
        ("[colors]\nbackground = \"red\"", "#rrggbb"),
        ("[colors]\nbackground = \"#12345\"", "#rrggbb"),
        ("[window]\nopacity = 2.0", "opacity"),
        ("[window]\ncolumns = 0", "columns"),
        ("[cursor]\nstyle = \"triangle\"", "triangle"),
        ("[scrolling]\nhistory = -5", "history"),
        ("[scrolling]\nhistory = 99999999999", "history"),
        ("[shell]\nprogram = \"\"", "shell.program"),
        ("[shell]\nargs = [\"-l\"]", "program"),
        ("[shell]\nsuggest_prefix = \"\\u0007\"", "suggest_prefix"),
        ("[keybindings]\n\"Ctrl+Shift+Q\" = \"explode\"", "explode"),
        ("[keybindings]\n\"Hyper+Q\" = \"copy\"", "Hyper"),
        ("[keybindings]\n\"Ctrl+F99\" = \"copy\"", "F99"),
        ("font = 3", "font"),
        ("\u{0}", "koi.toml"),
    ];
    for (text, needle) in cases {
        let err = parse(text)
            .err()
            .unwrap_or_else(|| panic!("{text:?} should fail"));
        let msg = err.one_line();
        assert!(msg.contains(needle), "{text:?}: {msg}");
        assert!(!msg.contains('\n'));
    }
}

#[test]
fn default_bindings() {
    let b = Bindings::default();
    #[cfg(not(target_os = "macos"))]
    {
        let cs = Mods::CTRL.with(Mods::SHIFT);
        assert_eq!(b.action_for(cs, &Key::Char('C')), Some(Action::Copy));
        assert_eq!(b.action_for(cs, &Key::Char('v')), Some(Action::Paste));
        assert_eq!(
            b.action_for(cs, &Key::Char('L')),
            Some(Action::ToggleAssistant)
        );
        assert_eq!(
            b.action_for(Mods::CTRL, &Key::Char('=')),
            Some(Action::IncreaseFontSize)
        );
        assert_eq!(
            b.action_for(Mods::CTRL, &Key::Char('-')),
            Some(Action::DecreaseFontSize)
        );
        assert_eq!(
            b.action_for(Mods::CTRL, &Key::Char('0')),
            Some(Action::ResetFontSize)
        );
        // Plain Ctrl+C is the shell's.
        assert_eq!(b.action_for(Mods::CTRL, &Key::Char('c')), None);
    }
    assert_eq!(
        b.action_for(Mods::SHIFT, &Key::PageUp),
        Some(Action::ScrollPageUp)
    );
    assert_eq!(b.action_for(Mods::NONE, &Key::PageUp), None);
}

#[test]
fn users_can_rebind_and_unbind() {
    let loaded = parse("[keybindings]\n\"Ctrl+Shift+L\" = \"none\"\n\"Alt+Space\" = \"toggle_assistant\"\n\"Ctrl++\" = \"reset-font-size\"\n\"Shift+F5\" = \"Copy\"\n").unwrap();
    let b = &loaded.bindings;
    assert_eq!(
        b.action_for(Mods::CTRL.with(Mods::SHIFT), &Key::Char('l')),
        None
    );
    assert_eq!(
        b.action_for(Mods::ALT, &Key::Char(' ')),
        Some(Action::ToggleAssistant)
    );
    assert_eq!(
        b.action_for(Mods::CTRL, &Key::Char('+')),
        Some(Action::ResetFontSize)
    );
    assert_eq!(b.action_for(Mods::SHIFT, &Key::F(5)), Some(Action::Copy));
}

#[test]
fn chords_parse() {
    let c: Chord = "Cmd+Shift+PageUp".parse().unwrap();
    assert_eq!(c, Chord::new(Mods::LOGO.with(Mods::SHIFT), Key::PageUp));
    let c: Chord = "ctrl+=".parse().unwrap();
    assert_eq!(c, Chord::new(Mods::CTRL, Key::Char('=')));
    assert!("".parse::<Chord>().is_err());
    assert!("Ctrl+".parse::<Chord>().is_err());
    assert!("Ctrl+ab".parse::<Chord>().is_err());
}

#[test]
fn missing_file_is_the_default_and_unreadable_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let loaded = Config::load(&dir.path().join("absent.toml")).unwrap();
    assert_eq!(loaded.config, Config::default());
    let err = Config::load(dir.path()).expect_err("a directory is not a config");
    assert!(matches!(err, ConfigError::Read { .. }));
}

#[test]
fn watcher_reports_changes_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("koi.toml");
    std::fs::write(&path, "[font]\nsize = 12.0\n").unwrap();
    let (tx, rx) = crossbeam_channel::unbounded();
    let _watcher = watch::ConfigWatcher::start(path.clone(), move |r| {
        let _ = tx.send(r.map(|l| l.config.font.size).map_err(|e| e.one_line()));
    })
    .unwrap();
    // Replace the file the way editors do: write elsewhere, rename over.
    let tmp = dir.path().join(".koi.toml.swp");
    std::fs::write(&tmp, "[font]\nsize = 15.0\n").unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), Ok(15.0));
    std::fs::write(&path, "[font]\nsize = \n").unwrap();
    let err = rx
        .recv_timeout(Duration::from_secs(5))
        .unwrap()
        .unwrap_err();
    assert!(err.contains("koi.toml"), "{err}");
}

#[test]
#[cfg(not(target_os = "macos"))]
fn tab_and_pane_defaults_and_ctrl_shift_e_fixes() {
    let b = Bindings::default();
    let cs = Mods::CTRL.with(Mods::SHIFT);
    assert_eq!(b.action_for(cs, &Key::Char('T')), Some(Action::NewTab));
    assert_eq!(b.action_for(cs, &Key::Char('W')), Some(Action::ClosePane));
    assert_eq!(b.action_for(cs, &Key::Char('D')), Some(Action::SplitRight));
    assert_eq!(
        b.action_for(cs.with(Mods::ALT), &Key::Char('D')),
        Some(Action::SplitDown)
    );
    assert_eq!(
        b.action_for(cs, &Key::Left),
        Some(Action::Focus(crate::config::Direction::Left))
    );
    assert_eq!(
        b.action_for(Mods::ALT, &Key::Char('3')),
        Some(Action::SelectTab(3))
    );
    assert_eq!(b.action_for(Mods::CTRL, &Key::Tab), Some(Action::NextTab));
    assert_eq!(
        b.action_for(cs, &Key::Char('E')),
        Some(Action::FixLastCommand)
    );
    let loaded =
        parse("[keybindings]\n\"Ctrl+Shift+T\" = \"split_down\"\n\"F7\" = \"tab_9\"\n").unwrap();
    assert_eq!(
        loaded.bindings.action_for(cs, &Key::Char('t')),
        Some(Action::SplitDown)
    );
    assert_eq!(
        loaded.bindings.action_for(Mods::NONE, &Key::F(7)),
        Some(Action::SelectTab(9))
    );
    let tabs = parse("[tabs]\nbar = \"always\"\n").unwrap();
    assert_eq!(tabs.config.tabs.bar, crate::config::TabBarMode::Always);
    assert!(parse("[tabs]\nbar = \"sometimes\"\n").is_err());
}

#[test]
fn tab_bar_position_is_top_or_bottom() {
    use crate::config::TabBarPosition;
    assert_eq!(parse("").unwrap().config.tabs.position, TabBarPosition::Top);
    let bottom = parse("[tabs]\nposition = \"bottom\"\n").unwrap();
    assert_eq!(bottom.config.tabs.position, TabBarPosition::Bottom);
    assert!(bottom.warnings.is_empty(), "{:?}", bottom.warnings);
    // A typo says where, what it got and what it takes.
    let message = parse("[tabs]\nbar = \"always\"\nposition = \"left\"\n")
        .unwrap_err()
        .to_string();
    assert!(message.contains("line 3"), "{message}");
    assert!(message.contains("position"), "{message}");
    assert!(
        message.contains("unknown variant `left`, expected `top` or `bottom`"),
        "{message}"
    );
}

#[test]
#[cfg(not(target_os = "macos"))]
fn fix_table_and_its_rebindable_key() {
    let defaults = parse("").unwrap().config.fix;
    assert!(defaults.hint);
    assert!(defaults.ignore.iter().any(|c| c == "grep"));
    let loaded = parse(
        "[fix]\nhint = false\nignore = [\"make\", \"git diff\"]\n\
         [keybindings]\n\"Ctrl+Shift+E\" = \"none\"\n\"F9\" = \"fix_last_command\"\n",
    )
    .unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert!(!loaded.config.fix.hint);
    assert_eq!(loaded.config.fix.ignore, vec!["make", "git diff"]);
    let cs = Mods::CTRL.with(Mods::SHIFT);
    assert_eq!(loaded.bindings.action_for(cs, &Key::Char('e')), None);
    assert_eq!(
        loaded.bindings.action_for(Mods::NONE, &Key::F(9)),
        Some(Action::FixLastCommand)
    );
    assert!(parse("[fix]\nignore = \"grep\"\n").is_err());
}

#[test]
fn chords_print_as_the_config_spells_them() {
    for text in [
        "Ctrl+Shift+E",
        "Alt+PageUp",
        "F5",
        "Ctrl+Space",
        "Shift+Insert",
    ] {
        let chord: Chord = text.parse().unwrap();
        assert_eq!(chord.to_string(), text);
    }
}
