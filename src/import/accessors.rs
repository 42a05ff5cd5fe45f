//! Accessor gatekeeping: before gltf's readers touch an accessor, check that its type suits
//! the role it plays and that every byte it covers (base data and sparse indices/values)
//! lies inside its buffer view and buffer. gltf's readers then cannot fail or panic: with a
//! short slice they return `None` (a silently missing attribute), with a stride smaller than
//! the element they hit an `assert!`, and with `count == 0` they underflow.
//!
//! Also here: the decoded accessors shared by every use (`Source::shared`: one `Arc` per
//! accessor and form), decoding of normalised integers per the glTF spec, and the
//! per-accessor "NaN or infinite" finding.

use super::budget::Budget;
use super::direct::Elements;
use super::{Fault, findings::Findings};
use crate::rig::Severity;
use gltf::json;
use gltf::json::accessor::{ComponentType, Type};
use gltf::json::validation::Checked;
use std::any::Any;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// The loaded document and its buffers, cut to their `byteLength`s.
pub(crate) struct Source<'a> {
    doc: &'a gltf::Document,
    buffers: &'a [Cow<'a, [u8]>],
    /// Read plain accessors in bulk (`direct`); off only to test against gltf's readers.
    direct: bool,
    /// Bytes granted so far for data the file does not hold (zero-filled accessors, once
    /// each; an accessor decoded a second way; sampler outputs baked again), against
    /// `budget.zero_fill()`.
    zero_filled: Cell<u64>,
    /// Which accessors were checked already: a later use shares what the first decoded.
    seen: RefCell<Vec<bool>>,
    /// Every accessor decoded so far, per decoded form: each later use gets the same `Arc`.
    decoded: RefCell<HashMap<(usize, Form), Box<dyn Any>>>,
    /// How many forms each accessor was decoded in (a second form is a second allocation).
    forms: RefCell<Vec<u8>>,
    budget: Budget,
}

/// The ways an accessor's data is decoded for the `Rig`. One accessor read in two roles of
/// the same form (two primitives' POSITION, a POSITION and a morph target) is decoded once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Form {
    /// VEC3 vertex data as floats (positions, normals, morph deltas).
    Vec3,
    Indices,
    Joints,
    Weights,
    /// Flattened floats (key times, sampler outputs): `normalized` says whether integers
    /// were decoded as normalized (always false for FLOAT accessors).
    Floats {
        normalized: bool,
    },
}

/// What an accessor must be to play a role (JOINTS, an IBM, a sampler output, ...).
pub(crate) struct Format {
    /// The role, for messages: "JOINTS_n", "the inverse bind matrices".
    pub role: &'static str,
    /// The allowed kinds in words, for messages.
    pub need: &'static str,
    pub allowed: &'static [(Type, ComponentType)],
    pub normalized: Normalized,
}

/// What an accessor's `normalized` flag must be for its integer components.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Normalized {
    /// Never normalized (JOINTS, indices, floats).
    Never,
    /// Integers must be normalized (WEIGHTS, rotations, morph weights, quantized normals).
    Ints,
    /// Either way, each with its own meaning (quantized positions and morph deltas).
    Either,
}

/// An accessor that passed `Source::check`: safe to hand to gltf's readers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CheckedAccessor {
    pub index: usize,
    pub count: usize,
    pub component: ComponentType,
    /// The accessor's `normalized` flag, which decides how integers become floats.
    pub normalized: bool,
    /// No bufferView and no sparse: every element is zero.
    pub zeros: bool,
    /// `count` elements of the stored type, in bytes.
    pub bytes: u64,
    /// Bytes of this use the file does not hold once: zeros, or an accessor used before.
    /// Its decoded data is shared (free), but roles that expand per use (a sampler output
    /// baked for another sampler) charge them again, see `charge_expanded`.
    pub charged: u64,
    /// An earlier use checked this accessor already.
    pub again: bool,
}

