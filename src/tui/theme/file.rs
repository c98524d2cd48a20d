//! Reading a theme file: TOML over the default dark theme, where every problem (syntax, unknown key or phase,
//! bad color) is one line naming the file, the line, the key and what was expected, since a theme file is user
//! input and the console shows the line in its log.

use std::collections::BTreeMap;
use std::str::FromStr;

use ratatui::style::Color;
use serde::Deserialize;
use toml::Spanned;

use super::colors::{Theme, OTHER_PHASE_KEY};
use crate::vocab::Phase;

/// What a color value must look like, as error messages say it.
const COLOR_EXPECTED: &str = "expected a color like \"#aabbcc\" or a name";

/// A theme file as written (every key optional; unknown keys rejected).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: Option<String>,
    description: Option<String>,
    colors: Option<ColorsFile>,
    /// Checked against the phase table by hand, so the key set follows it.
    phases: Option<BTreeMap<String, Spanned<String>>>,
}

/// The `[colors]` table as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ColorsFile {
    bg: Option<Spanned<String>>,
    fg: Option<Spanned<String>>,
    dim: Option<Spanned<String>>,
    accent: Option<Spanned<String>>,
    border: Option<Spanned<String>>,
    selection: Option<Spanned<String>>,
    good: Option<Spanned<String>>,
    bad: Option<Spanned<String>>,
    warn: Option<Spanned<String>>,
}

/// Parses one theme file over `base` (keys left out keep `base`'s colors); the error is one line.
pub(super) fn parse_theme(label: &str, stem: &str, src: &str, base: &Theme) -> Result<Theme, String> {
    let file: ThemeFile = toml::from_str(src).map_err(|e| describe_toml_error(label, src, &e))?;
    let mut theme = base.clone();
    theme.name = match file.name {
        Some(n) if n.trim().is_empty() => {
            return Err(format!("{label}: key `name`: expected a non-empty theme name"));
        }
        Some(n) => n,
        None => stem.to_string(),
    };
    theme.description = file.description.unwrap_or_default();
    let c = file.colors.unwrap_or_default();
    let slots: [(&str, &Option<Spanned<String>>, &mut Color); 9] = [
        ("bg", &c.bg, &mut theme.bg),
        ("fg", &c.fg, &mut theme.fg),
        ("dim", &c.dim, &mut theme.dim),
        ("accent", &c.accent, &mut theme.accent),
        ("border", &c.border, &mut theme.border),
        ("selection", &c.selection, &mut theme.selection),
        ("good", &c.good, &mut theme.good),
        ("bad", &c.bad, &mut theme.bad),
        ("warn", &c.warn, &mut theme.warn),
    ];
    for (key, value, slot) in slots {
        if let Some(v) = value {
            *slot = parse_color(label, src, &format!("colors.{key}"), v)?;
        }
    }
    for (key, value) in file.phases.unwrap_or_default() {
        let color = parse_color(label, src, &format!("phases.{key}"), &value)?;
        if key == OTHER_PHASE_KEY {
            theme.other_phase = color;
        } else if Phase::from_name(&key).is_some() {
            theme.phases.insert(key, color);
        } else {
            return Err(format!(
                "{label}:{}: key `phases.{key}`: unknown phase, expected one of {}, {OTHER_PHASE_KEY}",
                line_of(src, value.span().start),
                Phase::names()
            ));
        }
    }
    Ok(theme)
}

/// A color value: `"#rrggbb"`, a ratatui color name or an ANSI index (0–255).
fn parse_color(label: &str, src: &str, key: &str, value: &Spanned<String>) -> Result<Color, String> {
    Color::from_str(value.get_ref().trim()).map_err(|_| {
        format!(
            "{label}:{}: key `{key}`: {COLOR_EXPECTED}, got {:?}",
            line_of(src, value.span().start),
            value.get_ref()
        )
    })
}

/// One line for a TOML parser error: file, line, the key involved (when one can be named) and the message.
fn describe_toml_error(label: &str, src: &str, err: &toml::de::Error) -> String {
    let message = err.message().trim().replace('\n', "; ");
    let Some(span) = err.span() else {
        return format!("{label}: {message}");
    };
    let line = line_of(src, span.start);
    let table = enclosing_table(src, span.start);
    let qualify = |key: &str| if table.is_empty() { key.to_string() } else { format!("{table}.{key}") };
    // serde's unknown-field message: "unknown field `x`, expected one of `a`, `b`".
    if let Some(rest) = message.strip_prefix("unknown field `") {
        if let Some((key, expected)) = rest.split_once('`') {
            let expected = expected.trim_start_matches(',').trim();
            return format!("{label}:{line}: key `{}`: unknown key, {expected}", qualify(key));
        }
    }
    match key_on_line(src, span.start) {
        Some(key) => format!("{label}:{line}: key `{}`: {message}", qualify(&key)),
        None => format!("{label}:{line}: {message}"),
    }
}

/// `offset` moved back onto a char boundary of `src` (and into it), so slicing there cannot panic.
fn boundary(src: &str, offset: usize) -> usize {
    let mut o = offset.min(src.len());
    while !src.is_char_boundary(o) {
        o -= 1;
    }
    o
}

