//! Sources deeper than 8 bits stored at their own precision: 16-bit images as
//! R16G16B16A16_UNORM and float images as R16G16B16A16_FLOAT, with mips filtered in f32.

use super::finite::{NonFiniteSamples, SampleRange, TextureWarning};
use super::mips::{float_chain, unweight};
use super::{linear_to_srgb, srgb_to_linear, TextureData};
use caf::texture::TextureFormat;

/// A 16-bit sample to a value in 0..=1.
fn unit16(v: u16) -> f32 {
    v as f32 / 65_535.0
}

/// A value in 0..=1 (clamped) to a 16-bit sample, rounded.
fn to_u16(v: f32) -> u16 {
    (v.clamp(0.0, 1.0) * 65_535.0).round() as u16
}

/// A 16-bit RGBA image as R16G16B16A16_UNORM. The base level is stored exactly as decoded.
/// The mips are area-weighted like [`super::linear_chain`]'s: for sRGB data in linear light
/// with colour weighted by alpha (so fully transparent texels lend no colour to their
/// neighbours; a footprint with no coverage keeps its plain average), for linear data
/// channel by channel.
pub(super) fn build_rgba16(
    width: u32,
    height: u32,
    data: &[u16],
    srgb: bool,
    mips: bool,
) -> TextureData {
    // Working channels: sRGB [r*a, g*a, b*a, a, r, g, b] in linear light, linear [r, g, b, a].
    let nc = if srgb { 7 } else { 4 };
    let mut base = Vec::with_capacity(data.len() / 4 * nc);
    for p in data.chunks_exact(4) {
        let a = unit16(p[3]);
        if srgb {
            let [r, g, b] = [p[0], p[1], p[2]].map(|v| srgb_to_linear(unit16(v)));
            base.extend_from_slice(&[r * a, g * a, b * a, a, r, g, b]);
        } else {
            base.extend_from_slice(&[unit16(p[0]), unit16(p[1]), unit16(p[2]), a]);
        }
    }
    let chain = float_chain(width, height, base, nc, mips);
    let texels: usize = chain.iter().map(|l| l.len() / nc).sum();
    let mut payload = Vec::with_capacity(texels * 8);
    // The base level is stored exactly as decoded.
    data.iter()
        .for_each(|v| payload.extend_from_slice(&v.to_le_bytes()));
    for t in chain.iter().skip(1).flat_map(|l| l.chunks_exact(nc)) {
        let (rgb, a) = if srgb {
            let (rgb, a) = unweight(t);
            (rgb.map(|v| linear_to_srgb(v.clamp(0.0, 1.0))), a)
        } else {
            ([t[0], t[1], t[2]], t[3])
        };
        for v in [rgb[0], rgb[1], rgb[2], a] {
            payload.extend_from_slice(&to_u16(v).to_le_bytes());
        }
    }
    TextureData {
        width,
        height,
        levels: chain.len() as u32,
        format: TextureFormat::R16G16B16A16_UNORM,
        srgb,
        payload,
    }
}

/// A float RGBA image (linear light) as R16G16B16A16_FLOAT, mips averaged channel by channel.
/// NaN samples become 0 and the others are clamped to the half-float range (±Inf to ±65504),
/// counted in the warning.
pub(super) fn build_float(
    width: u32,
    height: u32,
    data: &[f32],
    mips: bool,
) -> (TextureData, Option<TextureWarning>) {
    let range = SampleRange::HALF;
    let warning = NonFiniteSamples::count(data, range).map(TextureWarning::NonFinite);
    let base: Vec<f32> = data.iter().map(|&v| range.map(v)).collect();
    let chain = float_chain(width, height, base, 4, mips);
    let mut payload = Vec::with_capacity(chain.iter().map(|l| l.len() * 2).sum());
    for v in chain.iter().flatten() {
        payload.extend_from_slice(&half::f16::from_f32(*v).to_le_bytes());
    }
    let texture = TextureData {
        width,
        height,
        levels: chain.len() as u32,
        format: TextureFormat::R16G16B16A16_FLOAT,
        // Float data is linear light.
        srgb: false,
        payload,
    };
    (texture, warning)
}
