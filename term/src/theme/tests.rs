use super::bundled::{find, BUNDLED};
use super::*;
use crate::config::colors::{ColorsConfig, HexColor};

/// Every slot of a `[colors]` table, named, for messages.
fn slots(c: &ColorsConfig) -> Vec<(String, Option<HexColor>)> {
    let mut all = vec![
        ("foreground".to_owned(), c.foreground),
        ("background".to_owned(), c.background),
        ("cursor".to_owned(), c.cursor),
        ("cursor_text".to_owned(), c.cursor_text),
        ("selection_background".to_owned(), c.selection_background),
        ("selection_foreground".to_owned(), c.selection_foreground),
    ];
    for (table, ansi) in [("normal", &c.normal), ("bright", &c.bright)] {
        for (i, color) in ansi.slots().into_iter().enumerate() {
            all.push((format!("{table}[{i}]"), color));
        }
    }
    all
}

#[test]
fn every_bundled_theme_parses_and_sets_every_colour() {
    assert_eq!(BUNDLED.len(), 15);
    for theme in BUNDLED {
        let parsed = file::parse(theme.text).unwrap_or_else(|e| panic!("{}: {e}", theme.name));
        assert!(
            parsed.ignored.is_empty(),
            "{}: {:?}",
            theme.name,
            parsed.ignored
        );
        for (slot, color) in slots(&parsed.colors) {
            assert!(color.is_some(), "{} leaves {slot} unset", theme.name);
        }
        let drawn = parsed.colors.theme();
        assert_ne!(drawn.foreground, drawn.background, "{}", theme.name);
        // The file is also a valid config: its table can be pasted in.
        let loaded = crate::config::Config::parse(theme.text, Path::new("koi.toml"))
            .unwrap_or_else(|e| panic!("{} as a config: {e}", theme.name));
        assert_eq!(loaded.config.colors, parsed.colors, "{}", theme.name);
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    }
}

#[test]
fn names_forgive_case_spaces_and_accents() {
    for name in [
        "Catppuccin Frappé",
        "catppuccin_frappe",
        "CATPPUCCIN-FRAPPE",
    ] {
        assert_eq!(
            find(name).map(|b| b.name),
            Some("catppuccin-frappe"),
            "{name}"
        );
    }
    assert!(find("catppuccin").is_none());
}

#[test]
fn an_unknown_name_lists_the_bundled_ones() {
    let setting = ThemeSetting::One("solarised".into());
    let err = BaseTheme::load(Some(&setting), None)
        .err()
        .unwrap_or_default();
    assert!(err.contains("no theme called `solarised`"), "{err}");
    assert!(err.contains("solarized-dark"), "{err}");
}

#[test]
fn alacritty_themes_import() {
    let text = r##"
[colors.primary]
background = "0x1d2021"
foreground = "#d5c4a1"
dim_foreground = "0x999999"

[colors.cursor]
text = "CellBackground"
cursor = "0xff0000"

[colors.selection]
text = "0x000000"
background = "0x00ff00"

[colors.normal]
black = "0x010101"
red = "0x020202"

[colors.bright]
white = "0xfefefe"

[[colors.indexed_colors]]
index = 16
color = "0xd18616"
"##;
    let parsed = file::parse(text).unwrap_or_else(|e| panic!("{e}"));
    let c = &parsed.colors;
    let hex = |v: u32| Some(HexColor(render::Rgb::from_hex(v)));
    assert_eq!(c.background, hex(0x1d2021));
    assert_eq!(c.foreground, hex(0xd5c4a1));
    assert_eq!(c.cursor, hex(0xff0000));
    assert_eq!(
        c.cursor_text, None,
        "CellBackground keeps the cell's colour"
    );
    assert_eq!(c.selection_foreground, hex(0x000000));
    assert_eq!(c.selection_background, hex(0x00ff00));
    assert_eq!(c.normal.red, hex(0x020202));
    assert_eq!(c.bright.white, hex(0xfefefe));
    assert_eq!(c.bright.black, None);
    assert!(
        parsed.ignored.iter().any(|k| k.contains("dim_foreground"))
            && parsed.ignored.iter().any(|k| k.contains("indexed_colors")),
        "{:?}",
        parsed.ignored
    );
}

