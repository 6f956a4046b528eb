//! The pictures one terminal holds and where they are placed, within a
//! byte budget.
//!
//! A placement is found on the grid through the cells it covers (see
//! [`super::anchor`]); the store only knows its geometry. Placements whose
//! cells are all gone (erased, scrolled out of the scrollback) are dropped
//! by [`Store::collect`], which the owner runs with the set of keys still
//! on the grid.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use render_types::PicturePixels;

/// Kitty's default `images_max_size`-like budget: 320 MB of decoded pixels
/// per terminal.
pub const DEFAULT_BUDGET_BYTES: usize = 320 * 1024 * 1024;

/// A stored picture.
#[derive(Debug)]
pub(crate) struct StoredImage {
    /// The id the application gave it (kitty `i=`); 0 for anonymous
    /// pictures (sixel, iTerm2, kitty without an id).
    pub(crate) client_id: u32,
    /// The kitty image number (`I=`), 0 when none.
    pub(crate) number: u32,
    pub(crate) pixels: Arc<PicturePixels>,
    /// When it was last added or placed, for eviction (oldest first).
    pub(crate) used_at: u64,
}

/// A rectangle in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PxRect {
    pub(crate) x: f32,
    pub(crate) y: f32,
    pub(crate) w: f32,
    pub(crate) h: f32,
}

/// Where a placement draws, fixed when it was placed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Geometry {
    /// The part of the picture shown, in picture pixels.
    pub(crate) source: PxRect,
    /// Where it is drawn, in pixels from the top-left corner of its first
    /// cell, at the cell size of the moment it was placed.
    pub(crate) dest: PxRect,
    /// That cell size in pixels.
    pub(crate) cell: (f32, f32),
    /// Cells covered.
    pub(crate) cols: u32,
    pub(crate) rows: u32,
}

/// One placement of a picture.
#[derive(Clone, Debug)]
pub(crate) struct Placement {
    /// The store's key of the image.
    pub(crate) image: u64,
    /// The application's placement id (kitty `p=`), 0 when none.
    pub(crate) client_id: u32,
    pub(crate) geometry: Geometry,
    pub(crate) z: i32,
    /// A virtual placement (kitty `U=1`): drawn wherever Unicode
    /// placeholders name it, never anchored to cells of its own.
    pub(crate) virtual_box: bool,
}

/// Pictures and placements, and the bytes they hold.
#[derive(Debug)]
pub(crate) struct Store {
    images: BTreeMap<u64, StoredImage>,
    placements: HashMap<u64, Placement>,
    next_key: u64,
    clock: u64,
    used: usize,
    budget: usize,
    /// Placements there were at the last collection: collecting again
    /// once they double keeps the grid scans amortised.
    collected_at: usize,
}

impl Store {
    pub(crate) fn new(budget: usize) -> Self {
        Self {
            images: BTreeMap::new(),
            placements: HashMap::new(),
            next_key: 1,
            clock: 0,
            used: 0,
            budget,
            collected_at: 0,
        }
    }

