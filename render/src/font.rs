//! Fonts: the configured family with the embedded fallback, and the cell
//! metrics derived from the primary face.

use glyphon::cosmic_text::skrifa::{self, MetadataProvider as _};
use glyphon::cosmic_text::{FeatureTag, FontFeatures};
use glyphon::{fontdb, Attrs, Buffer, Family, FontSystem, Metrics, Shaping, Wrap};

/// The family of the embedded fallback font.
pub const FALLBACK_FAMILY: &str = "DejaVu Sans Mono";

/// The embedded fallback faces (DejaVu Sans Mono, Bitstream Vera licence,
/// see `assets/fonts/LICENSE-DejaVu.txt`): koi renders text even on a
/// machine with no fonts installed.
const EMBEDDED_FACES: [&[u8]; 4] = [
    include_bytes!("../../assets/fonts/DejaVuSansMono.ttf"),
    include_bytes!("../../assets/fonts/DejaVuSansMono-Bold.ttf"),
    include_bytes!("../../assets/fonts/DejaVuSansMono-Oblique.ttf"),
    include_bytes!("../../assets/fonts/DejaVuSansMono-BoldOblique.ttf"),
];

/// CSS pixels per typographic point (96 dpi / 72 pt per inch): the same
/// convention Alacritty and browsers use for font sizes in points.
const PX_PER_PT: f32 = 96.0 / 72.0;

/// Smallest and largest accepted font size in points; outside this range a
/// cell is either invisible or bigger than any screen.
const SIZE_PT_RANGE: (f32, f32) = (2.0, 256.0);

/// Smallest and largest accepted scale factor (what winit reports stays
/// well inside this).
const SCALE_RANGE: (f64, f64) = (0.25, 8.0);

/// Font settings from the config file and the window.
#[derive(Debug, Clone, PartialEq)]
pub struct FontConfig {
    /// Family name; `None` (or a family that is not installed) uses the
    /// embedded DejaVu Sans Mono.
    pub family: Option<String>,
    /// Size in points.
    pub size_pt: f32,
    /// The window's scale factor (HiDPI); 1.0 offscreen.
    pub scale_factor: f64,
    /// Whether runs of punctuation are shaped together so the font's
    /// programming ligatures (`liga`, `calt`) join them; a font without
    /// ligatures draws the same either way.
    pub ligatures: bool,
}

impl Default for FontConfig {
    fn default() -> Self {
        Self {
            family: None,
            size_pt: 11.0,
            scale_factor: 1.0,
            ligatures: true,
        }
    }
}

impl FontConfig {
    /// The font size in physical pixels, with size and scale clamped to
    /// sane ranges (NaN falls back to the defaults).
    pub fn size_px(&self) -> f32 {
        let pt = if self.size_pt.is_finite() {
            self.size_pt.clamp(SIZE_PT_RANGE.0, SIZE_PT_RANGE.1)
        } else {
            FontConfig::default().size_pt
        };
        let scale = if self.scale_factor.is_finite() {
            self.scale_factor.clamp(SCALE_RANGE.0, SCALE_RANGE.1)
        } else {
            1.0
        };
        pt * PX_PER_PT * scale as f32
    }
}

/// The size of one grid cell and where lines sit inside it, in physical
/// pixels (all integers, so every cell starts on a pixel boundary).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellMetrics {
    /// Cell width.
    pub width: u32,
    /// Cell height.
    pub height: u32,
    /// Baseline, from the cell's top.
    pub baseline: u32,
    /// Top of the underline, from the cell's top.
    pub underline_top: u32,
    /// Underline (and strikeout, and cursor beam) thickness.
    pub stroke: u32,
    /// Top of the strikeout line, from the cell's top.
    pub strikeout_top: u32,
}

/// A face's vertical metrics in pixels. Offsets are above the baseline
/// (underline offsets are negative); pairs are (offset, thickness).
struct FaceMetrics {
    ascent: f32,
    descent: f32,
    leading: f32,
    underline: (f32, f32),
    strikeout: (f32, f32),
}

