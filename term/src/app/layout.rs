//! A tab's panes as a tree of splits, in whole cells: each split gives its
//! first child a share of the area, one cell to the divider, and the rest
//! to its second child. Pure: no sessions, no window, so every rule here
//! (where dividers go, which pane is to the left, how a drag moves a
//! divider) is tested on its own.

use render::{CellRect, Divider, DividerAxis};

/// A pane's identity, unique in the window.
pub type PaneId = u64;

/// How a split arranges its two children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// Side by side (split right).
    Columns,
    /// One above the other (split down).
    Rows,
}

pub use crate::config::Direction;

/// The axis a direction moves along.
fn axis_of(direction: Direction) -> Axis {
    match direction {
        Direction::Left | Direction::Right => Axis::Columns,
        Direction::Up | Direction::Down => Axis::Rows,
    }
}

/// Towards the start (-1) or the end (+1) of that axis.
fn sign_of(direction: Direction) -> isize {
    match direction {
        Direction::Left | Direction::Up => -1,
        Direction::Right | Direction::Down => 1,
    }
}

/// The smallest a pane may be made by a resize or drag, in cells: room
/// for a prompt and a few characters.
const MIN_PANE: usize = 2;

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Leaf(PaneId),
    Split {
        axis: Axis,
        /// The first child's share of the cells left after the divider.
        ratio: f32,
        first: Box<Node>,
        second: Box<Node>,
    },
}

/// Which child to take at each split on the way down to a node.
pub type SplitPath = Vec<bool>;

/// The split tree of one tab, with an optional zoomed pane.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    root: Node,
    zoomed: Option<PaneId>,
}

/// A divider as laid out, with the split it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedDivider {
    pub divider: Divider,
    pub path: SplitPath,
}

/// How `area` divides along `axis` at `ratio`: the first child's length,
/// or `None` when there is no room for two panes and a divider.
fn first_len(len: usize, ratio: f32) -> Option<usize> {
    if len < 3 {
        return None;
    }
    let usable = len - 1;
    let first = (usable as f32 * ratio).round() as usize;
    Some(first.clamp(1, usable - 1))
}

fn split_rect(area: CellRect, axis: Axis, ratio: f32) -> Option<(CellRect, CellRect, Divider)> {
    match axis {
        Axis::Columns => {
            let a = first_len(area.cols, ratio)?;
            Some((
                CellRect { cols: a, ..area },
                CellRect {
                    col: area.col + a + 1,
                    cols: area.cols - a - 1,
                    ..area
                },
                Divider {
                    col: area.col + a,
                    row: area.row,
                    len: area.rows,
                    axis: DividerAxis::Vertical,
                },
            ))
        }
        Axis::Rows => {
            let a = first_len(area.rows, ratio)?;
            Some((
                CellRect { rows: a, ..area },
                CellRect {
                    row: area.row + a + 1,
                    rows: area.rows - a - 1,
                    ..area
                },
                Divider {
                    col: area.col,
                    row: area.row + a,
                    len: area.cols,
                    axis: DividerAxis::Horizontal,
                },
            ))
        }
    }
}

impl Node {
    fn place(
        &self,
        area: CellRect,
        path: &mut SplitPath,
        panes: &mut Vec<(PaneId, CellRect)>,
        dividers: &mut Vec<PlacedDivider>,
    ) {
        match self {
            Node::Leaf(id) => panes.push((*id, area)),
            Node::Split {
                axis,
                ratio,
                first,
                second,
            } => match split_rect(area, *axis, *ratio) {
                Some((a, b, divider)) => {
                    dividers.push(PlacedDivider {
                        divider,
                        path: path.clone(),
                    });
                    path.push(false);
                    first.place(a, path, panes, dividers);
                    path.pop();
                    path.push(true);
                    second.place(b, path, panes, dividers);
                    path.pop();
                }
                // Too small for both: the first child gets it all and
                // the second a zero-sized rectangle.
                None => {
                    path.push(false);
                    first.place(area, path, panes, dividers);
                    path.pop();
                    path.push(true);
                    second.place(
                        CellRect {
                            cols: 0,
                            rows: 0,
                            ..area
                        },
                        path,
                        panes,
                        dividers,
                    );
                    path.pop();
                }
            },
        }
    }

    fn leaves(&self, out: &mut Vec<PaneId>) {
        match self {
            Node::Leaf(id) => out.push(*id),
            Node::Split { first, second, .. } => {
                first.leaves(out);
                second.leaves(out);
            }
        }
    }

