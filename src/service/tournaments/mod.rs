//! Correspondence tournaments: a round robin (single or double) or a Swiss of N rounds in one
//! game. Every tournament game is an ordinary game marked with its tournament and round.
//!
//! - Round robin: at the start every game of the Berger table is created at once, each with
//!   its own clock; standings go out each day on which games finished, and at the end.
//! - Swiss: rounds one after another, paired by the FIDE Dutch system (byes included); the
//!   clocks pair round N+1 once every game of round N has ended. With a round deadline, the
//!   games still going when it passes are adjudicated drawn (unrated), and the next round is
//!   paired.
//! - A withdrawal forfeits the player's unfinished games (their opponents win, unrated;
//!   forfeits count for points, not for tie-breaks) and, in a Swiss, leaves them out of later
//!   rounds; the standings mark them.
//!
//! Starting a tournament and pairing a round are claimed in the database in the transaction
//! that records them (`Database::record_round`), so they happen once however many processes
//! run the clocks (`rounds.rs`). Standings and tie-breaks are in `standings.rs`.

mod page;
mod rounds;
pub mod standings;

use std::fmt;

use super::{
    DAY, DAYS_PER_MOVE, DEFAULT_DAYS, Image, Place, Service, ServiceError, User, internal,
};
use crate::render::{Table, Theme, render_table};
use crate::rules::Variant;
use crate::store::{EntrantRow, NewTournament, TournamentRow};

pub use page::{TournamentGame, TournamentPage};
pub use standings::{TieBreaks, points_text, tie_break_text};

/// Fewest players a tournament starts with.
pub const MIN_PLAYERS: usize = 3;
/// Most players a tournament may have.
pub const MOST_PLAYERS: i64 = 64;
/// Most rounds of a Swiss.
pub const MOST_ROUNDS: i64 = 15;
/// Longest tournament name, in characters.
pub const LONGEST_NAME: usize = 40;
/// Latest start a tournament may be given, from now: a year.
pub const LATEST_START: i64 = 366 * DAY;

/// A tournament's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Everyone plays everyone once.
    RoundRobin,
    /// Everyone plays everyone twice, once with each colour.
    Double,
    /// Rounds paired by the Dutch system.
    Swiss,
}

impl Format {
    /// How it is stored.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Format::RoundRobin => "roundrobin",
            Format::Double => "double",
            Format::Swiss => "swiss",
        }
    }

    /// The format stored as `key`.
    #[must_use]
    pub fn from_key(key: &str) -> Option<Format> {
        match key {
            "roundrobin" => Some(Format::RoundRobin),
            "double" => Some(Format::Double),
            "swiss" => Some(Format::Swiss),
            _ => None,
        }
    }

    /// The tie-breaks of its standings.
    #[must_use]
    pub fn tie_breaks(self) -> TieBreaks {
        match self {
            Format::Swiss => TieBreaks::Swiss,
            Format::RoundRobin | Format::Double => TieBreaks::RoundRobin,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::RoundRobin => "round robin",
            Format::Double => "double round robin",
            Format::Swiss => "Swiss",
        })
    }
}

/// When a tournament starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StartTime {
    /// When its organiser starts it.
    Manual,
    /// This long after its creation, in seconds.
    In(i64),
    /// At this Unix time.
    At(i64),
}

/// What `tournament create` asks for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TournamentRequest {
    pub name: String,
    pub variant: Variant,
    pub format: Format,
    /// Swiss: the number of rounds.
    pub rounds: Option<i64>,
    pub days: Option<i64>,
    /// Rated unless said otherwise.
    pub rated: Option<bool>,
    pub start: StartTime,
    pub max_players: Option<i64>,
    /// Swiss: days a round may last.
    pub round_days: Option<i64>,
}

/// Where a tournament stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TournamentState {
    Open,
    Running,
    Finished,
    Cancelled,
}

/// A player of a tournament.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Entrant {
    pub player_id: i64,
    /// Their chat account (for mentions).
    pub user: User,
    /// The start rank (1 the top seed), once it started.
    pub seed: Option<i64>,
    /// The round in which they withdrew.
    pub withdrawn: Option<i64>,
    /// Whether their withdrawal annulled all their results (a round robin left before half
    /// of their games were played).
    pub annulled: bool,
}