/// The font system with the fallback loaded, the resolved family, and the
/// metrics at the configured size.
///
/// Loading scans every installed font, which takes a while: a window can
/// load them on another thread while its GPU starts, learn the cell size
/// from [`Fonts::cell_size`] to start its shell early, then hand them to
/// [`crate::Renderer::with_fonts`].
pub struct Fonts {
    pub(crate) system: FontSystem,
    pub(crate) family: String,
    /// An installed colour emoji family, preferred for emoji-presentation
    /// characters over monochrome symbol fonts that also cover them.
    pub(crate) emoji_family: Option<String>,
    pub(crate) size_px: f32,
    pub(crate) metrics: CellMetrics,
    /// The primary face's own advance (unrounded), which the cell width
    /// rounds: shaped runs are spaced by the difference.
    pub(crate) advance_px: f32,
    /// Whether the primary face has features that join characters; a
    /// face without them is drawn one cell at a time, ligatures on or off.
    pub(crate) has_ligatures: bool,
    /// The configuration measured, so a renderer can tell whether its
    /// window wants another (a scale factor guessed before the window).
    pub(crate) config: FontConfig,
}

impl std::fmt::Debug for Fonts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fonts")
            .field("family", &self.family)
            .field("metrics", &self.metrics)
            .finish_non_exhaustive()
    }
}

impl Fonts {
    /// Loads system fonts plus the embedded fallback and measures a cell.
    pub fn new(config: &FontConfig) -> Self {
        let mut system = FontSystem::new();
        for face in EMBEDDED_FACES {
            // Borrowed from the binary, not copied to the heap: the faces
            // cost no memory until a glyph is read from them.
            let source = glyphon::fontdb::Source::Binary(std::sync::Arc::new(face));
            system.db_mut().load_font_source(source);
        }
        let emoji_family = find_emoji_family(system.db());
        let mut fonts = Self {
            system,
            family: FALLBACK_FAMILY.to_owned(),
            emoji_family,
            size_px: config.size_px(),
            advance_px: 1.0,
            has_ligatures: false,
            metrics: CellMetrics {
                width: 1,
                height: 1,
                baseline: 1,
                underline_top: 0,
                stroke: 1,
                strikeout_top: 0,
            },
            config: config.clone(),
        };
        fonts.configure(config);
        fonts
    }

    /// Cell width and height in physical pixels.
    pub fn cell_size(&self) -> (u32, u32) {
        (self.metrics.width, self.metrics.height)
    }

    /// The font family in use: the configured one, or the embedded
    /// fallback when that is not installed.
    pub fn family(&self) -> &str {
        &self.family
    }

    /// The settings these fonts were measured with.
    pub fn config(&self) -> &FontConfig {
        &self.config
    }

    /// Applies a new family/size/scale and re-measures the cell.
    pub(crate) fn configure(&mut self, config: &FontConfig) {
        self.config = config.clone();
        self.family = match &config.family {
            Some(name) if self.has_family(name) => name.clone(),
            Some(name) => {
                log::warn!("render: font family {name:?} not found; using {FALLBACK_FAMILY}");
                FALLBACK_FAMILY.to_owned()
            }
            None => FALLBACK_FAMILY.to_owned(),
        };
        self.size_px = config.size_px();
        let (metrics, advance) = self.measure();
        self.metrics = metrics;
        self.advance_px = advance;
        self.has_ligatures = self.has_ligature_features();
    }

    fn has_family(&self, name: &str) -> bool {
        let query = fontdb::Query {
            families: &[fontdb::Family::Name(name)],
            ..Default::default()
        };
        self.system.db().query(&query).is_some()
    }

    /// A buffer holding `text` shaped at the configured size, one cell high.
    pub(crate) fn shape(
        &mut self,
        text: &str,
        (bold, italic, emoji): (bool, bool, bool),
        line_height: f32,
    ) -> Buffer {
        let family = match (&self.emoji_family, emoji) {
            (Some(name), true) => name,
            _ => &self.family,
        };
        let attrs = face_attrs(family, bold, italic);
        shape_text(&mut self.system, self.size_px, text, &attrs, line_height)
    }

