//! Why a request could not be done ([`ServiceError`]), in words for the user, and the
//! internal failures logged with a reference the user can quote.

use std::fmt;

use tracing::error;

use super::{
    Cap, ChallengeSummary, DAYS_PER_MOVE, GameSummary, MOST_LEAVE_DAYS, MOST_REMINDERS,
    TournamentError, caps, clock, notes,
};
use crate::rules::{MoveError, RulesError, SetupError};
use crate::store::StoreError;

/// Why a request could not be done, in words for the user.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The move text did not play.
    #[error("{error}")]
    Move {
        /// The game it was meant for.
        game: i64,
        /// What was wrong with it.
        error: MoveError,
    },
    #[error(
        "It is {to_move}'s turn in game #{game}, not yours. I'll let you know when it's your move."
    )]
    NotYourTurn { game: i64, to_move: String },
    #[error("It is not your turn in any of your games here.")]
    NotYourTurnAnywhere,
    #[error("You are not playing in game #{0}. Start your own with `challenge`.")]
    NotAPlayer(i64),
    #[error("There is no game #{0}. `games` lists yours.")]
    NoSuchGame(i64),
    /// A game of the user's that lives in another channel (`channel`, the platform's id);
    /// the chat layer names the channel.
    #[error("{}", elsewhere(*.id, *.over))]
    ElsewhereGame {
        id: i64,
        channel: String,
        over: bool,
    },
    #[error("You have no game going on here. Start one with `challenge @someone chak`.")]
    NoGame,
    #[error("Which game? {}. Add the game number, for example `{example}`.", list(.candidates))]
    WhichGame {
        candidates: Vec<GameSummary>,
        example: String,
    },
    #[error("Game #{game} is over ({result}).")]
    GameOver { game: i64, result: String },
    #[error(
        "Too late: the time in game #{game} ran out on {} and the game is over ({result}).",
        clock::format_utc(*.at)
    )]
    TimeRanOut { game: i64, result: String, at: i64 },
    #[error(
        "The game changed while you were moving (someone else's move arrived first). Look at the board and try again."
    )]
    Changed,
    #[error(
        "Game #{0} is on hold: its clock ran into a problem, and the game waits for whoever runs Pigeon here to look at it. Nothing was played; ask them to check game #{0}."
    )]
    OnHold(i64),
    #[error(
        "Game #{0} can't be aborted any more: both sides have moved. You can `resign` or offer a `draw`."
    )]
    TooLateToAbort(i64),
    #[error("There is no draw offer from your opponent to answer in game #{0}.")]
    NoDrawOffer(i64),
    #[error("You have already offered a draw in game #{0}; it's up to your opponent now.")]
    DrawAlreadyOffered(i64),
    #[error("No draw can be claimed in game #{0} now. You can offer one with `draw`.")]
    NoClaim(i64),
    #[error("A rematch needs a finished game; game #{0} is still on.")]
    RematchTooEarly(i64),
    #[error("There is no challenge #{0}.")]
    NoSuchChallenge(i64),
    #[error("There is no open challenge for you here. Send one with `challenge @someone chak`.")]
    NoChallenge,
    /// Several challenges fit; `example` is the command with the first one's number.
    #[error("Which challenge? {}. Add its number, for example `{example}`.", list(.candidates))]
    WhichChallenge {
        candidates: Vec<ChallengeSummary>,
        example: String,
    },
    #[error("Challenge #{0} has expired. Send a new one with `challenge`.")]
    ChallengeExpired(i64),
    #[error("Challenge #{id} is no longer open (it was {status}).")]
    ChallengeClosed { id: i64, status: String },
    #[error("Challenge #{id} is for {name}, not for you.")]
    NotYourChallenge { id: i64, name: String },
    #[error("Only {name}, who sent challenge #{id}, can cancel it.")]
    NotYourChallengeToCancel { id: i64, name: String },
    #[error("You can't accept your own challenge #{0}. `cancel` takes it back.")]
    OwnChallenge(i64),
    #[error(
        "The only challenge open here for you is your own, #{id}: it waits for {} to accept \
         it. `cancel {id}` takes it back.", .to.as_deref().unwrap_or("someone here")
    )]
    OnlyOwnChallenge { id: i64, to: Option<String> },
    #[error(
        "{name} has already challenged you to this game here: challenge #{id}. `accept {id}` \
         to play it."
    )]
    ChallengedYouAlready { id: i64, name: String },
    #[error("Game #{game} already has its rematch: game #{rematch}.")]
    RematchStarted { game: i64, rematch: i64 },
    #[error(
        "I don't know a player called \"{name}\" here.{} Mention them with @ to be sure.",
        did_you_mean(.candidates)
    )]
    NoSuchPlayer {
        name: String,
        candidates: Vec<String>,
    },
    #[error("{count} players here are called \"{name}\": mention the one you mean with @.")]
    SeveralPlayers { name: String, count: usize },
    #[error(
        "You can't challenge yourself. Name someone else, or leave the name out for an open challenge."
    )]
    SelfChallenge,
    #[error("Days per move must be from {} to {}.", DAYS_PER_MOVE.start(), DAYS_PER_MOVE.end())]
    BadDays,
    #[error(
        "Games against me are always casual: they don't change ratings. Challenge me again without `rated`."
    )]
    RatedBotGame,
    #[error(
        "Levels are for games against me (`challenge @{bot} chak level 3`); a game between people has none."
    )]
    LevelForPerson { bot: String },
    #[error("{}", caps::over_cap_text(*.cap, *.limit, .who.as_deref()))]
    OverCap {
        cap: Cap,
        limit: i64,
        /// The player over the cap when it is not the one asking.
        who: Option<String>,
    },
    #[error(
        "You have already challenged {name} to this game: challenge #{id} is still open. Wait \
         for an answer, or `cancel {id}` first."
    )]
    AlreadyChallenged { id: i64, name: String },
    #[error("The cap on {cap} goes from 1 to {most}.")]
    BadCap { cap: Cap, most: i64 },
    #[error(
        "It's your move in game #{0}: a day can be given to your opponent while they are to move."
    )]
    GiveOnYourMove(i64),
    #[error(
        "The clock of game #{0} is not running (a game against me, or a player on leave): \
         there is no time to give."
    )]
    NoClockToGive(i64),
    #[error("A leave lasts at least a day: for example `vacation 7d` (or `vacation 2d 12h`).")]
    LeaveTooShort,
    #[error(
        "You are on leave already, until {}. `vacation end` ends it.",
        clock::format_utc(*.until)
    )]
    OnLeaveAlready { until: i64 },
    #[error(
        "You have {} of leave left this year (of {allowance} days): ask for less, for \
         example `vacation 3d`.",
        clock::format_duration(*.left)
    )]
    NotEnoughLeave { left: i64, allowance: i64 },
    #[error("You are not on leave. `vacation 7d` starts a week of it.")]
    NotOnLeave,
    #[error(
        "Reminders go from a minute to a week before the deadline, at most \
         {MOST_REMINDERS} of them: for example `settings reminders 24h 4h 1h`."
    )]
    BadReminders,
    #[error("Move {index} of the line in game #{game} does not play: {error}")]
    BadLine {
        game: i64,
        index: usize,
        error: MoveError,
    },
    #[error(
        "That line in game #{game} goes through a forced pass; store it only up to the move \
         before."
    )]
    LineThroughPass { game: i64 },
    #[error("Game #{0} is against me: I answer at once, so there is nothing to prepare.")]
    ConditionalAgainstBot(i64),
    #[error(
        "It's your move in game #{0}: conditional moves answer your opponent's next move. Play \
         your move first, then `if <their move> then <your reply>`."
    )]
    ConditionalOnYourMove(i64),
    #[error(
        "A line in game #{game} is your opponent's move and your reply, in pairs: `if e5 then \
         Vd8`, or `if e5 Vd8 f4 Je6`."
    )]
    LineShape { game: i64 },
    #[error("A line in game #{game} may have at most {most} moves.")]
    LineTooLong { game: i64, most: usize },
    #[error(
        "You have {most} lines in game #{game} already, the most there can be. `conditional \
         clear` drops them."
    )]
    TooManyLines { game: i64, most: usize },
    #[error("You have that line in game #{game} already (`conditional list` shows them).")]
    LineKnown { game: i64 },
    #[error(
        "After {after} another of your lines in game #{game} replies differently. `conditional \
         clear` drops your lines, to enter them again."
    )]
    LineDisagrees { game: i64, after: String },
    #[error("A digest time is written like `08:00` (24-hour clock).")]
    BadDigestTime,
    #[error(
        "I don't know that time zone. Name it as the IANA database does, for example \
         `Europe/Berlin`, `America/New_York` or `UTC`."
    )]
    UnknownTimeZone,
    #[error("The leave allowance goes from 0 to {MOST_LEAVE_DAYS} days a year.")]
    BadLeaveDays,
    #[error(
        "{name} still has nearly all their time in game #{game}; you can give a day once less \
         than the full time per move minus an hour is left."
    )]
    TimeStillFull { game: i64, name: String },
    #[error("Only the community's managers can change that here.")]
    NotAManager,
    #[error(
        "Pigeon cannot save right now; nothing was changed. Please try again in a few minutes."
    )]
    CannotSave,
    /// A rule set the game does not have.
    #[error("{0}")]
    Rules(#[from] RulesError),
    /// A position a game cannot start from.
    #[error("{0} Positions are written as `{example}`.", example = .1)]
    Setup(SetupError, String),
    #[error(
        "Games from a position are casual in this community: challenge again without `rated` \
         (its managers can allow rated ones with `setups rated`)."
    )]
    RatedSetup,
    #[error("A note has at most {max} characters; yours has {len}. Split it into several notes.", max = notes::NOTE_LIMIT)]
    NoteTooLong { len: usize },
    #[error("What should the note say? For example `note #{0} keep the knight on f3`.")]
    EmptyNote(i64),
    #[error("Which moves should I try? For example `try #{0} e4 e5`.")]
    NothingToTry(i64),
    #[error(
        "Takebacks are off in game #{0}: its challenge said `notakebacks`, or it is rated and \
         its challenge did not say `takebacks`."
    )]
    NoTakebacks(i64),
    #[error("You have no move to take back in game #{0} yet.")]
    NothingToTakeBack(i64),
    #[error(
        "You have already asked to take back your move in game #{0}; it's up to your opponent now."
    )]
    TakebackAlreadyAsked(i64),
    #[error("There is no takeback request from your opponent to answer in game #{0}.")]
    NoTakebackRequest(i64),
    #[error(
        "Game #{game} is still being played, and a game is analysed only once it is over: {}",
        if *.by_itself {
            "its analysis is posted here when it ends."
        } else {
            "ask again then."
        }
    )]
    AnalysisTooEarly {
        game: i64,
        /// Whether the game gets its analysis by itself when it ends (a game between people).
        by_itself: bool,
    },
    #[error("Game #{0} ended before both sides had moved: there is nothing to analyse.")]
    NothingToAnalyse(i64),
    #[error(
        "Game #{0} is a tournament game: it can't be aborted. You can `resign`, or offer a `draw`."
    )]
    TournamentAbort(i64),
    /// A tournament request that could not be done.
    #[error(transparent)]
    Tournament(#[from] TournamentError),
    #[error("Something went wrong on my side (reference {0}). Please try again later.")]
    Internal(String),
}

