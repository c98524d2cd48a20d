//! Numbers for people: the one digit-grouping rule every table, progress line and header uses.

/// Thousands separated by spaces, as the docs write constraint counts (`130 278 869`).
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn groups_by_thousands() {
        assert_eq!(super::group(0), "0");
        assert_eq!(super::group(999), "999");
        assert_eq!(super::group(1000), "1 000");
        assert_eq!(super::group(130_278_869), "130 278 869");
    }
}
