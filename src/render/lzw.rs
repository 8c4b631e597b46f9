//! The LZW compression of GIF image data (variable-length codes, least significant bit first),
//! made for replay frames: each string's code is found in one table read, with no search, so
//! the long runs of the transparent index in a frame's changed rectangle cost little.
//!
//! The codes are the ones every GIF encoder following the specification writes: a clear code
//! first, codes one bit wider once the table reaches each power of two, a clear code again
//! when it fills, and the end code last.

/// The largest code; the table is cleared when the next code would reach it.
const MAX_CODE: u32 = 4095;

/// A compressor, kept between frames so that its table is allocated once.
pub(super) struct Lzw {
    /// For each known string and a byte after it (`code << 8 | byte`), the code of the longer
    /// string, or 0 when it has none yet (string codes are never below 6).
    next: Vec<u16>,
    /// The entries of `next` set since the table was last cleared.
    set: Vec<u32>,
    /// For each byte, the codes of the strings of one, two, three… copies of it in the table:
    /// a run of one index is matched by counting, without reading the table for each pixel.
    runs: Vec<Vec<u16>>,
}

impl Lzw {
    pub(super) fn new() -> Self {
        Self {
            next: vec![0; (MAX_CODE as usize + 1) << 8],
            set: Vec::with_capacity(MAX_CODE as usize),
            runs: (0..=u8::MAX).map(|byte| vec![u16::from(byte)]).collect(),
        }
    }

    /// `indices` compressed as a GIF image's data: the minimum code size, then the codes (the
    /// GIF encoder cuts them into sub-blocks).
    pub(super) fn encode(&mut self, indices: &[u8]) -> Vec<u8> {
        let largest = indices.iter().copied().max().unwrap_or(0);
        // The specification's smallest code size is 2.
        let literal_bits = (u32::from(largest) + 1)
            .max(4)
            .next_power_of_two()
            .trailing_zeros();
        let mut out = Vec::with_capacity(indices.len() / 4 + 16);
        out.push(literal_bits as u8);
        let mut codes = Codes::new(literal_bits, out);
        self.clear();
        let Some(&first) = indices.first() else {
            codes.finish(None);
            return codes.out;
        };
        // The longest string in the table the input goes on with, as its code; when that
        // string is `run` copies of `run_byte`, `run` (else 0).
        let mut code = u32::from(first);
        let (mut run, mut run_byte) = (1, first);
        let mut at = 1;
        while let Some(&byte) = indices.get(at) {
            if run > 0 && byte == run_byte {
                let chain = &self.runs[usize::from(byte)];
                if run < chain.len() {
                    // As many more copies as the table has longer strings for.
                    let same = indices[at..]
                        .iter()
                        .take(chain.len() - run)
                        .take_while(|&&next| next == byte)
                        .count();
                    run += same;
                    code = u32::from(chain[run - 1]);
                    at += same;
                    continue;
                }
            }
            at += 1;
            let key = ((code << 8) | u32::from(byte)) as usize;
            let known = self.next[key];
            if known != 0 {
                // Not a run: runs are followed above, and a run's next string is not there.
                code = u32::from(known);
                run = 0;
                continue;
            }
            codes.put(code);
            match codes.grow() {
                Some(new) => {
                    self.next[key] = new as u16;
                    self.set.push(key as u32);
                    if run > 0 && byte == run_byte {
                        self.runs[usize::from(byte)].push(new as u16);
                    }
                }
                None => self.clear(),
            }
            code = u32::from(byte);
            (run, run_byte) = (1, byte);
        }
        codes.finish(Some(code));
        codes.out
    }

    fn clear(&mut self) {
        for key in self.set.drain(..) {
            self.next[key as usize] = 0;
        }
        for chain in &mut self.runs {
            chain.truncate(1);
        }
    }
}

/// The code stream: the codes written so far and the state a decoder keeps in step with.
struct Codes {
    out: Vec<u8>,
    /// Bits not yet written, the lowest first.
    pending: u64,
    pending_bits: u32,
    literal_bits: u32,
    width: u32,
    /// The last code in the table.
    last: u32,
}

impl Codes {
    fn new(literal_bits: u32, out: Vec<u8>) -> Self {
        let mut codes = Self {
            out,
            pending: 0,
            pending_bits: 0,
            literal_bits,
            width: literal_bits + 1,
            last: 0,
        };
        codes.restart();
        codes
    }

    fn clear_code(&self) -> u32 {
        1 << self.literal_bits
    }

