//! `LoserTree` (`SortMergeReaderWithLoserTree`) of Paimon 1.0 over the runs of one section.

use std::cmp::Ordering;
use std::path::PathBuf;

use crate::error::{Error, Result};

use super::run::{Run, RunContext};

/// `LoserTree.State`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    LoserWithNewKey,
    LoserWithSameKey,
    LoserPopped,
    WinnerWithNewKey,
    WinnerWithSameKey,
    WinnerPopped,
}

impl State {
    pub(crate) fn is_winner(self) -> bool {
        matches!(
            self,
            State::WinnerWithNewKey | State::WinnerWithSameKey | State::WinnerPopped
        )
    }
}

pub(crate) struct LoserTree {
    pub(crate) tree: Vec<isize>,
    pub(crate) runs: Vec<Run>,
    pub(crate) initialized: bool,
}

impl LoserTree {
    pub(crate) fn new(runs: Vec<Run>) -> LoserTree {
        LoserTree {
            tree: vec![-1; runs.len()],
            runs,
            initialized: false,
        }
    }

    pub(crate) fn size(&self) -> isize {
        self.runs.len() as isize
    }

    pub(crate) fn leaf(&self, i: isize) -> Result<&Run> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.runs.get(i))
            .ok_or_else(|| tree_bug(i))
    }

    pub(crate) fn leaf_mut(&mut self, i: isize) -> Result<&mut Run> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.runs.get_mut(i))
            .ok_or_else(|| tree_bug(i))
    }

    pub(crate) fn node(&self, parent: isize) -> Result<isize> {
        usize::try_from(parent)
            .ok()
            .and_then(|p| self.tree.get(p).copied())
            .ok_or_else(|| tree_bug(parent))
    }

    pub(crate) fn set_node(&mut self, parent: isize, value: isize) -> Result<()> {
        let slot = usize::try_from(parent)
            .ok()
            .and_then(|p| self.tree.get_mut(p))
            .ok_or_else(|| tree_bug(parent))?;
        *slot = value;
        Ok(())
    }

    /// The user key order of the current records of runs `a` and `b`.
    pub(crate) fn key_order(&self, a: isize, b: isize) -> Result<Option<Ordering>> {
        let (ra, rb) = (self.leaf(a)?, self.leaf(b)?);
        Ok(match (&ra.current, &rb.current) {
            (Some(x), Some(y)) => match (&x.keys, &y.keys) {
                (Some(kx), Some(ky)) => Some(kx.row(ra.row).cmp(&ky.row(rb.row))),
                _ => None,
            },
            _ => None,
        })
    }

    /// The sequence order (user sequence fields, then `_SEQUENCE_NUMBER`) of runs `a` and `b`.
    pub(crate) fn sequence_order(&self, a: isize, b: isize) -> Result<Option<Ordering>> {
        let (ra, rb) = (self.leaf(a)?, self.leaf(b)?);
        Ok(match (&ra.current, &rb.current) {
            (Some(x), Some(y)) => {
                let user = match (&x.user_sequence, &y.user_sequence) {
                    (Some(ux), Some(uy)) => ux.row(ra.row).cmp(&uy.row(rb.row)),
                    _ => Ordering::Equal,
                };
                Some(user.then(x.sequence[ra.row].cmp(&y.sequence[rb.row])))
            }
            _ => None,
        })
    }

    /// Java's `firstComparator(e1, e2)`: e1 wins (`Greater`) when its key is smaller; a missing record
    /// (end of run) loses.
    pub(crate) fn first(&self, e1: isize, e2: isize) -> Result<Ordering> {
        if !self.leaf(e1)?.has_record() {
            return Ok(Ordering::Less);
        }
        if !self.leaf(e2)?.has_record() {
            return Ok(Ordering::Greater);
        }
        Ok(self.key_order(e2, e1)?.unwrap_or(Ordering::Equal))
    }

    /// Java's `secondComparator(e1, e2)`: e1 wins when its sequence is smaller.
    pub(crate) fn second(&self, e1: isize, e2: isize) -> Result<Ordering> {
        if !self.leaf(e1)?.has_record() {
            return Ok(Ordering::Less);
        }
        if !self.leaf(e2)?.has_record() {
            return Ok(Ordering::Greater);
        }
        Ok(self.sequence_order(e2, e1)?.unwrap_or(Ordering::Equal))
    }

    pub(crate) fn initialize(&mut self, ctx: &RunContext) -> Result<()> {
        if self.initialized {
            return Ok(());
        }
        self.tree.iter_mut().for_each(|t| *t = -1);
        for i in (0..self.size()).rev() {
            self.leaf_mut(i)?.advance(ctx)?;
            self.adjust(i)?;
        }
        self.initialized = true;
        Ok(())
    }

    pub(crate) fn adjust_for_next_loop(&mut self, ctx: &RunContext) -> Result<()> {
        loop {
            let w = self.node(0)?;
            if self.leaf(w)?.state != State::WinnerPopped {
                return Ok(());
            }
            self.leaf_mut(w)?.advance(ctx)?;
            self.adjust(w)?;
        }
    }

    /// Pops the winner's record: its run index, `None` when the records of the current key are exhausted
    /// or (when the winner has no record) at the end.
    pub(crate) fn pop_winner(&mut self) -> Result<Option<usize>> {
        let w = self.node(0)?;
        let leaf = self.leaf_mut(w)?;
        if leaf.state == State::WinnerPopped {
            return Ok(None);
        }
        leaf.state = State::WinnerPopped;
        let has = leaf.has_record();
        self.adjust(w)?;
        Ok(has.then_some(w as usize))
    }

    pub(crate) fn peek_winner(&self) -> Result<Option<usize>> {
        let w = self.node(0)?;
        let leaf = self.leaf(w)?;
        Ok((leaf.state != State::WinnerPopped && leaf.has_record()).then_some(w as usize))
    }

    pub(crate) fn adjust(&mut self, mut winner: isize) -> Result<()> {
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

    pub(crate) fn adjust_with_same_winner_key(&mut self, index: isize, winner: isize) -> Result<()> {
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

    pub(crate) fn adjust_with_new_winner_key(&mut self, index: isize, winner: isize) -> Result<()> {
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

