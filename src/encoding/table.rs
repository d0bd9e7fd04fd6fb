//! Go's `text/tabwriter` as upstream's tables use it (`minwidth 0, tabwidth
//! 4, padding 2, padchar ' ', flags 0`): every cell but the last of a line is
//! padded to its column's widest cell plus the padding; widths count runes.

/// Formats `rows` (each a line of cells; all lines with as many cells).
pub fn tabwrite(rows: &[Vec<String>], padding: usize) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; columns.saturating_sub(1)];
    for row in rows {
        for (j, cell) in row.iter().enumerate().take(widths.len()) {
            widths[j] = widths[j].max(cell.chars().count() + padding);
        }
    }
    let mut out = String::new();
    for row in rows {
        for (j, cell) in row.iter().enumerate() {
            out.push_str(cell);
            if let Some(&width) = widths.get(j) {
                if j + 1 < row.len() {
                    let pad = width.saturating_sub(cell.chars().count());
                    out.extend(std::iter::repeat_n(' ', pad));
                }
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_on_the_widest_cell() {
        let rows = vec![
            vec!["NAME".to_string(), "X".to_string(), "LAST".to_string()],
            vec!["a".to_string(), "".to_string(), "z".to_string()],
            vec!["größer".to_string(), "yy".to_string(), "".to_string()],
        ];
        assert_eq!(
            tabwrite(&rows, 2),
            "NAME    X   LAST\na           z\ngrößer  yy  \n"
        );
    }
}
