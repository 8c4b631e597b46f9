//! Reading turns typed in chat: the interchange notation and forgiving chat forms.
//!
//! Input is read into one or two move patterns (what was said about each move: squares, piece
//! letters, markers), and each legal turn is matched against them. Letter case is the piece's
//! colour, but is ignored when that leaves only one turn. A turn is played only when complete:
//! a first move alone that needs a second gives [`MoveError::Ambiguous`] with the completions.

use super::Chesscala;
use super::board;
use super::movegen::{self, Mv, Turn};
use super::text;
use crate::rules::{MoveError, Position};

/// The most candidates an ambiguity lists before "and N more".
const MAX_CANDIDATES: usize = 12;
/// Longer input is not a turn; refusing it early keeps the work bounded.
const MAX_INPUT: usize = 200;

const HOW_TO: &str = "Write a sowing as `b1 RBN` (the stack, then its pieces in drop order), a \
capture as `Qe1xe2` or `Qxe2` (add `=r` to say which piece is taken), a king step as `K c1`, a \
double move as `b2-b4`, or `pass`; join the two moves of a turn with a comma or `then`.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Square(u8),
    Letter(char),
    Sow,
    Dash,
    Capture,
    Equals,
    At,
    Pass,
    Separator,
}

/// What the input says about one move.
#[derive(Debug, Default)]
struct Pattern {
    sow: bool,
    pass: bool,
    dash: bool,
    capture: bool,
    piece: Option<char>,
    squares: Vec<u8>,
    letters: Vec<char>,
    captured: Option<char>,
    landing: Option<u8>,
}

impl Pattern {
    fn is_empty(&self) -> bool {
        !self.sow && !self.pass && self.piece.is_none() && self.squares.is_empty()
    }
}

fn syntax(input: &str) -> MoveError {
    MoveError::Syntax {
        input: input.to_owned(),
        hint: HOW_TO.to_owned(),
    }
}

/// Splits the input into tokens, each with whether whitespace came before it.
fn tokenize(input: &str) -> Option<Vec<(Tok, bool)>> {
    let chars: Vec<char> = input.chars().collect();
    let mut out = Vec::new();
    let mut space = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let tok = match c {
            _ if c.is_whitespace() => {
                space = true;
                i += 1;
                continue;
            }
            ',' | ';' => Tok::Separator,
            '>' => Tok::Sow,
            '-' => Tok::Dash,
            ':' | '×' => Tok::Capture,
            '=' => Tok::Equals,
            '@' => Tok::At,
            _ if c.is_ascii_alphabetic() => {
                let end = (i..chars.len())
                    .find(|&j| !chars[j].is_ascii_alphabetic())
                    .unwrap_or(chars.len());
                let word: String = chars[i..end]
                    .iter()
                    .collect::<String>()
                    .to_ascii_lowercase();
                let keyword = match word.as_str() {
                    "sow" | "sows" => Some(Tok::Sow),
                    "pass" => Some(Tok::Pass),
                    "then" | "and" => Some(Tok::Separator),
                    "takes" => Some(Tok::Capture),
                    _ => None,
                };
                if let Some(tok) = keyword {
                    out.push((tok, space));
                } else {
                    for j in i..end {
                        let c = chars[j];
                        let lower = c.to_ascii_lowercase();
                        let digit = chars.get(j + 1).and_then(|d| d.to_digit(10));
                        let tok = if j + 1 == end && ('a'..='f').contains(&lower) && digit.is_some()
                        {
                            let rank = digit.filter(|d| (1..=8).contains(d))?;
                            if chars.get(j + 2).is_some_and(char::is_ascii_digit) {
                                return None;
                            }
                            let file = u32::from(lower) - u32::from('a');
                            Tok::Square(u8::try_from((rank - 1) * 6 + file).ok()?)
                        } else if lower == 'x' {
                            Tok::Capture
                        } else if board::from_letter(c).is_some() {
                            Tok::Letter(c)
                        } else {
                            return None;
                        };
                        out.push((tok, space && j == i));
                    }
                    // A square's digit was read with it.
                    let last = out.last().map(|(t, _)| *t);
                    i = if matches!(last, Some(Tok::Square(_))) {
                        end + 1
                    } else {
                        end
                    };
                    space = false;
                    continue;
                }
                i = end;
                space = false;
                continue;
            }
            _ => return None,
        };
        out.push((tok, space));
        space = false;
        i += 1;
    }
    Some(out)
}

