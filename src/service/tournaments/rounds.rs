//! Starting a tournament, pairing its rounds, withdrawals, and what the clocks do for
//! tournaments: the start at the start time, the next Swiss round, the round deadline, the
//! daily round-robin standings and the end. Each start and round is claimed by
//! `Database::record_round` in the transaction that records it.

use tracing::{info, warn};

use super::standings::{self, GameResult, Score};
use super::{
    Format, MIN_PLAYERS, Pairing, RoundGames, StandingLine, Standings, TournamentError,
    TournamentInfo, TournamentState, Withdrawal, next_day,
};
use crate::pairing::tournament::{Outcome, Player, PointSystem, Round};
use crate::pairing::{self, Color, Pair, Tournament, berger};
use crate::rules::{GameRules, RuleSet, Variant};
use crate::service::clocks::Notice;
use crate::service::{DAY, Place, Service, ServiceError, User, internal, new_web_id};
use crate::store::{
    DEFAULT_RATING, EntrantRow, GameRow, NOTICE_OVER, NOTICE_POSTPONED, NOTICE_ROUND,
    NOTICE_STANDINGS, NewGame, NewRound, NoticeRow, RoundGame, StartRecord, TournamentRow,
};

/// End reason of a game forfeited by a withdrawal.
pub const FORFEIT: &str = "forfeit";
/// End reason of a game the round deadline ended.
pub const ADJUDICATION: &str = "adjudication";
/// End reason of a game ended by a withdrawal that annulled the player's results.
pub const ANNULLED: &str = "annulled";

/// Whether a withdrawal from a round robin annuls the player's results (FIDE C.05, General
/// Regulations for Competitions): it does when they played fewer than half of their games
/// (`played` of `scheduled`, forfeits not counted). A Swiss never annuls.
#[must_use]
pub fn withdrawal_annuls(format: Format, played: usize, scheduled: usize) -> bool {
    format != Format::Swiss && 2 * played < scheduled
}

/// A pair of players by id for a new game, White first, in a round.
struct Planned {
    round: i64,
    white: i64,
    black: i64,
}

impl Service {
    /// Starts a tournament now: seeds its players by rating, draws the top seed's colour and
    /// creates the games (a round robin's all at once, a Swiss's first round). Its organiser
    /// or a manager may.
    ///
    /// # Errors
    /// Not allowed, too few players, already started or over.
    pub async fn start_tournament(
        &self,
        place: &Place,
        user: &User,
        manager: bool,
        id: Option<i64>,
    ) -> Result<TournamentInfo, ServiceError> {
        let me = self.player(user).await?;
        let (row, info) = self
            .pick_tournament(place, id, "to start", "tournament start", |t| {
                t.state == TournamentState::Open
            })
            .await?;
        Self::may_manage(&info, me.id, manager)?;
        Self::check_open(&info)?;
        if info.players.len() < MIN_PLAYERS {
            return Err(TournamentError::TooFewPlayers {
                id: info.id,
                count: info.players.len(),
            }
            .into());
        }
        if !self.begin(&row).await? {
            // Started by another process meanwhile, or left below the fewest players.
            let row = self.store.tournament(row.id).await?.unwrap_or(row);
            let info = self.tournament_info(&row).await?;
            Self::check_open(&info)?;
            return Err(TournamentError::TooFewPlayers {
                id: info.id,
                count: info.players.len(),
            }
            .into());
        }
        // Its pairings go out at once.
        self.wake_timers();
        let row = self.store.tournament(row.id).await?.unwrap_or(row);
        self.tournament_info(&row).await
    }

    /// Seeds, draws and records the start with the first games; `false` when another process
    /// started it first, or it has fewer than the fewest players. A join or a leave that
    /// lands between reading the players and recording the start makes the store refuse the
    /// start; it is tried again on the players as they are then.
    async fn begin(&self, row: &TournamentRow) -> Result<bool, ServiceError> {
        const TRIES: usize = 3;
        let mut row = row.clone();
        for _ in 0..TRIES {
            if self.begin_once(&row).await? {
                return Ok(true);
            }
            match self.store.tournament(row.id).await? {
                Some(fresh) if fresh.state == "open" => row = fresh,
                _ => return Ok(false),
            }
        }
        Ok(false)
    }

