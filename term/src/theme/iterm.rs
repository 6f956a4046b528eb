//! iTerm2's `.itermcolors` files: an XML property list whose top-level
//! dictionary maps a slot's name (`Ansi 0 Color` … `Ansi 15 Color`,
//! `Foreground Color`, `Cursor Color`, …) to a dictionary of colour
//! components between 0 and 1. Read into koi's `[colors]` shape; slots koi
//! has no use for (`Bold Color`, `Link Color`, …) are reported as ignored.

use render::Rgb;
use roxmltree::{Document, Node, ParsingOptions};

use super::file::ThemeFile;
use crate::config::colors::{AnsiColors, ColorsConfig, HexColor};

/// Whether `text` looks like a property list rather than TOML.
pub fn is_plist(text: &str) -> bool {
    let head = text.trim_start();
    head.starts_with("<?xml") || head.starts_with("<!DOCTYPE plist") || head.starts_with("<plist")
}

/// Parse an `.itermcolors` file's text.
pub fn parse(text: &str) -> Result<ThemeFile, String> {
    // iTerm2 writes Apple's DOCTYPE line; its DTD is only named, never
    // fetched.
    let options = ParsingOptions {
        allow_dtd: true,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, options)
        .map_err(|e| format!("not a property list: {e}"))?;
    let top = doc
        .root_element()
        .children()
        .find(|n| n.has_tag_name("dict"))
        .ok_or("a property list without a dictionary")?;
    let mut colors = ColorsConfig::default();
    let mut ignored = Vec::new();
    for (name, value) in entries(top) {
        let color = components(value).map_err(|e| format!("`{name}`: {e}"))?;
        if !set(&mut colors, name, color) {
            ignored.push(name.to_owned());
        }
    }
    Ok(ThemeFile { colors, ignored })
}

/// The `<key>`/value pairs of a `<dict>`.
fn entries<'a, 'input>(dict: Node<'a, 'input>) -> Vec<(&'a str, Node<'a, 'input>)> {
    let mut out = Vec::new();
    let mut key = None;
    for node in dict.children().filter(Node::is_element) {
        if node.has_tag_name("key") {
            key = node.text();
        } else if let Some(k) = key.take() {
            out.push((k, node));
        }
    }
    out
}

/// A colour dictionary's red, green and blue components (0 to 1).
fn components(dict: Node<'_, '_>) -> Result<HexColor, String> {
    if !dict.has_tag_name("dict") {
        return Err("not a colour dictionary".into());
    }
    let mut rgb = [None; 3];
    for (key, value) in entries(dict) {
        let slot = match key {
            "Red Component" => 0,
            "Green Component" => 1,
            "Blue Component" => 2,
            _ => continue,
        };
        let number: f64 = value
            .text()
            .unwrap_or("")
            .trim()
            .parse()
            .map_err(|_| format!("`{key}` is not a number"))?;
        if !(0.0..=1.0).contains(&number) {
            return Err(format!("`{key}` is {number}, outside 0 to 1"));
        }
        rgb[slot] = Some((number * 255.0).round() as u8);
    }
    match rgb {
        [Some(r), Some(g), Some(b)] => Ok(HexColor(Rgb::new(r, g, b))),
        _ => Err("a red, green or blue component is missing".into()),
    }
}

/// Put `color` in the slot iTerm2 calls `name`; false for a slot koi does
/// not have.
fn set(colors: &mut ColorsConfig, name: &str, color: HexColor) -> bool {
    let slot = match name {
        "Foreground Color" => &mut colors.foreground,
        "Background Color" => &mut colors.background,
        "Cursor Color" => &mut colors.cursor,
        "Cursor Text Color" => &mut colors.cursor_text,
        "Selection Color" => &mut colors.selection_background,
        "Selected Text Color" => &mut colors.selection_foreground,
        _ => {
            let Some(index) = name
                .strip_prefix("Ansi ")
                .and_then(|rest| rest.strip_suffix(" Color"))
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n < 16)
            else {
                return false;
            };
            let half = if index < 8 {
                &mut colors.normal
            } else {
                &mut colors.bright
            };
            ansi_slot(half, index % 8)
        }
    };
    *slot = Some(color);
    true
}

