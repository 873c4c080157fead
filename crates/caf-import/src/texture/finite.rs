//! NaN and infinite samples of float sources (OpenEXR, Radiance HDR): what they become in the
//! stored format, counted in a typed warning instead of vanishing silently.

use std::fmt;

/// A warning of the texture converter: something in the source that the stored texture does
/// not keep as it was.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum TextureWarning {
    /// A float source held samples the stored format cannot hold.
    NonFinite(NonFiniteSamples),
}

impl fmt::Display for TextureWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextureWarning::NonFinite(n) => n.fmt(f),
        }
    }
}

/// The range of a stored float-derived format: where NaN and ±Inf go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleRange {
    /// The format's name in messages ("half float", "8-bit unorm").
    pub name: &'static str,
    /// The lowest finite value stored (-Inf becomes it).
    pub lowest: f32,
    /// The largest finite value stored (+Inf becomes it).
    pub largest: f32,
    /// Whether finite samples outside the range are counted (for half floats: values beyond
    /// ±65504; for 8-bit data clamping to 0..=1 is the documented reduction, not counted).
    pub count_out_of_range: bool,
}

impl SampleRange {
    /// R16G16B16A16_FLOAT: ±65504.
    pub const HALF: SampleRange = SampleRange {
        name: "half float",
        lowest: -65_504.0,
        largest: 65_504.0,
        count_out_of_range: true,
    };
    /// RGBA8 reduced from float: 0..=1.
    pub const UNIT8: SampleRange = SampleRange {
        name: "8-bit unorm",
        lowest: 0.0,
        largest: 1.0,
        count_out_of_range: false,
    };

    /// `v` in the range: NaN becomes 0, ±Inf and out-of-range values the nearest end.
    #[inline]
    pub fn map(self, v: f32) -> f32 {
        if v.is_nan() {
            0.0
        } else {
            v.clamp(self.lowest, self.largest)
        }
    }
}

/// How many samples of a float source were NaN, +Inf, -Inf (or finite but beyond the stored
/// format's range), and what they became.
#[derive(Clone, Debug, PartialEq)]
pub struct NonFiniteSamples {
    /// NaN samples (stored as 0).
    pub nan: u64,
    /// +Inf samples (stored as `range.largest`).
    pub positive_infinite: u64,
    /// -Inf samples (stored as `range.lowest`).
    pub negative_infinite: u64,
    /// Finite samples beyond the range, clamped to it (counted only when the range says so).
    pub out_of_range: u64,
    /// The stored format's range.
    pub range: SampleRange,
}

impl NonFiniteSamples {
    /// Counts the samples of `data` that `range` cannot hold as they are; `None` when all
    /// are finite (and, where counted, in range).
    pub fn count(data: &[f32], range: SampleRange) -> Option<NonFiniteSamples> {
        let mut n = NonFiniteSamples {
            nan: 0,
            positive_infinite: 0,
            negative_infinite: 0,
            out_of_range: 0,
            range,
        };
        for &v in data {
            if v.is_nan() {
                n.nan += 1;
            } else if v == f32::INFINITY {
                n.positive_infinite += 1;
            } else if v == f32::NEG_INFINITY {
                n.negative_infinite += 1;
            } else if range.count_out_of_range && (v < range.lowest || v > range.largest) {
                n.out_of_range += 1;
            }
        }
        (n.nan + n.positive_infinite + n.negative_infinite + n.out_of_range > 0).then_some(n)
    }
}

impl fmt::Display for NonFiniteSamples {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.range;
        let mut parts = Vec::new();
        if self.nan > 0 {
            parts.push(format!("{} NaN sample(s) became 0", self.nan));
        }
        if self.positive_infinite > 0 {
            parts.push(format!(
                "{} +Inf became {} (the largest {} value)",
                self.positive_infinite, r.largest, r.name
            ));
        }
        if self.negative_infinite > 0 {
            parts.push(format!(
                "{} -Inf became {} (the lowest {} value)",
                self.negative_infinite, r.lowest, r.name
            ));
        }
        if self.out_of_range > 0 {
            parts.push(format!(
                "{} finite sample(s) beyond {}..={} were clamped to it",
                self.out_of_range, r.lowest, r.largest
            ));
        }
        write!(f, "float source stored as {}: {}", r.name, parts.join(", "))
    }
}
