//! The one lane abstraction the SIMD kernels are written against: eight-lane vectors of
//! `f32`, `i32` and sixteen of `i16` (`F32x8`, `I32x8`, `I16x16`; masks are `I32x8`s of 0
//! or -1), each operation implemented once per instruction set (`Isa`): `Portable`, plain
//! loops over the lanes (which the compiler vectorises for the target's baseline: SSE2 on
//! x86-64, NEON on aarch64), and `Avx2`, AVX2 intrinsics. A kernel is a `Kernel`, generic
//! over the `Isa`; `run` calls it with the best one the CPU has. This module holds all of
//! the crate's `unsafe` but the memory map's (`import/file.rs`): the intrinsics, sound because
//! `run` enters `Avx2` code (AVX2 and FMA) only after checking the CPU, and `Avx2` cannot
//! be named outside this module; and `with_fma!`, which does the same for FMA alone.
//!
//! Every operation gives the same bits on every instruction set: a multiply and an add
//! are fused only where a kernel asks (`mul_add`, rounded once everywhere; Rust never
//! contracts them itself), `max` is a select (`a > b ? a : b`, as
//! `maxps` is) rather than `f32::max`, whose zero sign is unspecified, and shifts and
//! conversions say what happens out of range, as the instructions do. The tests run every
//! kernel with every `Isa` the CPU has and compare with a scalar definition.
//!
//! Kernels must be `#[inline(always)]` down to the last helper: a function the compiler
//! leaves out of line is compiled for the baseline only, and calls each operation.
//!
//! `RIGSCOPE_SIMD=scalar` forces `Portable` for the whole program, `with_fma!` included (CI
//! runs the tests once so); `avx2` (or `avx512` from older scripts) or no value asks for the
//! best the CPU has, and any other value does the same after a note (`simd_env_note`).
#![allow(unsafe_code)]

use std::marker::PhantomData;

use glam::Vec3;
use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Sub};

/// Lanes per `F32x8` / `I32x8`.
pub(crate) const WIDTH: usize = 8;

/// What `run` runs kernels with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Backend {
    /// `Portable`: loops the compiler vectorises for the target's baseline.
    Portable,
    /// x86-64 with AVX2 and FMA (every CPU with AVX2 has FMA too).
    Avx2,
}

impl Backend {
    /// The best this CPU has unless `RIGSCOPE_SIMD` says otherwise; in tests, the one
    /// `forced` on this thread, if any.
    #[inline]
    pub(crate) fn current() -> Backend {
        #[cfg(test)]
        if let Some(b) = FORCED.get() {
            return b;
        }
        static BEST: std::sync::OnceLock<Backend> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| {
            if vectors_allowed() && Backend::Avx2.present() { Backend::Avx2 } else { Backend::Portable }
        })
    }

    /// The name `rigscope bench` reports: "avx2", "neon" (the portable lanes on aarch64,
    /// whose baseline is NEON) or "scalar" (elsewhere, or when `RIGSCOPE_SIMD=scalar`
    /// asks for the portable lanes, which are the same code on aarch64).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Backend::Avx2 => "avx2",
            Backend::Portable if cfg!(target_arch = "aarch64") && vectors_allowed() => "neon",
            Backend::Portable => "scalar",
        }
    }

    fn present(self) -> bool {
        match self {
            Backend::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(not(target_arch = "x86_64"))]
            Backend::Avx2 => false,
        }
    }

    /// `f()` with `current` giving this backend on this thread (which must have it).
    #[cfg(test)]
    pub(crate) fn forced<R>(self, f: impl FnOnce() -> R) -> R {
        assert!(self.present());
        let before = FORCED.replace(Some(self));
        let out = f();
        FORCED.set(before);
        out
    }

    /// Every backend this CPU has: the tests hold each to the same results.
    #[cfg(test)]
    pub(crate) fn available() -> impl Iterator<Item = Backend> {
        [Backend::Portable, Backend::Avx2].into_iter().filter(|b| b.present())
    }
}

#[cfg(test)]
thread_local! {
    static FORCED: std::cell::Cell<Option<Backend>> = const { std::cell::Cell::new(None) };
}

/// False when `RIGSCOPE_SIMD=scalar`: kernels outside `run` (skinning, the pose
/// composition) then take their portable paths too.
pub(crate) fn vectors_allowed() -> bool {
    static SCALAR: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    !*SCALAR.get_or_init(|| scalar_requested(std::env::var("RIGSCOPE_SIMD").ok().as_deref()))
}

fn scalar_requested(value: Option<&str>) -> bool {
    value.is_some_and(|v| v.trim().eq_ignore_ascii_case("scalar"))
}

/// The values `RIGSCOPE_SIMD` knows.
pub(crate) const SIMD_VALUES: [&str; 3] = ["scalar", "avx2", "avx512"];

/// What to tell the user about `RIGSCOPE_SIMD=value` when it is none of `SIMD_VALUES`
/// (an empty value counts as unset): which ones exist, and what runs instead.
pub(crate) fn unknown_value_note(value: Option<&str>) -> Option<String> {
    let v = value?.trim();
    if v.is_empty() || SIMD_VALUES.iter().any(|k| v.eq_ignore_ascii_case(k)) {
        return None;
    }
    Some(format!(
        "RIGSCOPE_SIMD={v} is not a known value ({}): using the best the CPU has",
        SIMD_VALUES.join(", ")
    ))
}

/// Whether `with_fma!` enters its FMA-compiled copy: only on a CPU with FMA, never with
/// `RIGSCOPE_SIMD=scalar` (the portable path everywhere) nor, in tests, with `Portable`
/// forced on this thread.
// `with_fma!` calls it only where an FMA copy exists (x86-64); the tests call it everywhere.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline]
pub(crate) fn fma_allowed() -> bool {
    #[cfg(test)]
    if let Some(b) = FORCED.get() {
        return b != Backend::Portable && fma_present();
    }
    vectors_allowed() && fma_present()
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn fma_present() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A kernel, written once against the lane types and run by `run` with an `Isa`.
pub(crate) trait Kernel {
    type Output;
    /// The kernel; must be `#[inline(always)]`.
    fn run<I: Isa>(self) -> Self::Output;
}

/// `kernel.run()` with the instruction set of `Backend::current()`.
#[inline(always)]
pub(crate) fn run<K: Kernel>(kernel: K) -> K::Output {
    #[cfg(target_arch = "x86_64")]
    if Backend::current() == Backend::Avx2 {
        #[target_feature(enable = "avx2,fma")]
        fn with_avx2<K: Kernel>(kernel: K) -> K::Output {
            kernel.run::<Avx2>()
        }
        // SAFETY: `current` gives `Avx2` only when the CPU has AVX2 and FMA.
        return unsafe { with_avx2(kernel) };
    }
    kernel.run::<Portable>()
}

/// Calls `body(args)` (an `#[inline(always)]` function), compiled a second time with FMA
/// and run that way when the CPU has it and `fma_allowed` says so. In a baseline x86_64 build `mul_add` is a call to
/// libm's `fmaf` per lane (the same correctly rounded result), which made the portable loop
/// many times slower. Without FMA hardware (x86 from before 2013) the calls remain: slower,
/// same bits. Kept here, beside `run`, so that `unsafe` stays in this module.
macro_rules! with_fma {
    ($body:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "fma")]
            fn with_fma($($arg: $ty),*) $(-> $ret)? {
                $body($($arg),*)
            }
            if $crate::lanes::fma_allowed() {
                // SAFETY: `with_fma` needs nothing but FMA, which `fma_allowed` just saw the CPU has.
                #[allow(unsafe_code)]
                return unsafe { with_fma($($arg),*) };
            }
        }
        $body($($arg),*)
    }};
}
pub(crate) use with_fma;

/// Ask the cache for the line holding `at`: a hint, with no effect on any result, that
/// cannot fault (any address will do). A no-op where there is no such instruction.
#[inline(always)]
pub(crate) fn prefetch<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of the x86-64 baseline; a prefetch reads nothing the program sees.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