    fn key(&mut self) -> u64 {
        self.next_key += 1;
        self.next_key
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Bytes of decoded pixels held.
    pub(crate) fn used_bytes(&self) -> usize {
        self.used
    }

    pub(crate) fn budget(&self) -> usize {
        self.budget
    }

    pub(crate) fn image_count(&self) -> usize {
        self.images.len()
    }

    pub(crate) fn placement_count(&self) -> usize {
        self.placements.len()
    }

    /// Adds a picture; one with the same non-zero client id is replaced
    /// (its placements then show the new pixels, as in kitty).
    pub(crate) fn add_image(&mut self, client_id: u32, number: u32, pixels: PicturePixels) -> u64 {
        let used_at = self.tick();
        let bytes = pixels.byte_size();
        let image = StoredImage {
            client_id,
            number,
            pixels: Arc::new(pixels),
            used_at,
        };
        if client_id != 0 {
            if let Some((&key, old)) = self
                .images
                .iter_mut()
                .find(|(_, i)| i.client_id == client_id)
            {
                self.used = self.used - old.pixels.byte_size() + bytes;
                *old = image;
                return key;
            }
        }
        let key = self.key();
        self.used += bytes;
        self.images.insert(key, image);
        key
    }

    pub(crate) fn image(&self, key: u64) -> Option<&StoredImage> {
        self.images.get(&key)
    }

    /// The image with client id `id`.
    pub(crate) fn by_client_id(&self, id: u32) -> Option<u64> {
        (id != 0)
            .then(|| self.images.iter().find(|(_, i)| i.client_id == id))
            .flatten()
            .map(|(&k, _)| k)
    }

    /// The newest image with number `number`.
    pub(crate) fn by_number(&self, number: u32) -> Option<u64> {
        (number != 0)
            .then(|| self.images.iter().rev().find(|(_, i)| i.number == number))
            .flatten()
            .map(|(&k, _)| k)
    }

    /// A client id no image uses, for an image sent with a number only.
    pub(crate) fn free_client_id(&self) -> u32 {
        let used: HashSet<u32> = self.images.values().map(|i| i.client_id).collect();
        (1..=u32::MAX)
            .find(|id| !used.contains(id))
            .unwrap_or(u32::MAX)
    }

    /// Places image `image`; a placement of the same image with the same
    /// non-zero client id is replaced (its old cells then show nothing).
    pub(crate) fn place(&mut self, placement: Placement) -> u64 {
        if placement.client_id != 0 {
            self.placements
                .retain(|_, p| !(p.image == placement.image && p.client_id == placement.client_id));
        }
        let at = self.tick();
        if let Some(image) = self.images.get_mut(&placement.image) {
            image.used_at = at;
        }
        let key = self.key();
        self.placements.insert(key, placement);
        key
    }

    pub(crate) fn placement(&self, key: u64) -> Option<&Placement> {
        self.placements.get(&key)
    }

    /// Drops the placements `drop` picks; returns the images they showed.
    pub(crate) fn remove_placements(
        &mut self,
        mut drop: impl FnMut(u64, &Placement) -> bool,
    ) -> HashSet<u64> {
        let mut images = HashSet::new();
        self.placements.retain(|&key, p| {
            let gone = drop(key, p);
            if gone {
                images.insert(p.image);
            }
            !gone
        });
        images
    }

    /// Whether any virtual placement exists (placeholders are then looked for).
    pub(crate) fn has_virtual(&self) -> bool {
        self.placements.values().any(|p| p.virtual_box)
    }

    /// The virtual placement of image `image` with client id `id` (any
    /// when 0).
    pub(crate) fn virtual_of(&self, image: u64, id: u32) -> Option<&Placement> {
        self.placements
            .values()
            .filter(|p| p.virtual_box && p.image == image)
            .find(|p| id == 0 || p.client_id == id)
    }

    /// Whether any placement shows image `key`.
    pub(crate) fn is_placed(&self, key: u64) -> bool {
        self.placements.values().any(|p| p.image == key)
    }

    /// Removes an image and its placements.
    pub(crate) fn remove_image(&mut self, key: u64) {
        if let Some(image) = self.images.remove(&key) {
            self.used -= image.pixels.byte_size();
        }
        self.placements.retain(|_, p| p.image != key);
    }

    /// The keys of every image, oldest first.
    pub(crate) fn image_keys(&self) -> Vec<u64> {
        self.images.keys().copied().collect()
    }

    /// Whether the placements grew enough since the last collection that
    /// a grid scan is worth it.
    pub(crate) fn wants_collection(&self) -> bool {
        self.placements.len() > 64 && self.placements.len() > 2 * self.collected_at
    }

    /// Drops placements not in `live` (their cells are gone) and the
    /// anonymous images no placement shows any more.
    pub(crate) fn collect(&mut self, live: &HashSet<u64>) {
        self.placements
            .retain(|key, p| p.virtual_box || live.contains(key));
        self.collected_at = self.placements.len();
        let shown: HashSet<u64> = self.placements.values().map(|p| p.image).collect();
        let orphans: Vec<u64> = self
            .images
            .iter()
            .filter(|(k, i)| i.client_id == 0 && !shown.contains(k))
            .map(|(&k, _)| k)
            .collect();
        for key in orphans {
            self.remove_image(key);
        }
    }

    /// Evicts the least recently used images until the pixels fit the
    /// budget, never `keep` (the image just added). Images without a
    /// placement go first.
    pub(crate) fn enforce_budget(&mut self, keep: u64) {
        if self.used <= self.budget {
            return;
        }
        let shown: HashSet<u64> = self.placements.values().map(|p| p.image).collect();
        let mut order: Vec<(bool, u64, u64)> = self
            .images
            .iter()
            .filter(|(&k, _)| k != keep)
            .map(|(&k, i)| (shown.contains(&k), i.used_at, k))
            .collect();
        order.sort_unstable();
        for (_, _, key) in order {
            if self.used <= self.budget {
                break;
            }
            self.remove_image(key);
        }
    }

    /// Forgets everything (RIS).
    pub(crate) fn clear(&mut self) {
        self.images.clear();
        self.placements.clear();
        self.used = 0;
        self.collected_at = 0;
    }
}
