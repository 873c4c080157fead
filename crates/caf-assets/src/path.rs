//! Asset paths: the normalised, base-relative names entries are keyed by.

use std::fmt;
use std::path::{Component, Path};
use std::sync::Arc;

/// A normalised path relative to the manager's base directory, with `/` separators, no `.`
/// or `..` components and no leading or trailing separator (`"textures/hero.caf"`).
///
/// Normalisation is lexical: `a/./b/../c.caf` and `a/c.caf` name the same entry. Symbolic
/// links are not resolved, so two different links to one file are two entries.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AssetPath(Arc<str>);

impl AssetPath {
    /// Normalises `path`, given relative to `base` (or absolute and inside `base`, or inside
    /// `alt_base`, the base directory as the caller spelled it before canonicalisation). The
    /// error is what is wrong with the path (the `reason` of
    /// [`AssetError::InvalidPath`](crate::AssetError::InvalidPath)).
    pub(crate) fn normalise(
        path: &Path,
        base: &Path,
        alt_base: &Path,
    ) -> Result<Self, &'static str> {
        let relative = if path.is_absolute() {
            path.strip_prefix(base)
                .or_else(|_| path.strip_prefix(alt_base))
                .map_err(|_| "absolute path outside the base directory")?
        } else {
            path
        };
        let mut parts: Vec<&str> = Vec::new();
        for component in relative.components() {
            match component {
                Component::Normal(name) => parts.push(name.to_str().ok_or("not valid UTF-8")?),
                Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        return Err("`..` leaves the base directory");
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err("absolute path outside the base directory")
                }
            }
        }
        if parts.is_empty() {
            return Err("names no file");
        }
        Ok(AssetPath(parts.join("/").into()))
    }

    /// An unchecked path, for the placeholder entry of a request whose path was invalid.
    pub(crate) fn raw(s: &str) -> Self {
        AssetPath(s.into())
    }

    /// The normalised path as a string (`"textures/hero.caf"`).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when `self` is `dir` or lies below it (`a/b.caf` is below `a`).
    pub(crate) fn is_at_or_below(&self, dir: &AssetPath) -> bool {
        let (s, d) = (self.as_str(), dir.as_str());
        s == d || (s.len() > d.len() && s.starts_with(d) && s.as_bytes()[d.len()] == b'/')
    }
}

impl fmt::Display for AssetPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for AssetPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl AsRef<str> for AssetPath {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for AssetPath {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for AssetPath {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(p: &str) -> Result<String, &'static str> {
        AssetPath::normalise(Path::new(p), Path::new("/base"), Path::new("/alt/base"))
            .map(|p| p.as_str().to_owned())
    }

    #[test]
    fn lexical_normalisation() {
        assert_eq!(norm("a/b.caf").unwrap(), "a/b.caf");
        assert_eq!(norm("./a//b.caf").unwrap(), "a/b.caf");
        assert_eq!(norm("a/x/../b.caf").unwrap(), "a/b.caf");
        assert_eq!(norm("a/b.caf/").unwrap(), "a/b.caf");
        assert_eq!(norm("/base/a/b.caf").unwrap(), "a/b.caf");
        assert_eq!(norm("/alt/base/a/b.caf").unwrap(), "a/b.caf");
    }

    #[test]
    fn rejects_escapes_and_empty() {
        for bad in [
            "../x.caf",
            "a/../../x.caf",
            "/elsewhere/x.caf",
            "",
            ".",
            "a/..",
        ] {
            assert!(norm(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn below() {
        let p = |s: &str| AssetPath(s.into());
        assert!(p("a/b.caf").is_at_or_below(&p("a")));
        assert!(p("a/b.caf").is_at_or_below(&p("a/b.caf")));
        assert!(!p("ab/c.caf").is_at_or_below(&p("a")));
        assert!(!p("a").is_at_or_below(&p("a/b.caf")));
    }

    proptest::proptest! {
        /// Normalising is idempotent, never leaves the base, and agrees with a reference
        /// implementation on paths built from a small alphabet of components.
        #[test]
        fn normalisation_is_idempotent(parts in proptest::collection::vec(
            proptest::sample::select(vec!["a", "b", "c.caf", ".", "..", ""]), 0..8)) {
            let joined = parts.join("/");
            let mut stack: Vec<&str> = Vec::new();
            let mut escaped = false;
            for p in &parts {
                match *p {
                    "" | "." => {}
                    ".." => escaped |= stack.pop().is_none(),
                    name => stack.push(name),
                }
            }
            match norm(&joined) {
                Ok(n) => {
                    proptest::prop_assert!(!escaped && !joined.starts_with('/'));
                    proptest::prop_assert_eq!(&n, &stack.join("/"));
                    proptest::prop_assert_eq!(norm(&n).unwrap(), n.clone());
                    proptest::prop_assert!(!n.split('/').any(|c| c == ".." || c == "." || c.is_empty()));
                }
                Err(_) => proptest::prop_assert!(escaped || stack.is_empty() || joined.starts_with('/')),
            }
        }
    }
}
