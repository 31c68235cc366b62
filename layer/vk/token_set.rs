//! Merged completion tokens (seed 003's merged fences): a set reached when every member is.
//! A stream reaches its values in order, so two tokens of one stream merge into the later one:
//! a set holds at most one token per stream, and merging never grows it past the number of
//! streams involved.

use vkpace_core::SyncToken;

use super::error::Error;

/// Streams a set can span (a frame rarely depends on more than its queue and a few producers).
pub const TOKEN_SET_CAPACITY: usize = 8;

/// Completion tokens merged into one: reached when all members are. Anything that takes a
/// token takes a set (`impl Into<TokenSet>`), and a token is a set of one.
///
/// ```
/// use vkpace::{SyncToken, TokenSet};
/// let mut set = TokenSet::from(SyncToken::new(1, 4));
/// set.merge(SyncToken::new(1, 2))?; // the later token of stream 1 stays
/// set.merge(SyncToken::new(7, 9))?;
/// assert_eq!(set.tokens().map(|t| (t.stream(), t.value())).collect::<Vec<_>>(), [(1, 4), (7, 9)]);
/// # Ok::<(), vkpace::Error>(())
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TokenSet {
    members: [Option<SyncToken>; TOKEN_SET_CAPACITY],
}

impl TokenSet {
    /// The empty set (reached at once).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `token`: it replaces an earlier token of its stream, and is dropped for a later one.
    /// A ninth stream is the error [`Error::TokenSetFull`] (the set is unchanged).
    pub fn merge(&mut self, token: SyncToken) -> Result<(), Error> {
        if let Some(same) = self
            .members
            .iter_mut()
            .flatten()
            .find(|t| t.stream() == token.stream())
        {
            if token.value() > same.value() {
                *same = token;
            }
            return Ok(());
        }
        match self.members.iter_mut().find(|m| m.is_none()) {
            Some(free) => {
                *free = Some(token);
                Ok(())
            }
            None => Err(Error::TokenSetFull {
                capacity: TOKEN_SET_CAPACITY,
            }),
        }
    }

    /// Merges every member of `other`.
    pub fn merge_set(&mut self, other: &TokenSet) -> Result<(), Error> {
        other.tokens().try_for_each(|t| self.merge(t))
    }

    /// The members, at most one per stream.
    pub fn tokens(&self) -> impl Iterator<Item = SyncToken> + '_ {
        self.members.iter().flatten().copied()
    }

    /// Whether the set has no member.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.members.iter().all(Option::is_none)
    }
}

impl From<SyncToken> for TokenSet {
    fn from(token: SyncToken) -> Self {
        let mut members = [None; TOKEN_SET_CAPACITY];
        members[0] = Some(token);
        Self { members }
    }
}

impl std::fmt::Display for TokenSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{{")?;
        for (i, t) in self.tokens().enumerate() {
            write!(f, "{}{t}", if i == 0 { "" } else { "; " })?;
        }
        write!(f, "}}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_token_per_stream_and_a_full_set_is_refused() {
        let mut set = TokenSet::new();
        assert!(set.is_empty());
        for s in 0..TOKEN_SET_CAPACITY as u64 {
            set.merge(SyncToken::new(s, 1)).unwrap();
            set.merge(SyncToken::new(s, 3)).unwrap();
            set.merge(SyncToken::new(s, 2)).unwrap();
        }
        assert!(set.tokens().all(|t| t.value() == 3));
        let before = set;
        assert!(matches!(
            set.merge(SyncToken::new(99, 1)),
            Err(Error::TokenSetFull { capacity }) if capacity == TOKEN_SET_CAPACITY
        ));
        assert_eq!(set, before);
        let mut other = TokenSet::from(SyncToken::new(0, 5));
        other.merge_set(&set).unwrap();
        assert_eq!(other.tokens().count(), TOKEN_SET_CAPACITY);
        assert_eq!(other.tokens().next(), Some(SyncToken::new(0, 5)));
    }
}
