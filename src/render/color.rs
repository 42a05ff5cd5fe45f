//! Colours of the rasteriser: the `Rgb` triple every pixel and cell carries, shading
//! (scaling a base colour by light), luminance for the ASCII ramp and dithering, and the
//! heatmap ramp. Terminal encodings of colours live in `ansi`, not here.

/// An 8-bit-per-channel sRGB colour, as terminals take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Rgb {
    pub r: u8,
    pub g: u8,
    pub b: u8,
}

impl Rgb {
    pub const BLACK: Rgb = Rgb::new(0, 0, 0);
    pub const WHITE: Rgb = Rgb::new(255, 255, 255);
    pub const RED: Rgb = Rgb::new(255, 0, 0);
    pub const GREEN: Rgb = Rgb::new(0, 255, 0);
    pub const BLUE: Rgb = Rgb::new(0, 0, 255);
    pub const YELLOW: Rgb = Rgb::new(255, 255, 0);
    pub const MAGENTA: Rgb = Rgb::new(255, 0, 255);

    pub const fn new(r: u8, g: u8, b: u8) -> Rgb {
        Rgb { r, g, b }
    }

    /// Every channel multiplied by `k` (clamped to 0..=1; NaN counts as 0), rounded.
    pub fn scale(self, k: f32) -> Rgb {
        Scaler::new(self).scale(k)
    }

    /// Straight blend: `self` at t = 0, `other` at t = 1 (t clamped).
    pub fn lerp(self, other: Rgb, t: f32) -> Rgb {
        let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
        let mix = |a: u8, b: u8| channel(f32::from(a) + (f32::from(b) - f32::from(a)) * t);
        Rgb { r: mix(self.r, other.r), g: mix(self.g, other.g), b: mix(self.b, other.b) }
    }

    /// Relative luminance in 0..=1 with the Rec. 709 weights, on the stored (gamma-encoded)
    /// values: the ramp only needs an ordering that matches what the eye calls brighter.
    pub fn luma(self) -> f32 {
        (0.2126 * f32::from(self.r) + 0.7152 * f32::from(self.g) + 0.0722 * f32::from(self.b)) / 255.0
    }
}

/// A colour to be scaled many times (`Rgb::scale`, for every pixel of a lit mesh), its
/// channels converted to floats once: in the pixel loops the compiler did not hoist the
/// conversion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Scaler([f32; 4]);

impl Scaler {
    pub(super) fn new(c: Rgb) -> Scaler {
        Scaler([f32::from(c.r), f32::from(c.g), f32::from(c.b), 0.0])
    }

    /// `Rgb::scale` of the colour.
    #[inline]
    pub(super) fn scale(self, k: f32) -> Rgb {
        // `clamp` keeps NaN, and `NaN as u8` is 0: the same result as k = 0, stated here so
        // that a NaN light value reads as "unlit" rather than as an accident.
        let k = if k.is_nan() { 0.0 } else { k.clamp(0.0, 1.0) };
        Rgb { r: channel(self.0[0] * k), g: channel(self.0[1] * k), b: channel(self.0[2] * k) }
    }
}

#[inline]
fn channel(v: f32) -> u8 {
    // Values arrive inside 0..=255, so adding a half and truncating rounds (halves up);
    // `as` saturates at the ends. This runs per pixel, and `round()` is a libm call on
    // baseline x86-64.
    (v + 0.5) as u8
}