impl<'a> Source<'a> {
    pub(crate) fn new(
        doc: &'a gltf::Document,
        buffers: &'a [Cow<'a, [u8]>],
        direct: bool,
        budget: Budget,
    ) -> Self {
        let accessors = doc.as_json().accessors.len();
        Self {
            doc,
            buffers,
            direct,
            zero_filled: Cell::new(0),
            seen: RefCell::new(vec![false; accessors]),
            decoded: RefCell::new(HashMap::new()),
            forms: RefCell::new(vec![0; accessors]),
            budget,
        }
    }

    /// Accessor `acc` in `form`: decoded by `decode` on its first use in that form, the
    /// same value (an `Arc`, cheap to clone) on every later one. A second form of the same
    /// accessor is a second allocation, charged against the budget before it is made.
    pub(crate) fn shared<T: Clone + 'static>(
        &self,
        acc: &CheckedAccessor,
        form: Form,
        at: &str,
        decode: impl FnOnce() -> Result<T, Fault>,
    ) -> Result<T, Fault> {
        let key = (acc.index, form);
        if let Some(done) = self.decoded.borrow().get(&key).and_then(|d| d.downcast_ref::<T>()) {
            return Ok(done.clone());
        }
        let forms = self.forms.borrow().get(acc.index).copied().unwrap_or(0);
        if forms > 0 {
            self.charge(acc.bytes, |total| {
                format!(
                    "accessors[{}]: {} elements decoded a second way: {} bytes ({total} for every zero-filled or twice-decoded accessor in the file) is more than rigscope allocates for a {}-byte input ({})",
                    acc.index,
                    acc.count,
                    acc.bytes,
                    self.budget.input_bytes,
                    self.budget.zero_fill()
                )
            })
            .map_err(|message| Fault::new(at, message))?;
        }
        let value = decode()?;
        if let Some(n) = self.forms.borrow_mut().get_mut(acc.index) {
            *n = n.saturating_add(1);
        }
        self.decoded.borrow_mut().insert(key, Box::new(value.clone()));
        Ok(value)
    }

    /// The bytes of a checked accessor that can be read in bulk: one with a bufferView and
    /// no sparse part. `None` sends the caller to gltf's reader.
    pub(crate) fn elements(&self, acc: &CheckedAccessor) -> Option<Elements<'a>> {
        if !self.direct {
            return None;
        }
        let a = self.json().accessors.get(acc.index)?;
        if a.sparse.is_some() {
            return None;
        }
        let (Checked::Valid(ty), Checked::Valid(_)) = (a.type_, a.component_type) else {
            return None;
        };
        let view = a.buffer_view?.value();
        let offset = usize::try_from(a.byte_offset.unwrap_or_default().0).ok()?;
        let bytes = self.view_bytes(view)?.get(offset..)?;
        let elem = ty.multiplicity() * acc.component.size();
        let stride = self.stride(view).unwrap_or(elem);
        Some(Elements { bytes, stride, elem, count: acc.count })
    }

    /// The limits of this load.
    pub(crate) fn budget(&self) -> &Budget {
        &self.budget
    }

    pub(crate) fn json(&self) -> &'a json::Root {
        self.doc.as_json()
    }

    pub(crate) fn doc(&self) -> &'a gltf::Document {
        self.doc
    }

    /// The buffer lookup gltf's readers take.
    pub(crate) fn data(&self) -> impl Fn(gltf::Buffer<'_>) -> Option<&'a [u8]> + Clone + 'a {
        let buffers = self.buffers;
        move |b: gltf::Buffer<'_>| buffers.get(b.index()).map(|data| &**data)
    }

    /// Checks accessor `index` for `format` and for fitting its buffers. `at` is the JSON
    /// location that reached it (`skins[0].inverseBindMatrices`) and prefixes every fault.
    pub(crate) fn check(
        &self,
        index: usize,
        format: &Format,
        at: &str,
        findings: &mut Findings,
    ) -> Result<CheckedAccessor, Fault> {
        let acc = self
            .json()
            .accessors
            .get(index)
            .ok_or_else(|| Fault::new(at, format!("accessor {index} does not exist")))?;
        let (Checked::Valid(ty), Checked::Valid(component)) = (acc.type_, acc.component_type) else {
            return Err(Fault::new(at, format!("accessors[{index}] has an invalid type or componentType")));
        };
        let component = component.0;
        if !format.allowed.contains(&(ty, component)) {
            return Err(Fault::new(
                at,
                format!(
                    "accessors[{index}] is {} of {}, but {} must be {}",
                    type_name(ty),
                    component_name(component),
                    format.role,
                    format.need
                ),
            ));
        }
        let want_normalized = format.normalized == Normalized::Ints && component != ComponentType::F32;
        let either = format.normalized == Normalized::Either && component != ComponentType::F32;
        if acc.normalized != want_normalized && !either {
            findings.push(
                "ACCESSOR_NORMALIZED_INVALID",
                Severity::Warning,
                format!("/accessors/{index}"),
                if want_normalized {
                    format!(
                        "{} stored as {} should be marked normalized; it is decoded as normalized anyway",
                        format.role,
                        component_name(component)
                    )
                } else {
                    format!(
                        "{} stored as {} should not be marked normalized; its values are read as they are",
                        format.role,
                        component_name(component)
                    )
                },
            );
        }
        let elem = ty.multiplicity() * component.size();
        let (count, again) = self.fit(index, elem).map_err(|what| Fault::new(at, what))?;
        let bytes = (count as u64).saturating_mul(elem as u64);
        Ok(CheckedAccessor {
            index,
            count,
            component,
            normalized: acc.normalized,
            zeros: acc.buffer_view.is_none() && acc.sparse.is_none(),
            bytes,
            charged: if again || acc.buffer_view.is_none() { bytes } else { 0 },
            again,
        })
    }

    /// How many of accessor `index`'s elements the file does not store (zeros): all of
    /// them without a bufferView, less those a sparse part gives.
    pub(crate) fn unstored(&self, index: usize) -> u64 {
        let Some(acc) = self.json().accessors.get(index) else { return 0 };
        if acc.buffer_view.is_some() {
            return 0;
        }
        acc.count.0.saturating_sub(acc.sparse.as_ref().map_or(0, |s| s.count.0))
    }

    /// Charges `times` the bytes of `acc` the file does not hold once (see `charged`): for
    /// roles whose data is expanded per use (sampler outputs, baked once per sampler).
    pub(crate) fn charge_expanded(&self, acc: &CheckedAccessor, times: u64, at: &str) -> Result<(), Fault> {
        let bytes = acc.charged.saturating_mul(times);
        self.charge(bytes, |_| {
            let what = if self.unstored(acc.index) > 0 {
                "zeros the file does not store"
            } else {
                "a sampler output another sampler read, baked again for this one"
            };
            format!(
                "accessors[{}] ({} elements, {what}) would take {bytes} bytes once expanded for sampling, more than rigscope allocates for a {}-byte input ({} for every zero-filled accessor and expanded repeated use)",
                acc.index,
                acc.count,
                self.budget.input_bytes,
                self.budget.zero_fill()
            )
        })
        .map_err(|message| Fault::new(at, message))
    }

    /// Adds `bytes` to the load's zero-filled and copied bytes; past the budget nothing is
    /// added, and `refusal(total)` says why.
    fn charge(&self, bytes: u64, refusal: impl FnOnce(u64) -> String) -> Result<(), String> {
        let total = self.zero_filled.get().saturating_add(bytes);
        if bytes > 0 && total > self.budget.zero_fill() {
            return Err(refusal(total));
        }
        self.zero_filled.set(total);
        Ok(())
    }

    /// Charges a use that still copies the accessor's data for itself (inverse bind
    /// matrices, instance transforms), unless it is the accessor's first use.
    pub(crate) fn charge_copy(&self, acc: &CheckedAccessor, at: &str) -> Result<(), Fault> {
        if !acc.again {
            return Ok(());
        }
        self.charge(acc.bytes, |total| {
            format!(
                "accessors[{}]: {} elements used again, copied for this use: {} bytes ({total} for every zero-filled accessor and copied use in the file) is more than rigscope allocates for a {}-byte input ({})",
                acc.index,
                acc.count,
                acc.bytes,
                self.budget.input_bytes,
                self.budget.zero_fill()
            )
        })
        .map_err(|message| Fault::new(at, message))
    }

    /// Checks that accessor `index`, with elements of `elem` bytes, lies inside its buffers,
    /// and charges its zeros on its first use. Returns its element count and whether an
    /// earlier use checked it already.
    fn fit(&self, index: usize, elem: usize) -> Result<(usize, bool), String> {
        let json = self.json();
        let who = format!("accessors[{index}]");
        let acc = json.accessors.get(index).ok_or_else(|| format!("accessor {index} does not exist"))?;
        let count = usize::try_from(acc.count.0).map_err(|_| format!("{who}: count too large"))?;
        if count == 0 {
            return Err(format!("{who}: count is 0 (glTF requires at least 1)"));
        }
        let bytes = (count as u64).saturating_mul(elem as u64);
        let again = self.seen.borrow().get(index).copied().unwrap_or(false);
        if let Some(seen) = self.seen.borrow_mut().get_mut(index) {
            *seen = true;
        }
        match acc.buffer_view {
            Some(view) => {
                let offset = acc.byte_offset.unwrap_or_default().0;
                self.fit_range(&who, view.value(), offset, count, elem)?;
            }
            // Zeros are made once, on the accessor's first use; later uses share them.
            None if !again => {
                self.charge(bytes, |total| {
                    format!(
                        "{who}: claims {count} {} elements but has no bufferView: {bytes} zero bytes ({total} for every such accessor in the file) is more than rigscope allocates for a {}-byte input ({})",
                        type_name_of(acc),
                        self.budget.input_bytes,
                        self.budget.zero_fill()
                    )
                })?;
            }
            None => {}
        }
        if let Some(sparse) = &acc.sparse {
            self.fit_sparse(index, sparse, count, elem)?;
        }
        Ok((count, again))
    }

    fn fit_sparse(
        &self,
        index: usize,
        sparse: &json::accessor::sparse::Sparse,
        count: usize,
        elem: usize,
    ) -> Result<(), String> {
        let who = format!("accessors[{index}].sparse");
        let n = usize::try_from(sparse.count.0).unwrap_or(usize::MAX);
        if n == 0 || n > count {
            return Err(format!("{who}.count: {n} is not between 1 and the accessor's count {count}"));
        }
        let Checked::Valid(index_type) = sparse.indices.component_type else {
            return Err(format!("{who}.indices.componentType: invalid value"));
        };
        let index_size = index_type.0.size();
        let indices_view = sparse.indices.buffer_view.value();
        let indices_offset = sparse.indices.byte_offset.0;
        self.fit_range(&format!("{who}.indices"), indices_view, indices_offset, n, index_size)?;
        self.fit_range(
            &format!("{who}.values"),
            sparse.values.buffer_view.value(),
            sparse.values.byte_offset.0,
            n,
            elem,
        )?;
        // gltf's sparse reader walks base and indices in step: an unsorted or out-of-range
        // index would silently drop values, so the spec's rule is enforced here.
        let bytes = self
            .view_bytes(indices_view)
            .ok_or_else(|| format!("{who}.indices: buffer view cannot be read"))?;
        let stride = self.stride(indices_view).unwrap_or(index_size);
        let mut previous: Option<u64> = None;
        for k in 0..n {
            let at = (indices_offset as usize).saturating_add(k.saturating_mul(stride));
            let value = read_uint(bytes, at, index_size)
                .ok_or_else(|| format!("{who}.indices: element {k} cannot be read"))?;
            if value >= count as u64 {
                return Err(format!("{who}.indices: index {value} is out of range for count {count}"));
            }
            if previous.is_some_and(|p| value <= p) {
                return Err(format!(
                    "{who}.indices: not strictly increasing ({value} after {})",
                    previous.unwrap_or_default()
                ));
            }
            previous = Some(value);
        }
        Ok(())
    }

    /// `who` (an accessor or its sparse part) reads `count` elements of `elem` bytes from
    /// buffer view `view` at `offset`: check the view fits its buffer, the stride fits the
    /// element, and the last element ends inside the view.
    fn fit_range(
        &self,
        who: &str,
        view: usize,
        offset: u64,
        count: usize,
        elem: usize,
    ) -> Result<(), String> {
        let json = self.json();
        let v =
            json.buffer_views.get(view).ok_or_else(|| format!("{who}: bufferView {view} does not exist"))?;
        let b = v.buffer.value();
        let buffer =
            json.buffers.get(b).ok_or_else(|| format!("bufferViews[{view}]: buffer {b} does not exist"))?;
        let view_start = v.byte_offset.unwrap_or_default().0;
        let view_len = v.byte_length.0;
        let view_end = view_start.saturating_add(view_len);
        if view_end > buffer.byte_length.0 {
            return Err(format!(
                "bufferViews[{view}]: ends at byte {view_end} but buffers[{b}] has {} bytes",
                buffer.byte_length.0
            ));
        }
        let stride = self.stride(view).unwrap_or(elem);
        if stride < elem {
            return Err(format!(
                "bufferViews[{view}]: byteStride {stride} is smaller than the {elem}-byte elements of {who}"
            ));
        }
        let need = (stride as u64)
            .checked_mul(count as u64 - 1)
            .and_then(|n| n.checked_add(offset))
            .and_then(|n| n.checked_add(elem as u64))
            .unwrap_or(u64::MAX);
        if need > view_len {
            return Err(format!("{who}: needs {need} bytes but bufferViews[{view}] has {view_len}"));
        }
        Ok(())
    }

    fn stride(&self, view: usize) -> Option<usize> {
        let v = self.json().buffer_views.get(view)?;
        v.byte_stride.map(|s| s.0).filter(|&s| s > 0)
    }

    fn view_bytes(&self, view: usize) -> Option<&'a [u8]> {
        let v = self.json().buffer_views.get(view)?;
        let data = self.buffers.get(v.buffer.value())?;
        let start = usize::try_from(v.byte_offset.unwrap_or_default().0).ok()?;
        let len = usize::try_from(v.byte_length.0).ok()?;
        data.get(start..start.checked_add(len)?)
    }
}

