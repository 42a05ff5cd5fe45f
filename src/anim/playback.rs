//! `Playback`: the clock of one clip (time, speed, loop mode, pause). Pure and
//! deterministic: it is given `dt`, it never reads a clock, and it knows nothing of keys.

/// What happens at the end of the clip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoopMode {
    /// Wrap around: past the end is the start again (and the other way with negative speed).
    #[default]
    Loop,
    /// Stop at the end (at the start when playing backwards) and pause.
    Once,
    /// Bounce between start and end.
    PingPong,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Playback {
    /// Clip time in seconds, kept within `0..=duration`.
    pub time: f32,
    /// Clip seconds per real second; negative plays backwards.
    pub speed: f32,
    pub mode: LoopMode,
    pub paused: bool,
    /// Clip length in seconds; 0 (or anything not positive and finite) pins time at 0.
    pub duration: f32,
    /// In ping-pong, true while travelling back towards the start (before `speed`'s sign).
    pub reversed: bool,
}

impl Playback {
    /// At time 0, speed 1, looping, playing.
    pub fn new(duration: f32) -> Self {
        Self { time: 0.0, speed: 1.0, mode: LoopMode::Loop, paused: false, duration, reversed: false }
    }

    /// The usable duration: a negative, NaN or infinite duration acts as 0.
    fn length(&self) -> f32 {
        if self.duration.is_finite() && self.duration > 0.0 { self.duration } else { 0.0 }
    }

    /// Moves the clock by `dt` real seconds, unless paused. A non-finite `dt` is ignored.
    pub fn advance(&mut self, dt: f32) {
        if self.paused {
            return;
        }
        let delta = dt * self.speed;
        if !delta.is_finite() {
            return;
        }
        let d = self.length();
        if d == 0.0 {
            self.time = 0.0;
            if self.mode == LoopMode::Once && delta != 0.0 {
                self.paused = true;
            }
            return;
        }
        match self.mode {
            LoopMode::Loop => self.time = wrap(self.time + delta, d),
            LoopMode::Once => {
                let t = self.time + delta;
                if delta > 0.0 && t >= d {
                    self.time = d;
                    self.paused = true;
                } else if delta < 0.0 && t <= 0.0 {
                    self.time = 0.0;
                    self.paused = true;
                } else {
                    self.time = t;
                }
            }
            LoopMode::PingPong => {
                // Unfold the bounce into a phase on a loop of length 2d: 0..d forward,
                // d..2d backward.
                let phase = if self.reversed { 2.0 * d - self.time } else { self.time };
                let phase = wrap(phase + delta, 2.0 * d);
                if phase <= d {
                    self.time = phase;
                    self.reversed = false;
                } else {
                    self.time = 2.0 * d - phase;
                    self.reversed = true;
                }
            }
        }
    }

    /// Jumps to `t`, clamped to the clip (NaN goes to 0). Pause state is kept.
    pub fn seek(&mut self, t: f32) {
        self.time = if t.is_nan() { 0.0 } else { t.clamp(0.0, self.length()) };
    }

    /// Steps by whole frames (negative = back) and pauses: frame stepping is for looking at
    /// one frame. Loop mode wraps; once and ping-pong stop at the ends.
    pub fn step(&mut self, frames: i32, frame_dt: f32) {
        self.paused = true;
        let delta = frames as f32 * frame_dt;
        if !delta.is_finite() {
            return;
        }
        let d = self.length();
        match self.mode {
            LoopMode::Loop if d > 0.0 => self.time = wrap(self.time + delta, d),
            _ => self.seek(self.time + delta),
        }
    }

    /// Pause or resume. Resuming a once-clip that has run to its end starts it over (from
    /// the end when playing backwards), as media players do.
    pub fn toggle_pause(&mut self) {
        if self.paused && self.mode == LoopMode::Once {
            let d = self.length();
            if self.speed > 0.0 && self.time >= d {
                self.time = 0.0;
            } else if self.speed < 0.0 && self.time <= 0.0 {
                self.time = d;
            }
        }
        self.paused = !self.paused;
    }
}

