//! The Khronos glTF-Validator's rule for animation key times (`AnimationInputChecker` in
//! KhronosGroup/glTF-Validator `lib/src/base/animation.dart`), element by element, with its
//! message wording. Import runs it per sampler (it knows the sampler's pointer); `diagnose`
//! runs it on rigs built without import.

/// One key time the validator reports.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyTimeIssue {
    /// `ACCESSOR_ANIMATION_INPUT_NEGATIVE` or `ACCESSOR_ANIMATION_INPUT_NON_INCREASING`.
    pub code: &'static str,
    /// The key's index in the input accessor.
    pub key: usize,
    pub message: String,
}

pub const INPUT_NEGATIVE: &str = "ACCESSOR_ANIMATION_INPUT_NEGATIVE";
pub const INPUT_NON_INCREASING: &str = "ACCESSOR_ANIMATION_INPUT_NON_INCREASING";

/// Every key the validator reports, in key order: a negative time is NEGATIVE and is not
/// compared with anything; any other time at or below the last non-negative one (0 before
/// there is one; never key 0) is NON_INCREASING, and becomes the one to compare with.
pub fn key_time_issues(times: &[f32]) -> Vec<KeyTimeIssue> {
    let mut out = Vec::new();
    let mut last = 0.0f32;
    for (key, &t) in times.iter().enumerate() {
        if t < 0.0 {
            let message = format!(
                "Animation input accessor element at index {key} is negative: {}.",
                dart_num(t.into())
            );
            out.push(KeyTimeIssue { code: INPUT_NEGATIVE, key, message });
            continue;
        }
        if key != 0 && t <= last {
            let message = format!(
                "Animation input accessor element at index {key} is less than or equal to previous: {} <= {}.",
                dart_num(t.into()),
                dart_num(last.into())
            );
            out.push(KeyTimeIssue { code: INPUT_NON_INCREASING, key, message });
        }
        last = t;
    }
    out
}

/// A number as Dart's `toString` writes it in validator messages: `1.0`, `0.25`, `NaN`.
pub fn dart_num(v: f64) -> String {
    if v.is_nan() {
        "NaN".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
    } else if v.fract() == 0.0 && v.abs() < 1e21 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(times: &[f32]) -> Vec<(&'static str, usize)> {
        key_time_issues(times).into_iter().map(|i| (i.code, i.key)).collect()
    }

    #[test]
    fn every_element_is_reported_as_the_validator_does() {
        // Worked from AnimationInputChecker by hand: each of keys 2, 3, 4 is at or below
        // the one before it.
        assert_eq!(
            codes(&[0.0, 1.0, 1.0, 0.5, 0.25, 2.0]),
            vec![(INPUT_NON_INCREASING, 2), (INPUT_NON_INCREASING, 3), (INPUT_NON_INCREASING, 4)]
        );
        // A negative key is not compared and does not move `last`, which starts at 0: key 1
        // (0.0 <= 0) is NON_INCREASING, key 2 (0.5 > 0) is not.
        assert_eq!(codes(&[-1.0, 0.0, 0.5]), vec![(INPUT_NEGATIVE, 0), (INPUT_NON_INCREASING, 1)]);
        // NaN compares false both ways and becomes `last`: nothing after it is reported.
        assert_eq!(codes(&[0.0, f32::NAN, 0.0]), vec![]);
        assert_eq!(codes(&[0.0, 0.5, 1.0]), vec![]);
        let issue = &key_time_issues(&[0.0, 1.0, 0.5])[0];
        assert_eq!(
            issue.message,
            "Animation input accessor element at index 2 is less than or equal to previous: 0.5 <= 1.0."
        );
    }

    #[test]
    fn dart_numbers() {
        assert_eq!(dart_num(1.0), "1.0");
        assert_eq!(dart_num(-0.0), "-0.0");
        assert_eq!(dart_num(0.25), "0.25");
        assert_eq!(dart_num(f64::NAN), "NaN");
        assert_eq!(dart_num(f64::NEG_INFINITY), "-Infinity");
        // f32 0.99607843 widened: Dart prints the shortest f64 repr, as Rust's Display does.
        assert_eq!(dart_num(f64::from(254.0f32 / 255.0)), "0.9960784316062927");
    }
}