    fn path_to(&self, id: PaneId, path: &mut SplitPath) -> bool {
        match self {
            Node::Leaf(leaf) => *leaf == id,
            Node::Split { first, second, .. } => {
                path.push(false);
                if first.path_to(id, path) {
                    return true;
                }
                path.pop();
                path.push(true);
                if second.path_to(id, path) {
                    return true;
                }
                path.pop();
                false
            }
        }
    }

    fn at_mut(&mut self, path: &[bool]) -> Option<&mut Node> {
        let Some((&step, rest)) = path.split_first() else {
            return Some(self);
        };
        match self {
            Node::Leaf(_) => None,
            Node::Split { first, second, .. } => if step { second } else { first }.at_mut(rest),
        }
    }
}

impl Layout {
    /// One pane filling the tab.
    pub fn new(id: PaneId) -> Self {
        Self {
            root: Node::Leaf(id),
            zoomed: None,
        }
    }

    /// Every pane, in reading order.
    pub fn panes(&self) -> Vec<PaneId> {
        let mut out = Vec::new();
        self.root.leaves(&mut out);
        out
    }

    /// The zoomed pane, if one fills the tab.
    #[cfg(test)]
    pub fn zoomed(&self) -> Option<PaneId> {
        self.zoomed
    }

    /// Zoom `id` to the whole tab, or back.
    pub fn toggle_zoom(&mut self, id: PaneId) {
        self.zoomed = if self.zoomed == Some(id) {
            None
        } else {
            Some(id)
        };
    }

    /// Split `target` in two along `axis`, `new` taking the second half.
    /// Unzooms. Returns false when `target` is not in this layout.
    pub fn split(&mut self, target: PaneId, new: PaneId, axis: Axis) -> bool {
        let mut path = Vec::new();
        if !self.root.path_to(target, &mut path) {
            return false;
        }
        let Some(node) = self.root.at_mut(&path) else {
            return false;
        };
        *node = Node::Split {
            axis,
            ratio: 0.5,
            first: Box::new(Node::Leaf(target)),
            second: Box::new(Node::Leaf(new)),
        };
        self.zoomed = None;
        true
    }

    /// Take `id` out; its sibling takes its place. Returns false when `id`
    /// was the last pane (the layout is then unchanged: the tab closes).
    pub fn remove(&mut self, id: PaneId) -> bool {
        let mut path = Vec::new();
        if !self.root.path_to(id, &mut path) {
            return false;
        }
        let Some((&last, parent)) = path.split_last() else {
            return false;
        };
        let Some(node) = self.root.at_mut(parent) else {
            return false;
        };
        if let Node::Split { first, second, .. } = node {
            let keep = if last { &**first } else { &**second };
            *node = keep.clone();
        }
        if self.zoomed == Some(id) {
            self.zoomed = None;
        }
        true
    }

    /// Where each pane goes in `area` (a zoomed pane takes it all, and the
    /// others get nothing: they are not drawn), and the dividers.
    pub fn place(&self, area: CellRect) -> (Vec<(PaneId, CellRect)>, Vec<PlacedDivider>) {
        let mut panes = Vec::new();
        let mut dividers = Vec::new();
        if let Some(zoomed) = self.zoomed {
            return (vec![(zoomed, area)], dividers);
        }
        self.root
            .place(area, &mut Vec::new(), &mut panes, &mut dividers);
        (panes, dividers)
    }

    /// The pane next to `from` in `direction`: of those whose edge touches
    /// it across a divider, the one sharing the most of that edge.
    pub fn neighbour(&self, from: PaneId, direction: Direction, area: CellRect) -> Option<PaneId> {
        let (panes, _) = self.place(area);
        let here = panes.iter().find(|(id, _)| *id == from)?.1;
        let overlap =
            |a0: usize, a1: usize, b0: usize, b1: usize| a1.min(b1).saturating_sub(a0.max(b0));
        panes
            .iter()
            .filter(|(id, r)| *id != from && r.cols > 0 && r.rows > 0)
            .filter_map(|(id, r)| {
                let touches = match direction {
                    Direction::Left => r.col + r.cols + 1 == here.col,
                    Direction::Right => here.col + here.cols + 1 == r.col,
                    Direction::Up => r.row + r.rows + 1 == here.row,
                    Direction::Down => here.row + here.rows + 1 == r.row,
                };
                let shared = match axis_of(direction) {
                    Axis::Columns => overlap(here.row, here.row + here.rows, r.row, r.row + r.rows),
                    Axis::Rows => overlap(here.col, here.col + here.cols, r.col, r.col + r.cols),
                };
                (touches && shared > 0).then_some((*id, shared))
            })
            .max_by_key(|(_, shared)| *shared)
            .map(|(id, _)| id)
    }

