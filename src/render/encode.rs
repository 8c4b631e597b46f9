//! Indexed PNG written piece by piece: pictures are made of squares seen before, so the
//! compressed form of each square's rows is kept and copied into the next picture's stream
//! instead of being compressed again.
//!
//! Every row is filtered with PNG's Up filter (each byte minus the one above), so a row that
//! repeats the one above is all zeros. The filtered data is compressed as one deflate block
//! with the fixed Huffman codes of RFC 1951, using only runs: a byte, then a copy of the byte
//! before it (distance 1) for as long as it repeats. With fixed codes and runs that never
//! reach back past their own segment, a segment (a row of one square, or of a margin)
//! compresses to the same bits wherever it lies in the picture; only the zeros at its two ends
//! are joined with the neighbours' into longer runs when the stream is put together.
//!
//! The zlib checksum (Adler-32) of the whole is combined from each segment's sums, so kept
//! segments are not read again either.

/// The Adler-32 modulus.
const MOD_ADLER: u64 = 65_521;

/// The PNG filter type written before each row: Up.
const FILTER_UP: u8 = 2;

/// The longest copy deflate can express.
const MAX_RUN: usize = 258;

/// A fixed Huffman code, ready to write: its bits reversed (deflate writes codes from their
/// most significant bit, into a stream filled from each byte's least significant bit) and its
/// length.
#[derive(Clone, Copy)]
struct Code {
    bits: u32,
    len: u32,
}

const fn reversed(code: u32, len: u32) -> u32 {
    let mut out = 0;
    let mut i = 0;
    while i < len {
        out |= ((code >> i) & 1) << (len - 1 - i);
        i += 1;
    }
    out
}

/// The fixed literal/length code of a symbol (RFC 1951, 3.2.6).
const fn literal_code(symbol: u32) -> Code {
    let (code, len) = match symbol {
        0..=143 => (0x30 + symbol, 8),
        144..=255 => (0x190 + symbol - 144, 9),
        256..=279 => (symbol - 256, 7),
        _ => (0xc0 + symbol - 280, 8),
    };
    Code {
        bits: reversed(code, len),
        len,
    }
}

/// The literal codes of the 256 byte values.
const LITERALS: [Code; 256] = {
    let mut table = [Code { bits: 0, len: 0 }; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = literal_code(byte as u32);
        byte += 1;
    }
    table
};

/// The length codes' first lengths and extra bits, for symbols 257 to 285.
const LENGTH_BASES: [(u32, u32); 29] = [
    (3, 0),
    (4, 0),
    (5, 0),
    (6, 0),
    (7, 0),
    (8, 0),
    (9, 0),
    (10, 0),
    (11, 1),
    (13, 1),
    (15, 1),
    (17, 1),
    (19, 2),
    (23, 2),
    (27, 2),
    (31, 2),
    (35, 3),
    (43, 3),
    (51, 3),
    (59, 3),
    (67, 4),
    (83, 4),
    (99, 4),
    (115, 4),
    (131, 5),
    (163, 5),
    (195, 5),
    (227, 5),
    (258, 0),
];

/// The whole code of a copy of each length from 3 to 258 at distance 1: the length's symbol,
/// its extra bits, and distance code 0 (five zero bits, no extra bits).
const COPIES: [Code; MAX_RUN + 1] = {
    let mut table = [Code { bits: 0, len: 0 }; MAX_RUN + 1];
    let mut length = 3;
    while length <= MAX_RUN {
        let mut symbol = LENGTH_BASES.len() - 1;
        while LENGTH_BASES[symbol].0 > length as u32 {
            symbol -= 1;
        }
        let (base, extra) = LENGTH_BASES[symbol];
        let code = literal_code(257 + symbol as u32);
        table[length] = Code {
            bits: code.bits | ((length as u32 - base) << code.len),
            len: code.len + extra + 5,
        };
        length += 1;
    }
    table
};

/// The end-of-block code.
const END_OF_BLOCK: Code = literal_code(256);

