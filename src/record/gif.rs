//! An animated GIF of the viewport's raster, one image pixel per dot (braille's 2x4 per
//! cell, half blocks' 1x2), enlarged `scale` times. Colours go through the xterm 256-colour
//! palette, the global palette of the file: the picture a 256-colour terminal shows, and a
//! fixed palette keeps the bytes independent of the frames' contents.

use std::borrow::Cow;

use ::gif::{Encoder, Frame, Repeat};

use super::Take;
use crate::render::{Layer, Rgb, ansi256, ansi256_rgb};

/// Why the GIF could not be made.
#[derive(Debug, thiserror::Error)]
pub enum GifError {
    #[error("the picture would be {0}x{1} pixels; GIF allows at most 65535 a side")]
    TooLarge(usize, usize),
    #[error("cannot encode the GIF: {0}")]
    Encoding(#[from] ::gif::EncodingError),
}

/// Palette entry of the empty background: the cube's black.
const BACKGROUND: u8 = 16;

/// The recording as an animated GIF that loops forever.
pub fn gif(take: &Take, scale: usize) -> Result<Vec<u8>, GifError> {
    let scale = scale.max(1);
    let mut encoder: Option<Encoder<Vec<u8>>> = None;
    let mut pixels = Vec::new();
    let palette: Vec<u8> = (0..=255u8)
        .flat_map(|i| {
            let c = if i < 16 { Rgb::BLACK } else { ansi256_rgb(i) };
            [c.r, c.g, c.b]
        })
        .collect();
    take.draw_frames(|i, raster| -> Result<(), GifError> {
        // ASCII cells are one pixel each and twice as tall as wide: their rows repeat.
        let tall = raster.pixel_aspect().round().max(1.0) as usize;
        let (w, h) = (raster.width() * scale, raster.height() * tall * scale);
        let (Ok(w16), Ok(h16)) = (u16::try_from(w), u16::try_from(h)) else {
            return Err(GifError::TooLarge(w, h));
        };
        pixels.clear();
        for y in 0..h {
            let ry = y / (tall * scale);
            for x in 0..w {
                let rx = x / scale;
                let index = match (raster.layer_at(rx, ry), raster.color_at(rx, ry)) {
                    (Layer::Empty, _) | (_, None) => BACKGROUND,
                    (_, Some(c)) => ansi256(c),
                };
                pixels.push(index);
            }
        }
        if encoder.is_none() {
            let mut e = Encoder::new(Vec::new(), w16, h16, &palette)?;
            e.set_repeat(Repeat::Infinite)?;
            encoder = Some(e);
        }
        let frame = Frame {
            width: w16,
            height: h16,
            delay: delay(i, take.fps),
            buffer: Cow::Borrowed(&pixels),
            ..Frame::default()
        };
        if let Some(e) = encoder.as_mut() {
            e.write_frame(&frame)?;
        }
        Ok(())
    })?;
    match encoder {
        Some(e) => Ok(e.into_inner()?),
        None => Ok(Vec::new()),
    }
}

/// Frame `i`'s delay in hundredths of a second (GIF's unit): the difference of the rounded
/// start times, so that 15 fps alternates 7 and 6 and the whole stays in step with the clip.
fn delay(i: usize, fps: u32) -> u16 {
    let at = |n: usize| (n as f64 * 100.0 / f64::from(fps.max(1))).round() as u64;
    (at(i + 1) - at(i)).min(u64::from(u16::MAX)) as u16
}

#[cfg(test)]
mod tests {
    use super::delay;

    #[test]
    fn delays_add_up_to_the_clip_time() {
        let total: u32 = (0..15).map(|i| u32::from(delay(i, 15))).sum();
        assert_eq!(total, 100);
        assert_eq!((0..3).map(|i| delay(i, 30)).collect::<Vec<_>>(), vec![3, 4, 3]);
        assert_eq!(delay(0, 10), 10);
    }
}