type F = [f32; WIDTH];
type I = [i32; WIDTH];
type H = [i16; 2 * WIDTH];

/// The operations of the lane types, one implementation per instruction set. Kernels use
/// them through `F32x8`, `I32x8` and `I16x16`.
pub(crate) trait Isa: Copy + std::fmt::Debug + 'static {
    fn f_add(a: F, b: F) -> F;
    fn f_sub(a: F, b: F) -> F;
    fn f_mul(a: F, b: F) -> F;
    fn f_div(a: F, b: F) -> F;
    /// `a * b + c` rounded once (a fused multiply-add: exact, so the same on every
    /// instruction set; only kernels that want it call it).
    fn f_mul_add(a: F, b: F, c: F) -> F;
    /// Lane `i` is lane `K` of its half: `[a[K]; 4]` then `[a[4 + K]; 4]` (`K` below 4).
    fn f_spread<const K: usize>(a: F) -> F;
    /// The low halves of `a` and `b`: `[a0, a1, a2, a3, b0, b1, b2, b3]`.
    fn f_low_halves(a: F, b: F) -> F;
    /// The high halves of `a` and `b`: `[a4, a5, a6, a7, b4, b5, b6, b7]`.
    fn f_high_halves(a: F, b: F) -> F;
    fn f_sqrt(a: F) -> F;
    fn f_floor(a: F) -> F;
    /// Ordered comparisons: `LT`, `LE`, `GT` or `GE` (false with a NaN).
    fn f_cmp<const OP: u8>(a: F, b: F) -> I;
    /// Truncated towards zero; `i32::MIN` out of range or NaN (as `cvttps2dq`).
    fn f_to_i32(a: F) -> I;
    /// Rounded to nearest, ties to even (as `cvtdq2ps` and `as f32`).
    fn i_to_f32(a: I) -> F;
    fn i_add(a: I, b: I) -> I;
    fn i_sub(a: I, b: I) -> I;
    /// The low 32 bits of the product.
    fn i_mul(a: I, b: I) -> I;
    fn i_and(a: I, b: I) -> I;
    fn i_or(a: I, b: I) -> I;
    fn i_xor(a: I, b: I) -> I;
    /// `!a & b`.
    fn i_and_not(a: I, b: I) -> I;
    fn i_min(a: I, b: I) -> I;
    fn i_max(a: I, b: I) -> I;
    fn i_min_u32(a: I, b: I) -> I;
    fn i_eq(a: I, b: I) -> I;
    fn i_gt(a: I, b: I) -> I;
    /// Shifted left by `n` (0 where `n` is not below 32, read unsigned).
    fn i_shl_by(a: I, n: I) -> I;
    /// Shifted right by `n`, filling with zeros (0 where `n` is not below 32).
    fn i_shr_logical_by(a: I, n: I) -> I;
    /// Shifted right by `N` (below 32), copying the sign.
    fn i_shr<const N: u32>(a: I) -> I;
    /// `yes` where `mask` has its sign bit set, else `no`.
    fn i_select(mask: I, yes: I, no: I) -> I;
    /// Bit `i` set where lane `i` has its sign bit set.
    fn i_bitmask(a: I) -> u32;
    fn h_min(a: H, b: H) -> H;
    /// Four records of four words, each read from a `u64` low word first: lanes `4 k ..
    /// 4 k + 4` are `q[k]`'s.
    fn h_from_quads(q: [u64; 4]) -> H;
    /// Lane `i` is `a[2i] + a[2i + 1]`, in i32.
    fn h_pair_sums(a: H) -> I;
    /// Eight records of four words, one record per lane: `[word 0, 1, 2, 3]`.
    fn transpose(rows: &[[i32; 4]; WIDTH]) -> [I; 4];
    /// `transpose` back: lane `i` of each vector into record `i`.
    fn records(v: [I; 4]) -> [[i32; 4]; WIDTH];
    /// `records` of 16-bit words, each lane saturated to the `i16` range.
    fn short_records(v: [I; 4]) -> [[i16; 4]; WIDTH];
    /// Eight records of three floats, one per lane: `[x, y, z]`.
    fn xyz(v: &[f32; 3 * WIDTH]) -> [F; 3];
    /// Records `2K` and `2K + 1` of eight records of three floats (`K` below 4), each
    /// coordinate spread over a half: `[x, y, z]`, each `[first's; 4, second's; 4]`.
    fn xyz_pair_spreads<const K: usize>(v: &[f32; 3 * WIDTH]) -> [F; 3];
    /// Lanes 0..3 of each half of `v[k]` into records `2k` (low half) and `2k + 1`.
    fn store_xyz_pairs(v: [F; 4], out: &mut [f32; 3 * WIDTH]);
}

/// The ordered comparisons `f_cmp` takes.
pub(crate) const LT: u8 = 0;
pub(crate) const LE: u8 = 1;
pub(crate) const GT: u8 = 2;
pub(crate) const GE: u8 = 3;

/// `[$t; N]` built lane by lane (a loop, not `array::from_fn`, whose closure the
/// compiler may leave out of line).
macro_rules! each {
    ($n:expr, $zero:expr, |$i:ident| $e:expr) => {{
        let mut out = [$zero; $n];
        let mut $i = 0;
        while $i < $n {
            out[$i] = $e;
            $i += 1;
        }
        out
    }};
}