    /// Move the divider nearest `id` that runs across `direction` by
    /// `cells` towards it (tmux's resize-pane). Returns whether anything
    /// moved.
    pub fn resize(
        &mut self,
        id: PaneId,
        direction: Direction,
        cells: usize,
        area: CellRect,
    ) -> bool {
        let mut path = Vec::new();
        if !self.root.path_to(id, &mut path) {
            return false;
        }
        let (_, dividers) = self.place(area);
        // The deepest split on the way to `id` along the right axis.
        for depth in (0..path.len()).rev() {
            let prefix = &path[..depth];
            let Some(placed) = dividers.iter().find(|d| d.path == prefix) else {
                continue;
            };
            let axis = match placed.divider.axis {
                DividerAxis::Vertical => Axis::Columns,
                DividerAxis::Horizontal => Axis::Rows,
            };
            if axis != axis_of(direction) {
                continue;
            }
            let (at, _) = divider_position(&placed.divider);
            let target = (at as isize + sign_of(direction) * cells as isize).max(0) as usize;
            return self.drag(&placed.path.clone(), (target, target), area);
        }
        false
    }

    /// The divider under cell (`col`, `row`), if any.
    pub fn divider_at(&self, col: usize, row: usize, area: CellRect) -> Option<SplitPath> {
        let (_, dividers) = self.place(area);
        dividers
            .into_iter()
            .find(|d| {
                let rect = match d.divider.axis {
                    DividerAxis::Vertical => CellRect {
                        col: d.divider.col,
                        row: d.divider.row,
                        cols: 1,
                        rows: d.divider.len,
                    },
                    DividerAxis::Horizontal => CellRect {
                        col: d.divider.col,
                        row: d.divider.row,
                        cols: d.divider.len,
                        rows: 1,
                    },
                };
                rect.contains(col, row)
            })
            .map(|d| d.path)
    }

    /// Put the divider of the split at `path` under the cell `(col, row)`
    /// (a drag: a vertical divider takes the column, a horizontal one the
    /// row), keeping both sides at least [`MIN_PANE`] cells. Returns
    /// whether it moved.
    pub fn drag(&mut self, path: &[bool], (col, row): (usize, usize), area: CellRect) -> bool {
        let (_, dividers) = self.place(area);
        let Some(placed) = dividers.iter().find(|d| d.path == path) else {
            return false;
        };
        let (_, fallback) = divider_position(&placed.divider);
        let at = match placed.divider.axis {
            DividerAxis::Vertical => col,
            DividerAxis::Horizontal => row,
        };
        // The split's own area, along its axis.
        let (origin, span) = match placed.divider.axis {
            DividerAxis::Vertical => split_span(&self.root, path, area, Axis::Columns),
            DividerAxis::Horizontal => split_span(&self.root, path, area, Axis::Rows),
        }
        .unwrap_or(fallback);
        if span < 2 * MIN_PANE + 1 {
            return false;
        }
        let first = at
            .saturating_sub(origin)
            .clamp(MIN_PANE, span - 1 - MIN_PANE);
        let Some(Node::Split { ratio, .. }) = self.root.at_mut(path) else {
            return false;
        };
        let new_ratio = first as f32 / (span - 1) as f32;
        let moved = first_len(span, *ratio) != Some(first);
        *ratio = new_ratio;
        moved
    }
}

/// A divider's position across its axis, and its start and length along it.
fn divider_position(divider: &Divider) -> (usize, (usize, usize)) {
    match divider.axis {
        DividerAxis::Vertical => (divider.col, (divider.row, divider.len)),
        DividerAxis::Horizontal => (divider.row, (divider.col, divider.len)),
    }
}