/// A tournament as players see it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TournamentInfo {
    pub id: i64,
    pub name: String,
    pub variant: Variant,
    pub format: Format,
    /// Swiss: planned; round robins: the rounds of the table once started.
    pub rounds: i64,
    pub days_per_move: i64,
    pub rated: bool,
    pub max_players: Option<i64>,
    pub starts_at: Option<i64>,
    pub round_days: Option<i64>,
    pub round_deadline: Option<i64>,
    pub state: TournamentState,
    pub organiser: String,
    pub organiser_id: i64,
    pub current_round: i64,
    pub players: Vec<Entrant>,
    /// Where its notices go: its thread, else where it was created.
    pub place: Place,
    /// The address of its web page, when the pages are served.
    pub page: Option<String>,
}

impl TournamentInfo {
    /// The entrant with this player id.
    #[must_use]
    pub fn entrant(&self, player_id: i64) -> Option<&Entrant> {
        self.players.iter().find(|e| e.player_id == player_id)
    }
}

impl fmt::Display for TournamentInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#{} \"{}\" ({}, {})",
            self.id, self.name, self.variant, self.format
        )
    }
}

/// One game of a round, as announced.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pairing {
    pub game: i64,
    pub white: User,
    pub black: User,
    /// The result, once the game is over.
    pub result: Option<String>,
}

/// A round's games and bye.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RoundGames {
    pub round: i64,
    pub games: Vec<Pairing>,
    /// Who has the pairing-allocated bye (a point, no game).
    pub bye: Option<User>,
}

/// One line of a standings table.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StandingLine {
    pub rank: usize,
    /// The player's index in the tournament's players.
    pub player: usize,
    pub name: String,
    /// Tenths of a point.
    pub points: u32,
    pub games: u32,
    /// Hundredths, in the order of the table's tie-break names.
    pub tie_breaks: Vec<u32>,
    pub withdrawn: bool,
    /// Withdrawn with all results annulled: listed last, without a rank of their own.
    pub annulled: bool,
}

impl StandingLine {
    /// What the table says after the name of a player who withdrew.
    #[must_use]
    pub fn withdrawal_note(&self) -> &'static str {
        match (self.withdrawn, self.annulled) {
            (_, true) => " (withdrawn: results annulled)",
            (true, false) => " (withdrawn: games left forfeited)",
            (false, false) => "",
        }
    }
}

/// A tournament's standings.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Standings {
    pub tournament: TournamentInfo,
    pub tie_breaks: TieBreaks,
    pub lines: Vec<StandingLine>,
    /// Rounds whose games have all ended (round robins: games finished of all).
    pub complete_rounds: i64,
    pub games_finished: usize,
    pub games_total: usize,
}

/// What a withdrawal did.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Withdrawal {
    pub tournament: TournamentInfo,
    pub player: String,
    /// The unfinished games it ended, by number: forfeited to the opponents, or annulled.
    pub ended: Vec<i64>,
    /// Whether all the player's results were annulled (a round robin left before half of
    /// their games were played), else their unfinished games were forfeited.
    pub annulled: bool,
}