    async fn begin_once(&self, row: &TournamentRow) -> Result<bool, ServiceError> {
        let entrants = self.store.entrants(row.id).await?;
        if entrants.len() < MIN_PLAYERS {
            return Ok(false);
        }
        let mut rated = Vec::with_capacity(entrants.len());
        for entrant in &entrants {
            let rating = self
                .store
                .ratings_of(entrant.player_id, &row.community)
                .await?
                .into_iter()
                .find(|r| r.game_key == row.game_key)
                .map_or(DEFAULT_RATING, |r| r.rating);
            rated.push((entrant.player_id, rating.round() as i64, entrant.joined_at));
        }
        // By rating, then by who joined first.
        rated.sort_by_key(|&(id, rating, joined)| (std::cmp::Reverse(rating), joined, id));
        let seeds: Vec<(i64, i64, i64)> = rated
            .iter()
            .enumerate()
            .map(|(seed, &(id, rating, _))| (id, seed as i64, rating))
            .collect();
        let ids: Vec<i64> = seeds.iter().map(|&(id, _, _)| id).collect();
        let top_seed_white = fastrand::bool();
        let format = Format::from_key(&row.format)
            .ok_or_else(|| internal(&format!("tournament #{} has an unknown format", row.id)))?;
        let now = self.now();
        let (planned, byes, rounds, round) = match format {
            Format::RoundRobin | Format::Double => {
                let table = berger::schedule(ids.len(), format == Format::Double);
                let mut planned = Vec::new();
                for (index, pairs) in table.iter().enumerate() {
                    for pair in pairs {
                        if let Some(black) = pair.black {
                            let (white, black) = if top_seed_white {
                                (ids[pair.white], ids[black])
                            } else {
                                (ids[black], ids[pair.white])
                            };
                            planned.push(Planned {
                                round: index as i64 + 1,
                                white,
                                black,
                            });
                        }
                    }
                }
                (planned, Vec::new(), table.len() as i64, table.len() as i64)
            }
            Format::Swiss => {
                let initial = if top_seed_white {
                    Color::White
                } else {
                    Color::Black
                };
                let history =
                    swiss_history(row, &entrants_by_seed(&entrants, &ids), &[], &[], initial);
                let pairs = pairing::pair_dutch(&history).map_err(|e| internal(&e))?;
                let (planned, byes) = planned_round(&pairs, &ids, 1);
                (planned, byes, row.rounds, 1)
            }
        };
        let deadline = (format == Format::Swiss)
            .then_some(row.round_days)
            .flatten()
            .map(|days| now + days * DAY);
        let standings_next = (format != Format::Swiss).then_some(now + DAY);
        let start = StartRecord {
            seeds: &seeds,
            top_seed_white,
            rounds,
            standings_next,
        };
        let claimed = self
            .record(row, &planned, byes, (0, round), deadline, Some(start))
            .await?;
        if claimed {
            info!(
                tournament = row.id,
                players = ids.len(),
                "tournament started"
            );
        }
        Ok(claimed)
    }

    /// Records games and byes as round `round` (claimed at `expected`).
    async fn record(
        &self,
        row: &TournamentRow,
        planned: &[Planned],
        byes: Vec<(i64, i64)>,
        (expected, round): (i64, i64),
        round_deadline: Option<i64>,
        start: Option<StartRecord<'_>>,
    ) -> Result<bool, ServiceError> {
        let variant = Variant::from_name(&row.game_key)
            .ok_or_else(|| internal(&format!("tournament #{} has an unknown game", row.id)))?;
        let rules = GameRules::new(variant, RuleSet::Standard).map_err(|e| internal(&e))?;
        let start_position = rules.start().to_text();
        let channel = row.thread.as_deref().unwrap_or(&row.channel);
        let now = self.now();
        let mut games = Vec::with_capacity(planned.len());
        for plan in planned {
            games.push(RoundGame {
                round: plan.round,
                game: NewGame {
                    platform: &row.platform,
                    channel,
                    game_key: variant.key(),
                    start_position: &start_position,
                    white_id: plan.white,
                    black_id: plan.black,
                    days_per_move: row.days_per_move,
                    deadline: now + row.days_per_move * DAY,
                    rematch_of: None,
                    now,
                    community: &row.community,
                    rated: row.rated,
                    bot: None,
                    rules: rules.rules().key(),
                    takebacks: !row.rated,
                    web_id: new_web_id()?,
                },
            });
        }
        Ok(self
            .store
            .record_round(&NewRound {
                tournament_id: row.id,
                expected_round: expected,
                round,
                games,
                byes,
                round_deadline,
                start,
                now,
            })
            .await?)
    }

