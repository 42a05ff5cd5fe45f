//! Which x86-64 vector instruction set the SIMD kernels run with, chosen at run time. The
//! kernels (`render::project_avx2`, `render::filter_avx2`, `anim::skin_avx2`) are written
//! once with AVX2 intrinsics and compiled twice: for AVX2, and for AVX2 with AVX-512F,
//! AVX-512VL and AVX-512BW. The second does the same operations, so it gives the same
//! bits, but the compiler then has 32 vector registers instead of 16 (fewer constants
//! reloaded, fewer spills), three-input logic and mask registers: a faster raster and
//! skinning where the CPU has them (see PERFORMANCE.md).
//!
//! How: each kernel's entry is made by `compiled_for_isa!`, which wraps one
//! `#[inline(always)]` body (carrying no features of its own) in a `#[target_feature]`
//! function per set and picks one by the `Isa` it is given; everything the body calls is
//! inlined into the wrapper and compiled for its set. That holds only for what
//! the compiler does inline. A closure it leaves out of line, or one handed to the
//! standard library (`array::map` inside a kernel), is compiled for neither set and calls
//! every intrinsic in it: the kernels then ran several times slower. So the kernels keep
//! closures small and build their arrays by hand; after changing one, check that
//! `nm -C` of the binary lists no `core_arch` intrinsic and no kernel closure out of line.

/// An instruction set a kernel is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    Avx2,
    /// AVX2 plus AVX-512F, AVX-512VL and AVX-512BW (every CPU with the first two has the
    /// third but Intel's Xeon Phi).
    Avx512,
}

impl Isa {
    /// The best this CPU has; `None` without AVX2. In tests, the one `forced` on this
    /// thread, if any.
    #[inline]
    pub(crate) fn best() -> Option<Isa> {
        #[cfg(test)]
        if let Some(isa) = FORCED.get() {
            return Some(isa);
        }
        // Asked once per kernel call, some of them per triangle: the answer is kept.
        static BEST: std::sync::OnceLock<Option<Isa>> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| match requested() {
            Request::Auto => [Isa::Avx512, Isa::Avx2].into_iter().find(|isa| isa.present()),
            Request::Scalar => None,
            Request::Only(isa) => Some(isa).filter(|isa| isa.present()),
        })
    }

    /// False when `RIGSCOPE_SIMD=scalar`: the kernels outside `Isa` (AVX pose
    /// composition) then take their portable paths too.
    pub(crate) fn vectors_allowed() -> bool {
        requested() != Request::Scalar
    }

    /// `f()` with `best` giving this instruction set on this thread (which must have it).
    #[cfg(test)]
    pub(crate) fn forced<R>(self, f: impl FnOnce() -> R) -> R {
        assert!(self.present());
        let before = FORCED.replace(Some(self));
        let out = f();
        FORCED.set(before);
        out
    }

    /// Every one this CPU has: the tests hold each to the same results.
    #[cfg(test)]
    pub(crate) fn available() -> impl Iterator<Item = Isa> {
        [Isa::Avx2, Isa::Avx512].into_iter().filter(|isa| isa.present())
    }

    fn present(self) -> bool {
        use std::arch::is_x86_feature_detected as has;
        match self {
            Isa::Avx2 => has!("avx2"),
            Isa::Avx512 => has!("avx2") && has!("avx512f") && has!("avx512vl") && has!("avx512bw"),
        }
    }
}

/// What the environment variable `RIGSCOPE_SIMD` asks for, so that every path can be run
/// (and compared) on one CPU: `scalar` (the portable paths), `avx2`, `avx512` (used when
/// the CPU has it, else the portable paths), anything else the best the CPU has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Request {
    Auto,
    Scalar,
    Only(Isa),
}

fn requested() -> Request {
    static REQUEST: std::sync::OnceLock<Request> = std::sync::OnceLock::new();
    *REQUEST.get_or_init(|| parse_request(std::env::var("RIGSCOPE_SIMD").ok().as_deref()))
}

fn parse_request(value: Option<&str>) -> Request {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("scalar") => Request::Scalar,
        Some("avx2") => Request::Only(Isa::Avx2),
        Some("avx512") => Request::Only(Isa::Avx512),
        _ => Request::Auto,
    }
}

/// `$vis unsafe fn $name(isa: Isa, args...) -> R`: `$body(args...)` compiled for `isa`
/// (see the module comment), through a `#[target_feature]` function for each set.
/// `$body` must be `#[inline(always)]`. SAFETY (caller of `$name`): the CPU has `isa`, and
/// `$body`'s own conditions hold.
macro_rules! compiled_for_isa {
    (
        $(#[$meta:meta])*
        $vis:vis unsafe fn $name:ident $(<const $c:ident: $ct:ty>)?
        ($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $body:ident
    ) => {
        $crate::isa::compiled_for_isa! {
            features ("avx2", "avx2,avx512f,avx512vl,avx512bw")
            $(#[$meta])*
            $vis unsafe fn $name $(<const $c: $ct>)? ($($arg: $ty),*) $(-> $ret)? => $body
        }
    };
    // The same with the features of each set spelled out (both sets with FMA, say).
    (
        features ($avx2_features:literal, $avx512_features:literal)
        $(#[$meta:meta])*
        $vis:vis unsafe fn $name:ident $(<const $c:ident: $ct:ty>)?
        ($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $body:ident
    ) => {
        $(#[$meta])*
        $vis unsafe fn $name $(<const $c: $ct>)? (isa: $crate::isa::Isa, $($arg: $ty),*) $(-> $ret)? {
            #[target_feature(enable = $avx2_features)]
            unsafe fn avx2 $(<const $c: $ct>)? ($($arg: $ty),*) $(-> $ret)? {
                // SAFETY: the caller's.
                unsafe { $body $(::<$c>)? ($($arg),*) }
            }
            #[target_feature(enable = $avx512_features)]
            unsafe fn avx512 $(<const $c: $ct>)? ($($arg: $ty),*) $(-> $ret)? {
                // SAFETY: the caller's.
                unsafe { $body $(::<$c>)? ($($arg),*) }
            }
            // SAFETY: the CPU has `isa` (caller).
            unsafe {
                match isa {
                    $crate::isa::Isa::Avx2 => avx2 $(::<$c>)? ($($arg),*),
                    $crate::isa::Isa::Avx512 => avx512 $(::<$c>)? ($($arg),*),
                }
            }
        }
    };
}
pub(crate) use compiled_for_isa;

#[cfg(test)]
thread_local! {
    static FORCED: std::cell::Cell<Option<Isa>> = const { std::cell::Cell::new(None) };
}

#[cfg(test)]
mod tests {
    use super::{Isa, Request, parse_request};

    #[test]
    fn the_environment_names_a_path() {
        assert_eq!(parse_request(None), Request::Auto);
        assert_eq!(parse_request(Some("auto")), Request::Auto);
        assert_eq!(parse_request(Some(" Scalar ")), Request::Scalar);
        assert_eq!(parse_request(Some("avx2")), Request::Only(Isa::Avx2));
        assert_eq!(parse_request(Some("AVX512")), Request::Only(Isa::Avx512));
    }
}
