//! How the crate declares an on-disk struct: once, as a field list that yields both the public
//! typed struct (native Rust types, easy to build and match on) and its raw `#[repr(C)]` image
//! (zerocopy little-endian field types, alignment 1, no padding) with one conversion each way.
//!
//! Every byte offset of the format therefore follows from a declaration; decoding is a checked
//! zerocopy cast and encoding is `as_bytes`, so nothing in the crate computes field offsets by
//! hand and big-endian hosts read the same values as little-endian ones.

use zerocopy::little_endian::{F32, U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// A field type of a public layout struct and its little-endian on-disk counterpart.
pub(crate) trait LeField: Copy {
    /// The on-disk type: little-endian, alignment 1.
    type Le: FromBytes + IntoBytes + KnownLayout + Immutable + Unaligned + Copy;
    /// Native value to its on-disk form.
    fn to_le(self) -> Self::Le;
    /// On-disk form to the native value.
    fn from_le(le: Self::Le) -> Self;
}

macro_rules! le_field {
    ($($native:ty => $le:ty),* $(,)?) => {$(
        impl LeField for $native {
            type Le = $le;
            fn to_le(self) -> $le {
                <$le>::new(self)
            }
            fn from_le(le: $le) -> $native {
                le.get()
            }
        }
    )*};
}

le_field!(u16 => U16, u32 => U32, u64 => U64, f32 => F32);

impl LeField for u8 {
    type Le = u8;
    fn to_le(self) -> u8 {
        self
    }
    fn from_le(le: u8) -> u8 {
        le
    }
}

impl<T: LeField, const N: usize> LeField for [T; N] {
    type Le = [T::Le; N];
    fn to_le(self) -> Self::Le {
        self.map(T::to_le)
    }
    fn from_le(le: Self::Le) -> Self {
        le.map(T::from_le)
    }
}

/// Declares one on-disk struct: the public struct `$name` as written (attributes, docs and
/// fields), the crate-private raw image `$raw` whose fields are the [`LeField::Le`] types of the
/// same names in the same order, a compile-time check that the raw image is `$size` bytes,
/// `$name::SIZE`, and `From` conversions both ways (the only place fields are copied).
/// `layout! { raw struct $raw ($size bytes) { field: type, ... } }` declares a raw image alone
/// (the footer's), the same way.
macro_rules! layout {
    (
        $(#[$attr:meta])*
        pub struct $name:ident ($raw:ident, $size:literal bytes) {
            $(
                $(#[$fattr:meta])*
                pub $field:ident : $ty:ty,
            )*
        }
    ) => {
        $(#[$attr])*
        pub struct $name {
            $(
                $(#[$fattr])*
                pub $field: $ty,
            )*
        }

        $crate::container::layout::layout! {
            #[doc = concat!("On-disk image of [`", stringify!($name), "`] (", stringify!($size),
                " bytes): the same fields, little-endian, alignment 1, no padding.")]
            raw struct $raw ($size bytes) {
                $($field: $ty,)*
            }
        }

        impl $name {
            /// Encoded size in bytes.
            pub const SIZE: usize = ::core::mem::size_of::<$raw>();
        }

        impl From<$raw> for $name {
            fn from(raw: $raw) -> $name {
                $name {
                    $($field: $crate::container::layout::LeField::from_le(raw.$field),)*
                }
            }
        }

        impl From<&$name> for $raw {
            fn from(v: &$name) -> $raw {
                $raw {
                    $($field: $crate::container::layout::LeField::to_le(v.$field),)*
                }
            }
        }
    };
    (
        $(#[$attr:meta])*
        raw struct $raw:ident ($size:literal bytes) {
            $($field:ident : $ty:ty,)*
        }
    ) => {
        $(#[$attr])*
        #[repr(C)]
        #[derive(
            Clone,
            Copy,
            zerocopy::FromBytes,
            zerocopy::IntoBytes,
            zerocopy::KnownLayout,
            zerocopy::Immutable,
            zerocopy::Unaligned,
        )]
        pub(crate) struct $raw {
            $(
                pub(crate) $field: <$ty as $crate::container::layout::LeField>::Le,
            )*
        }

        const _: () = assert!(::core::mem::size_of::<$raw>() == $size);
    };
}

pub(crate) use layout;

/// [`LeField`] for tuple structs over one field type (`AssetType(u16)`, ...): stored as that
/// field, open codes and unknown bits kept.
macro_rules! le_newtype {
    ($($name:ident($inner:ty)),* $(,)?) => {$(
        impl $crate::container::layout::LeField for $name {
            type Le = <$inner as $crate::container::layout::LeField>::Le;
            fn to_le(self) -> Self::Le {
                $crate::container::layout::LeField::to_le(self.0)
            }
            fn from_le(le: Self::Le) -> $name {
                $name($crate::container::layout::LeField::from_le(le))
            }
        }
    )*};
}

pub(crate) use le_newtype;
