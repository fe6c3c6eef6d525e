//! `LoserTree` (`SortMergeReaderWithLoserTree`) of Paimon 1.0 over the cursors of one section.
//!
//! The tree knows only [`Cursor`]s: something positioned on a current record (or on none, at its end)
//! that compares its key and its sequence with another cursor's and advances. It opens no file and knows
//! no merge engine; [`super::run::Run`] is the cursor of the merge reader.

use std::cmp::Ordering;
use std::path::PathBuf;

use crate::error::{Error, Result};

/// A leaf of the [`LoserTree`]: a sorted sequence of records, positioned on its current record.
pub(crate) trait Cursor {
    /// What [`Cursor::advance`] needs (for runs: the files being read).
    type Context;

    /// Whether the cursor is on a record (false at its end).
    fn has_record(&self) -> bool;

    /// Moves to the next record; none at the end.
    fn advance(&mut self, ctx: &Self::Context) -> Result<()>;

    /// The key order of the current records of `self` and `other`; `None` when either has no record or
    /// no comparable key.
    fn key_order(&self, other: &Self) -> Option<Ordering>;

    /// The order of the current records of `self` and `other` among the records of one key (their
    /// sequence); `None` when either has no record.
    fn sequence_order(&self, other: &Self) -> Option<Ordering>;
}

/// `LoserTree.State`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    LoserWithNewKey,
    LoserWithSameKey,
    LoserPopped,
    WinnerWithNewKey,
    WinnerWithSameKey,
    WinnerPopped,
}

impl State {
    fn is_winner(self) -> bool {
        matches!(
            self,
            State::WinnerWithNewKey | State::WinnerWithSameKey | State::WinnerPopped
        )
    }
}

/// The tree's state of one leaf (`LeafIterator`'s state and `firstSameKeyIndex`).
struct Leaf {
    state: State,
    first_same_key: isize,
}

impl Leaf {
    fn set_first_same_key(&mut self, index: isize) {
        if self.first_same_key == -1 {
            self.first_same_key = index;
        }
    }
}

/// `LoserTree` of Paimon 1.0 over the cursors of one section, with the same node states and tie rules, so the
/// records of one key come out in the same order as in Java even when their sequences are equal.
pub(crate) struct LoserTree<C> {
    tree: Vec<isize>,
    cursors: Vec<C>,
    /// The tree's state of each cursor, by the same index.
    leaves: Vec<Leaf>,
    initialized: bool,
}

impl<C: Cursor> LoserTree<C> {
    pub(crate) fn new(cursors: Vec<C>) -> LoserTree<C> {
        LoserTree {
            tree: vec![-1; cursors.len()],
            leaves: cursors
                .iter()
                .map(|_| Leaf {
                    state: State::WinnerWithNewKey,
                    first_same_key: -1,
                })
                .collect(),
            cursors,
            initialized: false,
        }
    }

    /// The cursors, by leaf index (the indexes [`LoserTree::pop_winner`] returns).
    pub(crate) fn cursors_mut(&mut self) -> &mut [C] {
        &mut self.cursors
    }

    /// The number of leaves.
    pub(crate) fn len(&self) -> usize {
        self.cursors.len()
    }

    fn size(&self) -> isize {
        self.cursors.len() as isize
    }