/// Plain loops over the lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl Isa for Portable {
    #[inline(always)]
    fn f_add(a: F, b: F) -> F {
        each!(WIDTH, 0.0, |i| a[i] + b[i])
    }
    #[inline(always)]
    fn f_sub(a: F, b: F) -> F {
        each!(WIDTH, 0.0, |i| a[i] - b[i])
    }
    #[inline(always)]
    fn f_mul(a: F, b: F) -> F {
        each!(WIDTH, 0.0, |i| a[i] * b[i])
    }
    #[inline(always)]
    fn f_div(a: F, b: F) -> F {
        each!(WIDTH, 0.0, |i| a[i] / b[i])
    }
    #[inline(always)]
    fn f_mul_add(a: F, b: F, c: F) -> F {
        each!(WIDTH, 0.0, |i| a[i].mul_add(b[i], c[i]))
    }
    #[inline(always)]
    fn f_spread<const K: usize>(a: F) -> F {
        each!(WIDTH, 0.0, |i| a[i / 4 * 4 + K])
    }
    #[inline(always)]
    fn f_low_halves(a: F, b: F) -> F {
        each!(WIDTH, 0.0, |i| if i < 4 { a[i] } else { b[i - 4] })
    }
    #[inline(always)]
    fn f_high_halves(a: F, b: F) -> F {
        each!(WIDTH, 0.0, |i| if i < 4 { a[i + 4] } else { b[i] })
    }
    #[inline(always)]
    fn f_sqrt(a: F) -> F {
        each!(WIDTH, 0.0, |i| a[i].sqrt())
    }
    #[inline(always)]
    fn f_floor(a: F) -> F {
        each!(WIDTH, 0.0, |i| a[i].floor())
    }
    #[inline(always)]
    fn f_cmp<const OP: u8>(a: F, b: F) -> I {
        each!(WIDTH, 0, |i| -i32::from(match OP {
            LT => a[i] < b[i],
            LE => a[i] <= b[i],
            GT => a[i] > b[i],
            _ => a[i] >= b[i],
        }))
    }
    #[inline(always)]
    fn f_to_i32(a: F) -> I {
        let fits = |v: f32| (-2_147_483_648.0..2_147_483_648.0).contains(&v);
        each!(WIDTH, 0, |i| if fits(a[i]) { a[i] as i32 } else { i32::MIN })
    }
    #[inline(always)]
    fn i_to_f32(a: I) -> F {
        each!(WIDTH, 0.0, |i| a[i] as f32)
    }
    #[inline(always)]
    fn i_add(a: I, b: I) -> I {
        each!(WIDTH, 0, |i| a[i].wrapping_add(b[i]))
    }
    #[inline(always)]
    fn i_sub(a: I, b: I) -> I {
        each!(WIDTH, 0, |i| a[i].wrapping_sub(b[i]))
    }
    #[inline(always)]
    fn i_mul(a: I, b: I) -> I {
        each!(WIDTH, 0, |i| a[i].wrapping_mul(b[i]))
    }
    #[inline(always)]
    fn i_and(a: I, b: I) -> I {
        each!(WIDTH, 0, |i| a[i] & b[i])
    }
    #[inline(always)]
    fn i_or(a: I, b: I) -> I {
        each!(WIDTH, 0, |i| a[i] | b[i])
    }
    #[inline(always)]
    fn i_xor(a: I, b: I) -> I {
        each!(WIDTH, 0, |i| a[i] ^ b[i])
    }
    #[inline(always)]
    fn i_and_not(a: I, b: I) -> I {
        each!(WIDTH, 0, |i| !a[i] & b[i])
    }
    #[inline(always)]
    fn i_min(a: I, b: I) -> I {
        each!(WIDTH, 0, |i| a[i].min(b[i]))
    }
    #[inline(always)]
    fn i_max(a: I, b: I) -> I {
        each!(WIDTH, 0, |i| a[i].max(b[i]))
    }
    #[inline(always)]
    fn i_min_u32(a: I, b: I) -> I {
        each!(WIDTH, 0, |i| (a[i] as u32).min(b[i] as u32) as i32)
    }
    #[inline(always)]
    fn i_eq(a: I, b: I) -> I {
        each!(WIDTH, 0, |i| -i32::from(a[i] == b[i]))
    }
    #[inline(always)]
    fn i_gt(a: I, b: I) -> I {
        each!(WIDTH, 0, |i| -i32::from(a[i] > b[i]))
    }
    #[inline(always)]
    fn i_shl_by(a: I, n: I) -> I {
        each!(WIDTH, 0, |i| if (n[i] as u32) < 32 { a[i] << n[i] } else { 0 })
    }
    #[inline(always)]
    fn i_shr_logical_by(a: I, n: I) -> I {
        each!(WIDTH, 0, |i| if (n[i] as u32) < 32 { ((a[i] as u32) >> n[i]) as i32 } else { 0 })
    }
    #[inline(always)]
    fn i_shr<const N: u32>(a: I) -> I {
        each!(WIDTH, 0, |i| a[i] >> N)
    }
    #[inline(always)]
    fn i_select(mask: I, yes: I, no: I) -> I {
        each!(WIDTH, 0, |i| if mask[i] < 0 { yes[i] } else { no[i] })
    }
    #[inline(always)]
    fn i_bitmask(a: I) -> u32 {
        // SSE2 is part of the x86-64 baseline; the loop below compiled to a bit at a time.
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is always there on x86-64; the loads read the 32 bytes of `a`.
        unsafe {
            use std::arch::x86_64::*;
            let half = |i: usize| _mm_movemask_ps(_mm_loadu_ps(a[i..].as_ptr().cast()));
            return (half(0) | half(4) << 4) as u32;
        }
        #[allow(unreachable_code)]
        let mut bits = 0;
        for (i, &v) in a.iter().enumerate() {
            bits |= ((v as u32) >> 31) << i;
        }
        bits
    }
    #[inline(always)]
    fn h_min(a: H, b: H) -> H {
        each!(2 * WIDTH, 0, |i| a[i].min(b[i]))
    }
    #[inline(always)]
    fn h_from_quads(q: [u64; 4]) -> H {
        each!(2 * WIDTH, 0, |i| (q[i / 4] >> (16 * (i % 4))) as u16 as i16)
    }
    #[inline(always)]
    fn h_pair_sums(a: H) -> I {
        each!(WIDTH, 0, |i| i32::from(a[2 * i]) + i32::from(a[2 * i + 1]))
    }
    #[inline(always)]
    fn transpose(rows: &[[i32; 4]; WIDTH]) -> [I; 4] {
        [
            each!(WIDTH, 0, |i| rows[i][0]),
            each!(WIDTH, 0, |i| rows[i][1]),
            each!(WIDTH, 0, |i| rows[i][2]),
            each!(WIDTH, 0, |i| rows[i][3]),
        ]
    }
    #[inline(always)]
    fn records(v: [I; 4]) -> [[i32; 4]; WIDTH] {
        each!(WIDTH, [0; 4], |i| [v[0][i], v[1][i], v[2][i], v[3][i]])
    }
    #[inline(always)]
    fn short_records(v: [I; 4]) -> [[i16; 4]; WIDTH] {
        let short = |x: i32| x.clamp(i16::MIN.into(), i16::MAX.into()) as i16;
        each!(WIDTH, [0; 4], |i| [short(v[0][i]), short(v[1][i]), short(v[2][i]), short(v[3][i])])
    }
    #[inline(always)]
    fn xyz(v: &[f32; 3 * WIDTH]) -> [F; 3] {
        [
            each!(WIDTH, 0.0, |i| v[3 * i]),
            each!(WIDTH, 0.0, |i| v[3 * i + 1]),
            each!(WIDTH, 0.0, |i| v[3 * i + 2]),
        ]
    }
    #[inline(always)]
    fn xyz_pair_spreads<const K: usize>(v: &[f32; 3 * WIDTH]) -> [F; 3] {
        const { assert!(K < 4) };
        let at = |c: usize| each!(WIDTH, 0.0, |i| v[6 * K + 3 * (i / 4) + c]);
        [at(0), at(1), at(2)]
    }
    #[inline(always)]
    fn store_xyz_pairs(v: [F; 4], out: &mut [f32; 3 * WIDTH]) {
        for (k, v) in v.iter().enumerate() {
            out[6 * k..6 * k + 3].copy_from_slice(&v[..3]);
            out[6 * k + 3..6 * k + 6].copy_from_slice(&v[4..7]);
        }
    }
}