/// gltf's element iterator over accessor `index` of `src`, for roles read without a mesh or
/// channel wrapper (instance attributes, pointer-targeted channels). Check the accessor first.
pub(crate) fn items<'a, I: gltf::accessor::util::Item>(
    src: &Source<'a>,
    index: usize,
) -> Option<gltf::accessor::Iter<'a, I>> {
    gltf::accessor::Iter::new(src.doc().accessors().nth(index)?, src.data())
}

/// Collects what a gltf reader yields for a checked accessor, or zeros when the accessor
/// has no data at all. Anything but exactly `count` elements is a fault, never truncation.
pub(crate) fn collect<T: Clone>(
    acc: &CheckedAccessor,
    iter: Option<impl Iterator<Item = T>>,
    zero: T,
    at: &str,
) -> Result<Vec<T>, Fault> {
    if acc.zeros {
        return Ok(vec![zero; acc.count]);
    }
    let Some(iter) = iter else {
        return Err(Fault::new(at, format!("accessors[{}] could not be read", acc.index)));
    };
    let values: Vec<T> = iter.take(acc.count).collect();
    if values.len() != acc.count {
        return Err(Fault::new(
            at,
            format!("accessors[{}] yielded {} of its {} elements", acc.index, values.len(), acc.count),
        ));
    }
    Ok(values)
}

