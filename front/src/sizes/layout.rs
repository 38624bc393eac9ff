//! HotSpot's placement of instance fields since JDK 15 (JDK-8237767, `FieldLayoutBuilder`),
//! replayed on byte offsets, with no JVM and no class files.
//!
//! A class's layout starts from its superclass's: the object header, then every inherited field
//! at the offset the superclass gave it. The gaps between them (alignment padding the superclass
//! left) are free, and so is everything after the last inherited field. The class's own fields
//! are then placed one at a time: primitives largest first, then references; each goes into the
//! smallest free gap that holds it at its alignment (the last such gap when several are equally
//! small), or else at the end, after padding to its alignment. A field's alignment is its size.
//!
//! `@Contended` groups, which HotSpot separates with padding, are modelled by
//! [`Layout::contended_group`] and [`Layout::pad`]; this module does not know which fields are
//! contended nor how wide the padding is: the caller says.
//!
//! This module is not the size of an object: that is the end of the layout rounded up to the
//! object alignment, decided by the caller for its object model.

/// A field placed in an object: its first byte and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Placed {
    pub offset: u64,
    pub size: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The object header, or padding nothing may use (after a `@Contended` group).
    Reserved,
    /// A field.
    Taken,
    /// Room for later fields.
    Free,
}

#[derive(Clone, Copy, Debug)]
struct Block {
    kind: Kind,
    offset: u64,
    size: u64,
}

/// The blocks of one object in offset order. The first is the header; the last is the free
/// space after everything placed, unbounded (its size is `u64::MAX` and only ever shrinks).
#[derive(Clone, Debug)]
pub(super) struct Layout {
    blocks: Vec<Block>,
    /// The first block a gap search may use: blocks before it are never searched. The header
    /// normally; the open end when only appending is allowed.
    start: usize,
}

impl Layout {
    /// The layout a class starts from: a header of `header` bytes and the fields it inherits.
    /// When `sealed`, the superclass declared `@Contended` fields: its gaps are not reused and a
    /// padding of `sealed_padding` bytes follows its last field.
    pub fn inherit(header: u64, inherited: &[Placed], sealed: Option<u64>) -> Layout {
        let mut fields = inherited.to_vec();
        fields.sort_by_key(|field| field.offset);
        let gap = if sealed.is_some() {
            Kind::Reserved
        } else {
            Kind::Free
        };
        let mut blocks = vec![Block {
            kind: Kind::Reserved,
            offset: 0,
            size: header,
        }];
        let mut end = header;
        for field in fields {
            if field.offset > end {
                blocks.push(Block {
                    kind: gap,
                    offset: end,
                    size: field.offset - end,
                });
            }
            blocks.push(Block {
                kind: Kind::Taken,
                offset: field.offset,
                size: field.size,
            });
            end = end.max(field.offset + field.size);
        }
        if let Some(padding) = sealed.filter(|&padding| padding > 0) {
            blocks.push(Block {
                kind: Kind::Reserved,
                offset: end,
                size: padding,
            });
            end += padding;
        }
        blocks.push(Block {
            kind: Kind::Free,
            offset: end,
            size: u64::MAX,
        });
        // HotSpot starts the search after the header; with a sealed superclass that still
        // declared fields, only appending is allowed.
        let start = if sealed.is_some() && !inherited.is_empty() {
            blocks.len() - 1
        } else {
            0
        };
        Layout { blocks, start }
    }

    /// Places fields of these sizes in this order, each in the smallest gap after the search
    /// start that fits it, else at the end.
    pub fn add(&mut self, sizes: &[u64]) {
        for &size in sizes {
            let slot = self.best_gap(size).unwrap_or(self.blocks.len() - 1);
            self.put(slot, size);
        }
    }

    /// Places a `@Contended` group: padding of `padding` bytes at the end, then the group's
    /// fields (`sizes`, already in placement order) in the space after it, never in earlier gaps.
    pub fn contended_group(&mut self, padding: u64, sizes: &[u64]) {
        self.pad(padding);
        let saved = self.start;
        self.start = self.blocks.len() - 1;
        self.add(sizes);
        self.start = saved;
    }

    /// Appends `padding` bytes nothing may use.
    pub fn pad(&mut self, padding: u64) {
        if padding > 0 {
            let last = self.blocks.len() - 1;
            self.insert(last, Kind::Reserved, padding);
        }
    }

    /// From now on, fields are only appended (a `@Contended` class places all its fields after
    /// a padding, never in gaps).
    pub fn append_only(&mut self) {
        self.start = self.blocks.len() - 1;
    }

    /// Every field placed, inherited ones included, in offset order.
    pub fn fields(&self) -> Vec<Placed> {
        self.blocks
            .iter()
            .filter(|block| block.kind == Kind::Taken)
            .map(|block| Placed {
                offset: block.offset,
                size: block.size,
            })
            .collect()
    }

    /// The first byte after everything placed (padding included).
    pub fn end(&self) -> u64 {
        self.blocks[self.blocks.len() - 1].offset
    }

