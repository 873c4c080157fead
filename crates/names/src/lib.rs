//! One declaration per name table, in the spirit of the `ktx2` crate's `pseudo_enum!`: the
//! [`names!`] macro declares a closed enum (optionally with an on-disk code per variant) or an
//! open code (a newtype over an integer whose values without a name survive), and gives it,
//! from that one list, code <-> value, name <-> value, `Display`, `FromStr` (whose error lists
//! the accepted names) and the lists of all values and names. Names match ASCII
//! case-insensitively (`FromStr` also ignores surrounding whitespace; an open code's also takes
//! a number); a value may have aliases, accepted but never printed.
//!
//! ```
//! voxcaf_names::names! {
//!     /// How a level is filtered.
//!     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
//!     pub enum Filter: u8 as "filter" {
//!         /// Nearest texel.
//!         Nearest = 0 => "nearest" | "point",
//!         /// Bilinear.
//!         Linear = 1 => "linear",
//!     }
//! }
//!
//! assert_eq!(Filter::from_code(1), Some(Filter::Linear));
//! assert_eq!(Filter::Nearest.code(), 0);
//! assert_eq!("POINT".parse(), Ok(Filter::Nearest));
//! assert_eq!(Filter::Linear.to_string(), "linear");
//! assert_eq!(Filter::NAMES, ["nearest", "linear"]);
//! assert_eq!(
//!     "cubic".parse::<Filter>().unwrap_err(),
//!     "unknown filter \"cubic\" (expected nearest or linear)"
//! );
//!
//! voxcaf_names::names! {
//!     /// A stage code: values without a name are kept.
//!     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
//!     pub struct Stage(pub u32) as "stage", unknown "stage" {
//!         /// Vertex shader.
//!         VERTEX = 0 => "vertex" | "vs",
//!         /// Fragment shader.
//!         FRAGMENT = 1 => "fragment",
//!     }
//! }
//!
//! assert_eq!(Stage(1).name(), Some("fragment"));
//! assert_eq!(Stage(7).name(), None);
//! assert_eq!(Stage(7).to_string(), "stage 7");
//! assert_eq!("vs".parse(), Ok(Stage::VERTEX));
//! assert_eq!("0x7".parse(), Ok(Stage(7)));
//! assert_eq!(Stage::ALL, [Stage::VERTEX, Stage::FRAGMENT]);
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]

/// The `FromStr` error of a table: `unknown {what} {input:?} (expected a, b or c)`, with `, or
/// a number` added for open codes.
pub fn unknown_name(what: &str, input: &str, names: &[&str], numbers: bool) -> String {
    let list = match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    };
    let numbers = if numbers { ", or a number" } else { "" };
    format!("unknown {what} {input:?} (expected {list}{numbers})")
}

/// The file kinds a user may hand to the wrong command, by their first bytes: what a "bad
/// magic" error can say the file is instead.
const FILE_KINDS: &[(&[u8], &str)] = &[
    (b"VWR1", "a .vwr world"),
    (&[0xfe, 0xca, 0xfe, 0xca], "a .caf asset"),
    (b"CAFP", "a .cafpack asset pack"),
    (b"VOX ", "a MagicaVoxel .vox model"),
    (b"\x89PNG", "a PNG image"),
    (b"RIFF", "a RIFF file (WAV audio or WebP image)"),
    (b"OggS", "an Ogg file"),
    (b"fLaC", "a FLAC file"),
    (b"glTF", "a binary glTF (.glb)"),
    (b"\xabKTX", "a KTX texture"),
    (b"\x03\x02\x23\x07", "a SPIR-V module"),
];

/// What a file is, told by its first bytes (`head`), for a file some command cannot read.
///
/// ```
/// assert_eq!(voxcaf_names::file_kind(b"VOX \x96\0\0\0"), Some("a MagicaVoxel .vox model"));
/// assert_eq!(voxcaf_names::file_kind(b"\xfe\xca\xfe\xca"), Some("a .caf asset"));
/// assert_eq!(voxcaf_names::file_kind(b"nothing"), None);
/// ```
pub fn file_kind(head: &[u8]) -> Option<&'static str> {
    FILE_KINDS
        .iter()
        .find(|(magic, _)| head.starts_with(magic))
        .map(|(_, kind)| *kind)
}

