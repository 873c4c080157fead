//! Audio: WAV through `hound`, OGG Vorbis / FLAC through `symphonia`, MP3 through `minimp3`,
//! to interleaved signed little-endian PCM.
//!
//! Samples are carried internally as full-scale `i32` (an n-bit sample `v` is `v << (32 - n)`,
//! floats are scaled by 2^31 and clamped), then narrowed with rounding to the output depth, so
//! a 16-bit source written as 16 bits is copied exactly.

use std::io::Cursor;

use crate::error::{ImportError, Result};
use crate::settings::{AudioBits, Profile, Settings};

/// Largest decoded audio accepted, in bytes of 32-bit samples (1 GiB).
pub const MAX_DECODED_BYTES: u64 = 1 << 30;

/// Decoded audio before narrowing to the output depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pcm {
    /// Frames per second.
    pub sample_rate: u32,
    /// Interleaved channels.
    pub channels: u16,
    /// Bits per sample of the source (8, 16, 24, 32; 32 for float).
    pub source_bits: u16,
    /// Whether the source samples were floating point.
    pub source_float: bool,
    /// Interleaved full-scale samples, `frames * channels` long.
    pub samples: Vec<i32>,
}

impl Pcm {
    /// Frames (samples per channel).
    pub fn frames(&self) -> usize {
        self.samples.len() / self.channels.max(1) as usize
    }
}

/// Audio ready to be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AudioData {
    /// Frames per second.
    pub sample_rate: u32,
    /// Interleaved channels.
    pub channels: u16,
    /// 8, 16 or 32.
    pub bits: u16,
    /// Frames (samples per channel).
    pub frames: u32,
    /// Interleaved signed little-endian PCM.
    pub payload: Vec<u8>,
}

fn check_len(values: u64) -> Result<()> {
    let bytes = values.saturating_mul(4);
    if bytes > MAX_DECODED_BYTES {
        return Err(ImportError::LimitExceeded {
            what: "decoded audio bytes",
            value: bytes,
            limit: MAX_DECODED_BYTES,
        });
    }
    Ok(())
}