/// Records one `ACCESSOR_INVALID_FLOAT` finding for accessor `index` when any of `values`
/// (flattened, `components` per element) is NaN or infinite.
pub(crate) fn report_non_finite(
    findings: &mut Findings,
    index: usize,
    components: usize,
    values: impl IntoIterator<Item = f32>,
    what: &str,
) {
    let mut bad = 0usize;
    let mut first = None;
    for (i, v) in values.into_iter().enumerate() {
        if !v.is_finite() {
            bad += 1;
            first.get_or_insert(i / components.max(1));
        }
    }
    if let Some(first) = first {
        findings.push(
            "ACCESSOR_INVALID_FLOAT",
            Severity::Error,
            format!("/accessors/{index}"),
            format!("{bad} {what} value(s) are NaN or infinite (first in element {first})"),
        );
    }
}

/// Unsigned normalised byte per glTF: `c / 255`.
pub(crate) fn unorm8(c: u8) -> f32 {
    f32::from(c) / 255.0
}

/// Unsigned normalised short per glTF: `c / 65535`.
pub(crate) fn unorm16(c: u16) -> f32 {
    f32::from(c) / 65535.0
}

/// Signed normalised byte per glTF: `max(c / 127, -1)`.
pub(crate) fn snorm8(c: i8) -> f32 {
    (f32::from(c) / 127.0).max(-1.0)
}