/// A number written in decimal or, after `0x`, in hexadecimal (the text form of an open code
/// without a name).
pub fn parse_number(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Declares a name table; see the [crate documentation](crate) for both forms.
///
/// - `enum Name as "what" { Variant => "name" | "alias", ... }`: a closed enum with `name`,
///   `from_name`, `ALL`, `NAMES`, `Display` and `FromStr`.
/// - `enum Name: u8 as "what" { Variant = 0 => "name", ... }`: the same plus `code` and
///   `from_code`.
/// - `struct Name(pub u16) as "what", unknown "prefix" { CONST = 1 => "name", ... }`: an open
///   code with one associated constant per name; `name` and `from_name` return options,
///   `Display` prints a code without a name as `prefix N`, and `FromStr` also takes numbers.
///
/// The caller writes the derives; attributes on variants (`#[default]`, docs) are kept.
#[macro_export]
macro_rules! names {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident: $code_ty:ty as $what:literal {
            $(
                $(#[$vattr:meta])*
                $variant:ident = $code:literal => $vname:literal $(| $alias:literal)*
            ),+ $(,)?
        }
    ) => {
        $crate::names! {
            $(#[$attr])*
            $vis enum $name as $what {
                $( $(#[$vattr])* $variant => $vname $(| $alias)* ),+
            }
        }

        impl $name {
            /// The on-disk code.
            pub fn code(self) -> $code_ty {
                match self {
                    $( $name::$variant => $code, )+
                }
            }

            /// The value of an on-disk code, `None` for a code without one.
            pub fn from_code(code: $code_ty) -> Option<$name> {
                match code {
                    $( $code => Some($name::$variant), )+
                    _ => None,
                }
            }
        }
    };
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident as $what:literal {
            $(
                $(#[$vattr:meta])*
                $variant:ident => $vname:literal $(| $alias:literal)*
            ),+ $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $( $(#[$vattr])* $variant, )+
        }

        impl $name {
            /// Every value, in the order of the declaration.
            pub const ALL: &'static [$name] = &[$( $name::$variant ),+];
            /// Every name, in the order of the declaration (aliases left out).
            pub const NAMES: &'static [&'static str] = &[$( $vname ),+];

            /// The name.
            pub fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $vname, )+
                }
            }

            $crate::__names_from_name!($name; $( $name::$variant => $vname $(| $alias)* ),+);
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::core::str::FromStr for $name {
            type Err = ::std::string::String;
            fn from_str(s: &str) -> ::core::result::Result<$name, ::std::string::String> {
                $name::from_name(s.trim())
                    .ok_or_else(|| $crate::unknown_name($what, s, $name::NAMES, false))
            }
        }
    };
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident(pub $code_ty:ty) as $what:literal, unknown $prefix:literal {
            $(
                $(#[$cattr:meta])*
                $konst:ident = $code:literal => $vname:literal $(| $alias:literal)*
            ),+ $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis struct $name(pub $code_ty);

        impl $name {
            $( $(#[$cattr])* pub const $konst: $name = $name($code); )+
            /// Every named value, in the order of the declaration.
            pub const ALL: &'static [$name] = &[$( $name::$konst ),+];
            /// Every name, in the order of the declaration (aliases left out).
            pub const NAMES: &'static [&'static str] = &[$( $vname ),+];

            /// The name of a named code, `None` for the others.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $( $code => Some($vname), )+
                    _ => None,
                }
            }

            $crate::__names_from_name!($name; $( $name::$konst => $vname $(| $alias)* ),+);
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, "{} {}", $prefix, self.0),
                }
            }
        }

        impl ::core::str::FromStr for $name {
            type Err = ::std::string::String;
            fn from_str(s: &str) -> ::core::result::Result<$name, ::std::string::String> {
                if let Some(v) = $name::from_name(s.trim()) {
                    return Ok(v);
                }
                $crate::parse_number(s)
                    .and_then(|n| <$code_ty>::try_from(n).ok())
                    .map($name)
                    .ok_or_else(|| $crate::unknown_name($what, s, $name::NAMES, true))
            }
        }
    };
}

/// The `from_name` method of a [`names!`] table (both forms): the value of a name or alias,
/// ASCII case-insensitively. Not for use outside [`names!`].
#[doc(hidden)]
#[macro_export]
macro_rules! __names_from_name {
    ($name:ident; $( $value:path => $vname:literal $(| $alias:literal)* ),+) => {
        /// The value of a name or alias (ASCII case-insensitive).
        pub fn from_name(s: &str) -> Option<$name> {
            $(
                if s.eq_ignore_ascii_case($vname) $(|| s.eq_ignore_ascii_case($alias))* {
                    return Some($value);
                }
            )+
            None
        }
    };
}

#[cfg(test)]
mod tests {
    use super::{parse_number, unknown_name};

    names! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
        enum Mode as "mode" {
            #[default]
            Fast => "fast" | "quick",
            Slow => "slow",
            Exact => "exact",
        }
    }

    names! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        struct Kind(pub u8) as "kind", unknown "kind" {
            A = 1 => "a",
            B = 200 => "b" | "bee",
        }
    }

    #[test]
    fn names_aliases_case_and_errors() {
        assert_eq!(Mode::default(), Mode::Fast);
        assert_eq!(Mode::ALL, [Mode::Fast, Mode::Slow, Mode::Exact]);
        for (m, n) in Mode::ALL.iter().zip(Mode::NAMES) {
            assert_eq!(m.name(), *n);
            assert_eq!(n.to_uppercase().parse::<Mode>(), Ok(*m));
            assert_eq!(m.to_string(), *n);
        }
        assert_eq!("Quick".parse(), Ok(Mode::Fast));
        assert_eq!(
            "slo".parse::<Mode>(),
            Err("unknown mode \"slo\" (expected fast, slow or exact)".to_string())
        );
        assert_eq!(
            " fast\n".parse(),
            Ok(Mode::Fast),
            "surrounding whitespace is ignored"
        );
        assert_eq!(Mode::from_name(" fast"), None, "but not by from_name");
    }

    #[test]
    fn open_codes_keep_unnamed_values() {
        assert_eq!(Kind::ALL, [Kind::A, Kind::B]);
        assert_eq!(Kind(200), Kind::B);
        assert_eq!(Kind(3).name(), None);
        assert_eq!(Kind(3).to_string(), "kind 3");
        assert_eq!("BEE".parse(), Ok(Kind::B));
        assert_eq!("0xc8".parse(), Ok(Kind::B));
        assert_eq!("7".parse(), Ok(Kind(7)));
        assert_eq!(
            "256".parse::<Kind>(),
            Err("unknown kind \"256\" (expected a or b, or a number)".to_string())
        );
    }

    #[test]
    fn helpers() {
        assert_eq!(
            unknown_name("x", "y", &["only"], false),
            "unknown x \"y\" (expected only)"
        );
        assert_eq!(parse_number("0X1f"), Some(31));
        assert_eq!(parse_number(" 12 "), Some(12));
        assert_eq!(parse_number("0x"), None);
        assert_eq!(parse_number("-1"), None);
    }
}