/// The `index`th of eight colours, black to white.
fn ansi_slot(colors: &mut AnsiColors, index: usize) -> &mut Option<HexColor> {
    match index {
        0 => &mut colors.black,
        1 => &mut colors.red,
        2 => &mut colors.green,
        3 => &mut colors.yellow,
        4 => &mut colors.blue,
        5 => &mut colors.magenta,
        6 => &mut colors.cyan,
        _ => &mut colors.white,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn color(r: f64, g: f64, b: f64) -> String {
        format!(
            "<dict><key>Alpha Component</key><real>1</real>\
             <key>Blue Component</key><real>{b}</real>\
             <key>Color Space</key><string>sRGB</string>\
             <key>Green Component</key><real>{g}</real>\
             <key>Red Component</key><real>{r}</real></dict>"
        )
    }

    fn plist(entries: &[(&str, String)]) -> String {
        let body: String = entries
            .iter()
            .map(|(k, v)| format!("<key>{k}</key>\n{v}\n"))
            .collect();
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \
             \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
             <plist version=\"1.0\">\n<dict>\n{body}</dict>\n</plist>\n"
        )
    }

    #[test]
    fn every_slot_koi_has_is_read_and_the_rest_reported() {
        let mut entries: Vec<(String, String)> = (0..16)
            .map(|i| (format!("Ansi {i} Color"), color(i as f64 / 15.0, 0.0, 1.0)))
            .collect();
        for (name, v) in [
            ("Foreground Color", 1.0),
            ("Background Color", 0.0),
            ("Cursor Color", 0.5),
            ("Cursor Text Color", 0.25),
            ("Selection Color", 0.75),
            ("Selected Text Color", 0.1),
            ("Bold Color", 0.9),
        ] {
            entries.push((name.to_owned(), color(v, v, v)));
        }
        let entries: Vec<(&str, String)> = entries
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        let text = plist(&entries);
        assert!(is_plist(&text));
        let file = parse(&text).unwrap();
        let c = &file.colors;
        assert_eq!(c.normal.black, Some(HexColor(Rgb::new(0, 0, 255))));
        assert_eq!(c.bright.white, Some(HexColor(Rgb::new(255, 0, 255))));
        assert_eq!(c.normal.blue, Some(HexColor(Rgb::new(68, 0, 255))));
        assert_eq!(c.foreground, Some(HexColor(Rgb::new(255, 255, 255))));
        assert_eq!(c.background, Some(HexColor(Rgb::new(0, 0, 0))));
        assert_eq!(c.cursor, Some(HexColor(Rgb::new(128, 128, 128))));
        assert_eq!(c.cursor_text, Some(HexColor(Rgb::new(64, 64, 64))));
        assert_eq!(
            c.selection_background,
            Some(HexColor(Rgb::new(191, 191, 191)))
        );
        assert_eq!(c.selection_foreground, Some(HexColor(Rgb::new(26, 26, 26))));
        assert!(c
            .normal
            .slots()
            .iter()
            .chain(&c.bright.slots())
            .all(Option::is_some));
        assert_eq!(file.ignored, ["Bold Color"]);
    }

    #[test]
    fn bad_files_are_clear_errors() {
        assert!(parse("not xml")
            .unwrap_err()
            .contains("not a property list"));
        let out_of_range = plist(&[("Ansi 1 Color", color(2.0, 0.0, 0.0))]);
        assert!(parse(&out_of_range).unwrap_err().contains("outside 0 to 1"));
        let missing = plist(&[(
            "Ansi 1 Color",
            "<dict><key>Red Component</key><real>1</real></dict>".into(),
        )]);
        assert!(parse(&missing).unwrap_err().contains("missing"));
        let not_a_number = plist(&[("Ansi 1 Color", color(0.0, 0.0, 0.0).replace(">0<", ">x<"))]);
        assert!(parse(&not_a_number).unwrap_err().contains("not a number"));
        // Ansi 16 and beyond are not colours koi has: ignored, not an error.
        let beyond = plist(&[("Ansi 16 Color", color(0.0, 0.0, 0.0))]);
        assert_eq!(parse(&beyond).unwrap().ignored, ["Ansi 16 Color"]);
    }
}
