//! The `[overlay]` table of koi.toml: where the panel sits and how big it is.

use serde::Deserialize;

/// Keys of `[overlay]` that belong to other parts of koi (the keybinding is
/// read by the app's binding table), so they are not reported as unknown.
const FOREIGN_KEYS: &[&str] = &["keybinding", "key"];
/// Smallest fraction accepted: below this the panel is unusable.
const MIN_FRACTION: f32 = 0.2;

/// Which edge the panel docks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Position {
    /// A column down the right side, full height.
    #[default]
    Right,
    /// A band along the bottom, full width.
    Bottom,
}

/// The overlay's settings.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OverlayConfig {
    /// The edge the panel docks to.
    pub position: Position,
    /// Fraction of the grid's width the panel takes when docked right.
    pub width: f32,
    /// Fraction of the grid's height the panel takes when docked at the
    /// bottom.
    pub height: f32,
}

impl Default for OverlayConfig {
    /// A right-hand panel a little under half the window: room for an
    /// 80-column answer on a wide screen while the shell stays readable.
    fn default() -> Self {
        Self {
            position: Position::Right,
            width: 0.45,
            height: 0.5,
        }
    }
}

impl OverlayConfig {
    /// Reads `[overlay]`. A bad value keeps its default and says why;
    /// unknown keys are reported and ignored.
    pub fn from_table(table: Option<&toml::Table>) -> (OverlayConfig, Vec<String>) {
        let mut warnings = Vec::new();
        let mut cfg = OverlayConfig::default();
        let Some(table) = table else {
            return (cfg, warnings);
        };
        for (key, value) in table {
            let ok = match key.as_str() {
                "position" => value
                    .clone()
                    .try_into::<Position>()
                    .map(|p| cfg.position = p)
                    .is_ok(),
                "width" | "height" => match fraction(value) {
                    Some(f) if (MIN_FRACTION..=1.0).contains(&f) => {
                        if key == "width" {
                            cfg.width = f;
                        } else {
                            cfg.height = f;
                        }
                        true
                    }
                    _ => false,
                },
                k if FOREIGN_KEYS.contains(&k) => true,
                other => {
                    warnings.push(format!("overlay: unknown key `{other}` ignored"));
                    true
                }
            };
            if !ok {
                warnings.push(format!(
                    "overlay: bad value for `{key}` ({value}); expected {}; keeping the default",
                    match key.as_str() {
                        "position" => "\"right\" or \"bottom\"".to_string(),
                        _ => format!("a fraction between {MIN_FRACTION} and 1"),
                    }
                ));
            }
        }
        (cfg, warnings)
    }
}

fn fraction(v: &toml::Value) -> Option<f32> {
    match v {
        toml::Value::Float(f) => Some(*f as f32),
        toml::Value::Integer(i) => Some(*i as f32),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> (OverlayConfig, Vec<String>) {
        let table: toml::Table = src.parse().expect("test toml");
        OverlayConfig::from_table(Some(&table))
    }

    #[test]
    fn defaults_values_and_warnings() {
        assert_eq!(
            OverlayConfig::from_table(None),
            (OverlayConfig::default(), vec![])
        );
        let (cfg, warn) = parse("position = \"bottom\"\nheight = 0.3\nkeybinding = \"x\"");
        assert_eq!(cfg.position, Position::Bottom);
        assert!((cfg.height - 0.3).abs() < 1e-6);
        assert!(warn.is_empty(), "{warn:?}");
        let (cfg, warn) = parse("position = \"left\"\nwidth = 7\ncolour = 1");
        assert_eq!(cfg, OverlayConfig::default());
        assert_eq!(warn.len(), 3, "{warn:?}");
        assert!(warn.iter().any(|w| w.contains("`colour`")));
    }
}