/// AVX2 intrinsics. Private: only `run` instantiates kernels with it, after checking that
/// the CPU has AVX2, which makes every intrinsic below sound to call.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
struct Avx2;

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{Avx2, F, GE, GT, H, I, Isa, LE, LT, WIDTH};

    // SAFETY (every `unsafe` block here): `Avx2` code runs only inside `run`'s AVX2 path
    // (see `Avx2`), and the loads and stores read and write whole local arrays of 32 bytes
    // unless their own comment says otherwise.
    #[inline(always)]
    fn ps(a: F) -> __m256 {
        unsafe { _mm256_loadu_ps(a.as_ptr()) }
    }
    #[inline(always)]
    fn si(a: I) -> __m256i {
        unsafe { _mm256_loadu_si256(a.as_ptr().cast()) }
    }
    #[inline(always)]
    fn hi(a: H) -> __m256i {
        unsafe { _mm256_loadu_si256(a.as_ptr().cast()) }
    }
    #[inline(always)]
    fn from_ps(v: __m256) -> F {
        let mut out = [0.0; WIDTH];
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), v) };
        out
    }
    #[inline(always)]
    fn from_si(v: __m256i) -> I {
        let mut out = [0; WIDTH];
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) };
        out
    }
    #[inline(always)]
    fn from_hi(v: __m256i) -> H {
        let mut out = [0; 2 * WIDTH];
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) };
        out
    }

    macro_rules! ops {
        ($($name:ident($($arg:ident: $t:ident),*) -> $ret:ident = $body:expr;)*) => {
            $(
                #[inline(always)]
                fn $name($($arg: $t),*) -> $ret {
                    $(let $arg = conv!($t, $arg);)*
                    back!($ret, unsafe { $body })
                }
            )*
        };
    }
    macro_rules! conv {
        (F, $a:ident) => {
            ps($a)
        };
        (I, $a:ident) => {
            si($a)
        };
        (H, $a:ident) => {
            hi($a)
        };
    }
    macro_rules! back {
        (F, $v:expr) => {
            from_ps($v)
        };
        (I, $v:expr) => {
            from_si($v)
        };
        (H, $v:expr) => {
            from_hi($v)
        };
    }

    impl Isa for Avx2 {
        ops! {
            f_add(a: F, b: F) -> F = _mm256_add_ps(a, b);
            f_sub(a: F, b: F) -> F = _mm256_sub_ps(a, b);
            f_mul(a: F, b: F) -> F = _mm256_mul_ps(a, b);
            f_div(a: F, b: F) -> F = _mm256_div_ps(a, b);
            f_mul_add(a: F, b: F, c: F) -> F = _mm256_fmadd_ps(a, b, c);
            f_low_halves(a: F, b: F) -> F = _mm256_permute2f128_ps::<0x20>(a, b);
            f_high_halves(a: F, b: F) -> F = _mm256_permute2f128_ps::<0x31>(a, b);
            f_sqrt(a: F) -> F = _mm256_sqrt_ps(a);
            f_floor(a: F) -> F = _mm256_floor_ps(a);
            f_to_i32(a: F) -> I = _mm256_cvttps_epi32(a);
            i_to_f32(a: I) -> F = _mm256_cvtepi32_ps(a);
            i_add(a: I, b: I) -> I = _mm256_add_epi32(a, b);
            i_sub(a: I, b: I) -> I = _mm256_sub_epi32(a, b);
            i_mul(a: I, b: I) -> I = _mm256_mullo_epi32(a, b);
            i_and(a: I, b: I) -> I = _mm256_and_si256(a, b);
            i_or(a: I, b: I) -> I = _mm256_or_si256(a, b);
            i_xor(a: I, b: I) -> I = _mm256_xor_si256(a, b);
            i_and_not(a: I, b: I) -> I = _mm256_andnot_si256(a, b);
            i_min(a: I, b: I) -> I = _mm256_min_epi32(a, b);
            i_max(a: I, b: I) -> I = _mm256_max_epi32(a, b);
            i_min_u32(a: I, b: I) -> I = _mm256_min_epu32(a, b);
            i_eq(a: I, b: I) -> I = _mm256_cmpeq_epi32(a, b);
            i_gt(a: I, b: I) -> I = _mm256_cmpgt_epi32(a, b);
            i_shl_by(a: I, n: I) -> I = _mm256_sllv_epi32(a, n);
            i_shr_logical_by(a: I, n: I) -> I = _mm256_srlv_epi32(a, n);
            i_select(mask: I, yes: I, no: I) -> I =
                _mm256_castps_si256(_mm256_blendv_ps(
                    _mm256_castsi256_ps(no),
                    _mm256_castsi256_ps(yes),
                    _mm256_castsi256_ps(mask),
                ));
            h_min(a: H, b: H) -> H = _mm256_min_epi16(a, b);
            h_pair_sums(a: H) -> I = _mm256_madd_epi16(a, _mm256_set1_epi16(1));
        }

        #[inline(always)]
        fn f_cmp<const OP: u8>(a: F, b: F) -> I {
            let (a, b) = (ps(a), ps(b));
            let m = unsafe {
                match OP {
                    LT => _mm256_cmp_ps::<_CMP_LT_OQ>(a, b),
                    LE => _mm256_cmp_ps::<_CMP_LE_OQ>(a, b),
                    GT => _mm256_cmp_ps::<_CMP_GT_OQ>(a, b),
                    GE => _mm256_cmp_ps::<_CMP_GE_OQ>(a, b),
                    _ => unreachable!(),
                }
            };
            from_si(unsafe { _mm256_castps_si256(m) })
        }

        #[inline(always)]
        fn h_from_quads(q: [u64; 4]) -> H {
            from_hi(unsafe { _mm256_set_epi64x(q[3] as i64, q[2] as i64, q[1] as i64, q[0] as i64) })
        }

        #[inline(always)]
        fn i_shr<const N: u32>(a: I) -> I {
            from_si(unsafe { _mm256_sra_epi32(si(a), _mm_cvtsi32_si128(N as i32)) })
        }

        #[inline(always)]
        fn f_spread<const K: usize>(a: F) -> F {
            // The immediate must be a literal: one per `K` (the match folds away).
            from_ps(unsafe {
                match K {
                    0 => _mm256_permute_ps::<0x00>(ps(a)),
                    1 => _mm256_permute_ps::<0x55>(ps(a)),
                    2 => _mm256_permute_ps::<0xAA>(ps(a)),
                    _ => _mm256_permute_ps::<0xFF>(ps(a)),
                }
            })
        }

        #[inline(always)]
        fn i_bitmask(a: I) -> u32 {
            (unsafe { _mm256_movemask_ps(_mm256_castsi256_ps(si(a))) }) as u32
        }

        #[inline(always)]
        fn transpose(rows: &[[i32; 4]; WIDTH]) -> [I; 4] {
            unsafe {
                // Records t | t + 4 per register, then a 4 x 4 transpose in each half.
                let row = |t: usize| _mm_loadu_ps(rows[t].as_ptr().cast());
                let pair = |t: usize| _mm256_set_m128(row(t + 4), row(t));
                let (r0, r1, r2, r3) = (pair(0), pair(1), pair(2), pair(3));
                let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
                let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
                let (pd, back) = (_mm256_castps_pd, |v: __m256d| from_si(_mm256_castpd_si256(v)));
                [
                    back(_mm256_unpacklo_pd(pd(t0), pd(t2))),
                    back(_mm256_unpackhi_pd(pd(t0), pd(t2))),
                    back(_mm256_unpacklo_pd(pd(t1), pd(t3))),
                    back(_mm256_unpackhi_pd(pd(t1), pd(t3))),
                ]
            }
        }

        #[inline(always)]
        fn records(v: [I; 4]) -> [[i32; 4]; WIDTH] {
            unsafe {
                let f = _mm256_castsi256_ps;
                let (x, y, z, w) = (f(si(v[0])), f(si(v[1])), f(si(v[2])), f(si(v[3])));
                let (t0, t1) = (_mm256_unpacklo_ps(x, y), _mm256_unpackhi_ps(x, y));
                let (t2, t3) = (_mm256_unpacklo_ps(z, w), _mm256_unpackhi_ps(z, w));
                let (pd, ps) = (_mm256_castps_pd, _mm256_castpd_ps);
                // Records t | t + 4 per register.
                let r = [
                    ps(_mm256_unpacklo_pd(pd(t0), pd(t2))),
                    ps(_mm256_unpackhi_pd(pd(t0), pd(t2))),
                    ps(_mm256_unpacklo_pd(pd(t1), pd(t3))),
                    ps(_mm256_unpackhi_pd(pd(t1), pd(t3))),
                ];
                let mut out = [[0; 4]; WIDTH];
                for t in 0..4 {
                    _mm_storeu_ps(out[t].as_mut_ptr().cast(), _mm256_castps256_ps128(r[t]));
                    _mm_storeu_ps(out[t + 4].as_mut_ptr().cast(), _mm256_extractf128_ps::<1>(r[t]));
                }
                out
            }
        }

        #[inline(always)]
        fn short_records(v: [I; 4]) -> [[i16; 4]; WIDTH] {
            unsafe {
                // Per 128-bit half (lanes 0..4, then 4..8): words v0 | v1, then v2 | v3.
                let (p01, p23) =
                    (_mm256_packs_epi32(si(v[0]), si(v[1])), _mm256_packs_epi32(si(v[2]), si(v[3])));
                // v0 v2 interleaved, v1 v3 interleaved, then all four: records 0 1 | 4 5 and
                // 2 3 | 6 7.
                let (even, odd) = (_mm256_unpacklo_epi16(p01, p23), _mm256_unpackhi_epi16(p01, p23));
                let (r0145, r2367) = (_mm256_unpacklo_epi16(even, odd), _mm256_unpackhi_epi16(even, odd));
                let mut out = [[0; 4]; WIDTH];
                let at = out.as_mut_ptr().cast::<__m256i>();
                _mm256_storeu_si256(at, _mm256_permute2x128_si256::<0x20>(r0145, r2367));
                _mm256_storeu_si256(at.add(1), _mm256_permute2x128_si256::<0x31>(r0145, r2367));
                out
            }
        }

        #[inline(always)]
        fn xyz(v: &[f32; 3 * WIDTH]) -> [F; 3] {
            /// `_MM_SHUFFLE(d, c, b, a)`.
            const fn shuffle(d: i32, c: i32, b: i32, a: i32) -> i32 {
                (d << 6) | (c << 4) | (b << 2) | a
            }
            unsafe {
                let quad = |k: usize| _mm_loadu_ps(v[4 * k..].as_ptr());
                // Each 128-bit half holds two vertices' x y z x | y z x y | z x y z, the low
                // half vertices 0..4, the high half vertices 4..8.
                let m03 = _mm256_set_m128(quad(3), quad(0));
                let m14 = _mm256_set_m128(quad(4), quad(1));
                let m25 = _mm256_set_m128(quad(5), quad(2));
                let xy = _mm256_shuffle_ps::<{ shuffle(2, 1, 3, 2) }>(m14, m25); // x2 y2 x3 y3
                let yz = _mm256_shuffle_ps::<{ shuffle(1, 0, 2, 1) }>(m03, m14); // y0 z0 y1 z1
                let x = _mm256_shuffle_ps::<{ shuffle(2, 0, 3, 0) }>(m03, xy);
                let y = _mm256_shuffle_ps::<{ shuffle(3, 1, 2, 0) }>(yz, xy);
                let z = _mm256_shuffle_ps::<{ shuffle(3, 0, 3, 1) }>(yz, m25);
                [from_ps(x), from_ps(y), from_ps(z)]
            }
        }

        #[inline(always)]
        fn xyz_pair_spreads<const K: usize>(v: &[f32; 3 * WIDTH]) -> [F; 3] {
            const { assert!(K < 4) };
            // The eight floats from record 2K on, or the last eight for K = 3 (record 6 at
            // float 2 of them): one load, and one `vpermps` per coordinate.
            const LAST: usize = 2 * WIDTH;
            let start = if 6 * K <= LAST { 6 * K } else { LAST };
            let o = (6 * K - start) as i32;
            // SAFETY: `start + WIDTH` is at most 24 (the slice checks it too).
            unsafe {
                let m = _mm256_loadu_ps(v[start..start + WIDTH].as_ptr());
                let at = |c: i32| {
                    let (a, b) = (o + c, o + c + 3);
                    from_ps(_mm256_permutevar8x32_ps(m, _mm256_setr_epi32(a, a, a, a, b, b, b, b)))
                };
                [at(0), at(1), at(2)]
            }
        }

        #[inline(always)]
        fn store_xyz_pairs(v: [F; 4], out: &mut [f32; 3 * WIDTH]) {
            // Four floats per record, in order, each store's fourth lane overwritten by the
            // next record's. The last record, at the array's end, is stored from float 20
            // on, after record 6's z (lanes 2, 4, 5, 6).
            // SAFETY: the stores cover floats 6k..6k+7 (k < 3), then 18..22 and 20..24:
            // inside the 24 of `out`.
            unsafe {
                let p = out.as_mut_ptr();
                for (k, v) in v.iter().enumerate() {
                    let v = ps(*v);
                    _mm_storeu_ps(p.add(6 * k), _mm256_castps256_ps128(v));
                    if k < 3 {
                        _mm_storeu_ps(p.add(6 * k + 3), _mm256_extractf128_ps::<1>(v));
                    } else {
                        let last = _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(2, 4, 5, 6, 0, 0, 0, 0));
                        _mm_storeu_ps(p.add(20), _mm256_castps256_ps128(last));
                    }
                }
            }
        }
    }
}