    /// Withdraws the user from a running tournament. In a round robin, having played fewer
    /// than half of their games, all their results are annulled (their unfinished games end
    /// without a result and their games count for no one); otherwise, and always in a Swiss,
    /// their unfinished games are forfeited to their opponents. A Swiss pairs them no more.
    ///
    /// # Errors
    /// No such tournament, not started (then it is `leave`), not in it or withdrawn already.
    pub async fn withdraw_from_tournament(
        &self,
        place: &Place,
        user: &User,
        id: Option<i64>,
    ) -> Result<Withdrawal, ServiceError> {
        let me = self.player(user).await?;
        let (row, info) = self
            .pick_tournament(place, id, "to withdraw from", "tournament withdraw", |t| {
                // An open one too, to say that it is `leave` before the start.
                matches!(t.state, TournamentState::Open | TournamentState::Running)
                    && t.entrant(me.id).is_some_and(|e| e.withdrawn.is_none())
            })
            .await?;
        match info.state {
            TournamentState::Open => return Err(TournamentError::WithdrawOpen(info.id).into()),
            TournamentState::Finished | TournamentState::Cancelled => {
                return Err(TournamentError::Over(info.id).into());
            }
            TournamentState::Running => {}
        }
        match info.entrant(me.id) {
            None => return Err(TournamentError::NotJoined(info.id).into()),
            Some(entrant) if entrant.withdrawn.is_some() => {
                return Err(TournamentError::Withdrawn(info.id).into());
            }
            Some(_) => {}
        }
        let now = self.now();
        let games: Vec<GameRow> = self
            .store
            .tournament_games(info.id)
            .await?
            .into_iter()
            .filter(|game| game.white_id == me.id || game.black_id == me.id)
            .collect();
        let played = games
            .iter()
            .filter(|game| {
                game.status == "finished"
                    && !matches!(game.end_reason.as_deref(), Some(FORFEIT | ANNULLED))
            })
            .count();
        let scheduled = match info.format {
            Format::Double => 2 * info.players.len().saturating_sub(1),
            Format::RoundRobin | Format::Swiss => info.players.len().saturating_sub(1),
        };
        let annulled = withdrawal_annuls(info.format, played, scheduled);
        if !self
            .store
            .withdraw(info.id, me.id, row.current_round, annulled, now)
            .await?
        {
            return Err(TournamentError::Withdrawn(info.id).into());
        }
        let ended = self
            .end_withdrawn_games(me.id, annulled, &games, now)
            .await?;
        info!(tournament = info.id, player = me.id, annulled, "withdrawn");
        if !ended.is_empty() {
            self.wake_timers();
        }
        let row = self.store.tournament(row.id).await?.unwrap_or(row);
        Ok(Withdrawal {
            tournament: self.tournament_info(&row).await?,
            player: me.display_name,
            ended,
            annulled,
        })
    }

    /// Ends the unfinished games among `games` of `player`, who has withdrawn: without a
    /// result when their results are annulled, else forfeited to the opponent. Safe to repeat
    /// (a game already ended is left alone); returns the games it ended.
    async fn end_withdrawn_games(
        &self,
        player: i64,
        annulled: bool,
        games: &[GameRow],
        now: i64,
    ) -> Result<Vec<i64>, ServiceError> {
        let mut ended = Vec::new();
        let theirs = games.iter().filter(|game| {
            game.status == "active" && (game.white_id == player || game.black_id == player)
        });
        for game in theirs {
            let (result, reason) = match (annulled, game.white_id == player) {
                (true, _) => (None, ANNULLED),
                (false, true) => (Some("0-1"), FORFEIT),
                (false, false) => (Some("1-0"), FORFEIT),
            };
            if self
                .store
                .end_tournament_game(game.id, result, reason, now)
                .await?
            {
                ended.push(game.id);
            }
        }
        Ok(ended)
    }

