//! A primitive's index list, kept with its greatest index, worked out once when the list is
//! made: the loader checks every primitive that shares the list against it in one compare.

use std::ops::Deref;
use std::sync::Arc;

/// Vertex indices in drawing order, immutable once made, with their greatest value.
/// Cloning shares the list: primitives reading the same accessor hold one copy.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Indices {
    list: Arc<[u32]>,
    max: Option<u32>,
}

impl Indices {
    pub fn new(list: impl Into<Arc<[u32]>>) -> Indices {
        let list = list.into();
        let max = list.iter().copied().max();
        Indices { list, max }
    }

    /// The shared list, for telling whether two `Indices` are the same allocation.
    pub fn shared(&self) -> &Arc<[u32]> {
        &self.list
    }

    /// The greatest index; `None` for an empty list.
    pub fn max(&self) -> Option<u32> {
        self.max
    }

    pub fn as_slice(&self) -> &[u32] {
        &self.list
    }
}

impl Deref for Indices {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        &self.list
    }
}

impl From<Vec<u32>> for Indices {
    fn from(list: Vec<u32>) -> Indices {
        Indices::new(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_maximum_is_the_greatest_index() {
        assert_eq!(Indices::new(vec![3, 9, 0, 7]).max(), Some(9));
        assert_eq!(Indices::new(vec![u32::MAX, 1]).max(), Some(u32::MAX));
        assert_eq!(Indices::new(Vec::new()).max(), None);
        let from: Indices = vec![4, 3, 2, 1, 0].into();
        assert_eq!((from.max(), from.as_slice()), (Some(4), &[4, 3, 2, 1, 0][..]));
    }
}