/// Bits written from the least significant end, 64 at a time.
#[derive(Debug, Default)]
struct Bits {
    words: Vec<u64>,
    /// Bits not yet in `words`, and how many.
    pending: u64,
    count: u32,
}

impl Bits {
    fn put(&mut self, code: Code) {
        self.put_bits(u64::from(code.bits), code.len);
    }

    /// Writes the low `len` bits of `bits` (at most 64; the others must be zero).
    #[inline]
    fn put_bits(&mut self, bits: u64, len: u32) {
        if len == 0 {
            return;
        }
        self.pending |= bits << self.count;
        let total = self.count + len;
        if total >= 64 {
            self.words.push(self.pending);
            self.pending = if self.count == 0 {
                0
            } else {
                bits >> (64 - self.count)
            };
            self.count = total - 64;
        } else {
            self.count = total;
        }
    }

    /// Appends `len` bits kept in `words`.
    #[inline]
    fn append(&mut self, words: &[u64], len: u32) {
        let (whole, rest) = ((len / 64) as usize, len % 64);
        if self.count == 0 {
            self.words.extend_from_slice(&words[..whole]);
        } else {
            // Each whole word fills the pending bits up to a word and leaves its top behind.
            let count = self.count;
            self.words.reserve(whole);
            for &word in &words[..whole] {
                self.words.push(self.pending | word << count);
                self.pending = word >> (64 - count);
            }
        }
        if rest > 0 {
            self.put_bits(words[whole] & ((1 << rest) - 1), rest);
        }
    }

    /// The number of bits written.
    fn len(&self) -> u64 {
        self.words.len() as u64 * 64 + u64::from(self.count)
    }

    /// Pads to a whole word, so that what follows starts at a word of its own.
    fn align(&mut self) {
        if self.count > 0 {
            self.words.push(self.pending);
            self.pending = 0;
            self.count = 0;
        }
    }

    /// The bytes written, the last one padded with zero bits.
    #[cfg(test)]
    fn into_bytes(self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_to(&mut out);
        out
    }

    /// Appends the bytes written to `out`, the last one padded with zero bits.
    fn write_to(mut self, out: &mut Vec<u8>) {
        let bytes = self.len().div_ceil(8) as usize;
        self.align();
        let start = out.len();
        out.resize(start + bytes, 0);
        for (to, word) in out[start..].chunks_mut(8).zip(&self.words) {
            to.copy_from_slice(&word.to_le_bytes()[..to.len()]);
        }
    }
}

/// Writes a run of `count` copies of `byte`: the byte, then copies of it.
fn put_run(bits: &mut Bits, byte: u8, count: usize) {
    if count == 0 {
        return;
    }
    bits.put(LITERALS[usize::from(byte)]);
    let mut left = count - 1;
    while left >= 3 {
        // Never leave one or two behind after a copy when a shorter copy can take them.
        let take = match left {
            0..=MAX_RUN => left,
            _ if left - MAX_RUN < 3 => left - 3,
            _ => MAX_RUN,
        };
        bits.put(COPIES[take]);
        left -= take;
    }
    for _ in 0..left {
        bits.put(LITERALS[usize::from(byte)]);
    }
}

/// Writes `bytes` as runs.
fn put_runs(bits: &mut Bits, bytes: &[u8]) {
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        let count = run_length(&bytes[at..], byte);
        put_run(bits, byte, count);
        at += count;
    }
}

/// The sums of a piece of data that the Adler-32 of a stream is combined from: the sum of its
/// bytes, and the sum of each byte times the number of bytes from it to the end, inclusive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Sums {
    bytes: u32,
    weighted: u32,
}

impl Sums {
    /// The sums of `core` followed by `trail` zeros (zeros before it add nothing).
    fn of(core: &[u8], trail: usize) -> Sums {
        let n = core.len() as u64;
        let (mut bytes, mut weighted) = (0u64, 0u64);
        for (i, &b) in core.iter().enumerate() {
            bytes += u64::from(b);
            weighted += u64::from(b) * (n - i as u64);
        }
        weighted += trail as u64 * bytes;
        Sums {
            bytes: (bytes % MOD_ADLER) as u32,
            weighted: (weighted % MOD_ADLER) as u32,
        }
    }
}