/// Where the split at `path` starts and how long it is along `axis`.
fn split_span(root: &Node, path: &[bool], area: CellRect, axis: Axis) -> Option<(usize, usize)> {
    let mut node = root;
    let mut area = area;
    for &step in path {
        let Node::Split {
            axis: a,
            ratio,
            first,
            second,
        } = node
        else {
            return None;
        };
        let (r1, r2, _) = split_rect(area, *a, *ratio)?;
        (node, area) = if step {
            (&**second, r2)
        } else {
            (&**first, r1)
        };
    }
    Some(match axis {
        Axis::Columns => (area.col, area.cols),
        Axis::Rows => (area.row, area.rows),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const AREA: CellRect = CellRect {
        col: 0,
        row: 1,
        cols: 81,
        rows: 24,
    };

    fn rect(layout: &Layout, id: PaneId) -> CellRect {
        layout
            .place(AREA)
            .0
            .into_iter()
            .find(|(p, _)| *p == id)
            .map(|(_, r)| r)
            .unwrap_or_default()
    }

    #[test]
    fn a_split_right_halves_the_columns_around_a_divider() {
        let mut layout = Layout::new(1);
        assert!(layout.split(1, 2, Axis::Columns));
        let (panes, dividers) = layout.place(AREA);
        assert_eq!(panes.len(), 2);
        assert_eq!(rect(&layout, 1).cols + 1 + rect(&layout, 2).cols, 81);
        assert_eq!(rect(&layout, 1).cols, 40);
        assert_eq!(rect(&layout, 2).col, 41);
        assert_eq!(dividers[0].divider.col, 40);
        assert_eq!(dividers[0].divider.len, 24);
        assert_eq!(rect(&layout, 2).row, 1, "below the tab bar row");
    }

    #[test]
    fn focus_moves_to_the_pane_across_the_divider() {
        let mut layout = Layout::new(1);
        layout.split(1, 2, Axis::Columns);
        layout.split(2, 3, Axis::Rows);
        assert_eq!(layout.neighbour(1, Direction::Right, AREA), Some(2));
        assert_eq!(layout.neighbour(3, Direction::Left, AREA), Some(1));
        assert_eq!(layout.neighbour(2, Direction::Down, AREA), Some(3));
        assert_eq!(layout.neighbour(3, Direction::Up, AREA), Some(2));
        assert_eq!(layout.neighbour(1, Direction::Left, AREA), None);
    }

    #[test]
    fn removing_a_pane_gives_its_room_to_the_sibling() {
        let mut layout = Layout::new(1);
        layout.split(1, 2, Axis::Columns);
        layout.split(2, 3, Axis::Rows);
        assert!(layout.remove(2));
        assert_eq!(layout.panes(), vec![1, 3]);
        assert_eq!(rect(&layout, 3).rows, 24);
        assert!(layout.remove(3));
        assert!(!layout.remove(1), "the last pane stays: the tab closes");
        assert_eq!(rect(&layout, 1), AREA);
    }

    #[test]
    fn dragging_and_resizing_move_the_divider_within_bounds() {
        let mut layout = Layout::new(1);
        layout.split(1, 2, Axis::Columns);
        let path = layout.divider_at(40, 5, AREA).unwrap();
        assert!(layout.drag(&path, (20, 0), AREA));
        assert_eq!(rect(&layout, 1).cols, 20);
        assert_eq!(rect(&layout, 2).cols, 60);
        assert!(layout.resize(2, Direction::Right, 5, AREA));
        assert_eq!(rect(&layout, 1).cols, 25);
        // Past the edge: both sides keep MIN_PANE.
        layout.drag(&path, (500, 0), AREA);
        assert_eq!(rect(&layout, 2).cols, MIN_PANE);
        assert!(!layout.resize(1, Direction::Up, 1, AREA), "no row split");
        assert_eq!(layout.divider_at(10, 5, AREA), None);
    }

    #[test]
    fn a_zoomed_pane_fills_the_area_and_a_split_unzooms() {
        let mut layout = Layout::new(1);
        layout.split(1, 2, Axis::Rows);
        layout.toggle_zoom(2);
        let (panes, dividers) = layout.place(AREA);
        assert_eq!(panes, vec![(2, AREA)]);
        assert!(dividers.is_empty());
        layout.split(2, 3, Axis::Columns);
        assert_eq!(layout.zoomed(), None);
        assert_eq!(layout.place(AREA).0.len(), 3);
    }

    #[test]
    fn tiny_areas_never_underflow() {
        let mut layout = Layout::new(1);
        layout.split(1, 2, Axis::Columns);
        layout.split(2, 3, Axis::Columns);
        let tiny = CellRect {
            col: 0,
            row: 0,
            cols: 2,
            rows: 1,
        };
        let (panes, _) = layout.place(tiny);
        assert_eq!(panes.len(), 3);
        assert!(panes.iter().all(|(_, r)| r.col + r.cols <= 2));
    }
}