    /// The standings of a tournament now.
    pub(super) async fn standings_of(
        &self,
        row: &TournamentRow,
        info: TournamentInfo,
    ) -> Result<Standings, ServiceError> {
        self.standings_through(row, info, None).await
    }

    /// The standings counting only the games and byes of rounds up to `through` (all when
    /// `None`): a Swiss round's notice gives the standings after the round before it, not
    /// counting the bye just given in the new one.
    pub(super) async fn standings_through(
        &self,
        row: &TournamentRow,
        info: TournamentInfo,
        through: Option<i64>,
    ) -> Result<Standings, ServiceError> {
        let within =
            |round: Option<i64>| through.is_none_or(|last| round.is_some_and(|r| r <= last));
        let games: Vec<GameRow> = self
            .store
            .tournament_games(row.id)
            .await?
            .into_iter()
            .filter(|game| within(game.tournament_round))
            .collect();
        let byes: Vec<(i64, i64)> = self
            .store
            .tournament_byes(row.id)
            .await?
            .into_iter()
            .filter(|&(round, _)| within(Some(round)))
            .collect();
        let current_round = through.map_or(row.current_round, |last| last.min(row.current_round));
        let index = |id: i64| info.players.iter().position(|e| e.player_id == id);
        // An annulled player's games count for no one.
        let annulled = |id: i64| info.entrant(id).is_some_and(|e| e.annulled);
        let results: Vec<GameResult> = games
            .iter()
            .filter(|game| !annulled(game.white_id) && !annulled(game.black_id))
            .filter_map(|game| {
                Some(GameResult {
                    round: usize::try_from(game.tournament_round?).ok()?,
                    white: index(game.white_id)?,
                    black: index(game.black_id)?,
                    score: game.result.as_deref().and_then(Score::from_result),
                    played: game.end_reason.as_deref() != Some(FORFEIT),
                })
            })
            .collect();
        let bye_indices: Vec<(usize, usize)> = byes
            .iter()
            .filter_map(|&(round, player)| Some((usize::try_from(round).ok()?, index(player)?)))
            .collect();
        let kind = info.format.tie_breaks();
        let rounds = usize::try_from(current_round).unwrap_or(0);
        let mut lines: Vec<StandingLine> =
            standings::standings(info.players.len(), rounds, &results, &bye_indices, kind)
                .into_iter()
                .map(|line| {
                    let entrant = &info.players[line.player];
                    StandingLine {
                        rank: line.rank,
                        player: line.player,
                        name: entrant.user.name.clone(),
                        points: line.points,
                        games: line.games,
                        tie_breaks: line.tie_breaks,
                        withdrawn: entrant.withdrawn.is_some(),
                        annulled: entrant.annulled,
                    }
                })
                .collect();
        // The annulled are listed last, out of the ranking (with nothing, they rank with the
        // lowest at most, so the others' ranks do not change).
        lines.sort_by_key(|line| line.annulled);
        let finished = |game: &&GameRow| game.status == "finished";
        let complete_rounds = (1..=current_round)
            .take_while(|&round| {
                games
                    .iter()
                    .filter(|g| g.tournament_round == Some(round))
                    .all(|g| g.status == "finished")
            })
            .count() as i64;
        Ok(Standings {
            tie_breaks: kind,
            lines,
            complete_rounds,
            games_finished: games.iter().filter(finished).count(),
            games_total: games.len(),
            tournament: info,
        })
    }

