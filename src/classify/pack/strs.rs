//! The strings and lists of rule packs ([`Str`], [`List`]): a range of the built-in tables
//! for built-in packs (`super::tables`, which the including module provides), owned for a
//! user's. A range is two numbers, not a pointer, so the built-in tables hold no address and
//! need no relocation at start. `build.rs` includes this file too.

use std::fmt;
use std::ops::Deref;

use serde::Deserialize;
use serde::de::Deserializer;

use super::schema::{Carried, Cond, Entry, Pick, Rule};
use super::tables;

/// A string of a pack: `Table(offset, length)` in the built-in string table, or owned.
#[derive(Clone)]
pub enum Str {
    /// A range of [`tables::strings`].
    Table(u32, u32),
    /// A string of a user's pack.
    Owned(String),
}

impl Str {
    /// Returns an owned string.
    pub fn owned(s: impl Into<String>) -> Self {
        Self::Owned(s.into())
    }

    /// Returns the text.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Table(at, len) => &tables::strings()[*at as usize..(*at + *len) as usize],
            Self::Owned(s) => s,
        }
    }
}

impl Deref for Str {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Str {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Default for Str {
    fn default() -> Self {
        Self::Owned(String::new())
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for Str {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Str {}

impl PartialEq<str> for Str {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<String> for Str {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl<'de> Deserialize<'de> for Str {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Str::Owned)
    }
}

/// Types whose built-in lists live in a table of [`tables`].
pub trait Pooled: Sized + 'static {
    /// The table.
    fn pool() -> &'static [Self];
}

/// A list of a pack: `Table(offset, length)` in its element type's built-in table, or owned.
#[derive(Clone)]
pub enum List<T: 'static> {
    /// A range of `T::pool()`.
    Table(u32, u32),
    /// A list of a user's pack.
    Owned(Vec<T>),
}

impl<T: Pooled> List<T> {
    /// Returns the items.
    pub fn as_slice(&self) -> &[T] {
        match self {
            Self::Table(at, len) => &T::pool()[*at as usize..(*at + *len) as usize],
            Self::Owned(v) => v,
        }
    }
}

impl<T: Pooled> Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> Default for List<T> {
    fn default() -> Self {
        Self::Owned(Vec::new())
    }
}

impl<T: Pooled + fmt::Debug> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<T: Pooled + PartialEq> PartialEq for List<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Pooled + Eq> Eq for List<T> {}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(d).map(List::Owned)
    }
}

impl<T> From<Vec<T>> for List<T> {
    fn from(v: Vec<T>) -> Self {
        Self::Owned(v)
    }
}

macro_rules! pooled {
    ($($t:ty => $f:ident),* $(,)?) => {
        $(impl Pooled for $t {
            fn pool() -> &'static [Self] {
                tables::$f()
            }
        })*
    };
}

pooled!(
    Str => strs,
    Entry => entries,
    Rule => rules,
    Cond => conds,
    Carried => carried,
    Pick => picks,
);