    /// A buffer holding a run of cells' `text` shaped together with the
    /// font's ligature features, each glyph advancing exactly one cell:
    /// the letter spacing makes up the difference between the face's own
    /// advance and the rounded cell width, so the glyphs stay on the grid.
    pub(crate) fn shape_ligated(
        &mut self,
        text: &str,
        (bold, italic): (bool, bool),
        line_height: f32,
    ) -> Buffer {
        let mut features = FontFeatures::new();
        features
            .enable(FeatureTag::STANDARD_LIGATURES)
            .enable(FeatureTag::CONTEXTUAL_ALTERNATES);
        let spacing_em = (self.metrics.width as f32 - self.advance_px) / self.size_px;
        let attrs = face_attrs(&self.family, bold, italic)
            .font_features(features)
            .letter_spacing(spacing_em);
        shape_text(&mut self.system, self.size_px, text, &attrs, line_height)
    }

    /// The cell metrics, and the primary face's unrounded advance.
    fn measure(&mut self) -> (CellMetrics, f32) {
        let px = self.size_px;
        // The advance of '0' in the primary face is the cell width.
        let advance = {
            let probe = self.shape("0", (false, false, false), px * 2.0);
            probe
                .layout_runs()
                .flat_map(|run| run.glyphs.iter())
                .map(|g| g.w)
                .next()
                .unwrap_or(px * 0.6)
        };
        // A font without usable tables gets typical monospace proportions.
        let face = self.face_metrics().unwrap_or(FaceMetrics {
            ascent: px * 0.8,
            descent: px * 0.2,
            leading: 0.0,
            underline: (-0.1 * px, 0.05 * px),
            strikeout: (0.3 * px, 0.05 * px),
        });
        let FaceMetrics {
            ascent,
            descent,
            leading,
            underline,
            strikeout: strike,
        } = face;
        let width = advance.round().max(1.0) as u32;
        let height = (ascent + descent + leading).round().max(1.0) as u32;
        let baseline = ((height as f32 - (ascent + descent)) / 2.0 + ascent)
            .round()
            .clamp(1.0, height as f32) as u32;
        let stroke = underline.1.round().clamp(1.0, (height / 4).max(1) as f32) as u32;
        let underline_top = (baseline as f32 - underline.0 - stroke as f32 / 2.0)
            .round()
            .clamp(0.0, (height - stroke) as f32) as u32;
        let strikeout_top = (baseline as f32 - strike.0 - stroke as f32 / 2.0)
            .round()
            .clamp(0.0, (height - stroke) as f32) as u32;
        let metrics = CellMetrics {
            width,
            height,
            baseline,
            underline_top,
            stroke,
            strikeout_top,
        };
        (metrics, advance)
    }

    /// The primary face's vertical metrics at the configured size.
    fn face_metrics(&mut self) -> Option<FaceMetrics> {
        let size_px = self.size_px;
        self.with_primary_face(|face| face_metrics(face, size_px))?
    }

    /// Whether the primary face has substitution features that can join
    /// characters (`liga`, `calt`, `clig`) for the scripts punctuation is
    /// shaped in; `true` when its tables cannot be read, so shaping decides.
    fn has_ligature_features(&mut self) -> bool {
        self.with_primary_face(joins_punctuation)
            .flatten()
            .unwrap_or(true)
    }