    /// The pairings of `round` (every round of a round robin when `round` is `None`).
    async fn pairings(
        &self,
        row: &TournamentRow,
        info: &TournamentInfo,
        round: Option<i64>,
    ) -> Result<Vec<RoundGames>, ServiceError> {
        let games = self.store.tournament_games(row.id).await?;
        let byes = self.store.tournament_byes(row.id).await?;
        let name = |id: i64| {
            info.players.iter().find(|e| e.player_id == id).map_or_else(
                || User::new(&row.platform, "", "someone"),
                |e| e.user.clone(),
            )
        };
        let rounds: Vec<i64> = match round {
            Some(round) => vec![round],
            None => (1..=row.rounds).collect(),
        };
        Ok(rounds
            .into_iter()
            .map(|round| RoundGames {
                round,
                games: games
                    .iter()
                    .filter(|g| g.tournament_round == Some(round))
                    .map(|g| Pairing {
                        game: g.id,
                        white: name(g.white_id),
                        black: name(g.black_id),
                        result: g.result.clone(),
                    })
                    .collect(),
                bye: byes
                    .iter()
                    .find(|&&(r, _)| r == round)
                    .map(|&(_, player)| name(player)),
            })
            .collect())
    }

    /// What the clocks do for tournaments, each on its own: starts at the start time, Swiss
    /// rounds paired once the last one ended (or adjudicated at its deadline), the daily
    /// standings of round robins, and the end.
    pub(in crate::service) async fn run_tournaments(&self, platform: Option<&str>, now: i64) {
        let rows = match self.store.live_tournaments(platform).await {
            Ok(rows) => rows,
            Err(error) => {
                warn!(%error, "reading the tournaments failed");
                return;
            }
        };
        for row in rows {
            if let Err(error) = self.tournament_due(&row, now).await {
                warn!(tournament = row.id, %error, "a tournament's clock failed");
            }
        }
    }

    async fn tournament_due(&self, row: &TournamentRow, now: i64) -> Result<(), ServiceError> {
        if row.state == "open" {
            let Some(starts_at) = row.starts_at.filter(|&at| at <= now) else {
                return Ok(());
            };
            let count = self.store.entrants(row.id).await?.len();
            if count >= MIN_PLAYERS {
                self.begin(row).await?;
            } else {
                self.store
                    .postpone_tournament(row.id, starts_at, now)
                    .await?;
            }
            return Ok(());
        }
        let mut games = self.store.tournament_games(row.id).await?;
        // A withdrawal ends its player's games; a game paired while the withdrawal was being
        // recorded (or left by a stop in between) is ended here.
        let mut ended = Vec::new();
        for entrant in self.store.entrants(row.id).await? {
            if entrant.withdrawn_at.is_some() {
                let player = entrant.player_id;
                let games = self.end_withdrawn_games(player, entrant.annulled, &games, now);
                ended.extend(games.await?);
            }
        }
        if !ended.is_empty() {
            info!(
                tournament = row.id,
                ?ended,
                "games of withdrawn players ended"
            );
            games = self.store.tournament_games(row.id).await?;
        }
        let current: Vec<&GameRow> = games
            .iter()
            .filter(|g| g.tournament_round == Some(row.current_round))
            .collect();
        let format = Format::from_key(&row.format).unwrap_or(Format::Swiss);
        if format == Format::Swiss && row.round_deadline.is_some_and(|deadline| deadline <= now) {
            for game in current.iter().filter(|g| g.status == "active") {
                self.store
                    .end_tournament_game(game.id, Some("1/2-1/2"), ADJUDICATION, now)
                    .await?;
            }
            return self.after_deadline(row, now).await;
        }
        match format {
            Format::RoundRobin | Format::Double => {
                if games.iter().all(|g| g.status != "active") {
                    self.store
                        .finish_tournament(row.id, "finished", now)
                        .await?;
                    info!(tournament = row.id, "tournament finished");
                } else if let Some(due) = row.standings_next.filter(|&due| due <= now) {
                    let since = due - DAY;
                    let news = games
                        .iter()
                        .any(|g| g.finished_at.is_some_and(|at| at >= since && at < due));
                    self.store
                        .claim_standings(row.id, due, next_day(due, now), news)
                        .await?;
                }
            }
            Format::Swiss if current.iter().all(|g| g.status != "active") => {
                self.next_swiss_round(row, &games, now).await?;
            }
            Format::Swiss => {}
        }
        Ok(())
    }

    /// A round deadline passed and its games were adjudicated: read the tournament again
    /// and go on.
    async fn after_deadline(&self, row: &TournamentRow, now: i64) -> Result<(), ServiceError> {
        let games = self.store.tournament_games(row.id).await?;
        self.next_swiss_round(row, &games, now).await
    }