/// The 1-based line holding byte `offset`.
fn line_of(src: &str, offset: usize) -> usize {
    src.as_bytes()[..offset.min(src.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// The text of the line holding byte `offset`.
fn line_text(src: &str, offset: usize) -> &str {
    let offset = boundary(src, offset);
    let start = src[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = src[offset..].find('\n').map_or(src.len(), |i| offset + i);
    &src[start..end]
}

/// The key assigned on the line holding `offset` (`key = ...`), if the line looks like an assignment.
fn key_on_line(src: &str, offset: usize) -> Option<String> {
    let (key, _) = line_text(src, offset).split_once('=')?;
    let key = key.trim().trim_matches('"');
    let plain = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
    plain.then(|| key.to_string())
}

/// The table whose key sits at byte `offset` ("" at the top level): the last `[table]` header above it, or for
/// an offset on a header line itself, that header's parent.
fn enclosing_table(src: &str, offset: usize) -> String {
    let header = |l: &str| -> Option<String> {
        let l = l.trim();
        if l.starts_with("[[") {
            return None;
        }
        Some(l.strip_prefix('[')?.split(']').next()?.trim().to_string())
    };
    if let Some(h) = header(line_text(src, offset)) {
        return h.rsplit_once('.').map(|(parent, _)| parent.trim().to_string()).unwrap_or_default();
    }
    src[..boundary(src, offset)].lines().rev().find_map(header).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::super::BUILTIN;
    use super::*;

    fn parse(label: &str, src: &str) -> Result<Theme, String> {
        parse_theme(label, "x", src, &Theme::default_dark())
    }

    #[test]
    fn colors_accept_hex_and_names() {
        let t = parse(
            "themes/x.toml",
            "[colors]\nfg = \"#0a0B0c\"\nbg = \"dark_gray\"\ndim = \"light blue\"\n[phases]\nverify = \"208\"\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.fg, Color::Rgb(10, 11, 12));
        assert_eq!(t.bg, Color::DarkGray);
        assert_eq!(t.dim, Color::LightBlue);
        assert_eq!(t.phase("verify"), Color::Indexed(208));
        assert_eq!(t.name, "x", "the name defaults to the file stem");
        // Keys left out keep the dark theme's colors.
        let dark = Theme::default_dark();
        assert_eq!(t.accent, dark.accent);
        assert_eq!(t.phase("synthesis"), dark.phase("synthesis"));
    }

    fn assert_one_line(e: &str, parts: &[&str]) {
        assert!(!e.contains('\n'), "not one line: {e}");
        for p in parts {
            assert!(e.contains(p), "{e:?} does not contain {p:?}");
        }
    }

    #[test]
    fn bad_color_names_file_line_key_and_value() {
        let src = "name = \"x\"\n[colors]\nbg = \"#000000\"\nfg = \"blurple\"\n";
        let e = parse("themes/x.toml", src).expect_err("blurple is no color");
        assert_eq!(
            e,
            "themes/x.toml:4: key `colors.fg`: expected a color like \"#aabbcc\" or a name, got \"blurple\""
        );
        let e = parse("themes/x.toml", "[phases]\nmsm_h = \"#12345\"\n").expect_err("short hex");
        assert_one_line(&e, &["themes/x.toml:2", "`phases.msm_h`", "expected a color", "\"#12345\""]);
    }

    #[test]
    fn unknown_keys_are_errors_naming_the_key() {
        let e = parse("themes/x.toml", "name = \"x\"\n\n[colors]\nfgg = \"#ffffff\"\n").expect_err("typo");
        assert_one_line(&e, &["themes/x.toml:4", "key `colors.fgg`", "unknown key", "`fg`"]);
        let e = parse("themes/x.toml", "nmae = \"x\"\n").expect_err("typo");
        assert_one_line(&e, &["themes/x.toml:1", "key `nmae`", "unknown key", "`name`"]);
        let e = parse("themes/x.toml", "[phases]\nsynthsis = \"red\"\n").expect_err("typo");
        assert_one_line(&e, &["themes/x.toml:2", "key `phases.synthsis`", "unknown phase", "synthesis"]);
        let e = parse("themes/x.toml", "[colours]\nfg = \"red\"\n").expect_err("typo");
        assert_one_line(&e, &["themes/x.toml:1", "`colours`", "unknown key"]);
    }

    #[test]
    fn syntax_and_type_errors_name_file_line_and_key() {
        let e = parse("themes/x.toml", "[colors]\nbg = \"#000000\"\nfg = \"#ffffff\n").expect_err("syntax");
        assert_one_line(&e, &["themes/x.toml:3", "key `colors.fg`"]);
        let e = parse("themes/x.toml", "[colors]\naccent = 12\n").expect_err("type");
        assert_one_line(&e, &["themes/x.toml:2", "key `colors.accent`", "string"]);
        let e = parse("themes/x.toml", "name = \"\"\n").expect_err("empty name");
        assert_one_line(&e, &["themes/x.toml", "key `name`"]);
    }

    #[test]
    fn any_damage_to_a_theme_gives_a_theme_or_one_line_naming_the_file() {
        let src = format!("{}\n# é ✓ 🎨\n", BUILTIN[1].1);
        let junk = ["\"", "[", "]", "=", "\n", "é", "x = ", "[colors]\n", "#"];
        let cuts: Vec<usize> = (0..=src.len()).filter(|&i| src.is_char_boundary(i)).collect();
        for (n, &i) in cuts.iter().enumerate() {
            let mut variants = vec![format!("{}{}", &src[..i], &src[cuts[(n + 1).min(cuts.len() - 1)]..])];
            variants.extend(junk.iter().map(|j| format!("{}{j}{}", &src[..i], &src[i..])));
            for v in variants {
                if let Err(e) = parse("themes/light.toml", &v) {
                    assert!(e.starts_with("themes/light.toml"), "{e}");
                    assert!(!e.contains('\n'), "not one line: {e:?}");
                }
            }
        }
        assert_eq!(boundary("aé", 2), 1);
    }
}