/// Why a tournament request could not be done, in words for the user.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum TournamentError {
    #[error(
        "Only this community's managers can create tournaments here (they can let everyone \
         with `tournament creators anyone`)."
    )]
    CreatorsOnly,
    #[error("Only {organiser}, who organises tournament #{id}, or a manager here can do that.")]
    OrganiserOnly { id: i64, organiser: String },
    #[error("There is no tournament #{0} here. `tournaments` lists this community's.")]
    NoSuchTournament(i64),
    #[error("There is no tournament here {0}. `tournament create` starts one.")]
    NoTournament(&'static str),
    #[error(
        "Which tournament? {}. Add its number, for example `{example}`.",
        .candidates.join("; ")
    )]
    WhichTournament {
        candidates: Vec<String>,
        example: String,
    },
    #[error("You are in tournament #{0} already. It starts when its organiser starts it.")]
    AlreadyJoined(i64),
    #[error(
        "Tournament #{0} has started: players can join only before the start. Watch it with \
         `tournament standings {0}`."
    )]
    AlreadyStarted(i64),
    #[error("Tournament #{0} is over. `tournament standings {0}` shows how it ended.")]
    Over(i64),
    #[error("Tournament #{id} is full ({max} players).")]
    Full { id: i64, max: i64 },
    #[error("You are not in tournament #{0}. `tournament join {0}` enters it.")]
    NotJoined(i64),
    #[error(
        "Tournament #{0} has started, so leaving it is withdrawing: your unfinished games \
         there are forfeited (in a round robin before half of your games are played, all \
         your results are annulled). `tournament withdraw {0}` does it."
    )]
    LeaveStarted(i64),
    #[error("Tournament #{0} has not started: `tournament leave {0}` takes you out of it.")]
    WithdrawOpen(i64),
    #[error("You have withdrawn from tournament #{0} already.")]
    Withdrawn(i64),
    #[error(
        "Tournament #{id} has {}; it needs at least {MIN_PLAYERS} to start. \
         Players join with `tournament join {id}`.",
        super::clock::plural(count, "player")
    )]
    TooFewPlayers { id: i64, count: usize },
    #[error("Tournament #{0} has not started yet: there are no standings before round 1.")]
    NotStarted(i64),
    #[error(
        "A Swiss needs its number of rounds, from 1 to {MOST_ROUNDS}: for example `swiss 5 rounds`."
    )]
    BadRounds,
    #[error("A tournament has from {MIN_PLAYERS} to {MOST_PLAYERS} players: for example `max 8`.")]
    BadMaxPlayers,
    #[error(
        "Give the tournament a name of 1 to {LONGEST_NAME} characters, in quotes: `tournament create \"Autumn Chak\" chak swiss 5 rounds`."
    )]
    BadName,
    #[error("The start time has passed: give a later one, like `start in 2d`.")]
    StartPassed,
    #[error("A tournament starts within {} days: give a nearer start, like `start in 2d`.", LATEST_START / DAY)]
    StartTooFar,
    #[error("A round deadline is for a Swiss, from 1 to 60 days: for example `round 10 days`.")]
    BadRoundDays,
}

fn state_of(key: &str) -> TournamentState {
    match key {
        "open" => TournamentState::Open,
        "running" => TournamentState::Running,
        "finished" => TournamentState::Finished,
        _ => TournamentState::Cancelled,
    }
}

/// Where a tournament's notices go: its thread, else where it was created.
fn place_of(row: &TournamentRow) -> Place {
    Place::stored(
        &row.platform,
        row.thread.as_deref().unwrap_or(&row.channel),
        Some(&row.community),
    )
}

impl Service {
    /// A stored tournament with its players, as players see it.
    pub(super) async fn tournament_info(
        &self,
        row: &TournamentRow,
    ) -> Result<TournamentInfo, ServiceError> {
        let entrants = self.store.entrants(row.id).await?;
        self.info_with(row, &entrants).await
    }

    async fn info_with(
        &self,
        row: &TournamentRow,
        entrants: &[EntrantRow],
    ) -> Result<TournamentInfo, ServiceError> {
        let variant = Variant::from_name(&row.game_key)
            .ok_or_else(|| internal(&format!("tournament #{} has an unknown game", row.id)))?;
        let format = Format::from_key(&row.format)
            .ok_or_else(|| internal(&format!("tournament #{} has an unknown format", row.id)))?;
        Ok(TournamentInfo {
            id: row.id,
            name: row.name.clone(),
            variant,
            format,
            rounds: row.rounds,
            days_per_move: row.days_per_move,
            rated: row.rated,
            max_players: row.max_players,
            starts_at: row.starts_at,
            round_days: row.round_days,
            round_deadline: row.round_deadline,
            state: state_of(&row.state),
            organiser: self.name_of(row.organiser_id).await?,
            organiser_id: row.organiser_id,
            current_round: row.current_round,
            players: entrants
                .iter()
                .map(|e| Entrant {
                    player_id: e.player_id,
                    user: User::new(&row.platform, &e.platform_id, &e.display_name),
                    seed: e.seed.map(|seed| seed + 1),
                    withdrawn: e.withdrawn_round,
                    annulled: e.annulled,
                })
                .collect(),
            place: place_of(row),
            page: self.tournament_page_url(row),
        })
    }