    fn cursor(&self, i: isize) -> Result<&C> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.cursors.get(i))
            .ok_or_else(|| tree_bug(i))
    }

    fn leaf(&self, i: isize) -> Result<&Leaf> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.leaves.get(i))
            .ok_or_else(|| tree_bug(i))
    }

    fn leaf_mut(&mut self, i: isize) -> Result<&mut Leaf> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.leaves.get_mut(i))
            .ok_or_else(|| tree_bug(i))
    }

    fn has_record(&self, i: isize) -> Result<bool> {
        Ok(self.cursor(i)?.has_record())
    }

    /// `LeafIterator.advanceIfAvailable`: the leaf starts over as a winner with a new key.
    fn advance(&mut self, i: isize, ctx: &C::Context) -> Result<()> {
        let leaf = self.leaf_mut(i)?;
        leaf.first_same_key = -1;
        leaf.state = State::WinnerWithNewKey;
        let cursor = usize::try_from(i)
            .ok()
            .and_then(|i| self.cursors.get_mut(i))
            .ok_or_else(|| tree_bug(i))?;
        cursor.advance(ctx)
    }

    fn node(&self, parent: isize) -> Result<isize> {
        usize::try_from(parent)
            .ok()
            .and_then(|p| self.tree.get(p).copied())
            .ok_or_else(|| tree_bug(parent))
    }

    fn set_node(&mut self, parent: isize, value: isize) -> Result<()> {
        let slot = usize::try_from(parent)
            .ok()
            .and_then(|p| self.tree.get_mut(p))
            .ok_or_else(|| tree_bug(parent))?;
        *slot = value;
        Ok(())
    }

    /// The user key order of the current records of leaves `a` and `b`.
    fn key_order(&self, a: isize, b: isize) -> Result<Option<Ordering>> {
        Ok(self.cursor(a)?.key_order(self.cursor(b)?))
    }

    /// The sequence order (user sequence fields, then `_SEQUENCE_NUMBER`) of leaves `a` and `b`.
    fn sequence_order(&self, a: isize, b: isize) -> Result<Option<Ordering>> {
        Ok(self.cursor(a)?.sequence_order(self.cursor(b)?))
    }

    /// Java's `firstComparator(e1, e2)`: e1 wins (`Greater`) when its key is smaller; a missing record
    /// (end of run) loses.
    fn first(&self, e1: isize, e2: isize) -> Result<Ordering> {
        if !self.has_record(e1)? {
            return Ok(Ordering::Less);
        }
        if !self.has_record(e2)? {
            return Ok(Ordering::Greater);
        }
        Ok(self.key_order(e2, e1)?.unwrap_or(Ordering::Equal))
    }

    /// Java's `secondComparator(e1, e2)`: e1 wins when its sequence is smaller.
    fn second(&self, e1: isize, e2: isize) -> Result<Ordering> {
        if !self.has_record(e1)? {
            return Ok(Ordering::Less);
        }
        if !self.has_record(e2)? {
            return Ok(Ordering::Greater);
        }
        Ok(self.sequence_order(e2, e1)?.unwrap_or(Ordering::Equal))
    }

    pub(crate) fn initialize(&mut self, ctx: &C::Context) -> Result<()> {
        if self.initialized {
            return Ok(());
        }
        self.tree.iter_mut().for_each(|t| *t = -1);
        for i in (0..self.size()).rev() {
            self.advance(i, ctx)?;
            self.adjust(i)?;
        }
        self.initialized = true;
        Ok(())
    }

    pub(crate) fn adjust_for_next_loop(&mut self, ctx: &C::Context) -> Result<()> {
        loop {
            let w = self.node(0)?;
            if self.leaf(w)?.state != State::WinnerPopped {
                return Ok(());
            }
            self.advance(w, ctx)?;
            self.adjust(w)?;
        }
    }

    /// Pops the winner's record: its leaf index, `None` when the records of the current key are exhausted
    /// or (when the winner has no record) at the end.
    pub(crate) fn pop_winner(&mut self) -> Result<Option<usize>> {
        let w = self.node(0)?;
        let leaf = self.leaf_mut(w)?;
        if leaf.state == State::WinnerPopped {
            return Ok(None);
        }
        leaf.state = State::WinnerPopped;
        let has = self.has_record(w)?;
        self.adjust(w)?;
        Ok(has.then_some(w as usize))
    }

    /// The winner's leaf when the tree is at rest on a new key: the winner not yet popped
    /// (`WinnerWithNewKey`) and every other leaf a loser with a new key, so that while the winner's key stays
    /// below every other leaf's, advancing it and adjusting changes no other node. `None` otherwise.
    pub(crate) fn resting_winner(&self) -> Option<usize> {
        let w = usize::try_from(*self.tree.first()?).ok()?;
        let rests = self.leaves.iter().enumerate().all(|(i, l)| {
            if i == w {
                l.state == State::WinnerWithNewKey && l.first_same_key == -1
            } else {
                l.state == State::LoserWithNewKey
            }
        });
        rests.then_some(w)
    }

    /// After the resting winner `w` ([`LoserTree::resting_winner`]) was advanced past records whose keys were
    /// below every other leaf's: re-plays the tree for its current record, as `adjust_for_next_loop` does
    /// after an advance.
    pub(crate) fn readjust_winner(&mut self, w: usize) -> Result<()> {
        let w = isize::try_from(w).map_err(|_| tree_bug(-1))?;
        let leaf = self.leaf_mut(w)?;
        leaf.first_same_key = -1;
        leaf.state = State::WinnerWithNewKey;
        self.adjust(w)
    }

    pub(crate) fn peek_winner(&self) -> Result<Option<usize>> {
        let w = self.node(0)?;
        let leaf = self.leaf(w)?;
        Ok((leaf.state != State::WinnerPopped && self.has_record(w)?).then_some(w as usize))
    }

    fn adjust(&mut self, mut winner: isize) -> Result<()> {
        let size = self.size();
        let mut parent = (winner + size) / 2;
        while parent > 0 && winner >= 0 {
            if self.node(parent)? == -1 {
                self.leaf_mut(winner)?.state = State::LoserWithNewKey;
            } else {
                match self.leaf(winner)?.state {
                    State::WinnerWithNewKey => self.adjust_with_new_winner_key(parent, winner)?,
                    State::WinnerWithSameKey => self.adjust_with_same_winner_key(parent, winner)?,
                    State::WinnerPopped => {
                        let first_same = self.leaf(winner)?.first_same_key;
                        if first_same < 0 {
                            parent = -1;
                        } else {
                            parent = first_same;
                            let p = self.node(parent)?;
                            self.leaf_mut(winner)?.state = State::LoserPopped;
                            self.leaf_mut(p)?.state = State::WinnerWithSameKey;
                        }
                    }
                    other => {
                        return Err(Error::Merge {
                            path: PathBuf::from("<loser tree>"),
                            reason: format!("unknown state for {other:?}"),
                        })
                    }
                }
            }
            if !self.leaf(winner)?.state.is_winner() {
                let tmp = winner;
                winner = self.node(parent)?;
                self.set_node(parent, tmp)?;
            }
            parent /= 2;
        }
        self.set_node(0, winner)
    }

    fn adjust_with_same_winner_key(&mut self, index: isize, winner: isize) -> Result<()> {
        let p = self.node(index)?;
        match self.leaf(p)?.state {
            State::LoserWithSameKey => {
                if self.second(p, winner)? == Ordering::Greater {
                    self.leaf_mut(p)?.state = State::WinnerWithSameKey;
                    self.leaf_mut(winner)?.state = State::LoserWithSameKey;
                    self.leaf_mut(p)?.set_first_same_key(index);
                } else {
                    self.leaf_mut(winner)?.set_first_same_key(index);
                }
                Ok(())
            }
            State::LoserWithNewKey | State::LoserPopped => Ok(()),
            other => Err(Error::Merge {
                path: PathBuf::from("<loser tree>"),
                reason: format!("unknown state for {other:?}"),
            }),
        }
    }

    fn adjust_with_new_winner_key(&mut self, index: isize, winner: isize) -> Result<()> {
        let p = self.node(index)?;
        match self.leaf(p)?.state {
            State::LoserWithNewKey => {
                let first = self.first(p, winner)?;
                if first == Ordering::Equal {
                    if self.second(p, winner)? == Ordering::Less {
                        self.leaf_mut(p)?.state = State::LoserWithSameKey;
                        self.leaf_mut(winner)?.set_first_same_key(index);
                    } else {
                        self.leaf_mut(winner)?.state = State::LoserWithSameKey;
                        self.leaf_mut(p)?.state = State::WinnerWithNewKey;
                        self.leaf_mut(p)?.set_first_same_key(index);
                    }
                } else if first == Ordering::Greater {
                    self.leaf_mut(p)?.state = State::WinnerWithNewKey;
                    self.leaf_mut(winner)?.state = State::LoserWithNewKey;
                }
                Ok(())
            }
            State::LoserWithSameKey => Err(Error::Merge {
                path: PathBuf::from("<loser tree>"),
                reason: "a node in the WINNER_WITH_NEW_KEY state met a node in the \
                         LOSER_WITH_SAME_KEY state"
                    .into(),
            }),
            State::LoserPopped => {
                let parent = self.leaf_mut(p)?;
                parent.state = State::WinnerPopped;
                parent.first_same_key = -1;
                self.leaf_mut(winner)?.state = State::LoserWithNewKey;
                Ok(())
            }
            other => Err(Error::Merge {
                path: PathBuf::from("<loser tree>"),
                reason: format!("unknown state for {other:?}"),
            }),
        }
    }
}

pub(crate) fn tree_bug(i: isize) -> Error {
    Error::Merge {
        path: PathBuf::from("<loser tree>"),
        reason: format!("index {i} out of range"),
    }
}