    /// Pairs the next round of a Swiss whose current round has ended, or ends it after its
    /// last round (or when nobody can be paired any more).
    async fn next_swiss_round(
        &self,
        row: &TournamentRow,
        games: &[GameRow],
        now: i64,
    ) -> Result<(), ServiceError> {
        let entrants = self.store.entrants(row.id).await?;
        let active = entrants.iter().filter(|e| e.withdrawn_at.is_none()).count();
        if row.current_round >= row.rounds || active < 2 {
            self.store
                .finish_tournament(row.id, "finished", now)
                .await?;
            info!(tournament = row.id, "tournament finished");
            return Ok(());
        }
        let ids: Vec<i64> = entrants.iter().map(|e| e.player_id).collect();
        let byes = self.store.tournament_byes(row.id).await?;
        let initial = if row.top_seed_white.unwrap_or(true) {
            Color::White
        } else {
            Color::Black
        };
        let history = swiss_history(row, &entrants, games, &byes, initial);
        let round = row.current_round + 1;
        let pairs = match pairing::pair_dutch(&history) {
            Ok(pairs) => pairs,
            Err(error) => {
                info!(tournament = row.id, %error, "no further round can be paired");
                self.store
                    .finish_tournament(row.id, "finished", now)
                    .await?;
                return Ok(());
            }
        };
        let (planned, byes) = planned_round(&pairs, &ids, round);
        let deadline = row.round_days.map(|days| now + days * DAY);
        if self
            .record(
                row,
                &planned,
                byes,
                (row.current_round, round),
                deadline,
                None,
            )
            .await?
        {
            info!(tournament = row.id, round, "round paired");
        }
        Ok(())
    }

    /// The notice a stored tournament notice stands for.
    pub(in crate::service) async fn tournament_notice(
        &self,
        row: &NoticeRow,
    ) -> Result<Option<Notice>, ServiceError> {
        let Some(id) = self.store.notice_tournament(row.id).await? else {
            return Ok(None);
        };
        let Some(tournament) = self.store.tournament(id).await? else {
            return Ok(None);
        };
        let info = self.tournament_info(&tournament).await?;
        let place = info.place.clone();
        Ok(Some(match row.kind.as_str() {
            NOTICE_ROUND => {
                let round = row.ply.unwrap_or(tournament.current_round);
                let rounds = match info.format {
                    Format::Swiss => Some(round),
                    Format::RoundRobin | Format::Double => None,
                };
                let pairings = self.pairings(&tournament, &info, rounds).await?;
                let standings = if round > 1 && info.format == Format::Swiss {
                    Some(Box::new(
                        self.standings_through(&tournament, info.clone(), Some(round - 1))
                            .await?,
                    ))
                } else {
                    None
                };
                Notice::TournamentRound {
                    place,
                    tournament: Box::new(info),
                    pairings,
                    standings,
                }
            }
            NOTICE_STANDINGS => Notice::TournamentStandings {
                place,
                standings: Box::new(self.standings_of(&tournament, info).await?),
            },
            NOTICE_OVER => Notice::TournamentOver {
                place,
                standings: Box::new(self.standings_of(&tournament, info).await?),
            },
            NOTICE_POSTPONED => Notice::TournamentPostponed {
                place,
                tournament: Box::new(info),
            },
            _ => return Ok(None),
        }))
    }

    /// The earliest time a tournament has something due (a start, a round deadline, daily
    /// standings), for the console's `wait`.
    pub(in crate::service) async fn next_tournament_due(
        &self,
        platform: &str,
    ) -> Result<Option<i64>, ServiceError> {
        let rows = self.store.live_tournaments(Some(platform)).await?;
        let now = self.now();
        // Only what lies ahead: `wait` moves the clock forward to each.
        Ok(rows
            .iter()
            .flat_map(|row| [row.starts_at, row.round_deadline, row.standings_next])
            .flatten()
            .filter(|&at| at > now)
            .min())
    }
}

/// The entrants in the order of `ids` (the seeds being recorded).
fn entrants_by_seed(entrants: &[EntrantRow], ids: &[i64]) -> Vec<EntrantRow> {
    ids.iter()
        .filter_map(|id| entrants.iter().find(|e| e.player_id == *id).cloned())
        .collect()
}