/// One segment of filtered data, compressed: zeros, then its core (from its first non-zero
/// byte to its last), then zeros. The zeros at both ends are left out of the core's bits so
/// that they can join the neighbours' runs.
#[derive(Debug, Clone, Copy, Default)]
struct Segment {
    lead: u32,
    trail: u32,
    /// Where the core's bits start in [`Segments::words`], and how many there are.
    word: u32,
    len: u32,
    sums: Sums,
}

/// Filtered segments of equal length (rows of one square, or the pieces of a board's rows),
/// compressed and kept.
#[derive(Debug, Default)]
pub(crate) struct Segments {
    words: Vec<u64>,
    segments: Vec<Segment>,
    /// The filtered bytes of the segment being pushed.
    scratch: Vec<u8>,
}

impl Segments {
    /// Compresses and appends a segment of filtered data.
    fn push(&mut self, filtered: &[u8]) {
        let (lead, trail, core) = split(filtered);
        let mut bits = Bits {
            words: std::mem::take(&mut self.words),
            ..Bits::default()
        };
        let word = bits.words.len() as u32;
        put_runs(&mut bits, core);
        let len = (bits.len() - u64::from(word) * 64) as u32;
        bits.align();
        self.words = bits.words;
        self.segments.push(Segment {
            lead,
            trail,
            word,
            len,
            sums: Sums::of(core, trail as usize),
        });
    }

    /// Compresses and appends the segment `row`, Up-filtered below `above`.
    pub(crate) fn push_up(&mut self, above: &[u8], row: &[u8]) {
        let mut filtered = std::mem::take(&mut self.scratch);
        filtered.resize(row.len(), 0);
        up(above, row, &mut filtered);
        self.push(&filtered);
        self.scratch = filtered;
    }

    /// The segments pushed, without the room kept for pushing more.
    pub(crate) fn done(mut self) -> Segments {
        self.scratch = Vec::new();
        self.words.shrink_to_fit();
        self.segments.shrink_to_fit();
        self
    }

    /// How many segments there are.
    pub(crate) fn len(&self) -> usize {
        self.segments.len()
    }

    /// Decompresses segment `index` and undoes its filter: the row it was pushed from below
    /// `above`, into `row`.
    pub(crate) fn unpack(&self, index: usize, above: &[u8], row: &mut [u8]) {
        let segment = self.segments[index];
        let mut reader = Reader {
            words: &self.words,
            at: segment.word as usize * 64,
        };
        let end = reader.at + segment.len as usize;
        let mut at = segment.lead as usize;
        row[..at].fill(0);
        while reader.at < end {
            match reader.symbol() {
                literal @ 0..=255 => {
                    row[at] = literal as u8;
                    at += 1;
                }
                symbol => {
                    // A copy of the byte before, at distance 1 (distance code 0, no extra bits).
                    let (base, extra) = LENGTH_BASES[symbol as usize - 257];
                    let length = (base + reader.bits(extra)) as usize;
                    let distance = reader.code(5);
                    debug_assert_eq!(distance, 0);
                    let byte = row[at - 1];
                    row[at..at + length].fill(byte);
                    at += length;
                }
            }
        }
        row[at..].fill(0);
        for (byte, &a) in row.iter_mut().zip(above) {
            *byte = byte.wrapping_add(a);
        }
    }
}

/// Reads back the codes [`Segments`] writes: fixed Huffman codes, most significant bit first,
/// and extra bits, least significant first.
struct Reader<'a> {
    words: &'a [u64],
    /// The next bit's place.
    at: usize,
}

