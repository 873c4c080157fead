//! The one parser of the small fixed-length number lists that options take: `X,Y,Z`
//! positions, `X0,Z0,X1,Z1` rectangles, `WIDTHxHEIGHT` and `XxYxZ` sizes, `DX,DY,DZ` vectors.

use std::str::FromStr;

/// Exactly `N` numbers of type `T` separated by any of `seps` (spaces around each allowed),
/// or an error that shows the expected `shape` and names the part that is not a number.
pub fn numbers<T, const N: usize>(s: &str, seps: &[char], shape: &str) -> Result<[T; N], String>
where
    T: FromStr + Copy + Default,
    T::Err: std::fmt::Display,
{
    let parts: Vec<&str> = s.split(seps).map(str::trim).collect();
    if parts.len() != N {
        return Err(format!("expected {shape} ({N} numbers), got {s:?}"));
    }
    let mut out = [T::default(); N];
    for (o, p) in out.iter_mut().zip(&parts) {
        *o = p
            .parse()
            .map_err(|e| format!("{p:?} in {s:?} is not a {}: {e}", kind::<T>()))?;
    }
    Ok(out)
}

/// What a part of a list of `T` must be, for error messages.
fn kind<T>() -> &'static str {
    match std::any::type_name::<T>() {
        "f32" | "f64" => "number",
        t if t.starts_with('u') => "whole number (0 or more)",
        _ => "whole number",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_exactly_n_and_names_what_is_wrong() {
        assert_eq!(
            numbers::<i32, 3>("1, -2,3", &[','], "X,Y,Z"),
            Ok([1, -2, 3])
        );
        assert_eq!(
            numbers::<u32, 2>("640X480", &['x', 'X'], "WxH"),
            Ok([640, 480])
        );
        assert_eq!(numbers::<f64, 1>(" 2.5 ", &[','], "V"), Ok([2.5]));
        let e = numbers::<i32, 3>("1,2", &[','], "X,Y,Z").unwrap_err();
        assert_eq!(e, r#"expected X,Y,Z (3 numbers), got "1,2""#);
        let e = numbers::<i32, 3>("1,2,3,4", &[','], "X,Y,Z").unwrap_err();
        assert!(e.contains("expected X,Y,Z"), "{e}");
        let e = numbers::<i32, 3>("1,b,3", &[','], "X,Y,Z").unwrap_err();
        assert!(
            e.starts_with(r#""b" in "1,b,3" is not a whole number: "#),
            "{e}"
        );
        let e = numbers::<u32, 2>("-1x2", &['x'], "WxH").unwrap_err();
        assert!(e.contains("whole number (0 or more)"), "{e}");
        let e = numbers::<f64, 2>("1,", &[','], "A,B").unwrap_err();
        assert!(e.contains(r#""" in "1," is not a number"#), "{e}");
        let e = numbers::<i32, 1>("99999999999", &[','], "N").unwrap_err();
        assert!(e.contains("too large"), "{e}");
    }
}