/// Signed normalised short per glTF: `max(c / 32767, -1)`.
pub(crate) fn snorm16(c: i16) -> f32 {
    (f32::from(c) / 32767.0).max(-1.0)
}

fn read_uint(bytes: &[u8], at: usize, size: usize) -> Option<u64> {
    let b = bytes.get(at..at.checked_add(size)?)?;
    Some(match size {
        1 => u64::from(b[0]),
        2 => u64::from(u16::from_le_bytes([b[0], b[1]])),
        4 => u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        _ => return None,
    })
}

fn type_name_of(acc: &json::Accessor) -> &'static str {
    match acc.type_ {
        Checked::Valid(ty) => type_name(ty),
        Checked::Invalid => "?",
    }
}

pub(crate) fn type_name(ty: Type) -> &'static str {
    match ty {
        Type::Scalar => "SCALAR",
        Type::Vec2 => "VEC2",
        Type::Vec3 => "VEC3",
        Type::Vec4 => "VEC4",
        Type::Mat2 => "MAT2",
        Type::Mat3 => "MAT3",
        Type::Mat4 => "MAT4",
    }
}

pub(crate) fn component_name(c: ComponentType) -> &'static str {
    match c {
        ComponentType::I8 => "BYTE",
        ComponentType::U8 => "UNSIGNED_BYTE",
        ComponentType::I16 => "SHORT",
        ComponentType::U16 => "UNSIGNED_SHORT",
        ComponentType::U32 => "UNSIGNED_INT",
        ComponentType::F32 => "FLOAT",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalised_integers_decode_per_the_spec() {
        assert_eq!(unorm8(0), 0.0);
        assert_eq!(unorm8(255), 1.0);
        assert_eq!(unorm8(51), 0.2);
        assert_eq!(unorm16(65535), 1.0);
        assert_eq!(unorm16(13107), 0.2);
        assert_eq!(snorm8(127), 1.0);
        assert_eq!(snorm8(-127), -1.0);
        // -128 would be -1.0079: the spec clamps it to -1.
        assert_eq!(snorm8(-128), -1.0);
        assert_eq!(snorm16(32767), 1.0);
        assert_eq!(snorm16(-32768), -1.0);
        assert_eq!(snorm16(16384), 16384.0 / 32767.0);
    }

    #[test]
    fn little_endian_index_reads() {
        let bytes = [0x01, 0x02, 0x03, 0x04, 0x05];
        assert_eq!(read_uint(&bytes, 0, 1), Some(1));
        assert_eq!(read_uint(&bytes, 1, 2), Some(0x0302));
        assert_eq!(read_uint(&bytes, 1, 4), Some(0x0504_0302));
        assert_eq!(read_uint(&bytes, 2, 4), None);
        assert_eq!(read_uint(&bytes, usize::MAX, 2), None);
    }
}
