//! Text as phones and word processors type it, read as the ASCII the grammar expects: dashes
//! and minus signs as `-`, typographic quotes as `'` and `"`, full-width letters, digits and
//! signs (and the ideographic space) as their ASCII forms.

/// `text` with its typographic and full-width characters in their ASCII forms.
#[must_use]
pub fn ascii_forms(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE58}' | '\u{FE63}' => '-',
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '«' | '»' => '"',
            '\u{3000}' => ' ',
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c),
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::ascii_forms;

    #[test]
    fn typographic_and_full_width_forms_read_as_ascii() {
        assert_eq!(ascii_forms("Rg9–h9"), "Rg9-h9");
        assert_eq!(ascii_forms("b2—b4 (rm b3)"), "b2-b4 (rm b3)");
        assert_eq!(ascii_forms("ｅ４"), "e4");
        assert_eq!(
            ascii_forms("ｃｈａｌｌｅｎｇｅ　＠ｂｏｂ"),
            "challenge @bob"
        );
        assert_eq!(ascii_forms("“view” ‘white’"), "\"view\" 'white'");
        assert_eq!(ascii_forms("e4 😀 ü"), "e4 😀 ü");
    }
}