// `Vec3` is `#[repr(C)]` `{ x, y, z }` of `f32` (glam documents it; checked here): eight
// of them are 24 floats.
const _: () = assert!(size_of::<Vec3>() == 12 && align_of::<Vec3>() == align_of::<f32>());

/// The 24 floats of eight `Vec3`s, in order.
#[inline(always)]
fn vec3_floats(v: &[Vec3; WIDTH]) -> &[f32; 3 * WIDTH] {
    // SAFETY: same size and alignment, every bit pattern a valid `f32` (see above).
    unsafe { &*(v as *const [Vec3; WIDTH]).cast::<[f32; 3 * WIDTH]>() }
}

#[inline(always)]
fn vec3_floats_mut(v: &mut [Vec3; WIDTH]) -> &mut [f32; 3 * WIDTH] {
    // SAFETY: as `vec3_floats`; a `Vec3` is valid for any three floats written.
    unsafe { &mut *(v as *mut [Vec3; WIDTH]).cast::<[f32; 3 * WIDTH]>() }
}

/// A table and a list of indices into it in runs of `N`, each index checked once to be in
/// range, so that the kernels read the table at them with no check (nor clamp) per read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Indexed<'a, T, const N: usize> {
    table: &'a [T],
    runs: &'a [[u32; N]],
}

impl<'a, T: Copy + Default, const N: usize> Indexed<'a, T, N> {
    /// The whole runs of `N` of `indices` (a shorter rest is left out); `None` when one of
    /// their indices is not below the table's length.
    #[inline(always)]
    pub(crate) fn new(table: &'a [T], indices: &'a [u32]) -> Option<Self> {
        let (runs, _) = indices.as_chunks::<N>();
        let most = runs.as_flattened().iter().fold(0, |m, &i| m.max(i));
        (runs.is_empty() || (most as usize) < table.len()).then_some(Indexed { table, runs })
    }

    /// How many runs there are.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.runs.len()
    }

    /// The table at each index of run `k`; `None` past the last run.
    #[inline(always)]
    pub(crate) fn get(&self, k: usize) -> Option<[T; N]> {
        let run = self.runs.get(k)?;
        let mut out = [T::default(); N];
        for (out, &i) in out.iter_mut().zip(run) {
            // SAFETY: every index was checked to be below the table's length in `new`.
            *out = unsafe { *self.table.get_unchecked(i as usize) };
        }
        Some(out)
    }
}

/// Eight `f32` lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct F32x8<S>(pub [f32; WIDTH], PhantomData<S>);

/// Eight `i32` lanes; as a mask, each lane 0 (false) or -1 (true).
#[derive(Clone, Copy, Debug)]
pub(crate) struct I32x8<S>(pub [i32; WIDTH], PhantomData<S>);

/// Sixteen `i16` lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct I16x16<S>(pub [i16; 2 * WIDTH], PhantomData<S>);

macro_rules! binary {
    ($ty:ident, $trait:ident, $method:ident, $op:ident) => {
        impl<S: Isa> $trait for $ty<S> {
            type Output = $ty<S>;
            #[inline(always)]
            fn $method(self, rhs: $ty<S>) -> $ty<S> {
                $ty(S::$op(self.0, rhs.0), PhantomData)
            }
        }
    };
}

binary!(F32x8, Add, add, f_add);
binary!(F32x8, Sub, sub, f_sub);
binary!(F32x8, Mul, mul, f_mul);
binary!(F32x8, Div, div, f_div);
binary!(I32x8, Add, add, i_add);
binary!(I32x8, Sub, sub, i_sub);
binary!(I32x8, Mul, mul, i_mul);
binary!(I32x8, BitAnd, bitand, i_and);
binary!(I32x8, BitOr, bitor, i_or);
binary!(I32x8, BitXor, bitxor, i_xor);

impl<S: Isa> Neg for I32x8<S> {
    type Output = I32x8<S>;
    #[inline(always)]
    fn neg(self) -> I32x8<S> {
        I32x8::ZERO - self
    }
}

impl<S: Isa> Not for I32x8<S> {
    type Output = I32x8<S>;
    #[inline(always)]
    fn not(self) -> I32x8<S> {
        self ^ I32x8::splat(-1)
    }
}

