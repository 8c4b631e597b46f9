//! Swiss pairings: every tournament of `tests/data/pairings/` (made and paired by bbpPairings,
//! the FIDE-endorsed Dutch system program) paired exactly as the reference did, and the
//! `pigeon pair dutch` command.

use pigeon::pairing::{self, trf};

use crate::cli::pigeon;
use crate::common::{data_path, read_data};

/// The names `NNN` of the vectors, in order.
fn vectors() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data_path("pairings"))
        .expect("the pairing vectors are there")
        .filter_map(|entry| {
            let name = entry.expect("a directory entry").file_name();
            name.to_str()?.strip_suffix(".trf").map(String::from)
        })
        .collect();
    names.sort();
    names
}

/// The pairing of one vector, as the command prints it, or the error.
fn paired(name: &str) -> String {
    let text = read_data(&format!("pairings/{name}.trf"));
    match trf::read(&text) {
        Ok(tournament) => match pairing::pair_dutch(&tournament) {
            Ok(pairs) => pairing::format_pairs(&pairs),
            Err(error) => format!("error: {error}"),
        },
        Err(error) => format!("error: {error}"),
    }
}

#[test]
fn every_vector_is_paired_as_the_reference_pairs_it() {
    let names = vectors();
    assert_eq!(names.len(), 150, "all the vectors are there");
    let mismatches: Vec<String> = names
        .iter()
        .filter_map(|name| {
            let expected = read_data(&format!("pairings/{name}.out"));
            let got = paired(name);
            (got != expected).then(|| format!("{name}:\nexpected\n{expected}got\n{got}"))
        })
        .collect();
    assert!(
        mismatches.is_empty(),
        "{} of {} vectors differ:\n{}",
        mismatches.len(),
        names.len(),
        mismatches.join("\n")
    );
}

#[test]
fn pair_dutch_prints_the_next_round() {
    let path = data_path("pairings/000.trf");
    let output = pigeon(&["pair", "dutch", path.to_str().expect("a UTF-8 path")], "");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        read_data("pairings/000.out")
    );
}

#[test]
fn pair_dutch_refuses_a_bad_file_with_the_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("bad.trf");
    let good = read_data("pairings/057.trf");
    let bad = good.replacen(" 6 w 1", " 6 x 1", 1);
    std::fs::write(&path, bad).expect("the file is written");
    let output = pigeon(&["pair", "dutch", path.to_str().expect("a UTF-8 path")], "");
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad.trf: line 2: round 1") && stderr.contains("colour"),
        "{stderr}"
    );

    let missing = dir.path().join("missing.trf");
    let output = pigeon(
        &["pair", "dutch", missing.to_str().expect("a UTF-8 path")],
        "",
    );
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("missing.trf"));
}

#[test]
fn pair_dutch_refuses_a_round_that_cannot_be_paired() {
    // Two players who already met: no pairing without a rematch.
    let text = "\
012 Two players
001    1      Player One                        2000                             1.0    1     2 w 1
001    2      Player Two                        1900                             0.0    2     1 b 0
XXR 3
";
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("two.trf");
    std::fs::write(&path, text).expect("the file is written");
    let output = pigeon(&["pair", "dutch", path.to_str().expect("a UTF-8 path")], "");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot pair the next round"), "{stderr}");
}