/// `t` modulo `d` into `0..d`; `rem_euclid` can round up to exactly `d` for tiny negative
/// `t`, which is the start again.
fn wrap(t: f32, d: f32) -> f32 {
    let r = t.rem_euclid(d);
    if r >= d { 0.0 } else { r }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-5
    }

    fn playing(duration: f32, mode: LoopMode, speed: f32, time: f32) -> Playback {
        Playback { time, speed, mode, ..Playback::new(duration) }
    }

    #[test]
    fn loop_wraps_both_ways() {
        let mut p = playing(2.0, LoopMode::Loop, 1.0, 0.0);
        p.advance(2.5);
        assert!(close(p.time, 0.5));
        p.advance(1.5);
        assert!(close(p.time, 0.0));
        let mut p = playing(2.0, LoopMode::Loop, -1.0, 0.5);
        p.advance(1.0);
        assert!(close(p.time, 1.5));
        // Speed 2 for 0.3 s from 1.5 -> 2.1 -> 0.1
        let mut p = playing(2.0, LoopMode::Loop, 2.0, 1.5);
        p.advance(0.3);
        assert!(close(p.time, 0.1));
        // Many laps at once.
        p.advance(41.0);
        assert!(close(p.time, 0.1), "{}", p.time);
        assert!(!p.paused);
    }

    #[test]
    fn once_stops_at_the_end_or_start_and_pauses() {
        let mut p = playing(2.0, LoopMode::Once, 1.0, 1.5);
        p.advance(0.25);
        assert!(close(p.time, 1.75) && !p.paused);
        p.advance(1.0);
        assert_eq!(p.time, 2.0);
        assert!(p.paused);
        p.advance(1.0);
        assert_eq!(p.time, 2.0);
        // Resuming at the end restarts.
        p.toggle_pause();
        assert!(!p.paused);
        assert_eq!(p.time, 0.0);

        let mut p = playing(2.0, LoopMode::Once, -0.5, 1.0);
        p.advance(1.0);
        assert!(close(p.time, 0.5) && !p.paused);
        p.advance(3.0);
        assert_eq!(p.time, 0.0);
        assert!(p.paused);
        p.toggle_pause();
        assert_eq!(p.time, 2.0);
    }

    #[test]
    fn ping_pong_bounces_off_both_ends() {
        let mut p = playing(2.0, LoopMode::PingPong, 1.0, 0.0);
        p.advance(3.0); // 0 -> 2, back to 1
        assert!(close(p.time, 1.0));
        assert!(p.reversed);
        p.advance(1.5); // 1 -> 0, forward to 0.5
        assert!(close(p.time, 0.5), "{}", p.time);
        assert!(!p.reversed);
        p.advance(0.5);
        assert!(close(p.time, 1.0));
        // Negative speed from the start reflects at 0: 0.5 back from 0.25 = 0.25 forward.
        let mut p = playing(2.0, LoopMode::PingPong, -1.0, 0.25);
        p.advance(0.5);
        assert!(close(p.time, 0.25), "{}", p.time);
        // ... and that is travelling away from 0 (reversed relative to a negative speed).
        p.advance(0.25);
        assert!(close(p.time, 0.5), "{}", p.time);
    }

    #[test]
    fn zero_and_broken_durations_are_safe() {
        for d in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            for mode in [LoopMode::Loop, LoopMode::Once, LoopMode::PingPong] {
                let mut p = playing(d, mode, 1.0, 0.0);
                p.advance(0.016);
                assert_eq!(p.time, 0.0);
                p.seek(3.0);
                assert_eq!(p.time, 0.0);
                p.step(2, 0.5);
                assert_eq!(p.time, 0.0);
            }
        }
    }

    #[test]
    fn paused_and_non_finite_dt_do_not_move() {
        let mut p = playing(2.0, LoopMode::Loop, 1.0, 1.0);
        p.advance(f32::NAN);
        p.advance(f32::INFINITY);
        assert_eq!(p.time, 1.0);
        p.toggle_pause();
        assert!(p.paused);
        p.advance(0.5);
        assert_eq!(p.time, 1.0);
        p.toggle_pause();
        p.advance(0.5);
        assert!(close(p.time, 1.5));
    }

    #[test]
    fn seek_clamps_and_step_moves_by_frames() {
        let mut p = playing(2.0, LoopMode::Loop, 1.0, 0.0);
        p.seek(5.0);
        assert_eq!(p.time, 2.0);
        p.seek(-1.0);
        assert_eq!(p.time, 0.0);
        p.seek(f32::NAN);
        assert_eq!(p.time, 0.0);
        p.seek(1.0);
        p.step(3, 0.25);
        assert!(close(p.time, 1.75));
        assert!(p.paused);
        p.step(2, 0.25); // 2.25 wraps to 0.25
        assert!(close(p.time, 0.25));
        p.step(-2, 0.25); // -0.25 wraps to 1.75
        assert!(close(p.time, 1.75));
        let mut p = playing(2.0, LoopMode::Once, 1.0, 1.75);
        p.step(4, 0.25);
        assert_eq!(p.time, 2.0);
        p.step(-100, 0.25);
        assert_eq!(p.time, 0.0);
    }
}