/// " Did you mean a, b or c?", or nothing when there is nothing close.
#[must_use]
pub fn did_you_mean(candidates: &[String]) -> String {
    if candidates.is_empty() {
        String::new()
    } else {
        format!(" Did you mean {}?", crate::rules::list_or(candidates))
    }
}

fn elsewhere(id: i64, over: bool) -> String {
    if over {
        format!("Game #{id} was played in another channel: ask there.")
    } else {
        format!("Game #{id} is being played in another channel: answer there.")
    }
}

fn list<T: fmt::Display>(items: &[T]) -> String {
    let texts: Vec<String> = items.iter().map(ToString::to_string).collect();
    texts.join("; ")
}

impl From<StoreError> for ServiceError {
    fn from(error: StoreError) -> ServiceError {
        match error {
            StoreError::Conflict => ServiceError::Changed,
            StoreError::Unavailable(error) => {
                error!(%error, "the database cannot save");
                ServiceError::CannotSave
            }
            other => internal(&other),
        }
    }
}

/// Logs an internal failure with a short reference the user can quote.
pub(super) fn internal(error: &dyn fmt::Display) -> ServiceError {
    let reference = format!("{:06x}", fastrand::u32(..0x100_0000));
    error!(reference, %error, "internal error");
    ServiceError::Internal(reference)
}