/// Walk the RIFF chunks and, when the data chunk ends in a partial frame, return a copy with
/// the data length rounded down to whole frames (what the original does; `hound` refuses such
/// files). Anything unusual is left for `hound` to report.
fn trim_partial_frame(bytes: &[u8]) -> Option<Vec<u8>> {
    let u16_at = |o: usize| {
        bytes
            .get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32_at = |o: usize| {
        bytes
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if bytes.get(0..4) != Some(b"RIFF") || bytes.get(8..12) != Some(b"WAVE") {
        return None;
    }
    let mut off = 12usize;
    let mut block_align = None;
    while off.checked_add(8)? <= bytes.len() {
        let id = bytes.get(off..off + 4)?;
        let len = u32_at(off + 4)? as usize;
        if id == b"fmt " {
            block_align = u16_at(off + 8 + 12);
        } else if id == b"data" {
            let align = block_align? as usize;
            if align == 0 || len.is_multiple_of(align) {
                return None;
            }
            let trimmed = (len - len % align) as u32;
            let mut copy = bytes.to_vec();
            copy[off + 4..off + 8].copy_from_slice(&trimmed.to_le_bytes());
            return Some(copy);
        }
        off = off.checked_add(8)?.checked_add(len)?.checked_add(len & 1)?;
    }
    None
}

fn wav_err(e: hound::Error) -> ImportError {
    match e {
        hound::Error::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            ImportError::malformed(
                "WAV",
                "truncated file: the data chunk is longer than the file",
            )
        }
        hound::Error::Unsupported => ImportError::unsupported("WAV", "unsupported sample format"),
        hound::Error::FormatError(m) => ImportError::malformed("WAV", m),
        other => ImportError::malformed("WAV", other.to_string()),
    }
}

/// Decode a WAV file: 8/16/24/32-bit integer PCM or 32-bit float, plain or
/// WAVE_FORMAT_EXTENSIBLE, with any extra chunks before or after `data`. A trailing partial
/// frame is dropped.
pub fn decode_wav(bytes: &[u8]) -> Result<Pcm> {
    if bytes.len() < 44 {
        return Err(ImportError::malformed(
            "WAV",
            format!("file too small to be a WAV file ({} bytes)", bytes.len()),
        ));
    }
    let trimmed = trim_partial_frame(bytes);
    let data: &[u8] = trimmed.as_deref().unwrap_or(bytes);
    let mut reader = hound::WavReader::new(Cursor::new(data)).map_err(wav_err)?;
    let spec = reader.spec();
    let len = reader.len() as u64;
    check_len(len)?;
    if len > data.len() as u64 {
        return Err(ImportError::malformed(
            "WAV",
            format!(
                "truncated file: the data chunk claims {len} samples, the file has {} bytes",
                data.len()
            ),
        ));
    }
    let mut samples = Vec::with_capacity(len as usize);
    let float = spec.sample_format == hound::SampleFormat::Float;
    if float {
        if spec.bits_per_sample != 32 {
            return Err(ImportError::unsupported(
                "WAV",
                format!(
                    "{}-bit float samples (only 32-bit float)",
                    spec.bits_per_sample
                ),
            ));
        }
        for s in reader.samples::<f32>() {
            samples.push(float_to_full(s.map_err(wav_err)?));
        }
    } else {
        let bits = spec.bits_per_sample;
        if !(8..=32).contains(&bits) {
            return Err(ImportError::unsupported(
                "WAV",
                format!("{bits}-bit samples"),
            ));
        }
        let shift = 32 - bits as u32;
        for s in reader.samples::<i32>() {
            let v = s.map_err(wav_err)?;
            samples.push(((v as i64) << shift) as i32);
        }
    }
    Ok(Pcm {
        sample_rate: spec.sample_rate,
        channels: spec.channels,
        source_bits: spec.bits_per_sample,
        source_float: float,
        samples,
    })
}

/// The original profile's WAV rules: only 16-bit integer PCM is converted (the original's
/// messages are kept for the rest). Unlike the original, chunk layout does not matter
/// (LIST/fact chunks before `data`, an 18-byte fmt chunk and WAVE_FORMAT_EXTENSIBLE are read).
pub fn decode_wav_original(bytes: &[u8]) -> Result<Pcm> {
    let pcm = decode_wav(bytes)?;
    if pcm.source_float {
        return Err(ImportError::unsupported(
            "WAV",
            "Unsupported WAV format (only PCM supported by the original profile)",
        ));
    }
    if pcm.source_bits != 16 {
        return Err(ImportError::unsupported(
            "WAV",
            format!(
                "Unsupported bit depth {} (only 16-bit supported by the original profile)",
                pcm.source_bits
            ),
        ));
    }
    Ok(pcm)
}

fn float_to_full(f: f32) -> i32 {
    if f.is_nan() {
        return 0;
    }
    (f as f64 * 2_147_483_648.0).clamp(i32::MIN as f64, i32::MAX as f64) as i32
}

/// Checks the length fields inside the metadata blocks of the FLAC stream that starts at the
/// first `fLaC` marker in `bytes` (where symphonia's probe starts reading it).
///
/// Why: symphonia allocates a picture's media type and description, and each Vorbis comment, at
/// the length the file declares (up to 4 GiB each) before reading them, so a 60-byte file could
/// make the importer ask for gigabytes. Each such length must fit in its block (blocks are at
/// most 16 MiB), which bounds those allocations by the block.
fn check_flac_metadata(bytes: &[u8]) -> Result<()> {
    const FMT: &str = "FLAC";
    let Some(start) = bytes.windows(4).position(|w| w == b"fLaC") else {
        return Ok(());
    };
    let mut pos = start + 4;
    loop {
        let Some(h) = bytes.get(pos..pos + 4) else {
            // A truncated header is the decoder's to report.
            return Ok(());
        };
        let (last, kind) = (h[0] & 0x80 != 0, h[0] & 0x7F);
        let len = u32::from_be_bytes([0, h[1], h[2], h[3]]) as usize;
        let body_start = pos + 4;
        let body = &bytes[body_start.min(bytes.len())..(body_start + len).min(bytes.len())];
        let too_long = |what: &str, at: usize, declared: u64, room: usize| {
            ImportError::malformed(
                FMT,
                format!(
                    "metadata block at byte {pos}: {what} at byte {} declares {declared} bytes \
                     but its block has {room} left",
                    body_start + at
                ),
            )
        };
        match kind {
            // PICTURE: type, media type and description (length-prefixed), width, height,
            // depth, colours, then the picture data (length-prefixed).
            6 => {
                let mut at = 4;
                for (what, skip_before) in [
                    ("picture media type", 0),
                    ("picture description", 0),
                    ("picture data", 16),
                ] {
                    at += skip_before;
                    let Some(l) = body.get(at..at + 4) else { break };
                    let n = u32::from_be_bytes([l[0], l[1], l[2], l[3]]);
                    let room = len.saturating_sub(at + 4);
                    if n as usize > room {
                        return Err(too_long(what, at, n.into(), room));
                    }
                    at += 4 + n as usize;
                }
            }
            // VORBIS_COMMENT (little-endian): vendor string, count, then each comment.
            4 => {
                let read = |at: usize| {
                    body.get(at..at + 4)
                        .map(|l| u32::from_le_bytes([l[0], l[1], l[2], l[3]]))
                };
                if let Some(vendor) = read(0) {
                    let mut at = 4usize.saturating_add(vendor as usize);
                    if let Some(count) = read(at) {
                        at += 4;
                        for _ in 0..count {
                            let Some(n) = read(at) else { break };
                            let room = len.saturating_sub(at + 4);
                            if n as usize > room {
                                return Err(too_long("a Vorbis comment", at, n.into(), room));
                            }
                            at += 4 + n as usize;
                        }
                    }
                }
            }
            _ => {}
        }
        if last {
            return Ok(());
        }
        pos = body_start + len;
    }
}

/// Whether `bytes` (named with extension `ext`) is an MPEG audio stream: an Ogg or FLAC
/// signature says no; an `.mp3` / `.mp2` / `.mp1` name, an ID3v2 tag or a frame sync at the
/// start says yes.
fn is_mpeg_audio(bytes: &[u8], ext: Option<&str>) -> bool {
    if bytes.starts_with(b"OggS") || bytes.starts_with(b"fLaC") {
        return false;
    }
    matches!(ext, Some("mp3" | "mp2" | "mp1" | "mpga"))
        || bytes.starts_with(b"ID3")
        || (bytes.len() >= 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0)
}

/// The MPEG audio frames of `bytes` without its tags: leading ID3v2 tags (one or several, each
/// with its syncsafe size and optional footer) and a trailing ID3v1 tag (`TAG` 128 bytes from
/// the end). minimp3 accepts a lone frame only when it fills the buffer from offset 0, so a
/// file holding a tag and one frame decoded to nothing before the tags were cut off here.
/// Returns the frames and the bytes of leading tags; a tag that claims more bytes than the
/// file holds leaves nothing.
fn mpeg_frames(bytes: &[u8]) -> (&[u8], usize) {
    let mut rest = bytes;
    while let Some(h) = rest.get(..10).filter(|h| h.starts_with(b"ID3")) {
        if h[6..10].iter().any(|&b| b & 0x80 != 0) {
            break;
        }
        let size = h[6..10]
            .iter()
            .fold(0usize, |acc, &b| (acc << 7) | usize::from(b));
        let footer = if h[5] & 0x10 != 0 { 10 } else { 0 };
        rest = rest.get(10 + size + footer..).unwrap_or(&[]);
    }
    let tags = bytes.len() - rest.len();
    if rest.len() >= 128 && rest[rest.len() - 128..].starts_with(b"TAG") {
        rest = &rest[..rest.len() - 128];
    }
    (rest, tags)
}

/// Decode MPEG-1/2 Layer I-III audio with minimp3.
///
/// Why minimp3 and not symphonia (which decodes the other compressed formats): on the ISO
/// Layer III block-switching conformance stream (`../shared/corpus/audio`), symphonia 0.5.5
/// turns 11 of 64 frames into full-scale noise without an error, while minimp3 matches the
/// reference decode within 1 LSB, sample for sample (no delay: both start at the first frame).
/// A frame that cannot be decoded is skipped, as players do.
pub fn decode_mp3(bytes: &[u8]) -> Result<Pcm> {
    const FMT: &str = "MP3";
    if bytes.is_empty() {
        return Err(ImportError::empty(FMT, "the file is empty"));
    }
    let (frames, tags) = mpeg_frames(bytes);
    let mut decoder = minimp3::Decoder::new(Cursor::new(frames));
    let mut samples: Vec<i32> = Vec::new();
    let mut format: Option<(i32, usize)> = None;
    // The wrapper answers Eof when a frame is skipped after the whole input has been read
    // into its buffer, even if frames remain there: ask again until several answers in a row
    // bring nothing (a skip that consumed nothing repeats; each real skip consumes a frame).
    let mut eofs = 0;
    loop {
        let frame = match decoder.next_frame() {
            Ok(f) => f,
            Err(minimp3::Error::Eof) if eofs < 4 => {
                eofs += 1;
                continue;
            }
            Err(minimp3::Error::Eof) => break,
            Err(minimp3::Error::Io(e)) => {
                return Err(ImportError::malformed(FMT, format!("read error: {e}")))
            }
            Err(_) => continue,
        };
        eofs = 0;
        let this = (frame.sample_rate, frame.channels);
        match format {
            None => format = Some(this),
            Some(f) if f != this => {
                return Err(ImportError::unsupported(
                    FMT,
                    format!(
                        "the stream changes from {} Hz {} ch to {} Hz {} ch midway",
                        f.0, f.1, this.0, this.1
                    ),
                ))
            }
            Some(_) => {}
        }
        check_len(samples.len() as u64 + frame.data.len() as u64)?;
        samples.extend(frame.data.iter().map(|&s| i32::from(s) << 16));
    }
    let Some((rate, channels)) = format else {
        return Err(ImportError::empty(
            FMT,
            if tags > 0 {
                format!("no MPEG audio frame found after the ID3v2 tag (bytes 0..{tags})")
            } else {
                "no MPEG audio frame found".to_string()
            },
        ));
    };
    let (Ok(sample_rate), Ok(channels @ 1..)) = (u32::try_from(rate), u16::try_from(channels))
    else {
        return Err(ImportError::malformed(
            FMT,
            format!("{rate} Hz, {channels} channels"),
        ));
    };
    Ok(Pcm {
        sample_rate,
        channels,
        source_bits: 16,
        source_float: false,
        samples,
    })
}

/// Decode OGG Vorbis or FLAC through symphonia, or MP3 through [`decode_mp3`].
///
/// Ogg Vorbis is trimmed like libvorbis: the priming samples at the start (symphonia's
/// gapless mode) and everything past the last page's granule position at the end are
/// dropped, so the output has the frame count libvorbis decodes.
pub fn decode_compressed(bytes: &[u8], ext: Option<&str>) -> Result<Pcm> {
    if is_mpeg_audio(bytes, ext) {
        return decode_mp3(bytes);
    }
    use symphonia::core::audio::SampleBuffer;
    use symphonia::core::codecs::{DecoderOptions, CODEC_TYPE_NULL, CODEC_TYPE_VORBIS};
    use symphonia::core::errors::Error as SErr;
    use symphonia::core::formats::FormatOptions;
    use symphonia::core::io::MediaSourceStream;
    use symphonia::core::meta::MetadataOptions;
    use symphonia::core::probe::Hint;

    const FMT: &str = "audio";
    let serr = |e: SErr| match e {
        SErr::Unsupported(m) => ImportError::unsupported(FMT, m),
        SErr::LimitError(m) => ImportError::unsupported(FMT, format!("limit: {m}")),
        other => ImportError::malformed(FMT, other.to_string()),
    };
    if bytes.is_empty() {
        return Err(ImportError::empty(FMT, "the file is empty"));
    }
    check_flac_metadata(bytes)?;
    let mss = MediaSourceStream::new(Box::new(Cursor::new(bytes.to_vec())), Default::default());
    let mut hint = Hint::new();
    if let Some(e) = ext {
        hint.with_extension(e);
    }
    let probed = symphonia::default::get_probe()
        .format(
            &hint,
            mss,
            &FormatOptions {
                enable_gapless: true,
                ..Default::default()
            },
            &MetadataOptions::default(),
        )
        .map_err(serr)?;
    let mut format = probed.format;
    let track = format
        .tracks()
        .iter()
        .find(|t| t.codec_params.codec != CODEC_TYPE_NULL)
        .ok_or_else(|| ImportError::empty(FMT, "no audio track"))?;
    let track_id = track.id;
    let mut decoder = symphonia::default::get_codecs()
        .make(&track.codec_params, &DecoderOptions::default())
        .map_err(serr)?;
    let mut sample_rate = track.codec_params.sample_rate.unwrap_or(0);
    let mut channels = track.codec_params.channels.map(|c| c.count()).unwrap_or(0);
    let source_bits = track.codec_params.bits_per_sample.unwrap_or(32) as u16;
    let mut samples: Vec<i32> = Vec::new();
    let mut buf: Option<SampleBuffer<i32>> = None;
    loop {
        let packet = match format.next_packet() {
            Ok(p) => p,
            Err(SErr::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(SErr::ResetRequired) => break,
            Err(e) => return Err(serr(e)),
        };
        if packet.track_id() != track_id {
            continue;
        }
        let decoded = match decoder.decode(&packet) {
            Ok(d) => d,
            // A damaged packet is skipped, as players do.
            Err(SErr::DecodeError(_)) => continue,
            Err(e) => return Err(serr(e)),
        };
        let spec = *decoded.spec();
        if channels == 0 {
            channels = spec.channels.count();
        }
        if sample_rate == 0 {
            sample_rate = spec.rate;
        }
        if spec.channels.count() != channels || spec.rate != sample_rate {
            return Err(ImportError::unsupported(
                FMT,
                "the stream changes channel count or sample rate midway",
            ));
        }
        let need = decoded.capacity() as u64 * channels as u64;
        if buf.as_ref().is_none_or(|b| (b.capacity() as u64) < need) {
            buf = Some(SampleBuffer::new(decoded.capacity() as u64, spec));
        }
        if let Some(b) = buf.as_mut() {
            b.copy_interleaved_ref(decoded);
            check_len(samples.len() as u64 + b.samples().len() as u64)?;
            samples.extend_from_slice(b.samples());
        }
    }
    if channels == 0 || channels > u16::MAX as usize {
        return Err(ImportError::malformed(FMT, format!("{channels} channels")));
    }
    // Vorbis: what the last page's granule position says the stream holds (symphonia's
    // gapless mode trims the start, and the end only when it sees two audio pages; libvorbis
    // always trims the end to the granule position).
    let granule_frames = format
        .tracks()
        .iter()
        .find(|t| t.id == track_id)
        .filter(|t| t.codec_params.codec == CODEC_TYPE_VORBIS)
        .and_then(|t| t.codec_params.n_frames);
    if let Some(n) = granule_frames {
        let keep = usize::try_from(n)
            .unwrap_or(usize::MAX)
            .saturating_mul(channels);
        samples.truncate(keep);
    }
    Ok(Pcm {
        sample_rate,
        channels: channels as u16,
        source_bits,
        source_float: false,
        samples,
    })
}

/// Narrow full-scale samples to `bits` (8, 16 or 32) with rounding and write them as signed
/// little-endian PCM.
pub fn encode_samples(samples: &[i32], bits: u16) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(samples.len() * (bits as usize / 8));
    match bits {
        8 => out.extend(
            samples
                .iter()
                .map(|&v| (((v as i64 + (1 << 23)) >> 24).clamp(-128, 127) as i8) as u8),
        ),
        16 => {
            for &v in samples {
                let s = ((v as i64 + (1 << 15)) >> 16).clamp(-32768, 32767) as i16;
                out.extend_from_slice(&s.to_le_bytes());
            }
        }
        32 => samples
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        _ => {
            return Err(ImportError::InvalidArgument(format!(
                "{bits} bits per sample (expected 8, 16 or 32)"
            )))
        }
    }
    Ok(out)
}

/// Choose the output depth and build the payload.
pub fn build_audio(pcm: Pcm, settings: &Settings) -> Result<AudioData> {
    if pcm.channels == 0 {
        return Err(ImportError::malformed("audio", "zero channels"));
    }
    if pcm.sample_rate == 0 {
        return Err(ImportError::malformed("audio", "sample rate 0"));
    }
    let frames = pcm.frames();
    if frames == 0 {
        return Err(ImportError::empty("audio", "no samples (zero frames)"));
    }
    let frames32 = u32::try_from(frames).map_err(|_| ImportError::LimitExceeded {
        what: "audio frames",
        value: frames as u64,
        limit: u32::MAX as u64,
    })?;
    let bits = if settings.profile == Profile::Original {
        16
    } else {
        match settings.bits {
            AudioBits::B8 => 8,
            AudioBits::B16 => 16,
            AudioBits::B32 => 32,
            AudioBits::Source => match (pcm.source_float, pcm.source_bits) {
                (false, 8) => 8,
                (false, 16) => 16,
                _ => 32,
            },
        }
    };
    let samples = &pcm.samples[..frames * pcm.channels as usize];
    Ok(AudioData {
        sample_rate: pcm.sample_rate,
        channels: pcm.channels,
        bits,
        frames: frames32,
        payload: encode_samples(samples, bits)?,
    })
}

/// Decode the audio file in `bytes`; `ext` is its lower-case extension.
pub fn decode_audio(bytes: &[u8], ext: Option<&str>, profile: Profile) -> Result<Pcm> {
    let is_wav = bytes.starts_with(b"RIFF") || matches!(ext, Some("wav" | "wave"));
    match (profile, is_wav) {
        (Profile::Original, true) => decode_wav_original(bytes),
        (Profile::Original, false) => Err(ImportError::unsupported(
            "audio",
            "Unsupported audio format (the original profile converts only WAV)",
        )),
        (Profile::Default, true) => decode_wav(bytes),
        (Profile::Default, false) => decode_compressed(bytes, ext),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `import_flac` fuzz target: a PICTURE block whose media-type length says
    /// 3.5 GB made symphonia allocate that much before reading it. The importer now refuses it,
    /// naming the field, before symphonia sees the file.
    #[test]
    fn fuzz_regression_flac_picture_length() {
        let mut bytes = b"fLaC".to_vec();
        bytes.extend([0x06, 0x27, 0xEB, 0x00]); // PICTURE, not last, 2.6 MB declared
        bytes.extend([0x00, 0x01, 0x00, 0x3C]); // picture type
        bytes.extend([0xD2, 0xF5, 0x41, 0x85]); // media type length: 3.5 GB
        bytes.extend([0x41, 0x47, 0xFB, 0x80, 0, 0, 0x22, 0x10]);
        let err = decode_compressed(&bytes, Some("flac")).unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(err, ImportError::Malformed { .. }) && msg.contains("picture media type"),
            "{msg}"
        );

        // The same for the picture data's length (a later find of the same target).
        let mut bytes = b"fLaC".to_vec();
        bytes.extend([0x06, 0x00, 0x00, 0xC7]); // PICTURE, not last, 199 bytes
        bytes.extend([0x10, 0x00, 0x10, 0x4D]); // picture type
        bytes.extend([0; 8]); // empty media type and description
        bytes.extend([0, 0, 0, 1, 0, 0xF0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0]); // w, h, depth, colours
        bytes.extend([0x96, 0, 0, 1]); // picture data length: 2.5 GB
        bytes.extend([0; 12]);
        let msg = decode_compressed(&bytes, Some("flac"))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("picture data"), "{msg}");

        // The same for a Vorbis comment length.
        let mut bytes = b"fLaC".to_vec();
        bytes.extend([0x84, 0x00, 0x00, 0x10]); // VORBIS_COMMENT, last, 16 bytes
        bytes.extend(0u32.to_le_bytes()); // empty vendor string
        bytes.extend(1u32.to_le_bytes()); // one comment
        bytes.extend(0xF000_0000u32.to_le_bytes()); // of 4 GB
        bytes.extend([0; 4]);
        let msg = decode_compressed(&bytes, Some("flac"))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("Vorbis comment"), "{msg}");
    }

    #[test]
    fn sixteen_bit_round_trip_is_exact() {
        let src: Vec<i16> = vec![i16::MIN, -1, 0, 1, 12345, i16::MAX];
        let full: Vec<i32> = src.iter().map(|&s| (s as i32) << 16).collect();
        let out = encode_samples(&full, 16).unwrap();
        let back: Vec<i16> = out
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(back, src);
    }

    #[test]
    fn narrowing_rounds_and_clamps() {
        assert_eq!(
            encode_samples(&[i32::MAX], 16).unwrap(),
            32767i16.to_le_bytes()
        );
        assert_eq!(encode_samples(&[i32::MIN], 8).unwrap(), [0x80]);
        assert_eq!(encode_samples(&[(1 << 23) + 5], 8).unwrap(), [1]);
        assert!(encode_samples(&[0], 24).is_err());
        assert_eq!(float_to_full(1.0), i32::MAX);
        assert_eq!(float_to_full(-1.0), i32::MIN);
        assert_eq!(float_to_full(f32::NAN), 0);
    }

    #[test]
    fn zero_frames_rejected() {
        let pcm = Pcm {
            sample_rate: 8000,
            channels: 1,
            source_bits: 16,
            source_float: false,
            samples: vec![],
        };
        assert!(matches!(
            build_audio(pcm, &Settings::default()),
            Err(ImportError::Empty { .. })
        ));
    }
}