impl Reader<'_> {
    fn bit(&mut self) -> u32 {
        let bit = (self.words[self.at / 64] >> (self.at % 64)) & 1;
        self.at += 1;
        bit as u32
    }

    /// `n` extra bits, as a number.
    fn bits(&mut self, n: u32) -> u32 {
        (0..n).fold(0, |value, i| value | self.bit() << i)
    }

    /// `n` bits of a Huffman code.
    fn code(&mut self, n: u32) -> u32 {
        (0..n).fold(0, |code, _| code << 1 | self.bit())
    }

    /// The next literal/length symbol (RFC 1951, 3.2.6).
    fn symbol(&mut self) -> u32 {
        let code = self.code(7);
        if code < 0x18 {
            return 256 + code;
        }
        let code = code << 1 | self.bit();
        match code {
            0x30..0xc0 => code - 0x30,
            0xc0..0xc8 => 280 + code - 0xc0,
            _ => 144 + (code << 1 | self.bit()) - 0x190,
        }
    }
}

/// Up-filters `row` below `above` into `out`.
fn up(above: &[u8], row: &[u8], out: &mut [u8]) {
    assert!(above.len() == row.len() && out.len() == row.len());
    for ((out, &b), &a) in out.iter_mut().zip(row).zip(above) {
        *out = b.wrapping_sub(a);
    }
}

/// The zeros before, the zeros after, and the core between them (empty when all is zero, in
/// which case every zero counts as leading).
fn split(data: &[u8]) -> (u32, u32, &[u8]) {
    let lead = run_length(data, 0);
    if lead == data.len() {
        return (lead as u32, 0, &[]);
    }
    let trail = trailing_zeros(data);
    (lead as u32, trail as u32, &data[lead..data.len() - trail])
}

/// How many bytes `data` starts with that equal `byte`, compared eight at a time.
fn run_length(data: &[u8], byte: u8) -> usize {
    let pattern = u64::from_le_bytes([byte; 8]);
    let chunks = data.chunks_exact(8);
    let rest = chunks.remainder();
    let mut count = 0;
    for chunk in chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes")) ^ pattern;
        if word != 0 {
            return count + (word.trailing_zeros() / 8) as usize;
        }
        count += 8;
    }
    count + rest.iter().take_while(|&&b| b == byte).count()
}

/// How many zeros `data` ends with, compared eight at a time.
fn trailing_zeros(data: &[u8]) -> usize {
    let chunks = data.rchunks_exact(8);
    let rest = chunks.remainder();
    let mut count = 0;
    for chunk in chunks {
        let word = u64::from_be_bytes(chunk.try_into().expect("eight bytes"));
        if word != 0 {
            return count + (word.trailing_zeros() / 8) as usize;
        }
        count += 8;
    }
    count + rest.iter().rev().take_while(|&&b| b == 0).count()
}

/// The words of compressed data a stream starts with room for: a picture of 128 KB.
const STREAM_WORDS: usize = 16 * 1024;

/// A PNG's compressed image data being put together, row by row and segment by segment.
pub(crate) struct Stream {
    bits: Bits,
    /// Zeros written but not yet coded, so that they join the next segment's.
    zeros: usize,
    /// The Adler-32 sums, reduced at each row's end.
    s1: u64,
    s2: u64,
    /// Filtered bytes of a segment compressed afresh.
    scratch: Vec<u8>,
}

impl Stream {
    pub(crate) fn new() -> Stream {
        // Room for a picture of the usual size without growing.
        let mut bits = Bits {
            words: Vec::with_capacity(STREAM_WORDS),
            ..Bits::default()
        };
        // A final block with fixed Huffman codes.
        bits.put_bits(0b011, 3);
        Stream {
            bits,
            zeros: 0,
            s1: 1,
            s2: 0,
            scratch: Vec::new(),
        }
    }

    /// Starts a row: its filter type.
    pub(crate) fn row(&mut self) {
        self.flush_zeros();
        self.s1 %= MOD_ADLER;
        self.s2 %= MOD_ADLER;
        self.bits.put(LITERALS[usize::from(FILTER_UP)]);
        self.add(
            Sums {
                bytes: u32::from(FILTER_UP),
                weighted: u32::from(FILTER_UP),
            },
            1,
        );
    }