    /// Creates a tournament here, open for joining. Who may create one is the community's
    /// setting (`tournament creators`): its managers (the default) or anyone.
    ///
    /// # Errors
    /// Not allowed here, or a request out of range.
    pub async fn create_tournament(
        &self,
        place: &Place,
        user: &User,
        manager: bool,
        request: &TournamentRequest,
    ) -> Result<TournamentInfo, ServiceError> {
        if !manager && !self.anyone_creates(place).await? {
            return Err(TournamentError::CreatorsOnly.into());
        }
        let name = request.name.trim();
        if name.is_empty() || name.chars().count() > LONGEST_NAME {
            return Err(TournamentError::BadName.into());
        }
        let days = request.days.unwrap_or(DEFAULT_DAYS);
        if !DAYS_PER_MOVE.contains(&days) {
            return Err(ServiceError::BadDays);
        }
        let rounds = match request.format {
            Format::Swiss => match request.rounds {
                Some(rounds) if (1..=MOST_ROUNDS).contains(&rounds) => rounds,
                _ => return Err(TournamentError::BadRounds.into()),
            },
            Format::RoundRobin | Format::Double => 0,
        };
        if request
            .max_players
            .is_some_and(|max| !(MIN_PLAYERS as i64..=MOST_PLAYERS).contains(&max))
        {
            return Err(TournamentError::BadMaxPlayers.into());
        }
        if let Some(days) = request.round_days
            && (request.format != Format::Swiss || !(1..=60).contains(&days))
        {
            return Err(TournamentError::BadRoundDays.into());
        }
        let now = self.now();
        let starts_at = match request.start {
            StartTime::Manual => None,
            StartTime::In(span) if span <= 0 => return Err(TournamentError::StartPassed.into()),
            StartTime::In(span) => Some(now.saturating_add(span)),
            StartTime::At(at) if at <= now => return Err(TournamentError::StartPassed.into()),
            StartTime::At(at) => Some(at),
        };
        if starts_at.is_some_and(|at| at - now > LATEST_START) {
            return Err(TournamentError::StartTooFar.into());
        }
        let me = self.player(user).await?;
        let row = self
            .store
            .create_tournament(&NewTournament {
                platform: &place.platform,
                channel: &place.channel,
                community: &place.community,
                name,
                game_key: request.variant.key(),
                format: request.format.key(),
                rounds,
                days_per_move: days,
                rated: request.rated.unwrap_or(true),
                max_players: request.max_players,
                starts_at,
                round_days: request.round_days,
                organiser_id: me.id,
                web_id: &super::new_web_id()?,
                now,
            })
            .await?;
        tracing::info!(tournament = row.id, "tournament created");
        self.tournament_info(&row).await
    }

    /// Whether anyone may create tournaments in `place`'s community (else its managers only).
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn anyone_creates(&self, place: &Place) -> Result<bool, ServiceError> {
        Ok(self
            .store
            .tournament_creators(&place.platform, &place.community)
            .await?
            == "anyone")
    }