#[test]
fn a_theme_file_is_read_relative_to_the_config() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        dir.path().join("mine.toml"),
        "[colors]\nbackground = \"#102030\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let config = dir.path().join("koi.toml");
    let loaded = crate::config::Config::parse(
        "theme = \"mine.toml\"\n[colors]\nforeground = \"#aabbcc\"\n",
        &config,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let theme = loaded.config.theme();
    assert_eq!(theme.background, render::Rgb::from_hex(0x102030));
    assert_eq!(
        theme.foreground,
        render::Rgb::from_hex(0xaabbcc),
        "[colors] wins"
    );
    assert_eq!(
        theme.cursor,
        render::Theme::default().cursor,
        "the rest is koi's"
    );

    std::fs::write(dir.path().join("mine.toml"), "[colors]\nbackground = 12\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let err = crate::config::Config::parse("theme = \"mine.toml\"\n", &config)
        .err()
        .map(|e| e.one_line())
        .unwrap_or_default();
    assert!(err.contains("mine.toml"), "{err}");
}

#[test]
fn an_iterm2_file_is_a_theme() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let component = |name: &str, v: f64| format!("<key>{name} Component</key><real>{v}</real>");
    let color = |r: f64, g: f64, b: f64| {
        format!(
            "<dict>{}{}{}</dict>",
            component("Red", r),
            component("Green", g),
            component("Blue", b)
        )
    };
    let text = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \
         \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
         <plist version=\"1.0\"><dict>\
         <key>Background Color</key>{}\
         <key>Ansi 1 Color</key>{}\
         <key>Bold Color</key>{}\
         </dict></plist>\n",
        color(0.0, 0.0, 0.0),
        color(1.0, 0.0, 0.0),
        color(1.0, 1.0, 1.0)
    );
    std::fs::write(dir.path().join("Night.itermcolors"), text).unwrap_or_else(|e| panic!("{e}"));
    let loaded = crate::config::Config::parse(
        "theme = \"Night.itermcolors\"\n",
        &dir.path().join("koi.toml"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let theme = loaded.config.theme();
    assert_eq!(theme.background, render::Rgb::from_hex(0x000000));
    assert_eq!(theme.palette[1], render::Rgb::from_hex(0xff0000));
    assert!(
        loaded.warnings.iter().any(|w| w.contains("Bold Color")),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn a_pair_follows_the_appearance() {
    let mut loaded = crate::config::Config::parse(
        "theme = { light = \"solarized-light\", dark = \"Solarized Dark\" }\n",
        Path::new("koi.toml"),
    )
    .unwrap_or_else(|e| panic!("{e}"))
    .config;
    assert!(loaded.base_theme.follows_appearance());
    loaded.appearance = Appearance::Light;
    assert_eq!(loaded.theme().background, render::Rgb::from_hex(0xfdf6e3));
    loaded.appearance = Appearance::Dark;
    assert_eq!(loaded.theme().background, render::Rgb::from_hex(0x002b36));
}

#[test]
fn the_listing_has_a_swatch_per_theme() {
    let listing = list::render();
    assert_eq!(listing.lines().count(), BUNDLED.len());
    let dracula = listing
        .lines()
        .find(|l| l.starts_with("dracula "))
        .unwrap_or_default();
    // Dracula's background, then its red, as truecolor escapes.
    assert!(dracula.contains("\x1b[48;2;40;42;54m"), "{dracula:?}");
    assert!(dracula.contains("\x1b[38;2;255;85;85m██"), "{dracula:?}");
}