/// Groups the tokens into move patterns.
fn patterns(tokens: &[(Tok, bool)]) -> Option<Vec<Pattern>> {
    let mut moves = vec![Pattern::default()];
    let mut expect_captured = false;
    let mut expect_landing = false;
    for (k, &(tok, space)) in tokens.iter().enumerate() {
        let next_glued = tokens
            .get(k + 1)
            .is_some_and(|&(t, s)| !s && matches!(t, Tok::Square(_) | Tok::Capture));
        let after_marker = k > 0
            && matches!(
                tokens[k - 1].0,
                Tok::Capture | Tok::Dash | Tok::At | Tok::Sow
            );
        let cur = moves.last_mut().expect("there is always a current move");
        // Does this token start a new move?
        let starts = match tok {
            Tok::Separator => {
                moves.push(Pattern::default());
                continue;
            }
            Tok::Letter(_) => {
                space
                    && !cur.is_empty()
                    && (next_glued || cur.captured.is_some() || cur.landing.is_some())
            }
            Tok::Square(_) => {
                space
                    && !cur.squares.is_empty()
                    && !after_marker
                    && !(cur.squares.len() == 1
                        && !cur.capture
                        && !cur.sow
                        && cur.letters.is_empty()
                        && matches!(cur.piece.map(|c| c.to_ascii_uppercase()), Some('K' | 'P')))
            }
            Tok::Pass => !cur.is_empty(),
            Tok::Sow => {
                space && !cur.is_empty() && !cur.squares.is_empty() && !cur.letters.is_empty()
            }
            _ => false,
        };
        if starts {
            moves.push(Pattern::default());
        }
        let cur = moves.last_mut().expect("there is always a current move");
        match tok {
            Tok::Letter(c) if expect_captured => {
                cur.captured = Some(c);
                expect_captured = false;
            }
            Tok::Letter(c) if cur.squares.is_empty() && cur.piece.is_none() && !cur.sow => {
                cur.piece = Some(c);
            }
            Tok::Letter(c) if !cur.squares.is_empty() && !cur.capture && !cur.dash => {
                cur.letters.push(c);
            }
            Tok::Square(sq) if expect_landing => {
                cur.landing = Some(sq);
                expect_landing = false;
            }
            Tok::Square(sq) if cur.letters.is_empty() && cur.squares.len() < 2 => {
                cur.squares.push(sq);
            }
            Tok::Sow => cur.sow = true,
            Tok::Pass => cur.pass = true,
            Tok::Dash => cur.dash = true,
            Tok::Capture => cur.capture = true,
            Tok::Equals => expect_captured = true,
            Tok::At => expect_landing = true,
            _ => return None,
        }
    }
    moves.retain(|m| !m.is_empty());
    (!expect_captured && !expect_landing && (1..=2).contains(&moves.len())).then_some(moves)
}

/// How a pattern fits a move: `None` if it does not, else whether every letter had the case
/// (colour) the move's text has.
fn fits(p: &Pattern, side: crate::rules::Color, mv: Mv) -> Option<bool> {
    let mut exact = true;
    let mut letter = |typed: char, actual: char| {
        exact &= typed == actual;
        typed.eq_ignore_ascii_case(&actual)
    };
    let ok = match mv {
        Mv::None => false,
        Mv::Pass => p.pass && p.squares.is_empty() && p.piece.is_none(),
        Mv::Sow { from, order, n } => {
            let order = &order[..usize::from(n)];
            !p.pass
                && !p.dash
                && !p.capture
                && p.piece.is_none()
                && p.captured.is_none()
                && p.landing.is_none()
                && p.squares == [from]
                && (p.letters.is_empty()
                    || (p.letters.len() == order.len()
                        && p.letters
                            .iter()
                            .zip(order)
                            .all(|(&t, &a)| letter(t, board::letter(a)))))
        }
        Mv::Step { from, to } | Mv::Double { from, to } => {
            let kind = if matches!(mv, Mv::Step { .. }) {
                board::KING
            } else {
                board::PAWN
            };
            !p.pass
                && !p.sow
                && !p.capture
                && p.letters.is_empty()
                && p.captured.is_none()
                && p.landing.is_none()
                && p.piece
                    .is_none_or(|c| letter(c, board::letter(board::code(side, kind))))
                && (p.squares == [from, to]
                    || p.squares == [to]
                    || (p.squares == [from] && !p.dash))
        }
        Mv::Capture {
            piece,
            from,
            target,
            captured,
            landing,
        } => {
            !p.pass
                && !p.sow
                && !p.dash
                && p.letters.is_empty()
                && (p.capture || p.piece.is_some() || p.squares.len() == 2)
                && p.piece.is_none_or(|c| letter(c, board::letter(piece)))
                && (p.squares == [from, target] || p.squares == [target])
                && p.captured
                    .is_none_or(|c| letter(c, board::letter(captured)))
                && p.landing.is_none_or(|sq| sq == landing)
        }
    };
    ok.then_some(exact)
}

