//! The `on`/`off` environment switches (`CUZK_HUGE_PAGES`, `CUZK_NATIVE_PARAMS`, `CUZK_MALLOC_TUNE`): one
//! reading of their values, so each accepts the same spellings.

/// A switch's value: unset, empty or `on` → true, `off` → false (any case, spaces trimmed); anything else
/// is an error holding the trimmed value, for the caller's one line.
pub fn on_off(v: Option<&str>) -> Result<bool, String> {
    match v.map(str::trim) {
        None => Ok(true),
        Some(s) if s.eq_ignore_ascii_case("on") || s.is_empty() => Ok(true),
        Some(s) if s.eq_ignore_ascii_case("off") => Ok(false),
        Some(s) => Err(s.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::on_off;

    #[test]
    fn a_switch_reads_on_and_off_and_names_anything_else() {
        assert_eq!(on_off(None), Ok(true));
        assert_eq!(on_off(Some(" ON ")), Ok(true));
        assert_eq!(on_off(Some("")), Ok(true));
        assert_eq!(on_off(Some("off")), Ok(false));
        assert_eq!(on_off(Some("Off\n")), Ok(false));
        assert_eq!(on_off(Some("no")), Err("no".to_string()));
    }
}
