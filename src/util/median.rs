//! The one statistic every table, log line and export reports for repeated measurements: the median (the mean
//! of the two middle values for an even count), so a run's "wall" reads the same wherever it is shown.

/// Median of `values` (any order; NaNs sort last); `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn odd_even_and_empty() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[30.0, 0.0]), Some(15.0), "two repeats: their mean, never the larger");
    }
}