    /// The free gap, strictly between the search start and the open end, that holds a field of
    /// `size` bytes and is the smallest; among equally small ones the last, as HotSpot scans
    /// backwards and keeps a candidate until a strictly smaller one turns up.
    fn best_gap(&self, size: u64) -> Option<usize> {
        let last = self.blocks.len() - 1;
        if self.start >= last {
            return None;
        }
        let mut best: Option<usize> = None;
        for index in (self.start + 1..last).rev() {
            let block = self.blocks[index];
            let fits =
                block.kind == Kind::Free && misalignment(block.offset, size) + size <= block.size;
            if fits && best.is_none_or(|b| block.size < self.blocks[b].size) {
                best = Some(index);
            }
        }
        best
    }

    /// Places a field of `size` bytes at the start of free block `slot`, after padding it to
    /// its alignment; the padding stays free for smaller fields.
    fn put(&mut self, slot: usize, size: u64) {
        let mut slot = slot;
        let adjust = misalignment(self.blocks[slot].offset, size);
        if adjust > 0 {
            self.insert(slot, Kind::Free, adjust);
            slot += 1;
        }
        self.insert(slot, Kind::Taken, size);
    }

    /// Carves a block of `kind` and `size` off the front of free block `slot`.
    fn insert(&mut self, slot: usize, kind: Kind, size: u64) {
        let offset = self.blocks[slot].offset;
        let free = &mut self.blocks[slot];
        free.offset += size;
        free.size -= size;
        self.blocks.insert(slot, Block { kind, offset, size });
        // The search start names a block, which moves right when a block goes before it.
        if self.start >= slot {
            self.start += 1;
        }
    }
}

/// How many bytes must be skipped from `offset` to reach a multiple of `alignment`.
fn misalignment(offset: u64, alignment: u64) -> u64 {
    match offset % alignment {
        0 => 0,
        rest => alignment - rest,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(offset: u64, size: u64) -> Placed {
        Placed { offset, size }
    }

    fn offsets(layout: &Layout) -> Vec<(u64, u64)> {
        layout.fields().iter().map(|f| (f.offset, f.size)).collect()
    }

    #[test]
    fn a_long_leaves_a_gap_after_the_header_that_an_int_fills() {
        let mut layout = Layout::inherit(12, &[], None);
        layout.add(&[8, 4]);
        assert_eq!(offsets(&layout), [(12, 4), (16, 8)]);
        assert_eq!(layout.end(), 24);
    }

    #[test]
    fn a_subclass_fills_the_gaps_of_its_superclass() {
        // class Mixed { byte b; long l; } then class MixedChild extends Mixed
        // { int i; short s; char c; boolean z; }: the int does not fit the 3 bytes at 13, the
        // short does (at 14), the char then goes to the end, the boolean into the byte at 13.
        let mut layout = Layout::inherit(12, &[at(12, 1), at(16, 8)], None);
        layout.add(&[4, 2, 2, 1]);
        assert_eq!(
            offsets(&layout),
            [(12, 1), (13, 1), (14, 2), (16, 8), (24, 4), (28, 2)]
        );
        assert_eq!(layout.end(), 30);
    }

    #[test]
    fn the_smallest_gap_that_fits_wins() {
        // Gaps: 2 bytes at 14, 3 bytes at 25. A short fits both (at 26 in the larger one).
        let inherited = [at(12, 2), at(16, 8), at(24, 1), at(28, 4)];
        let mut layout = Layout::inherit(12, &inherited, None);
        layout.add(&[2]);
        assert!(offsets(&layout).contains(&(14, 2)));
        assert_eq!(layout.end(), 32);
    }

    #[test]
    fn among_equal_gaps_the_last_wins() {
        let mut layout = Layout::inherit(12, &[at(16, 4), at(24, 8)], None);
        layout.add(&[4]);
        assert_eq!(offsets(&layout), [(16, 4), (20, 4), (24, 8)]);
        layout.add(&[4]);
        assert_eq!(offsets(&layout), [(12, 4), (16, 4), (20, 4), (24, 8)]);
    }

    #[test]
    fn an_eight_byte_header_takes_a_long_right_away() {
        let mut layout = Layout::inherit(8, &[], None);
        layout.add(&[8, 1]);
        assert_eq!(offsets(&layout), [(8, 8), (16, 1)]);
        assert_eq!(layout.end(), 17);
    }

    #[test]
    fn a_contended_group_sits_between_paddings() {
        let mut layout = Layout::inherit(12, &[], None);
        layout.add(&[4]);
        layout.contended_group(128, &[8, 4]);
        layout.pad(128);
        // The int goes to 12; the group starts after 128 bytes of padding at 16, the long
        // aligned at 144, the int after it (not in the free header gap).
        assert_eq!(offsets(&layout), [(12, 4), (144, 8), (152, 4)]);
        assert_eq!(layout.end(), 156 + 128);
    }

    #[test]
    fn a_contended_class_only_appends_after_its_padding() {
        let mut layout = Layout::inherit(12, &[], None);
        layout.append_only();
        layout.pad(128);
        layout.add(&[8, 1]);
        // The long aligns from 140 to 144; the byte does not go back into 140..144.
        assert_eq!(offsets(&layout), [(144, 8), (152, 1)]);
    }

    #[test]
    fn a_sealed_superclass_keeps_its_gaps_and_adds_padding() {
        let mut layout = Layout::inherit(12, &[at(16, 8)], Some(128));
        layout.add(&[4]);
        assert_eq!(offsets(&layout), [(16, 8), (152, 4)]);
        assert_eq!(layout.end(), 156);
    }
}