    /// Runs `read` on the primary family's regular face.
    fn with_primary_face<T>(&mut self, read: impl FnOnce(&skrifa::FontRef<'_>) -> T) -> Option<T> {
        let query = fontdb::Query {
            families: &[fontdb::Family::Name(&self.family)],
            ..Default::default()
        };
        let id = self.system.db().query(&query)?;
        let font = self.system.get_font(id, fontdb::Weight::NORMAL)?;
        let data = font.data();
        let face_index = self
            .system
            .db()
            .face(id)
            .map(|info| info.index)
            .unwrap_or(0);
        let face = skrifa::FontRef::from_index(data, face_index).ok()?;
        Some(read(&face))
    }
}

/// Whether `face` has a joining feature (`liga`, `calt`, `clig`) for the
/// default or the Latin script, in any of their language systems; `None`
/// when its substitution tables cannot be read. DejaVu Sans Mono, say, has
/// `liga` only for Arabic.
fn joins_punctuation(face: &skrifa::FontRef<'_>) -> Option<bool> {
    use skrifa::raw::types::Tag;
    use skrifa::raw::TableProvider as _;
    const SCRIPTS: [Tag; 2] = [Tag::new(b"DFLT"), Tag::new(b"latn")];
    const JOINING: [Tag; 3] = [Tag::new(b"liga"), Tag::new(b"calt"), Tag::new(b"clig")];
    let Ok(gsub) = face.gsub() else {
        // No substitution table: nothing can be joined.
        return Some(false);
    };
    let features = gsub.feature_list().ok()?;
    let scripts = gsub.script_list().ok()?;
    let joining = |index: u16| {
        features
            .feature_records()
            .get(usize::from(index))
            .is_some_and(|record| JOINING.contains(&record.feature_tag()))
    };
    let wanted = scripts
        .script_records()
        .iter()
        .filter(|record| SCRIPTS.contains(&record.script_tag()));
    for record in wanted {
        let script = record.script(scripts.offset_data()).ok()?;
        let default = script.default_lang_sys().transpose().ok()?;
        let languages = script
            .lang_sys_records()
            .iter()
            .map(|lang| lang.lang_sys(script.offset_data()).ok());
        for lang in default.map(Some).into_iter().chain(languages) {
            if lang?.feature_indices().iter().any(|i| joining(i.get())) {
                return Some(true);
            }
        }
    }
    Some(false)
}

/// A face's vertical metrics at `size_px`.
fn face_metrics(face: &skrifa::FontRef<'_>, size_px: f32) -> Option<FaceMetrics> {
    let m = face.metrics(
        skrifa::instance::Size::new(size_px),
        skrifa::instance::LocationRef::default(),
    );
    let ascent = m.ascent;
    let descent = -m.descent;
    if !(ascent.is_finite() && descent.is_finite()) || ascent + descent <= 0.0 {
        return None;
    }
    let default_stroke = (size_px / 14.0).max(1.0);
    let underline = m
        .underline
        .map(|d| (d.offset, d.thickness))
        .unwrap_or((-size_px * 0.1, default_stroke));
    let strike = m
        .strikeout
        .map(|d| (d.offset, d.thickness))
        .unwrap_or((size_px * 0.3, default_stroke));
    Some(FaceMetrics {
        ascent,
        descent,
        leading: m.leading.max(0.0),
        underline,
        strikeout: strike,
    })
}

/// Attributes for `family` in the given face.
fn face_attrs(family: &str, bold: bool, italic: bool) -> Attrs<'_> {
    let mut attrs = Attrs::new().family(Family::Name(family));
    if bold {
        attrs = attrs.weight(fontdb::Weight::BOLD);
    }
    if italic {
        attrs = attrs.style(fontdb::Style::Italic);
    }
    attrs
}

/// A buffer holding `text` shaped with `attrs` at `size_px`, one line of
/// `line_height`, never wrapped.
fn shape_text(
    system: &mut FontSystem,
    size_px: f32,
    text: &str,
    attrs: &Attrs<'_>,
    line_height: f32,
) -> Buffer {
    let metrics = Metrics::new(size_px, line_height.max(1.0));
    let mut buffer = Buffer::new(system, metrics);
    buffer.set_wrap(Wrap::None);
    buffer.set_text(text, attrs, Shaping::Advanced, None);
    buffer.shape_until_scroll(system, false);
    buffer
}

/// The first colour emoji family installed, if any ("Noto Color Emoji",
/// "Apple Color Emoji", "Twemoji", ...).
fn find_emoji_family(db: &fontdb::Database) -> Option<String> {
    let families: Vec<&str> = db
        .faces()
        .flat_map(|face| face.families.iter().map(|(name, _)| name.as_str()))
        .filter(|name| name.contains("Emoji"))
        .collect();
    families
        .iter()
        .find(|name| name.contains("Color"))
        .or_else(|| families.first())
        .map(|name| (*name).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fonts(family: Option<&str>) -> Fonts {
        Fonts::new(&FontConfig {
            family: family.map(str::to_owned),
            ..FontConfig::default()
        })
    }

    #[test]
    fn only_a_face_with_joining_features_is_shaped_in_runs() {
        // DejaVu Sans Mono substitutes nothing between neighbours.
        let embedded = fonts(None);
        assert_eq!(embedded.family, FALLBACK_FAMILY);
        assert!(!embedded.has_ligatures);
        let fira = fonts(Some("Fira Code"));
        if fira.family == "Fira Code" {
            assert!(fira.has_ligatures);
        }
    }
}