/// The games and byes of a round from its pairs (by seed index).
fn planned_round(pairs: &[Pair], ids: &[i64], round: i64) -> (Vec<Planned>, Vec<(i64, i64)>) {
    let mut planned = Vec::new();
    let mut byes = Vec::new();
    for pair in pairs {
        match pair.black {
            Some(black) => planned.push(Planned {
                round,
                white: ids[pair.white],
                black: ids[black],
            }),
            None => byes.push((round, ids[pair.white])),
        }
    }
    (planned, byes)
}

/// A Swiss so far as the pairing rules read it: the players by seed, each round's game (a
/// forfeit as unplayed), bye or absence, and the withdrawn marked absent from the next round.
fn swiss_history(
    row: &TournamentRow,
    entrants: &[EntrantRow],
    games: &[GameRow],
    byes: &[(i64, i64)],
    initial_color: Color,
) -> Tournament {
    let played_rounds = usize::try_from(row.current_round).unwrap_or(0);
    let index = |id: i64| entrants.iter().position(|e| e.player_id == id);
    let players = entrants
        .iter()
        .enumerate()
        .map(|(me, entrant)| {
            let mut rounds = vec![Round::absent(me); played_rounds];
            for game in games {
                let (Some(round), Some(white), Some(black)) = (
                    game.tournament_round
                        .and_then(|r| usize::try_from(r - 1).ok())
                        .filter(|&r| r < played_rounds),
                    index(game.white_id),
                    index(game.black_id),
                ) else {
                    continue;
                };
                let (color, opponent) = if white == me {
                    (Color::White, black)
                } else if black == me {
                    (Color::Black, white)
                } else {
                    continue;
                };
                let mine = match (game.result.as_deref(), color) {
                    (Some("1-0"), Color::White) | (Some("0-1"), Color::Black) => Outcome::Win,
                    (Some("1/2-1/2"), _) => Outcome::Draw,
                    _ => Outcome::Loss,
                };
                let played = game.end_reason.as_deref() != Some(FORFEIT);
                rounds[round] = Round {
                    opponent,
                    color: Some(color),
                    outcome: mine,
                    played,
                    paired: true,
                };
            }
            for &(round, player) in byes {
                if player == entrant.player_id
                    && let Some(round) = usize::try_from(round - 1)
                        .ok()
                        .filter(|&r| r < played_rounds)
                {
                    rounds[round] = Round {
                        opponent: me,
                        color: None,
                        outcome: Outcome::Win,
                        played: false,
                        paired: true,
                    };
                }
            }
            if entrant.withdrawn_at.is_some() {
                rounds.push(Round::absent(me));
            }
            Player {
                id: me,
                rank: me,
                rating: entrant.rating.map_or(0, |r| r.max(0.0).round() as u32),
                rounds,
                score: 0,
                played_games: 0,
                color_imbalance: 0,
                color_preference: None,
                repeated_color: None,
                strong_preference: false,
                valid: true,
                present: true,
            }
        })
        .collect();
    let mut tournament = Tournament {
        players,
        played_rounds,
        planned_rounds: usize::try_from(row.rounds)
            .unwrap_or(1)
            .max(played_rounds + 1),
        points: PointSystem::default(),
        initial_color,
    };
    tournament.derive();
    tournament
}

#[cfg(test)]
mod tests {
    use super::{Format, withdrawal_annuls};

    #[test]
    fn a_round_robin_withdrawal_annuls_below_half_the_games_and_a_swiss_never() {
        // Five players: four games each. One played of four annuls; two (half) do not.
        assert!(withdrawal_annuls(Format::RoundRobin, 0, 4));
        assert!(withdrawal_annuls(Format::RoundRobin, 1, 4));
        assert!(!withdrawal_annuls(Format::RoundRobin, 2, 4));
        // An odd number of games: two of five is fewer than half, three is not.
        assert!(withdrawal_annuls(Format::Double, 2, 5));
        assert!(!withdrawal_annuls(Format::Double, 3, 5));
        assert!(!withdrawal_annuls(Format::Swiss, 0, 5));
    }
}