    /// Lets anyone, or the managers only, create tournaments in `place`'s community.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn set_anyone_creates(
        &self,
        place: &Place,
        anyone: bool,
    ) -> Result<(), ServiceError> {
        let who = if anyone { "anyone" } else { "managers" };
        Ok(self
            .store
            .set_tournament_creators(&place.platform, &place.community, who)
            .await?)
    }

    /// The tournaments of this community, the open and running ones first.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn tournaments(&self, place: &Place) -> Result<Vec<TournamentInfo>, ServiceError> {
        let rows = self
            .store
            .tournaments_in(&place.platform, &place.community, 20)
            .await?;
        let mut infos = Vec::with_capacity(rows.len());
        for row in &rows {
            infos.push(self.tournament_info(row).await?);
        }
        Ok(infos)
    }

    /// The tournament a command means: the one numbered, else the one whose thread this is,
    /// else the only one of this community that `fits`.
    async fn pick_tournament(
        &self,
        place: &Place,
        id: Option<i64>,
        what: &'static str,
        example: &str,
        fits: impl Fn(&TournamentInfo) -> bool,
    ) -> Result<(TournamentRow, TournamentInfo), ServiceError> {
        if let Some(id) = id {
            let row = self
                .store
                .tournament(id)
                .await?
                .filter(|row| row.platform == place.platform && row.community == place.community)
                .ok_or(TournamentError::NoSuchTournament(id))?;
            let info = self.tournament_info(&row).await?;
            return Ok((row, info));
        }
        let rows = self
            .store
            .tournaments_in(&place.platform, &place.community, 20)
            .await?;
        if let Some(row) = rows
            .iter()
            .find(|row| row.thread.as_deref() == Some(place.channel.as_str()))
        {
            let info = self.tournament_info(row).await?;
            return Ok((row.clone(), info));
        }
        let mut found = Vec::new();
        for row in rows {
            let info = self.tournament_info(&row).await?;
            if fits(&info) {
                found.push((row, info));
            }
        }
        match found.len() {
            0 => Err(TournamentError::NoTournament(what).into()),
            1 => Ok(found.remove(0)),
            _ => Err(TournamentError::WhichTournament {
                example: format!("{example} {}", found[0].1.id),
                candidates: found.iter().map(|(_, info)| info.to_string()).collect(),
            }
            .into()),
        }
    }

    /// Joins a tournament open for joining.
    ///
    /// # Errors
    /// No such tournament, already in it, started, over or full.
    pub async fn join_tournament(
        &self,
        place: &Place,
        user: &User,
        id: Option<i64>,
    ) -> Result<TournamentInfo, ServiceError> {
        let me = self.player(user).await?;
        let (row, info) = self
            .pick_tournament(place, id, "to join", "tournament join", |t| {
                t.state == TournamentState::Open
            })
            .await?;
        Self::may_join(&info, me.id)?;
        if !self
            .store
            .join_tournament(info.id, me.id, self.now())
            .await?
        {
            // Someone else got there first (the last place, or the start): say what changed.
            let row = self.store.tournament(row.id).await?.unwrap_or(row);
            Self::may_join(&self.tournament_info(&row).await?, me.id)?;
            return Err(ServiceError::Changed);
        }
        self.tournament_info(&row).await
    }

    /// Whether `player` may join the tournament as it stands: open, not in it, not full.
    fn may_join(info: &TournamentInfo, player: i64) -> Result<(), TournamentError> {
        Self::check_open(info)?;
        if info.entrant(player).is_some() {
            return Err(TournamentError::AlreadyJoined(info.id));
        }
        match info.max_players {
            Some(max) if info.players.len() as i64 >= max => {
                Err(TournamentError::Full { id: info.id, max })
            }
            _ => Ok(()),
        }
    }

    /// Leaves a tournament before it starts.
    ///
    /// # Errors
    /// No such tournament, not in it, or started (then it is `withdraw`).
    pub async fn leave_tournament(
        &self,
        place: &Place,
        user: &User,
        id: Option<i64>,
    ) -> Result<TournamentInfo, ServiceError> {
        let me = self.player(user).await?;
        let (row, info) = self
            .pick_tournament(place, id, "to leave", "tournament leave", |t| {
                // A started one too, to say that leaving it now is withdrawing.
                matches!(t.state, TournamentState::Open | TournamentState::Running)
                    && t.entrant(me.id).is_some_and(|e| e.withdrawn.is_none())
            })
            .await?;
        if info.state == TournamentState::Running {
            return Err(TournamentError::LeaveStarted(info.id).into());
        }
        Self::check_open(&info)?;
        if info.entrant(me.id).is_none() {
            return Err(TournamentError::NotJoined(info.id).into());
        }
        if !self.store.leave_tournament(info.id, me.id).await? {
            // Started meanwhile, or left already (from another device): say which.
            let row = self.store.tournament(row.id).await?.unwrap_or(row);
            let info = self.tournament_info(&row).await?;
            if info.state == TournamentState::Running {
                return Err(TournamentError::LeaveStarted(info.id).into());
            }
            Self::check_open(&info)?;
            return Err(TournamentError::NotJoined(info.id).into());
        }
        self.tournament_info(&row).await
    }

    fn check_open(info: &TournamentInfo) -> Result<(), TournamentError> {
        match info.state {
            TournamentState::Open => Ok(()),
            TournamentState::Running => Err(TournamentError::AlreadyStarted(info.id)),
            TournamentState::Finished | TournamentState::Cancelled => {
                Err(TournamentError::Over(info.id))
            }
        }
    }

    /// A tournament's details.
    ///
    /// # Errors
    /// No such tournament, or several to choose from.
    pub async fn tournament(
        &self,
        place: &Place,
        id: Option<i64>,
    ) -> Result<TournamentInfo, ServiceError> {
        let (_, info) = self
            .pick_tournament(place, id, "yet", "tournament info", |t| {
                matches!(t.state, TournamentState::Open | TournamentState::Running)
            })
            .await?;
        Ok(info)
    }

    /// A tournament's standings: the running one here when no number is given.
    ///
    /// # Errors
    /// No such tournament, several to choose from, or not started.
    pub async fn tournament_standings(
        &self,
        place: &Place,
        id: Option<i64>,
    ) -> Result<Standings, ServiceError> {
        let (row, info) = self
            .pick_tournament(place, id, "running", "tournament standings", |t| {
                t.state == TournamentState::Running
            })
            .await?;
        if info.state == TournamentState::Open {
            return Err(TournamentError::NotStarted(info.id).into());
        }
        self.standings_of(&row, info).await
    }

    /// Gives a tournament its own thread (an adapter opened one): its notices and the games of
    /// its later rounds go there.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn set_tournament_thread(&self, id: i64, place: &Place) -> Result<(), ServiceError> {
        Ok(self.store.set_tournament_thread(id, &place.channel).await?)
    }

    /// Whether `player` may manage the tournament: its organiser, or a manager here.
    fn may_manage(info: &TournamentInfo, player: i64, manager: bool) -> Result<(), ServiceError> {
        if manager || info.organiser_id == player {
            Ok(())
        } else {
            Err(TournamentError::OrganiserOnly {
                id: info.id,
                organiser: info.organiser.clone(),
            }
            .into())
        }
    }
}

