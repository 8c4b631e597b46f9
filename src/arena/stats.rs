//! The numbers of a match: the score, the Elo difference with its 95% interval, and the
//! sequential probability ratio test (SPRT) that says when enough games were played.

use std::fmt;

/// Games won, drawn and lost, from the first engine's view.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Tally {
    /// Games the first engine won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games the first engine lost.
    pub losses: u32,
}

/// The z-value of a two-sided 95% interval.
const Z95: f64 = 1.959_964;

/// The expected score of a player `elo` points stronger.
fn expected(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference that gives the expected `score` (0 < score < 1).
fn elo_of(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

impl Tally {
    /// Games played.
    #[must_use]
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The first engine's score per game, 0 to 1 (0.5 before any game).
    #[must_use]
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.5,
            games => (f64::from(self.wins) + f64::from(self.draws) / 2.0) / f64::from(games),
        }
    }

    /// The variance of one game's score around the mean.
    fn variance(&self) -> f64 {
        let games = f64::from(self.games());
        if games == 0.0 {
            return 0.0;
        }
        let s = self.score();
        (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / games
    }

    /// The Elo difference (first engine minus second) and its 95% interval, or `None` while
    /// the score is 0 or 1 (the difference is then unbounded).
    #[must_use]
    pub fn elo(&self) -> Option<Elo> {
        let s = self.score();
        if self.games() == 0 || s <= 0.0 || s >= 1.0 {
            return None;
        }
        let error = (self.variance() / f64::from(self.games())).sqrt();
        let low = (s - Z95 * error).max(1e-6);
        let high = (s + Z95 * error).min(1.0 - 1e-6);
        Some(Elo {
            difference: elo_of(s),
            low: elo_of(low),
            high: elo_of(high),
        })
    }

    /// The log-likelihood ratio of H1 (the difference is `elo1`) against H0 (it is `elo0`),
    /// in the normal approximation of the generalised SPRT over game scores.
    #[must_use]
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        let variance = self.variance();
        if self.games() == 0 || variance <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (expected(elo0), expected(elo1));
        f64::from(self.games()) * (s1 - s0) * (2.0 * self.score() - s0 - s1) / (2.0 * variance)
    }
}

impl fmt::Display for Tally {
    /// `W - L - D` with the score, as match runners print it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} - {} - {}  [{:.3}] {}",
            self.wins,
            self.losses,
            self.draws,
            self.score(),
            self.games()
        )
    }
}

/// An Elo difference with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Elo {
    /// The most likely difference.
    pub difference: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
}

impl fmt::Display for Elo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Rounded to a tenth, with no sign on a zero (an even score's difference is -0).
        let tenth = |elo: f64| (elo * 10.0).round() / 10.0 + 0.0;
        write!(
            f,
            "{:.1} +/- {:.1} (95%: {:.1} to {:.1})",
            tenth(self.difference),
            tenth((self.high - self.low) / 2.0),
            tenth(self.low),
            tenth(self.high)
        )
    }
}

/// A sequential probability ratio test: H0 "the difference is `elo0`" against H1 "it is
/// `elo1`", with error rates `alpha` and `beta` of 5% each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprt {
    /// The Elo difference of H0.
    pub elo0: f64,
    /// The Elo difference of H1.
    pub elo1: f64,
}

/// What an SPRT says after some games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The ratio crossed the upper bound: H1 (the first engine is `elo1` stronger).
    H1,
    /// The ratio crossed the lower bound: H0.
    H0,
    /// Neither bound yet: more games are needed.
    Continue,
}

impl Sprt {
    /// The error rate of each kind.
    const ERROR: f64 = 0.05;

    /// The lower and upper bounds of the log-likelihood ratio.
    #[must_use]
    pub fn bounds(&self) -> (f64, f64) {
        let (alpha, beta) = (Sprt::ERROR, Sprt::ERROR);
        ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
    }

    /// The verdict for `tally`.
    #[must_use]
    pub fn verdict(&self, tally: &Tally) -> Verdict {
        let llr = tally.llr(self.elo0, self.elo1);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Verdict::H1
        } else if llr <= lower {
            Verdict::H0
        } else {
            Verdict::Continue
        }
    }

    /// The report line: `SPRT: llr 1.23, lbound -2.94, ubound 2.94 - ...`.
    #[must_use]
    pub fn line(&self, tally: &Tally) -> String {
        let (lower, upper) = self.bounds();
        let verdict = match self.verdict(tally) {
            Verdict::H1 => "H1 was accepted",
            Verdict::H0 => "H0 was accepted",
            Verdict::Continue => "no verdict yet",
        };
        format!(
            "SPRT: elo0 {}, elo1 {}: llr {:.2}, lbound {lower:.2}, ubound {upper:.2} - {verdict}",
            self.elo0,
            self.elo1,
            tally.llr(self.elo0, self.elo1)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(wins: u32, losses: u32, draws: u32) -> Tally {
        Tally {
            wins,
            draws,
            losses,
        }
    }

    #[test]
    fn a_score_gives_its_elo_difference_and_interval() {
        // 75 % is 190.8 Elo; the interval widens with fewer games and holds the difference.
        let elo = tally(55, 15, 10).elo().expect("a score between 0 and 1");
        assert!((elo.difference - 190.85).abs() < 0.1, "{elo}");
        assert!(
            elo.low < elo.difference && elo.difference < elo.high,
            "{elo}"
        );
        let fewer = tally(6, 1, 1).elo().expect("a score between 0 and 1");
        assert!(
            fewer.high - fewer.low > elo.high - elo.low,
            "{fewer} vs {elo}"
        );
        assert_eq!(tally(3, 0, 0).elo(), None);
        assert_eq!(tally(0, 2, 0).elo(), None);
    }

    #[test]
    fn an_even_score_prints_no_negative_zero() {
        let elo = tally(0, 0, 4).elo().expect("all draws score one half");
        assert_eq!(elo.to_string(), "0.0 +/- 0.0 (95%: 0.0 to 0.0)");
        let even = tally(5, 5, 2).elo().expect("an even score").to_string();
        assert!(even.starts_with("0.0 +/- "), "{even}");
    }

    #[test]
    fn the_sprt_accepts_the_hypothesis_the_games_support() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 20.0,
        };
        assert_eq!(sprt.verdict(&tally(0, 0, 0)), Verdict::Continue);
        assert_eq!(sprt.verdict(&tally(300, 100, 100)), Verdict::H1);
        assert_eq!(sprt.verdict(&tally(100, 300, 100)), Verdict::H0);
        assert_eq!(sprt.verdict(&tally(11, 10, 5)), Verdict::Continue);
        assert!(
            sprt.line(&tally(300, 100, 100))
                .ends_with("H1 was accepted")
        );
    }
}
