//! Mip chains of RGBA8 levels: the original's `box` filter and the `linear` filter (separable
//! taps in linear light, sRGB encoded through a table), streamed through bands of levels.

use super::{check_dimensions, level_sizes, srgb_to_linear, to_u8};
use crate::error::{ImportError, Result};

/// The original's mip chain: every next level is `floor(w/2) × floor(h/2)` (at least 1), each
/// texel the floor of the mean of the 2×2 (or smaller, at an edge) block of the previous level;
/// an odd last row or column is dropped. Returns every level including the base, and the count.
pub fn box_chain(width: u32, height: u32, channels: u8, base: &[u8]) -> Result<(Vec<u8>, u32)> {
    let expected = check_dimensions(width, height, channels)?;
    if !(1..=4).contains(&channels) || base.len() != expected {
        return Err(ImportError::InvalidArgument(format!(
            "{} bytes of pixels for {width}x{height} with {channels} channel(s), expected {expected}",
            base.len()
        )));
    }
    let c = channels as usize;
    let sizes = level_sizes(width, height);
    let total: usize = sizes
        .iter()
        .map(|&(w, h)| w as usize * h as usize * c)
        .sum();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(base);
    let mut prev_start = 0;
    for pair in sizes.windows(2) {
        let (w, h) = (pair[0].0 as usize, pair[0].1 as usize);
        let (dw, dh) = (pair[1].0 as usize, pair[1].1 as usize);
        let start = out.len();
        for y in 0..dh {
            for x in 0..dw {
                for ch in 0..c {
                    let mut sum = 0u32;
                    let mut count = 0u32;
                    for sy in [2 * y, 2 * y + 1] {
                        for sx in [2 * x, 2 * x + 1] {
                            if sx < w && sy < h {
                                sum += out[prev_start + (sy * w + sx) * c + ch] as u32;
                                count += 1;
                            }
                        }
                    }
                    out.push((sum / count.max(1)) as u8);
                }
            }
        }
        prev_start = start;
    }
    Ok((out, sizes.len() as u32))
}

/// Per destination texel: the first source index and the normalised weights of the source
/// texels its footprint covers (area weighting, so an odd last row/column is not lost).
fn taps(src: usize, dst: usize) -> Vec<(usize, Vec<f32>)> {
    let scale = src as f64 / dst as f64;
    (0..dst)
        .map(|i| {
            let start = i as f64 * scale;
            let end = (i + 1) as f64 * scale;
            let first = start.floor() as usize;
            let last = (end.ceil() as usize).min(src);
            let mut weights: Vec<f32> = (first..last)
                .map(|j| ((end.min(j as f64 + 1.0) - start.max(j as f64)) / scale) as f32)
                .collect();
            let sum: f32 = weights.iter().sum();
            weights.iter_mut().for_each(|w| *w /= sum);
            (first, weights)
        })
        .collect()
}

/// Linear-light value -> nearest sRGB code, through the midpoints between codes (exact
/// round-to-nearest in sRGB space without a `powf` per sample). A 4096-entry table gives the
/// code at the bottom of the value's bucket; buckets (1/4096 wide) are narrower than the
/// closest two midpoints (1/(255 · 12.92) apart, in the linear segment), so at most one
/// midpoint lies inside a bucket and one branch-free step up (or down, when the float index
/// rounded up into the next bucket) finishes the search: the result is exactly the midpoint
/// search's.
pub(super) struct SrgbEncoder {
    /// `thresholds[k]`: linear value of the midpoint between codes `k` and `k + 1`; entry 255
    /// is +infinity, so the step up never passes code 255.
    pub(super) thresholds: [f32; 256],
    coarse: Box<[u8; ENCODER_BUCKETS + 1]>,
}

pub(super) const ENCODER_BUCKETS: usize = 4096;

impl SrgbEncoder {
    pub(super) fn new() -> Self {
        let thresholds: [f32; 256] = std::array::from_fn(|k| {
            if k < 255 {
                srgb_to_linear((k as f32 + 0.5) / 255.0)
            } else {
                f32::INFINITY
            }
        });
        let search = |v: f32| thresholds.partition_point(|&t| t <= v) as u8;
        let mut coarse = Box::new([0u8; ENCODER_BUCKETS + 1]);
        for (i, c) in coarse.iter_mut().enumerate() {
            *c = search(i as f32 / ENCODER_BUCKETS as f32);
        }
        SrgbEncoder { thresholds, coarse }
    }