impl<S: Isa> F32x8<S> {
    pub(crate) const ZERO: Self = F32x8([0.0; WIDTH], PhantomData);

    #[inline(always)]
    pub(crate) fn new(v: [f32; WIDTH]) -> Self {
        F32x8(v, PhantomData)
    }

    #[inline(always)]
    pub(crate) fn splat(v: f32) -> Self {
        F32x8([v; WIDTH], PhantomData)
    }

    /// Eight records of three floats, one per lane: `[x, y, z]`.
    #[inline(always)]
    pub(crate) fn xyz(v: &[f32; 3 * WIDTH]) -> [Self; 3] {
        let [x, y, z] = S::xyz(v);
        [F32x8::new(x), F32x8::new(y), F32x8::new(z)]
    }

    /// The x, y and z of eight vectors, one vector per lane: `xyz` of their floats.
    #[inline(always)]
    pub(crate) fn vec3s(v: &[Vec3; WIDTH]) -> [Self; 3] {
        Self::xyz(vec3_floats(v))
    }

    /// Vertices `2K` and `2K + 1` of `v` (`K` below 4), each coordinate spread over a
    /// half: `[x, y, z]`, each `[first's; 4, second's; 4]`. On AVX2, one load and three
    /// shuffles rather than six lane-by-lane loads.
    #[inline(always)]
    pub(crate) fn vec3_pair_spreads<const K: usize>(v: &[Vec3; WIDTH]) -> [Self; 3] {
        let [x, y, z] = S::xyz_pair_spreads::<K>(vec3_floats(v));
        [F32x8::new(x), F32x8::new(y), F32x8::new(z)]
    }

    /// Lanes 0..3 of each half of `v[k]` into vertices `2k` (low half) and `2k + 1` of
    /// `out` (the fourth lanes are dropped). On AVX2, one 16-byte store per vertex.
    #[inline(always)]
    pub(crate) fn store_vec3_pairs(v: [Self; 4], out: &mut [Vec3; WIDTH]) {
        S::store_xyz_pairs([v[0].0, v[1].0, v[2].0, v[3].0], vec3_floats_mut(out));
    }

    /// `self * b + c`, rounded once (as `f32::mul_add`).
    #[inline(always)]
    pub(crate) fn mul_add(self, b: Self, c: Self) -> Self {
        F32x8(S::f_mul_add(self.0, b.0, c.0), PhantomData)
    }

    /// Lane `K` of each half in every lane of that half (`K` below 4).
    #[inline(always)]
    pub(crate) fn spread<const K: usize>(self) -> Self {
        F32x8(S::f_spread::<K>(self.0), PhantomData)
    }

    /// `self`'s low half, then `other`'s.
    #[inline(always)]
    pub(crate) fn low_halves(self, other: Self) -> Self {
        F32x8(S::f_low_halves(self.0, other.0), PhantomData)
    }