impl Service {
    /// The standings as a picture: a table in the colours of the tournament's game.
    ///
    /// # Errors
    /// `Internal` when the picture cannot be drawn.
    pub async fn standings_image(&self, standings: &Standings) -> Result<Image, ServiceError> {
        let info = &standings.tournament;
        let mut header: Vec<String> = ["#", "Player", "Pts", "Games"].map(String::from).to_vec();
        header.extend(standings.tie_breaks.names().iter().map(|n| (*n).to_owned()));
        let mut greyed = Vec::new();
        let rows = standings
            .lines
            .iter()
            .enumerate()
            .map(|(index, line)| {
                let name = format!("{}{}", line.name, line.withdrawal_note());
                if line.withdrawn {
                    greyed.push(index);
                }
                let mut row = vec![
                    if line.annulled {
                        String::from("-")
                    } else {
                        line.rank.to_string()
                    },
                    name,
                    points_text(line.points),
                    line.games.to_string(),
                ];
                row.extend(line.tie_breaks.iter().map(|&tb| tie_break_text(tb)));
                row
            })
            .collect();
        let table = Table {
            title: format!("{} · {} · {}", info.name, info.variant, info.format),
            header,
            rows,
            greyed,
        };
        let theme = Theme::for_variant(info.variant);
        let data = self
            .heavy(move || render_table(theme, &table))
            .await?
            .map_err(|e| internal(&e))?;
        Ok(Image {
            size: super::pictures::dimensions(&data),
            data,
            mime: "image/png",
        })
    }
}

/// The next time of day `due` falls on after `now`, counting whole days from `due`.
pub(super) fn next_day(due: i64, now: i64) -> i64 {
    due + DAY * ((now - due).max(0) / DAY + 1)
}