    /// Adds a kept segment of `width` bytes.
    #[inline]
    pub(crate) fn kept(&mut self, segments: &Segments, index: usize, width: usize) {
        let segment = segments.segments[index];
        self.zeros += segment.lead as usize;
        if segment.len > 0 {
            self.flush_zeros();
            let start = segment.word as usize;
            let words = &segments.words[start..start + (segment.len as usize).div_ceil(64)];
            self.bits.append(words, segment.len);
            self.zeros = segment.trail as usize;
        }
        self.add(segment.sums, width);
    }

    /// Adds the Up-filtered segment of `row` below `above`, compressed afresh.
    pub(crate) fn fresh(&mut self, above: &[u8], row: &[u8]) {
        let mut filtered = std::mem::take(&mut self.scratch);
        filtered.resize(row.len(), 0);
        up(above, row, &mut filtered);
        let (lead, trail, core) = split(&filtered);
        self.zeros += lead as usize;
        if !core.is_empty() {
            self.flush_zeros();
            put_runs(&mut self.bits, core);
            self.zeros = trail as usize;
        }
        self.add(Sums::of(core, trail as usize), filtered.len());
        self.scratch = filtered;
    }

    #[inline]
    fn add(&mut self, sums: Sums, width: usize) {
        self.s2 += width as u64 * self.s1 + u64::from(sums.weighted);
        self.s1 += u64::from(sums.bytes);
    }

    #[inline]
    fn flush_zeros(&mut self) {
        put_run(&mut self.bits, 0, self.zeros);
        self.zeros = 0;
    }

    /// The PNG: its header, palette, the image data and its end, written once into a buffer
    /// of its exact size.
    pub(crate) fn finish(mut self, (width, height): (u32, u32), palette: &[u8]) -> Vec<u8> {
        self.flush_zeros();
        self.bits.put(END_OF_BLOCK);
        let adler = ((self.s2 % MOD_ADLER) << 16 | (self.s1 % MOD_ADLER)) as u32;
        let mut header = [0; 13];
        header[..4].copy_from_slice(&width.to_be_bytes());
        header[4..8].copy_from_slice(&height.to_be_bytes());
        // 8 bits per pixel, indexed colour, deflate, adaptive filtering, no interlacing.
        header[8..].copy_from_slice(&[8, 3, 0, 0, 0]);
        // The zlib stream: its header, the deflate bits, the checksum.
        let zlib = 2 + self.bits.len().div_ceil(8) as usize + 4;
        let size = SIGNATURE.len() + 4 * CHUNK + header.len() + palette.len() + zlib;
        let mut png = Vec::with_capacity(size);
        png.extend_from_slice(SIGNATURE);
        chunk(&mut png, b"IHDR", |png| png.extend_from_slice(&header));
        chunk(&mut png, b"PLTE", |png| png.extend_from_slice(palette));
        chunk(&mut png, b"IDAT", |png| {
            // Deflate with a 32 KB window, no dictionary, fastest compression.
            png.extend_from_slice(&[0x78, 0x01]);
            self.bits.write_to(png);
            png.extend_from_slice(&adler.to_be_bytes());
        });
        chunk(&mut png, b"IEND", |_| {});
        debug_assert_eq!(png.len(), size);
        png
    }
}

/// The bytes every PNG starts with.
const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The bytes a chunk adds to its data: its length, its type and its checksum.
const CHUNK: usize = 12;

/// Appends a chunk of type `kind` whose data `write` appends.
fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], write: impl FnOnce(&mut Vec<u8>)) {
    let start = png.len();
    png.extend_from_slice(&[0; 4]);
    png.extend_from_slice(kind);
    write(png);
    let len = (png.len() - start - 8) as u32;
    png[start..start + 4].copy_from_slice(&len.to_be_bytes());
    let crc = crc32fast::hash(&png[start + 4..]);
    png.extend_from_slice(&crc.to_be_bytes());
}