    /// `self`'s high half, then `other`'s.
    #[inline(always)]
    pub(crate) fn high_halves(self, other: Self) -> Self {
        F32x8(S::f_high_halves(self.0, other.0), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn sqrt(self) -> Self {
        F32x8(S::f_sqrt(self.0), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn floor(self) -> Self {
        F32x8(S::f_floor(self.0), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn abs(self) -> Self {
        F32x8::from_bits(self.to_bits() & I32x8::splat(i32::MAX))
    }

    #[inline(always)]
    pub(crate) fn lt(self, other: Self) -> I32x8<S> {
        I32x8(S::f_cmp::<LT>(self.0, other.0), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn le(self, other: Self) -> I32x8<S> {
        I32x8(S::f_cmp::<LE>(self.0, other.0), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn gt(self, other: Self) -> I32x8<S> {
        I32x8(S::f_cmp::<GT>(self.0, other.0), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn ge(self, other: Self) -> I32x8<S> {
        I32x8(S::f_cmp::<GE>(self.0, other.0), PhantomData)
    }

    /// Where each lane is neither infinite nor NaN.
    #[inline(always)]
    pub(crate) fn finite(self) -> I32x8<S> {
        self.abs().lt(F32x8::splat(f32::INFINITY))
    }

    /// Truncated towards zero; `i32::MIN` where out of range or NaN.
    #[inline(always)]
    pub(crate) fn to_i32(self) -> I32x8<S> {
        I32x8(S::f_to_i32(self.0), PhantomData)
    }

    /// The bits, reinterpreted.
    #[inline(always)]
    pub(crate) fn to_bits(self) -> I32x8<S> {
        I32x8(each!(WIDTH, 0, |i| self.0[i].to_bits() as i32), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn from_bits(v: I32x8<S>) -> Self {
        F32x8(each!(WIDTH, 0.0, |i| f32::from_bits(v.0[i] as u32)), PhantomData)
    }
}

impl<S: Isa> I32x8<S> {
    pub(crate) const ZERO: Self = I32x8([0; WIDTH], PhantomData);

    #[inline(always)]
    pub(crate) fn new(v: [i32; WIDTH]) -> Self {
        I32x8(v, PhantomData)
    }

    #[inline(always)]
    pub(crate) fn splat(v: i32) -> Self {
        I32x8([v; WIDTH], PhantomData)
    }

    /// The lanes, in order.
    #[inline(always)]
    pub(crate) fn to_array(self) -> [i32; WIDTH] {
        self.0
    }

    /// Each lane as the nearest `f32` (ties to even).
    #[inline(always)]
    pub(crate) fn to_f32(self) -> F32x8<S> {
        F32x8(S::i_to_f32(self.0), PhantomData)
    }

    /// `transpose` back: lane `i` of each vector into record `i`.
    #[inline(always)]
    pub(crate) fn records(v: [Self; 4]) -> [[i32; 4]; WIDTH] {
        S::records([v[0].0, v[1].0, v[2].0, v[3].0])
    }

    /// `records` of 16-bit words, each lane saturated to the `i16` range.
    #[inline(always)]
    pub(crate) fn short_records(v: [Self; 4]) -> [[i16; 4]; WIDTH] {
        S::short_records([v[0].0, v[1].0, v[2].0, v[3].0])
    }

    /// Eight records of four words, one per lane: `[word 0, 1, 2, 3]`.
    #[inline(always)]
    pub(crate) fn transpose(rows: &[[i32; 4]; WIDTH]) -> [Self; 4] {
        let [a, b, c, d] = S::transpose(rows);
        [I32x8::new(a), I32x8::new(b), I32x8::new(c), I32x8::new(d)]
    }

    #[inline(always)]
    pub(crate) fn min(self, other: Self) -> Self {
        I32x8(S::i_min(self.0, other.0), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn max(self, other: Self) -> Self {
        I32x8(S::i_max(self.0, other.0), PhantomData)
    }

    /// The unsigned minimum.
    #[inline(always)]
    pub(crate) fn min_u32(self, other: Self) -> Self {
        I32x8(S::i_min_u32(self.0, other.0), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn eq(self, other: Self) -> Self {
        I32x8(S::i_eq(self.0, other.0), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn gt(self, other: Self) -> Self {
        I32x8(S::i_gt(self.0, other.0), PhantomData)
    }

    /// `!self & other`.
    #[inline(always)]
    pub(crate) fn and_not(self, other: Self) -> Self {
        I32x8(S::i_and_not(self.0, other.0), PhantomData)
    }

    /// Each lane shifted left by `N` bits (below 32).
    #[inline(always)]
    pub(crate) fn shl<const N: u32>(self) -> Self {
        self.shl_by(I32x8::splat(N as i32))
    }

    /// Each lane shifted right by `N` bits (below 32), copying the sign.
    #[inline(always)]
    pub(crate) fn shr<const N: u32>(self) -> Self {
        I32x8(S::i_shr::<N>(self.0), PhantomData)
    }

    /// Each lane shifted left by the matching lane of `n` (0 from 32 on).
    #[inline(always)]
    pub(crate) fn shl_by(self, n: Self) -> Self {
        I32x8(S::i_shl_by(self.0, n.0), PhantomData)
    }

    /// Each lane shifted right, filling with zeros, by the matching lane of `n` (0 from 32 on).
    #[inline(always)]
    pub(crate) fn shr_logical_by(self, n: Self) -> Self {
        I32x8(S::i_shr_logical_by(self.0, n.0), PhantomData)
    }

    /// `yes` where the mask `self` is set, else `no`.
    #[inline(always)]
    pub(crate) fn select(self, yes: Self, no: Self) -> Self {
        I32x8(S::i_select(self.0, yes.0, no.0), PhantomData)
    }

    /// `yes` where the mask `self` is set, else `no`.
    #[inline(always)]
    pub(crate) fn select_f32(self, yes: F32x8<S>, no: F32x8<S>) -> F32x8<S> {
        F32x8::from_bits(self.select(yes.to_bits(), no.to_bits()))
    }

    /// Bit `i` set where lane `i`'s sign bit is (of a mask: where it is true).
    #[inline(always)]
    pub(crate) fn bitmask(self) -> u32 {
        S::i_bitmask(self.0)
    }

    /// Whether some lane's sign bit is set.
    #[inline(always)]
    pub(crate) fn any(self) -> bool {
        self.bitmask() != 0
    }
}

impl<S: Isa> I16x16<S> {
    /// Four records of four words, each read from a `u64` low word first: lanes `4 k ..
    /// 4 k + 4` are `q[k]`'s.
    #[inline(always)]
    pub(crate) fn from_quads(q: [u64; 4]) -> Self {
        I16x16(S::h_from_quads(q), PhantomData)
    }

    #[inline(always)]
    pub(crate) fn min(self, other: Self) -> Self {
        I16x16(S::h_min(self.0, other.0), PhantomData)
    }

    /// Lane `i` is lane `2i` plus lane `2i + 1`, in i32.
    #[inline(always)]
    pub(crate) fn pair_sums(self) -> I32x8<S> {
        I32x8(S::h_pair_sums(self.0), PhantomData)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operation on awkward values, `S` against `Portable`, bit for bit.
    fn same_as_portable<S: Isa>() {
        let f = [0.0, -0.0, 1.5, f32::NAN, -2.5, 3e9, f32::INFINITY, -7.75];
        let g = [-0.0, 0.0, f32::NAN, 1.0, -2.5, -3e9, 0.5, 7.0];
        let a = [0, -1, i32::MIN, i32::MAX, 31, 32, -33, 5];
        let b = [1, 31, 32, -1, 0, 7, 40, -5];
        // A NaN's sign and payload are unspecified in Rust (x86 makes 0/0 negative, aarch64
        // and constant folding positive), so every NaN compares as one; all else bit for bit.
        let fb = |v: F| v.map(|x| if x.is_nan() { f32::NAN.to_bits() } else { x.to_bits() });
        assert_eq!(fb(S::f_add(f, g)), fb(Portable::f_add(f, g)));
        assert_eq!(fb(S::f_sub(f, g)), fb(Portable::f_sub(f, g)));
        assert_eq!(fb(S::f_mul(f, g)), fb(Portable::f_mul(f, g)));
        assert_eq!(fb(S::f_div(f, g)), fb(Portable::f_div(f, g)));
        assert_eq!(fb(S::f_sqrt(f)), fb(Portable::f_sqrt(f)));
        let h = [1e8, -0.0, 3.0, 1.0 / 3.0, f32::INFINITY, 5.0, -1e-30, 0.1];
        assert_eq!(fb(S::f_mul_add(f, g, h)), fb(Portable::f_mul_add(f, g, h)));
        assert_eq!(fb(S::f_mul_add(h, h, f)), fb(Portable::f_mul_add(h, h, f)));
        assert_eq!(fb(S::f_spread::<0>(f)), fb(Portable::f_spread::<0>(f)));
        assert_eq!(fb(S::f_spread::<1>(f)), fb(Portable::f_spread::<1>(f)));
        assert_eq!(fb(S::f_spread::<2>(f)), fb(Portable::f_spread::<2>(f)));
        assert_eq!(fb(S::f_spread::<3>(f)), fb(Portable::f_spread::<3>(f)));
        assert_eq!(fb(S::f_low_halves(f, g)), fb(Portable::f_low_halves(f, g)));
        assert_eq!(fb(S::f_high_halves(f, g)), fb(Portable::f_high_halves(f, g)));
        assert_eq!(fb(S::f_floor(f)), fb(Portable::f_floor(f)));
        assert_eq!(S::f_cmp::<LT>(f, g), Portable::f_cmp::<LT>(f, g));
        assert_eq!(S::f_cmp::<LE>(f, g), Portable::f_cmp::<LE>(f, g));
        assert_eq!(S::f_cmp::<GT>(f, g), Portable::f_cmp::<GT>(f, g));
        assert_eq!(S::f_cmp::<GE>(f, g), Portable::f_cmp::<GE>(f, g));
        assert_eq!(S::f_to_i32(f), Portable::f_to_i32(f));
        // Past 2^24 some round (16_777_217 ties to even, down; i32::MAX up to 2^31).
        let wide = [16_777_217, -16_777_219, i32::MAX, i32::MIN, 7, -1, 0, 33_554_435];
        assert_eq!(fb(S::i_to_f32(wide)), fb(Portable::i_to_f32(wide)));
        assert_eq!(Portable::i_to_f32(wide)[0], 16_777_216.0);
        assert_eq!(S::i_add(a, b), Portable::i_add(a, b));
        assert_eq!(S::i_sub(a, b), Portable::i_sub(a, b));
        assert_eq!(S::i_mul(a, b), Portable::i_mul(a, b));
        assert_eq!(S::i_and_not(a, b), Portable::i_and_not(a, b));
        assert_eq!(S::i_min(a, b), Portable::i_min(a, b));
        assert_eq!(S::i_max(a, b), Portable::i_max(a, b));
        assert_eq!(S::i_min_u32(a, b), Portable::i_min_u32(a, b));
        assert_eq!(S::i_eq(a, b), Portable::i_eq(a, b));
        assert_eq!(S::i_gt(a, b), Portable::i_gt(a, b));
        assert_eq!(S::i_shl_by(a, b), Portable::i_shl_by(a, b));
        assert_eq!(S::i_shr_logical_by(a, b), Portable::i_shr_logical_by(a, b));
        assert_eq!(S::i_shr::<3>(a), Portable::i_shr::<3>(a));
        assert_eq!(S::i_select(a, b, a), Portable::i_select(a, b, a));
        assert_eq!(S::i_bitmask(a), Portable::i_bitmask(a));
        let h: H = std::array::from_fn(|i| [i16::MIN, -3, 0, 7, i16::MAX][i % 5]);
        let k: H = std::array::from_fn(|i| [5, i16::MAX, -9, 7][i % 4]);
        assert_eq!(S::h_min(h, k), Portable::h_min(h, k));
        assert_eq!(S::h_pair_sums(h), Portable::h_pair_sums(h));
        let q = [0x8000_7fff_0001_ffff, 0, u64::MAX, 0x0123_4567_89ab_cdef];
        assert_eq!(S::h_from_quads(q), Portable::h_from_quads(q));
        assert_eq!(Portable::h_from_quads(q)[..4], [-1, 1, i16::MAX, i16::MIN]);
        let rows: [[i32; 4]; WIDTH] = std::array::from_fn(|t| std::array::from_fn(|w| (10 * t + w) as i32));
        assert_eq!(S::transpose(&rows), Portable::transpose(&rows));
        assert_eq!(Portable::records(Portable::transpose(&rows)), rows);
        assert_eq!(S::records(S::transpose(&rows)), rows);
        // In range, out of range both ways (saturated), and the edges.
        let words = [a, b, [-40000, 40000, -32768, 32767, 0, -1, 65536, 12]];
        let short = [words[0], words[1], words[2], [7, -7, 70000, -70000, 1, 2, 3, 4]];
        assert_eq!(S::short_records(short), Portable::short_records(short));
        assert_eq!(Portable::short_records(short)[1], [-1, 31, i16::MAX, -7]);
        assert_eq!(Portable::short_records(short)[0][2], i16::MIN);
        let v: [f32; 3 * WIDTH] = std::array::from_fn(|i| i as f32);
        assert_eq!(S::xyz(&v), Portable::xyz(&v));
        assert_eq!(Portable::xyz(&v)[1], [1.0, 4.0, 7.0, 10.0, 13.0, 16.0, 19.0, 22.0]);
        assert_eq!(S::xyz_pair_spreads::<0>(&v), Portable::xyz_pair_spreads::<0>(&v));
        assert_eq!(S::xyz_pair_spreads::<1>(&v), Portable::xyz_pair_spreads::<1>(&v));
        assert_eq!(S::xyz_pair_spreads::<2>(&v), Portable::xyz_pair_spreads::<2>(&v));
        assert_eq!(S::xyz_pair_spreads::<3>(&v), Portable::xyz_pair_spreads::<3>(&v));
        // Lanes 3 and 7 are dropped: marked so that a store that kept one shows.
        let pairs: [F; 4] = std::array::from_fn(|k| {
            std::array::from_fn(|i| if i % 4 == 3 { -1.0 } else { (10 * k + i) as f32 })
        });
        let (mut a, mut b) = ([f32::NAN; 3 * WIDTH], [f32::NAN; 3 * WIDTH]);
        S::store_xyz_pairs(pairs, &mut a);
        Portable::store_xyz_pairs(pairs, &mut b);
        assert_eq!(a.map(f32::to_bits), b.map(f32::to_bits));
    }

    struct Check;

    impl Kernel for Check {
        type Output = ();
        #[inline(always)]
        fn run<S: Isa>(self) {
            same_as_portable::<S>();
        }
    }

    #[test]
    fn every_isa_gives_the_portable_bits() {
        for backend in Backend::available() {
            backend.forced(|| run(Check));
        }
    }

    #[test]
    fn portable_operations_say_what_happens_out_of_range() {
        let n = [0, 1, 31, 32, 33, -1, 40, 2];
        assert_eq!(Portable::i_shl_by([1; WIDTH], n), [1, 2, i32::MIN, 0, 0, 0, 0, 4]);
        assert_eq!(Portable::i_shr_logical_by([-1; WIDTH], n), [-1, i32::MAX, 1, 0, 0, 0, 0, 0x3fff_ffff]);
        assert_eq!(Portable::i_bitmask([-1, 0, 1, -5, 5, 0, 0, -1]), 0b1000_1001);
        let f = [0.0, -0.0, 1.0, f32::NAN, 2.0, -3.0, f32::INFINITY, 3e9];
        assert_eq!(Portable::f_to_i32(f), [0, 0, 1, i32::MIN, 2, -3, i32::MIN, i32::MIN]);
        // Rounded once: 1 + 2^-12 squared is 1 + 2^-11 + 2^-24; minus 1 + 2^-11 leaves 2^-24,
        // which a separate multiply would round away.
        let e = 1.0 + f32::EPSILON * 2048.0;
        assert_eq!(
            Portable::f_mul_add([e; WIDTH], [e; WIDTH], [-(1.0 + f32::EPSILON * 4096.0); WIDTH])[0],
            2f32.powi(-24)
        );
        let r: F = std::array::from_fn(|i| i as f32);
        assert_eq!(Portable::f_spread::<2>(r), [2.0, 2.0, 2.0, 2.0, 6.0, 6.0, 6.0, 6.0]);
        assert_eq!(Portable::f_low_halves(r, [9.0; WIDTH]), [0.0, 1.0, 2.0, 3.0, 9.0, 9.0, 9.0, 9.0]);
        assert_eq!(Portable::f_high_halves(r, [9.0; WIDTH]), [4.0, 5.0, 6.0, 7.0, 9.0, 9.0, 9.0, 9.0]);
        // Vertices 6 and 7 of 0, 1, 2, ...: floats 18, 19, 20 and 21, 22, 23.
        let v: [f32; 3 * WIDTH] = std::array::from_fn(|i| i as f32);
        let [_, y, _] = Portable::xyz_pair_spreads::<3>(&v);
        assert_eq!(y, [19.0, 19.0, 19.0, 19.0, 22.0, 22.0, 22.0, 22.0]);
        let pairs: [F; 4] = std::array::from_fn(|k| std::array::from_fn(|i| (8 * k + i) as f32));
        let mut out = [0.0; 3 * WIDTH];
        Portable::store_xyz_pairs(pairs, &mut out);
        assert_eq!(out[..12], [0.0, 1.0, 2.0, 4.0, 5.0, 6.0, 8.0, 9.0, 10.0, 12.0, 13.0, 14.0]);
        assert_eq!(out[18..], [24.0, 25.0, 26.0, 28.0, 29.0, 30.0]);
        // The Vec3 views: vertex 5 is floats 15..18.
        let vs: [Vec3; WIDTH] =
            std::array::from_fn(|i| Vec3::new(3.0 * i as f32, 3.0 * i as f32 + 1.0, 3.0 * i as f32 + 2.0));
        assert_eq!(vec3_floats(&vs)[15..18], [15.0, 16.0, 17.0]);
        assert!(scalar_requested(Some(" Scalar ")));
        assert!(!scalar_requested(Some("avx512")) && !scalar_requested(None));
    }

    #[test]
    fn indexed_reads_are_checked_once() {
        let table = [10, 11, 12];
        // Two whole runs of two; the fifth index is left out, out of range as it is.
        let ok = Indexed::<_, 2>::new(&table, &[2, 0, 1, 2, 9]).unwrap();
        assert_eq!(ok.len(), 2);
        assert_eq!((ok.get(0), ok.get(1), ok.get(2)), (Some([12, 10]), Some([11, 12]), None));
        assert!(Indexed::<_, 2>::new(&table, &[0, 3]).is_none());
        assert!(Indexed::<_, 1>::new(&table, &[u32::MAX]).is_none());
        assert!(Indexed::<_, 1>::new(&[] as &[u8], &[0]).is_none());
        assert_eq!(Indexed::<_, 1>::new(&[] as &[u8], &[]).map(|i| i.len()), Some(0));
    }

    #[test]
    fn unknown_values_are_named_with_the_known_ones() {
        for known in [None, Some(""), Some("scalar"), Some(" AVX2"), Some("avx512")] {
            assert_eq!(unknown_value_note(known), None, "{known:?}");
        }
        assert_eq!(
            unknown_value_note(Some("bogus")).as_deref(),
            Some(
                "RIGSCOPE_SIMD=bogus is not a known value (scalar, avx2, avx512): using the best the CPU has"
            )
        );
    }

    #[test]
    fn portable_keeps_with_fma_on_the_baseline_body_with_the_same_bits() {
        // Through the macro itself: the same bits whichever copy runs.
        #[inline(always)]
        fn square_minus_one(x: f32) -> f32 {
            x.mul_add(x, -1.0)
        }
        fn via_macro(x: f32) -> f32 {
            with_fma!(square_minus_one(x: f32) -> f32)
        }
        let e = 1.0 + f32::EPSILON * 2048.0;
        let portable = Backend::Portable.forced(|| {
            assert!(!fma_allowed(), "scalar must never reach the FMA copy");
            via_macro(e)
        });
        // Rounded once, as the contract says: 2^-11 + 2^-24, which a separate multiply and
        // add would round to 2^-11.
        assert_eq!(portable, 2f32.powi(-11) + 2f32.powi(-24));
        for b in Backend::available() {
            let (fused, took_fma) = b.forced(|| (via_macro(e), fma_allowed()));
            assert_eq!(fused.to_bits(), portable.to_bits(), "{b:?}");
            assert_eq!(took_fma, b == Backend::Avx2, "{b:?}");
        }
    }
}