    /// Writes the clear code (as wide as the codes before it) and starts the table again.
    fn restart(&mut self) {
        let clear = self.clear_code();
        self.put(clear);
        self.width = self.literal_bits + 1;
        self.last = clear + 1;
    }

    fn put(&mut self, code: u32) {
        self.pending |= u64::from(code) << self.pending_bits;
        self.pending_bits += self.width;
        if self.pending_bits >= 32 {
            self.out
                .extend_from_slice(&(self.pending as u32).to_le_bytes());
            self.pending >>= 32;
            self.pending_bits -= 32;
        }
    }

    /// Takes the table's next code after a code was written: the code, or `None` when the
    /// table was full and has been cleared.
    fn grow(&mut self) -> Option<u32> {
        self.last += 1;
        if self.last == 1 << self.width {
            self.width += 1;
        }
        if self.last == MAX_CODE {
            self.restart();
            return None;
        }
        Some(self.last)
    }

    /// Writes the last string's code, if any, and the end code.
    fn finish(&mut self, code: Option<u32>) {
        if let Some(code) = code {
            self.put(code);
            // A decoder takes a table entry after this code too, and may widen.
            self.grow();
        }
        self.put(self.clear_code() + 1);
        while self.pending_bits > 0 {
            self.out.push(self.pending as u8);
            self.pending >>= 8;
            self.pending_bits = self.pending_bits.saturating_sub(8);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Lzw;

    fn decoded(data: &[u8]) -> Vec<u8> {
        let mut decoder = weezl::decode::Decoder::new(weezl::BitOrder::Lsb, data[0]);
        decoder.decode(&data[1..]).expect("the codes decode")
    }

    /// A deterministic byte sequence with runs and noise, over `colours` values.
    fn picture(length: usize, colours: u32, seed: u32) -> Vec<u8> {
        let mut state = seed;
        let mut out = Vec::with_capacity(length);
        while out.len() < length {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let value = ((state >> 16) % colours) as u8;
            let run = 1 + (state >> 8) as usize % 40;
            out.extend(std::iter::repeat_n(value, run.min(length - out.len())));
        }
        out
    }

    #[test]
    fn what_is_compressed_decodes_to_the_same_bytes() {
        let mut lzw = Lzw::new();
        for (length, colours, seed) in [
            (0, 2, 1),
            (1, 2, 2),
            (2, 4, 3),
            (100, 3, 4),
            (5_000, 16, 5),
            (300_000, 256, 6),
            (300_000, 7, 7),
            (200_000, 200, 8),
        ] {
            let indices = picture(length, colours, seed);
            let data = lzw.encode(&indices);
            assert_eq!(
                decoded(&data),
                indices,
                "length {length}, {colours} colours"
            );
        }
    }

    #[test]
    fn noise_fills_the_table_and_clears_it() {
        let mut state = 99u32;
        let noise: Vec<u8> = (0..100_000)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (state >> 16) as u8
            })
            .collect();
        let mut lzw = Lzw::new();
        let data = lzw.encode(&noise);
        assert_eq!(data[0], 8);
        assert_eq!(decoded(&data), noise);
        // The same compressor again gives the same bytes: nothing is left from the last use.
        assert_eq!(lzw.encode(&noise), data);
    }

    #[test]
    fn until_the_table_fills_the_codes_are_the_reference_encoders() {
        let mut lzw = Lzw::new();
        for (length, colours, seed) in [(3_000, 2, 11), (3_000, 5, 12), (2_000, 60, 13)] {
            let indices = picture(length, colours, seed);
            let data = lzw.encode(&indices);
            let mut reference = weezl::encode::Encoder::new(weezl::BitOrder::Lsb, data[0]);
            let expected = reference
                .encode(&indices)
                .expect("the reference compresses");
            assert_eq!(
                data[1..],
                expected[..],
                "length {length}, {colours} colours"
            );
        }
    }

    #[test]
    fn the_code_size_follows_the_largest_index() {
        let mut lzw = Lzw::new();
        assert_eq!(lzw.encode(&[0, 1, 0])[0], 2);
        assert_eq!(lzw.encode(&[4, 1])[0], 3);
        assert_eq!(lzw.encode(&[200])[0], 8);
        assert_eq!(lzw.encode(&[])[0], 2);
    }

    #[test]
    fn a_long_run_of_one_index_is_small() {
        let mut lzw = Lzw::new();
        let run = vec![3u8; 200_000];
        let data = lzw.encode(&run);
        assert_eq!(decoded(&data), run);
        assert!(data.len() < 2_000, "{} bytes", data.len());
    }
}