/// The palette indices of an indexed PNG, decoded by the png crate with both its checksums
/// (each chunk's CRC and the image data's Adler-32) checked.
#[cfg(test)]
pub(super) fn decode(png: &[u8]) -> Vec<u8> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
    decoder.ignore_checksums(false);
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut out = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader
        .next_frame(&mut out)
        .expect("a frame with right checksums");
    out.truncate(info.buffer_size());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Palette indices as a PNG, every row compressed afresh.
    fn whole(indices: &[u8], (width, height): (u32, u32), palette: &[u8]) -> Vec<u8> {
        let mut stream = Stream::new();
        let zero = vec![0; width as usize];
        let mut above: &[u8] = &zero;
        for row in indices.chunks_exact(width as usize).take(height as usize) {
            stream.row();
            stream.fresh(above, row);
            above = row;
        }
        stream.finish((width, height), palette)
    }

    /// The zlib stream of a PNG written here, checked by an independent inflater that also
    /// checks the Adler-32 sum.
    fn zlib_data(png: &[u8]) -> Vec<u8> {
        let at = png.windows(4).position(|w| w == b"IDAT").expect("an IDAT");
        let len = u32::from_be_bytes(png[at - 4..at].try_into().expect("4 bytes")) as usize;
        miniz_oxide::inflate::decompress_to_vec_zlib(&png[at + 4..at + 4 + len])
            .expect("a valid zlib stream")
    }

    fn sample(width: usize, height: usize) -> Vec<u8> {
        (0..width * height)
            .map(|i| {
                let (x, y) = (i % width, i / width);
                match (x / 7 + y / 5) % 4 {
                    0 => 0,
                    1 => 9,
                    2 => ((x * 31 + y * 17) % 256) as u8,
                    _ => 200,
                }
            })
            .collect()
    }

    #[test]
    fn written_pictures_decode_to_their_indices() {
        let palette: Vec<u8> = (0..=255u8).flat_map(|i| [i, 255 - i, i / 2]).collect();
        for (width, height) in [(1, 1), (3, 2), (97, 41), (600, 300)] {
            let indices = sample(width, height);
            let png = whole(&indices, (width as u32, height as u32), &palette);
            assert_eq!(decode(&png), indices, "{width}x{height}");
            assert_eq!(
                zlib_data(&png).len(),
                (width + 1) * height,
                "{width}x{height}"
            );
        }
    }

    /// Long runs of every length around the copy limits, of zeros and of other bytes, and
    /// kept segments joined with fresh ones, come out as written.
    #[test]
    fn runs_and_kept_segments_decode_exactly() {
        let palette: Vec<u8> = (0..=255u8).flat_map(|i| [i, i, i]).collect();
        for run in (1..=300).chain([515, 516, 517, 518, 1000]) {
            let width = run + 3;
            let mut rows = vec![vec![0u8; width], vec![7u8; width], vec![0u8; width]];
            rows[1][0] = 1;
            rows[2][width - 1] = 5;
            let mut kept = Segments::default();
            let mut stream = Stream::new();
            let zero = vec![0; width];
            let mut above = &zero;
            for row in &rows {
                // Each row in two segments: the first compressed afresh, the second kept.
                let half = width / 2;
                kept.push_up(&above[half..], &row[half..]);
                stream.row();
                stream.fresh(&above[..half], &row[..half]);
                stream.kept(&kept, kept.len() - 1, width - half);
                above = row;
            }
            let png = stream.finish((width as u32, 3), &palette);
            assert_eq!(decode(&png), rows.concat(), "run of {run}");
            zlib_data(&png);
        }
    }

    /// Every segment unpacks to the row it was pushed from: rows of runs of every length
    /// around the copy limits, of every byte value, and all zeros.
    #[test]
    fn segments_unpack_to_their_rows() {
        for (width, height) in [(1, 3), (2, 4), (97, 41), (600, 30)] {
            let mut rows: Vec<Vec<u8>> = sample(width, height)
                .chunks_exact(width)
                .map(<[u8]>::to_vec)
                .collect();
            rows.push(vec![0; width]);
            rows.push((0..width).map(|x| x as u8).collect());
            let mut segments = Segments::default();
            let zero = vec![0; width];
            for (above, row) in std::iter::once(&zero).chain(&rows).zip(&rows) {
                segments.push_up(above, row);
            }
            let mut out = vec![1; width];
            for (index, (above, row)) in std::iter::once(&zero).chain(&rows).zip(&rows).enumerate()
            {
                segments.unpack(index, above, &mut out);
                assert_eq!(&out, row, "{width}x{height}, row {index}");
            }
        }
        for run in (1..=300).chain([515, 516, 517, 518, 1000]) {
            for byte in [0, 7, 143, 144, 255] {
                let mut row = vec![byte; run + 2];
                row[0] = 1;
                let zero = vec![0; row.len()];
                let mut segments = Segments::default();
                segments.push_up(&zero, &row);
                let mut out = vec![0; row.len()];
                segments.unpack(0, &zero, &mut out);
                assert_eq!(out, row, "a run of {run} of {byte}");
            }
        }
    }

    /// Bits written one code at a time and bits appended from kept words come out in order,
    /// at every bit position a stream can be at.
    #[test]
    fn bits_append_at_every_offset() {
        let pattern = |n: u32, seed: u32| -> Vec<bool> {
            (0..n).map(|i| (i * 7 + seed).is_multiple_of(3)).collect()
        };
        for before in 0..=130 {
            for kept in 0..=130 {
                let (first, second) = (pattern(before, 1), pattern(kept, 2));
                let mut source = Bits::default();
                for &bit in &second {
                    source.put_bits(u64::from(bit), 1);
                }
                source.align();
                let mut bits = Bits::default();
                for &bit in &first {
                    bits.put_bits(u64::from(bit), 1);
                }
                bits.append(&source.words, kept);
                bits.put_bits(1, 1);
                let bytes = bits.into_bytes();
                let read: Vec<bool> = (0..before + kept + 1)
                    .map(|i| bytes[(i / 8) as usize] >> (i % 8) & 1 == 1)
                    .collect();
                let mut expected = [first, second].concat();
                expected.push(true);
                assert_eq!(read, expected, "{before} bits, then {kept} appended");
            }
        }
    }

    /// Runs are counted eight bytes at a time: every length and offset counts exactly.
    #[test]
    fn runs_are_counted_exactly() {
        for len in 0..40 {
            for start in 0..=len {
                for end in start..=len {
                    let data: Vec<u8> = (0..len)
                        .map(|i| if (start..end).contains(&i) { 0 } else { 3 })
                        .collect();
                    let lead = data.iter().take_while(|&&b| b == 0).count();
                    let trail = data.iter().rev().take_while(|&&b| b == 0).count();
                    assert_eq!(run_length(&data, 0), lead, "{data:?}");
                    assert_eq!(trailing_zeros(&data), trail, "{data:?}");
                    let threes = data.iter().take_while(|&&b| b == 3).count();
                    assert_eq!(run_length(&data, 3), threes, "{data:?}");
                }
            }
        }
    }

    #[test]
    fn a_wrong_checksum_is_caught_by_the_checking_inflater() {
        let palette = vec![0; 3];
        let mut png = whole(&[0, 0, 0, 0], (2, 2), &palette);
        let at = png.windows(4).position(|w| w == b"IDAT").expect("an IDAT");
        let len = u32::from_be_bytes(png[at - 4..at].try_into().expect("4 bytes")) as usize;
        png[at + 4 + len - 1] ^= 1;
        let data = &png[at + 4..at + 4 + len];
        assert!(miniz_oxide::inflate::decompress_to_vec_zlib(data).is_err());
    }
}