    #[inline(always)]
    pub(super) fn encode(&self, v: f32) -> u8 {
        // NaN never reaches here (weights and inputs are finite); clamp keeps the index valid.
        let v = v.clamp(0.0, 1.0);
        // The bucket, rounded to nearest by the 2^23 trick (no saturating float-to-int
        // conversion): a bucket one too high is what the step down below is for.
        let i = ((v * ENCODER_BUCKETS as f32 + 8_388_608.0).to_bits() & 0x7f_ffff) as usize;
        let c = self.coarse[i.min(ENCODER_BUCKETS)] as usize;
        // One step up when the bucket's midpoint is at or below v ...
        let c = c + (self.thresholds[c] <= v) as usize;
        // ... or one down when the index rounded up past a midpoint above v.
        let c = c - (c > 0 && self.thresholds[c.saturating_sub(1)] > v) as usize;
        c as u8
    }
}

/// Where the texels of the level being filtered come from: the base level's RGBA8 bytes
/// (decoded to linear light row by row, so the base never gets an f32 copy) or the previous
/// level's full-precision working values.
#[derive(Clone, Copy)]
enum Source<'a> {
    Bytes(&'a [u8]),
    Work(&'a [f32]),
}

/// Working channels per texel: sRGB -> [r*a, g*a, b*a, a, r, g, b, 0] in linear light (colour
/// weighted by alpha, plus the plain colour for fully transparent footprints, padded to eight
/// so that a texel is two whole SIMD vectors); linear data -> [r, g, b, a].
fn working_channels(srgb: bool) -> usize {
    if srgb {
        8
    } else {
        4
    }
}

/// The colour and alpha of an alpha-weighted working texel `[r*a, g*a, b*a, a, r, g, b, ..]`:
/// the weighted colour divided by alpha, or the plain colour where the footprint is (almost)
/// fully transparent.
#[inline(always)]
pub(super) fn unweight(t: &[f32]) -> ([f32; 3], f32) {
    let a = t[3];
    let rgb = if a > 1.0 / 1024.0 {
        // One division: the reciprocal is within an ulp of each quotient, far below the
        // encoder's resolution (the f64 reference test bounds the whole chain).
        let inv = 1.0 / a;
        [t[0] * inv, t[1] * inv, t[2] * inv]
    } else {
        [t[4], t[5], t[6]]
    };
    (rgb, a)
}

/// The filter's constant tables, shared by every row of every level.
struct Tables {
    srgb: bool,
    nc: usize,
    /// sRGB code -> linear light.
    lut: [f32; 256],
    /// Code -> code / 255 (alpha, and every channel of linear data).
    unit: [f32; 256],
    encoder: SrgbEncoder,
}

impl Tables {
    /// Working channels of one RGBA8 texel (the first `nc` entries are used).
    #[inline(always)]
    fn texel(&self, p: &[u8]) -> [f32; 8] {
        if self.srgb {
            let a = self.unit[p[3] as usize];
            let (r, g, b) = (
                self.lut[p[0] as usize],
                self.lut[p[1] as usize],
                self.lut[p[2] as usize],
            );
            [r * a, g * a, b * a, a, r, g, b, 0.0]
        } else {
            let u = |v: u8| self.unit[v as usize];
            [u(p[0]), u(p[1]), u(p[2]), u(p[3]), 0.0, 0.0, 0.0, 0.0]
        }
    }

    /// Adds `weight ×` source row `y` (`w` texels) to `acc` (working channels).
    #[inline]
    fn accumulate(&self, src: Source<'_>, w: usize, y: usize, weight: f32, acc: &mut [f32]) {
        let nc = self.nc;
        match src {
            Source::Work(work) => {
                let row = &work[y * w * nc..(y + 1) * w * nc];
                for (a, &v) in acc.iter_mut().zip(row) {
                    *a += v * weight;
                }
            }
            Source::Bytes(bytes) => {
                let row = &bytes[y * w * 4..(y + 1) * w * 4];
                for (a, p) in acc.chunks_exact_mut(nc).zip(row.chunks_exact(4)) {
                    let t = self.texel(p);
                    for (a, t) in a.iter_mut().zip(t) {
                        *a += t * weight;
                    }
                }
            }
        }
    }

    /// Encodes one working texel to RGBA8.
    #[inline(always)]
    fn encode(&self, t: &[f32], out: &mut [u8]) {
        if self.srgb {
            let (rgb, a) = unweight(t);
            out[0] = self.encoder.encode(rgb[0]);
            out[1] = self.encoder.encode(rgb[1]);
            out[2] = self.encoder.encode(rgb[2]);
            out[3] = to_u8(a);
        } else {
            for (o, &v) in out.iter_mut().zip(t) {
                *o = to_u8(v);
            }
        }
    }
}

/// Levels with at least this many texels are filtered on rayon's threads, row by row.
const PARALLEL_TEXELS: usize = 128 * 128;

/// One destination row `y` of the level after `(w, h)`: vertical taps into `acc` (a source
/// row's width of working values), then horizontal taps into the working row `work` (if the
/// chain goes on) and the encoded bytes `bytes`.
#[allow(clippy::too_many_arguments)]
fn filter_row(
    t: &Tables,
    src: Source<'_>,
    w: usize,
    ty: &(usize, Vec<f32>),
    tx: &[(usize, Vec<f32>)],
    acc: &mut Vec<f32>,
    work: Option<&mut [f32]>,
    bytes: &mut [u8],
) {
    let nc = t.nc;
    if let Some(y) = even_pair(ty, tx, w) {
        return filter_row_even(t, src, w, y, work, bytes);
    }
    acc.clear();
    acc.resize(w * nc, 0.0);
    let (first, weights) = ty;
    for (k, &wt) in weights.iter().enumerate() {
        t.accumulate(src, w, first + k, wt, acc);
    }
    let mut texel = [0f32; 8];
    let texel = &mut texel[..nc];
    let mut work = work;
    for (x, (first, weights)) in tx.iter().enumerate() {
        texel.fill(0.0);
        for (k, &wt) in weights.iter().enumerate() {
            let s = &acc[(first + k) * nc..(first + k + 1) * nc];
            for (o, &v) in texel.iter_mut().zip(s) {
                *o += v * wt;
            }
        }
        if let Some(work) = work.as_deref_mut() {
            work[x * nc..(x + 1) * nc].copy_from_slice(texel);
        }
        t.encode(texel, &mut bytes[x * 4..(x + 1) * 4]);
    }
}

/// When both footprints of this row are exact halvings (even sizes: two source texels of
/// weight ½ each way), the first of the two source rows.
#[inline]
fn even_pair(ty: &(usize, Vec<f32>), tx: &[(usize, Vec<f32>)], w: usize) -> Option<usize> {
    let half = |t: &(usize, Vec<f32>)| t.1.len() == 2 && t.1[0] == 0.5 && t.1[1] == 0.5;
    (w.is_multiple_of(2) && tx.len() * 2 == w && half(ty) && tx.first().is_some_and(half))
        .then_some(ty.0)
}

/// One row of working texels to halve: the base level's RGBA8 bytes (decoded as read) or a
/// previous level's working values.
#[derive(Clone, Copy)]
enum Row<'a> {
    Bytes(&'a [u8]),
    Work(&'a [f32]),
}

impl Row<'_> {
    /// The `N` working channels of texel `x` (`N` is `t.nc`).
    #[inline(always)]
    fn texel<const N: usize>(self, t: &Tables, x: usize) -> [f32; N] {
        match self {
            Row::Bytes(b) => {
                let v = t.texel(&b[x * 4..][..4]);
                std::array::from_fn(|k| v[k])
            }
            Row::Work(wk) => {
                let mut v = [0f32; N];
                v.copy_from_slice(&wk[x * N..][..N]);
                v
            }
        }
    }
}

/// [`filter_row`] for an exact 2×2 halving of source rows `top` and `bottom`: each
/// destination texel is `((a + c) + (b + d)) / 4` of its four source texels, the very
/// operations (and so the very bits) of the separable path with weights ½, without the row
/// accumulator. Writes `bytes` (RGBA8) and, when given, the working values `work`.
fn halve_row(
    t: &Tables,
    top: Row<'_>,
    bottom: Row<'_>,
    dw: usize,
    work: Option<&mut [f32]>,
    bytes: &mut [u8],
) {
    // Monomorphised on the channel count, so each texel is whole vector operations.
    if t.nc == 8 {
        halve_row_n::<8>(t, top, bottom, dw, work, bytes)
    } else {
        debug_assert_eq!(t.nc, 4, "working_channels gives 8 (sRGB) or 4");
        halve_row_n::<4>(t, top, bottom, dw, work, bytes)
    }
}

/// [`halve_row`] for `N` working channels.
fn halve_row_n<const N: usize>(
    t: &Tables,
    top: Row<'_>,
    bottom: Row<'_>,
    dw: usize,
    work: Option<&mut [f32]>,
    bytes: &mut [u8],
) {
    let mut work = work;
    for x in 0..dw {
        let (a, b) = (top.texel::<N>(t, 2 * x), top.texel::<N>(t, 2 * x + 1));
        let (c, d) = (bottom.texel::<N>(t, 2 * x), bottom.texel::<N>(t, 2 * x + 1));
        let mut texel = [0f32; N];
        for k in 0..N {
            // Vertical ½-weighted sums first, then horizontal, as in `filter_row`.
            let left = 0.5 * a[k] + 0.5 * c[k];
            let right = 0.5 * b[k] + 0.5 * d[k];
            texel[k] = 0.5 * left + 0.5 * right;
        }
        if let Some(work) = work.as_deref_mut() {
            work[x * N..(x + 1) * N].copy_from_slice(&texel);
        }
        t.encode(&texel, &mut bytes[x * 4..(x + 1) * 4]);
    }
}

/// [`halve_row`] of source rows `y` and `y + 1` of a level `w` texels wide.
fn filter_row_even(
    t: &Tables,
    src: Source<'_>,
    w: usize,
    y: usize,
    work: Option<&mut [f32]>,
    bytes: &mut [u8],
) {
    let row = |y: usize| match src {
        Source::Bytes(b) => Row::Bytes(&b[y * w * 4..(y + 1) * w * 4]),
        Source::Work(wk) => Row::Work(&wk[y * w * t.nc..(y + 1) * w * t.nc]),
    };
    halve_row(t, row(y), row(y + 1), w / 2, work, bytes);
}

/// Levels of a band of the streamed pyramid: a band is `2^BAND_LEVELS` base rows.
pub(super) const BAND_LEVELS: usize = 5;

/// How many leading levels of the chain `sizes` are exact 2×2 halvings (even width and height,
/// the next level exactly half), at most [`BAND_LEVELS`]: those are built by
/// [`stream_levels`].
pub(super) fn streamable_levels(sizes: &[(u32, u32)]) -> usize {
    sizes
        .windows(2)
        .take_while(|p| {
            let ((w, h), (dw, dh)) = (p[0], p[1]);
            w % 2 == 0 && h % 2 == 0 && dw * 2 == w && dh * 2 == h
        })
        .count()
        .min(BAND_LEVELS)
}

/// Levels 1..=k of the chain (`k` from [`streamable_levels`]) in bands of `2^k` base rows:
/// each band halves its base rows into level 1, two level-1 rows at a time into level 2, and
/// so on, keeping only two working rows per level, so no level gets a full working copy and
/// the working values stay in cache. `levels[l - 1]` is level `l`'s RGBA8 bytes; `work_k`,
/// when given, receives level `k`'s working values (the source of the smaller levels). Every
/// texel is computed by [`halve_row`], so the result is the row-by-row path's to the bit;
/// bands are independent and run on rayon's threads for large textures.
fn stream_levels(
    t: &Tables,
    base: &[u8],
    sizes: &[(u32, u32)],
    k: usize,
    levels: Vec<&mut [u8]>,
    work_k: Option<&mut [f32]>,
) {
    use rayon::prelude::*;
    let nc = t.nc;
    let widths: Vec<usize> = sizes[..=k].iter().map(|s| s.0 as usize).collect();
    let band_rows = 1usize << k;
    let bands = sizes[0].1 as usize / band_rows;
    // Per band: its rows of every level (level l has band_rows >> l of them).
    let mut per_band: Vec<Vec<&mut [u8]>> = (0..bands).map(|_| Vec::with_capacity(k)).collect();
    for (l, level) in levels.into_iter().enumerate() {
        let len = (band_rows >> (l + 1)) * widths[l + 1] * 4;
        for (band, piece) in per_band.iter_mut().zip(level.chunks_mut(len)) {
            band.push(piece);
        }
    }
    /// One band's outputs: its rows of every level, and its row of level `k`'s working values.
    type Band<'a> = (Vec<&'a mut [u8]>, Option<&'a mut [f32]>);
    let work_pieces: Vec<Option<&mut [f32]>> = match work_k {
        Some(wk) => wk.chunks_mut(widths[k] * nc).map(Some).collect(),
        None => (0..bands).map(|_| None).collect(),
    };
    let run = |scratch: &mut Vec<Vec<f32>>, (band, (mut outs, mut work)): (usize, Band<'_>)| {
        // scratch[m - 1]: two working rows of level m, for levels 1..k-1 (level k's one row
        // of the band goes to `work`).
        scratch.resize_with(k - 1, Vec::new);
        for (l, s) in scratch.iter_mut().enumerate() {
            s.resize(2 * widths[l + 1] * nc, 0.0);
        }
        let w0 = widths[0];
        for r1 in 0..band_rows / 2 {
            let y = band * band_rows + 2 * r1;
            let base_rows = (
                Row::Bytes(&base[y * w0 * 4..(y + 1) * w0 * 4]),
                Row::Bytes(&base[(y + 1) * w0 * 4..(y + 2) * w0 * 4]),
            );
            let mut emit = |m: usize, r: usize, src: Option<(Row<'_>, Row<'_>)>| {
                let dw = widths[m];
                let bytes = &mut outs[m - 1][r * dw * 4..(r + 1) * dw * 4];
                let (lower, upper) = scratch.split_at_mut(m - 1);
                let (top, bottom) = src.unwrap_or_else(|| {
                    let (pair, w) = (&lower[m - 2], widths[m - 1] * nc);
                    (Row::Work(&pair[..w]), Row::Work(&pair[w..2 * w]))
                });
                let dst = if m < k {
                    let h = r % 2;
                    Some(&mut upper[0][h * dw * nc..(h + 1) * dw * nc])
                } else {
                    work.as_deref_mut()
                };
                halve_row(t, top, bottom, dw, dst, bytes);
            };
            emit(1, r1, Some(base_rows));
            // Every second row of level m completes a row of level m + 1.
            let (mut m, mut r) = (1, r1);
            while m < k && r % 2 == 1 {
                (m, r) = (m + 1, r / 2);
                emit(m, r, None);
            }
        }
    };
    let items = per_band.into_iter().zip(work_pieces).enumerate();
    if sizes[1].0 as usize * sizes[1].1 as usize >= PARALLEL_TEXELS {
        items
            .collect::<Vec<_>>()
            .into_par_iter()
            .for_each_init(Vec::new, run);
    } else {
        let mut scratch = Vec::new();
        items.for_each(|item| run(&mut scratch, item));
    }
}

/// The default mip chain for RGBA8 data. For sRGB data each level averages in linear light,
/// colour weighted by alpha (so transparent texels do not darken edges), and is re-encoded
/// with rounding; linear data (normal maps, masks) is averaged per channel. Footprints are
/// area-weighted, so odd sizes keep every source texel. Levels are computed from full-precision
/// previous levels, not from the rounded bytes. Returns every level including the base.
///
/// Speed: sRGB decoding is a 256-entry table and encoding a 4096-entry table plus a step along
/// the exact midpoints; the base level is decoded row by row as it is filtered (only the
/// smaller levels keep f32 working values), and large levels are filtered on rayon's threads,
/// one destination row per task item, so the output does not depend on the thread count.
pub fn linear_chain(width: u32, height: u32, base: &[u8], srgb: bool) -> Result<(Vec<u8>, u32)> {
    linear_chain_with(width, height, base, srgb, true)
}

/// [`linear_chain`], with the banded pyramid (`stream`) or level by level only (the tests
/// compare the two).
pub(super) fn linear_chain_with(
    width: u32,
    height: u32,
    base: &[u8],
    srgb: bool,
    stream: bool,
) -> Result<(Vec<u8>, u32)> {
    use rayon::prelude::*;
    let expected = check_dimensions(width, height, 4)?;
    if base.len() != expected {
        return Err(ImportError::InvalidArgument(format!(
            "{} bytes of RGBA8 for {width}x{height}, expected {expected}",
            base.len()
        )));
    }
    let sizes = level_sizes(width, height);
    let total: usize = sizes
        .iter()
        .map(|&(w, h)| w as usize * h as usize * 4)
        .sum();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(base);
    if sizes.len() == 1 {
        return Ok((out, 1));
    }
    let nc = working_channels(srgb);
    let tables = Tables {
        srgb,
        nc,
        lut: std::array::from_fn(|v| srgb_to_linear(v as f32 / 255.0)),
        unit: std::array::from_fn(|v| v as f32 / 255.0),
        encoder: SrgbEncoder::new(),
    };
    let mut cur: Vec<f32> = Vec::new();
    let levels = sizes.len();
    // The leading exact halvings in cache-sized bands, the rest level by level.
    let k = if stream { streamable_levels(&sizes) } else { 0 };
    if k > 0 {
        let lens: Vec<usize> = sizes[1..=k]
            .iter()
            .map(|&(w, h)| w as usize * h as usize * 4)
            .collect();
        let first = out.len();
        out.resize(first + lens.iter().sum::<usize>(), 0);
        let mut rest: &mut [u8] = &mut out[first..];
        let mut slices = Vec::with_capacity(k);
        for len in lens {
            let (level, tail) = std::mem::take(&mut rest).split_at_mut(len);
            slices.push(level);
            rest = tail;
        }
        // Level k's working values only when smaller levels follow.
        let (kw, kh) = (sizes[k].0 as usize, sizes[k].1 as usize);
        if k + 1 < levels {
            cur = vec![0f32; kw * kh * nc];
        }
        let work_k = (k + 1 < levels).then_some(&mut cur[..]);
        stream_levels(&tables, base, &sizes, k, slices, work_k);
    }
    for (level, pair) in sizes.windows(2).enumerate().skip(k) {
        let (w, h) = (pair[0].0 as usize, pair[0].1 as usize);
        let (dw, dh) = (pair[1].0 as usize, pair[1].1 as usize);
        let (tx, ty) = (taps(w, dw), taps(h, dh));
        // The last level needs no working values: nothing is filtered from it.
        let keep = level + 2 < levels;
        let mut next = vec![0f32; if keep { dw * dh * nc } else { 0 }];
        let start = out.len();
        out.resize(start + dw * dh * 4, 0);
        let src = if level == 0 {
            Source::Bytes(base)
        } else {
            Source::Work(&cur)
        };
        let bytes = &mut out[start..];
        let t = &tables;
        let row = |acc: &mut Vec<f32>, (y, (b, wk)): (usize, (&mut [u8], Option<&mut [f32]>))| {
            filter_row(t, src, w, &ty[y], &tx, acc, wk, b);
        };
        let work_rows: Vec<Option<&mut [f32]>> = if keep {
            next.chunks_mut(dw * nc).map(Some).collect()
        } else {
            (0..dh).map(|_| None).collect()
        };
        if dw * dh >= PARALLEL_TEXELS {
            bytes
                .par_chunks_mut(dw * 4)
                .zip(work_rows)
                .enumerate()
                .for_each_init(Vec::new, row);
        } else {
            let mut acc = Vec::new();
            bytes
                .chunks_mut(dw * 4)
                .zip(work_rows)
                .enumerate()
                .for_each(|item| row(&mut acc, item));
        }
        cur = next;
    }
    Ok((out, sizes.len() as u32))
}

/// Every level of an f32 image of `nc` channels per texel (the base first): area-weighted
/// averages of the previous level, down to 1x1 when `mips`, else the base alone.
pub(super) fn float_chain(
    width: u32,
    height: u32,
    base: Vec<f32>,
    nc: usize,
    mips: bool,
) -> Vec<Vec<f32>> {
    let mut out = vec![base];
    if !mips {
        return out;
    }
    let sizes = level_sizes(width, height);
    for pair in sizes.windows(2) {
        let w = pair[0].0 as usize;
        let (dw, dh) = (pair[1].0 as usize, pair[1].1 as usize);
        let (tx, ty) = (taps(pair[0].0 as usize, dw), taps(pair[0].1 as usize, dh));
        let prev = &out[out.len() - 1];
        let mut next = vec![0f32; dw * dh * nc];
        for (y, (fy, wy)) in ty.iter().enumerate() {
            for (x, (fx, wx)) in tx.iter().enumerate() {
                let d = &mut next[(y * dw + x) * nc..][..nc];
                for (j, &wyj) in wy.iter().enumerate() {
                    for (i, &wxi) in wx.iter().enumerate() {
                        let s = &prev[((fy + j) * w + fx + i) * nc..][..nc];
                        for (dc, sc) in d.iter_mut().zip(s) {
                            *dc += sc * wyj * wxi;
                        }
                    }
                }
            }
        }
        out.push(next);
    }
    out
}