/// Reads a turn in the interchange notation or a chat form (see the module docs).
pub fn parse_turn(pos: &Chesscala, input: &str) -> Result<Turn, MoveError> {
    if pos.result.is_some() {
        return Err(MoveError::GameOver);
    }
    if input.len() > MAX_INPUT {
        return Err(syntax(input));
    }
    let pats = tokenize(crate::rules::without_marks(input))
        .and_then(|t| patterns(&t))
        .ok_or_else(|| syntax(input))?;
    let side = pos.side;
    let turns = pos.legal_moves();
    let mut full: Vec<(Turn, bool)> = Vec::new();
    let mut partial: Vec<Turn> = Vec::new();
    for turn in &turns {
        let moves: Vec<Mv> = turn.moves().collect();
        if moves.len() == pats.len() {
            let fit: Option<Vec<bool>> = pats
                .iter()
                .zip(&moves)
                .map(|(p, &m)| fits(p, side, m))
                .collect();
            if let Some(exact) = fit {
                full.push((*turn, exact.iter().all(|&e| e)));
            }
        } else if pats.len() == 1 && moves.len() == 2 && fits(&pats[0], side, moves[0]).is_some() {
            partial.push(*turn);
        }
    }
    if full.iter().any(|&(_, exact)| exact) && full.len() > 1 {
        full.retain(|&(_, exact)| exact);
    }
    match full.as_slice() {
        [(turn, _)] => Ok(*turn),
        [] if partial.is_empty() => {
            let reason = pats
                .iter()
                .find_map(|p| match p.squares.as_slice() {
                    [from] if !p.capture && !p.dash && p.piece.is_none() => {
                        why_not_sown(pos, *from, &p.letters)
                    }
                    _ => None,
                })
                .map(|r| format!("{r} "))
                .unwrap_or_default();
            Err(MoveError::Illegal {
                input: input.to_owned(),
                hint: format!("{reason}{}", illegal_hint(pos, &turns)),
            })
        }
        [] => Err(ambiguous(pos, input, &partial)),
        _ => Err(ambiguous(
            pos,
            input,
            &full.iter().map(|&(t, _)| t).collect::<Vec<_>>(),
        )),
    }
}

fn ambiguous(pos: &Chesscala, input: &str, turns: &[Turn]) -> MoveError {
    let mut texts: Vec<String> = turns.iter().map(|t| pos.display_move(t)).collect();
    texts.sort();
    if texts.len() > MAX_CANDIDATES {
        let more = texts.len() - (MAX_CANDIDATES - 1);
        texts.truncate(MAX_CANDIDATES - 1);
        texts.push(format!("one of {more} more"));
    }
    MoveError::Ambiguous {
        input: input.to_owned(),
        candidates: texts,
    }
}

/// Why the stack on `from` cannot be sown (in the order `letters`, if given), if it can't.
fn why_not_sown(pos: &Chesscala, from: u8, letters: &[char]) -> Option<String> {
    let name = board::name(from);
    let stack = &pos.board[usize::from(from)];
    let (pieces, n) = stack.non_kings();
    let mine = pos.side;
    Some(if stack.is_empty() {
        format!("There is no stack on {name}.")
    } else if n == 0 {
        format!("{name} holds only kings, and kings are never sown.")
    } else if !stack.controlled_by(mine) {
        format!("{name} has more pieces of your opponent's than of yours, so only they may sow it.")
    } else if !movegen::may_start_on(pos, from) {
        format!("On White's first turn a sowing starts on file b, d, e or f, not on {name}.")
    } else if pos.drops(from, n).is_none() {
        format!("The circuit of {name} has no room for its pieces.")
    } else if !letters.is_empty() {
        let held: String = pieces[..n].iter().map(|&p| board::letter(p)).collect();
        format!("{name} holds {held}: give each of them once, in drop order, e.g. `{name} {held}`.")
    } else {
        return None;
    })
}

/// What is possible instead: the stacks that can be sown, the captures, the other moves.
fn illegal_hint(pos: &Chesscala, turns: &[Turn]) -> String {
    let mut sow = Vec::new();
    let mut captures = Vec::new();
    let mut others = Vec::new();
    for turn in turns {
        let mut text = String::new();
        text::write_move(&mut text, pos.side, turn.first);
        let list = match turn.first {
            Mv::Sow { from, .. } => {
                text = board::name(from);
                &mut sow
            }
            Mv::Capture { .. } => &mut captures,
            _ => &mut others,
        };
        if !list.contains(&text) {
            list.push(text);
        }
    }
    let mut parts = Vec::new();
    for (label, mut list) in [
        ("Stacks you can sow", sow),
        ("captures", captures),
        ("other moves", others),
    ] {
        if list.is_empty() {
            continue;
        }
        list.sort();
        let more = list.len().saturating_sub(MAX_CANDIDATES);
        list.truncate(MAX_CANDIDATES);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        parts.push(format!("{label}: {}{tail}", list.join(", ")));
    }
    if parts.is_empty() {
        return "There is no legal turn.".to_owned();
    }
    format!("{}.", parts.join("; "))
}
