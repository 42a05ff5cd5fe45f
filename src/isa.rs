//! The skinning kernels' run-time instruction-set choice (x86-64): `anim::skin_avx2` is
//! written with AVX2 and FMA intrinsics and compiled through `compiled_for_isa!`, which
//! wraps one `#[inline(always)]` body in a `#[target_feature]` function. The rasteriser's
//! kernels use `crate::lanes` instead; both honour `RIGSCOPE_SIMD=scalar`.
//!
//! Everything the body calls must be inlined into the wrapper to be compiled for AVX2: a
//! closure the compiler leaves out of line, or one handed to the standard library
//! (`array::map`), calls every intrinsic in it. So the kernel keeps closures small and
//! builds its arrays by hand; after changing it, check that `nm -C` of the binary lists no
//! `core_arch` intrinsic out of line.

/// An instruction set a kernel is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    Avx2,
}

impl Isa {
    /// AVX2 when the CPU has it and `RIGSCOPE_SIMD` is not `scalar`; in tests, the one
    /// `forced` on this thread, if any.
    #[inline]
    pub(crate) fn best() -> Option<Isa> {
        #[cfg(test)]
        if let Some(isa) = FORCED.get() {
            return Some(isa);
        }
        static BEST: std::sync::OnceLock<Option<Isa>> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| (crate::lanes::vectors_allowed() && Isa::Avx2.present()).then_some(Isa::Avx2))
    }

    /// False when `RIGSCOPE_SIMD=scalar`.
    pub(crate) fn vectors_allowed() -> bool {
        crate::lanes::vectors_allowed()
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
        [Isa::Avx2].into_iter().filter(|isa| isa.present())
    }

    fn present(self) -> bool {
        match self {
            Isa::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
        }
    }
}

/// `$vis unsafe fn $name(isa: Isa, args...) -> R`: `$body(args...)` compiled for `isa`
/// with the features `$features`, through a `#[target_feature]` function. `$body` must be
/// `#[inline(always)]`. SAFETY (caller of `$name`): the CPU has `isa` and `$features`, and
/// `$body`'s own conditions hold.
macro_rules! compiled_for_isa {
    (
        features ($features:literal)
        $(#[$meta:meta])*
        $vis:vis unsafe fn $name:ident $(<const $c:ident: $ct:ty>)?
        ($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? => $body:ident
    ) => {
        $(#[$meta])*
        $vis unsafe fn $name $(<const $c: $ct>)? (isa: $crate::isa::Isa, $($arg: $ty),*) $(-> $ret)? {
            #[target_feature(enable = $features)]
            unsafe fn avx2 $(<const $c: $ct>)? ($($arg: $ty),*) $(-> $ret)? {
                // SAFETY: the caller's.
                unsafe { $body $(::<$c>)? ($($arg),*) }
            }
            // SAFETY: the CPU has `isa` (caller).
            unsafe {
                match isa {
                    $crate::isa::Isa::Avx2 => avx2 $(::<$c>)? ($($arg),*),
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