/// The heatmap ramp: 0 blue, 1/3 green, 2/3 yellow, 1 red, linear between; values outside
/// 0..=1 clamp to the ends. NaN maps to magenta, a colour the ramp never produces, so that
/// an invalid scalar stands out instead of passing for a low value.
pub fn heat(v: f32) -> Rgb {
    if v.is_nan() {
        return Rgb::MAGENTA;
    }
    let v = v.clamp(0.0, 1.0) * 3.0;
    if v <= 1.0 {
        Rgb::BLUE.lerp(Rgb::GREEN, v)
    } else if v <= 2.0 {
        Rgb::GREEN.lerp(Rgb::YELLOW, v - 1.0)
    } else {
        Rgb::YELLOW.lerp(Rgb::RED, v - 2.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_ramp_stops_and_midpoints() {
        assert_eq!(heat(0.0), Rgb::BLUE);
        assert_eq!(heat(1.0 / 3.0), Rgb::GREEN);
        assert_eq!(heat(2.0 / 3.0), Rgb::YELLOW);
        assert_eq!(heat(1.0), Rgb::RED);
        // 0.5 is halfway from green (1/3) to yellow (2/3): red channel 127.5 rounds to 128.
        assert_eq!(heat(0.5), Rgb::new(128, 255, 0));
        // 0.25 is three quarters of the way blue -> green: g = 191.25, b = 63.75.
        assert_eq!(heat(0.25), Rgb::new(0, 191, 64));
        assert_eq!(heat(-3.0), Rgb::BLUE);
        assert_eq!(heat(7.0), Rgb::RED);
        assert_eq!(heat(f32::NAN), Rgb::MAGENTA);
    }

    #[test]
    fn scale_rounds_and_clamps() {
        assert_eq!(Rgb::new(200, 100, 3).scale(0.5), Rgb::new(100, 50, 2));
        assert_eq!(Rgb::new(200, 100, 3).scale(2.0), Rgb::new(200, 100, 3));
        assert_eq!(Rgb::WHITE.scale(f32::NAN), Rgb::BLACK);
        assert_eq!(Rgb::WHITE.scale(-1.0), Rgb::BLACK);
    }

    #[test]
    fn scale_of_a_light_out_of_range_is_that_of_the_clamped_light() {
        // Every kind of value outside 0..=1 against the clamp itself.
        let clamped = |c: Rgb, k: f32| {
            let k = if k.is_nan() { 0.0 } else { k.clamp(0.0, 1.0) };
            Rgb::new(channel(f32::from(c.r) * k), channel(f32::from(c.g) * k), channel(f32::from(c.b) * k))
        };
        let lights = [
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -0.0,
            -f32::MIN_POSITIVE,
            -1e-30,
            -0.001,
            -1.0,
            -255.5,
            -3e38,
            1.0 + f32::EPSILON,
            1.5,
            256.0,
            3e38,
        ];
        for k in lights {
            for c in [Rgb::WHITE, Rgb::BLACK, Rgb::new(200, 1, 0), Rgb::new(0, 128, 255)] {
                assert_eq!(c.scale(k), clamped(c, k), "{c:?} {k}");
            }
        }
    }

    #[test]
    fn scale_in_lanes_is_the_per_channel_formula() {
        let one_by_one = |c: Rgb, k: f32| {
            Rgb::new(channel(f32::from(c.r) * k), channel(f32::from(c.g) * k), channel(f32::from(c.b) * k))
        };
        let check = |rgb: Rgb, k: f32| assert_eq!(rgb.scale(k), one_by_one(rgb, k), "{rgb:?} {k}");
        // Every channel value over a grid of k.
        for i in 0..=1024 {
            for c in 0..=255u8 {
                check(Rgb::new(c, 255 - c, c / 3 + 85), i as f32 / 1024.0);
            }
        }
        // Every k where a channel's product lands on a rounding step (n - 0.5 exactly, in
        // f32), and its neighbours a few ulps either side.
        for c in 1..=255u8 {
            for n in 1..=c {
                let k = (f32::from(n) - 0.5) / f32::from(c);
                for u in -3..=3 {
                    let k = f32::from_bits((k.to_bits() as i32 + u) as u32).min(1.0);
                    check(Rgb::new(c, c / 2, 255 - c), k);
                    check(Rgb::new(255 - c, c, c / 2), k);
                }
            }
        }
    }

    #[test]
    fn luma_extremes_and_green_brighter_than_blue() {
        assert_eq!(Rgb::BLACK.luma(), 0.0);
        assert!((Rgb::WHITE.luma() - 1.0).abs() < 1e-6);
        assert!(Rgb::GREEN.luma() > Rgb::RED.luma());
        assert!(Rgb::RED.luma() > Rgb::BLUE.luma());
    }
}
