//! Post-game analysis: the queue of finished games to analyse, worked through one game at a
//! time, and the results told in each game's place.
//!
//! A game between people in which both sides moved is queued by the store in the transaction
//! that ends it, however it ends; any finished game with a result in which both sides moved
//! (games against the bot too) is queued when someone asks (`analyse`). Games against the bot
//! are not analysed by themselves: their opponent was the same engine, and they are many.
//! Aborted games have nothing to analyse. A running game never has an analysis.
//!
//! The work: a process claims the analysis that waited longest for a lease
//! ([`crate::store::ANALYSIS_LEASE`]), evaluates every position of the game with the engine
//! at a fixed node budget ([`crate::engine::analysis`]), one position per job on the blocking
//! pool under the service's heavy-work permits (so a reply's picture waits for at most one
//! position's search), and records the result with an `analysed` notice in one transaction
//! guarded by its claim. A long analysis renews its claim as it goes; a process that dies
//! mid-way leaves the claim to lapse, and another (or the same, restarted) takes the analysis
//! over. The bots run an [`Analyst`] beside their
//! clocks; the console runs [`Service::analyse_next`] after each line, so its output comes in
//! a fixed order.

use std::time::Duration;

use tokio::sync::watch;
use tracing::{error, info, instrument, warn};

use super::{GameState, Image, Place, Service, ServiceError, User, internal, place_of};
use crate::engine::analysis::{
    ANALYSIS_NODES, Evaluations, Judgement, Report, evaluate_position, seed_of,
};
use crate::render::{self, Dot, EvalGraph, Theme};
use crate::rules::Record;
use crate::store::{ANALYSED_FROM_PLY, ANALYSIS_LEASE, AnalysisRow, NewNotice, NoticeRow};

/// How often the analyst looks at the queue when nothing wakes it: for analyses queued by
/// another process, and claims whose process died.
pub const ANALYST_TICK: Duration = Duration::from_secs(60);

/// A finished game's analysis, ready to tell.
#[derive(Debug, Clone)]
pub struct Analysed {
    /// The game.
    pub state: GameState,
    /// Its moves judged and its players' figures.
    pub report: Report,
}

/// Where the analysis of a game stands, as `analyse` finds it.
#[derive(Debug, Clone)]
pub enum AnalysisStatus {
    /// Waiting in the queue (asked for now, or before): it is posted in the game's place.
    Queued(i64),
    /// Being analysed now.
    Running(i64),
    /// Done: here it is again.
    Done(Box<Analysed>),
}

/// A game's analysis as its page shows it.
#[derive(Debug, Clone)]
pub enum PageAnalysis {
    /// None: the game runs, or nobody asked for one, or it was given up.
    None,
    /// Waiting in the queue.
    Queued,
    /// Being analysed now.
    Running,
    /// Done.
    Done(Box<Report>),
}

impl Service {
    /// Asks for the analysis of a finished game (the one named, or the user's latest finished
    /// game here):
    /// queues it when it has none yet, or gives it when it is done.
    ///
    /// # Errors
    /// The usual errors of finding a game; [`ServiceError::AnalysisTooEarly`] for a game
    /// still being played, [`ServiceError::NothingToAnalyse`] for one that ended before both
    /// sides moved.
    #[instrument(skip_all, fields(platform = %place.platform, game = ?game))]
    pub async fn analyse(
        &self,
        place: &Place,
        user: &User,
        game: Option<i64>,
    ) -> Result<AnalysisStatus, ServiceError> {
        let state = self.finished_game_for(place, user, game).await?;
        let id = state.row.id;
        if state.is_active() {
            return Err(ServiceError::AnalysisTooEarly {
                game: id,
                by_itself: state.bot_side().is_none(),
            });
        }
        if state.row.result.is_none() || state.row.ply < ANALYSED_FROM_PLY {
            return Err(ServiceError::NothingToAnalyse(id));
        }
        let row = self.store.request_analysis(id, self.now()).await?;
        Ok(match row.state.as_str() {
            "done" => AnalysisStatus::Done(Box::new(analysed(state, &row)?)),
            "running" => AnalysisStatus::Running(id),
            _ => {
                info!(game = id, "analysis asked for");
                self.wake_analyst();
                AnalysisStatus::Queued(id)
            }
        })
    }

    /// The analysis of a game, when it is done.
    ///
    /// # Errors
    /// `Internal` when the database fails or the stored analysis does not fit the game.
    pub async fn analysis_of(&self, state: &GameState) -> Result<Option<Report>, ServiceError> {
        Ok(match self.page_analysis(state).await? {
            PageAnalysis::Done(report) => Some(*report),
            _ => None,
        })
    }

    /// Where a game's analysis stands, for its page: nothing while the game runs or when
    /// none was asked for (or it was given up).
    ///
    /// # Errors
    /// `Internal` when the database fails or the stored analysis does not fit the game.
    pub async fn page_analysis(&self, state: &GameState) -> Result<PageAnalysis, ServiceError> {
        if state.is_active() {
            return Ok(PageAnalysis::None);
        }
        Ok(match self.store.analysis(state.row.id).await? {
            Some(row) if row.state == "done" => {
                PageAnalysis::Done(Box::new(report(&state.record, &row)?))
            }
            Some(row) if row.state == "queued" => PageAnalysis::Queued,
            Some(row) if row.state == "running" => PageAnalysis::Running,
            _ => PageAnalysis::None,
        })
    }

    /// The record `export` gives: with the analysis's marks and evaluations when the game
    /// has one (see [`super::export_annotated`]), else the plain record.
    ///
    /// # Errors
    /// `Internal` when the database fails.
    pub async fn record_text(&self, state: &GameState) -> Result<String, ServiceError> {
        let report = match self.analysis_of(state).await {
            Ok(report) => report,
            Err(ServiceError::Internal(reference)) => {
                // The plain record is still right: the analysis is only left out.
                warn!(
                    game = state.row.id,
                    reference, "the analysis is left out of the record"
                );
                None
            }
            Err(other) => return Err(other),
        };
        Ok(match report {
            Some(report) => super::export_annotated(state, &report),
            None => super::export(state),
        })
    }

    /// The evaluation graph of an analysed game as a PNG, with its judged moves marked.
    ///
    /// # Errors
    /// `Internal` when drawing fails.
    pub async fn analysis_image(&self, analysed: &Analysed) -> Result<Image, ServiceError> {
        let (state, report) = (&analysed.state, &analysed.report);
        let graph = EvalGraph {
            theme: Theme::for_variant(state.variant),
            title: format!(
                "Game #{} · {} vs {} · {}",
                state.row.id, state.white.display_name, state.black.display_name, state.variant
            ),
            chances: report.evals.iter().map(|e| e.winning_chances()).collect(),
            dots: report
                .judged()
                .filter_map(|m| Some((m.ply, dot(m.judgement?))))
                .collect(),
            black_first: report.black_first,
        };
        self.image("image/png", move || render::render_eval_graph(&graph))
            .await
    }

    /// Claims the analysis that waited longest and does it, its result and notice recorded
    /// together: the game's number when one was done (or given up), `None` when nothing
    /// waits. The console's way; the bots run an [`Analyst`].
    ///
    /// # Errors
    /// [`ServiceError::CannotSave`] or `Internal` when the queue cannot be read.
    pub async fn analyse_next(&self) -> Result<Option<i64>, ServiceError> {
        let Some(claim) = self.store.claim_analysis(self.now()).await? else {
            return Ok(None);
        };
        self.run_analysis(&claim).await;
        Ok(Some(claim.game_id))
    }

    /// This process's worker of the analysis queue, for a bot to run beside its clocks.
    #[must_use]
    pub fn analyst(&self) -> Analyst {
        Analyst {
            service: self.clone(),
            wake: self.analyses.subscribe(),
            every: ANALYST_TICK,
        }
    }

    /// Wakes this process's analyst: a game ended, or an analysis was asked for.
    pub(super) fn wake_analyst(&self) {
        self.analyses.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Does a claimed analysis; a failure is logged, and gives the analysis up when the game
    /// itself cannot be analysed (it would fail again), or back to the queue when only the
    /// database failed.
    #[instrument(skip_all, fields(game = claim.game_id, attempt = claim.attempts))]
    async fn run_analysis(&self, claim: &AnalysisRow) {
        let failed = match self.evaluate_claimed(claim).await {
            Ok(()) => return,
            Err(ServiceError::CannotSave) => {
                warn!("the database is unavailable; the analysis waits");
                false
            }
            Err(error) => {
                error!(%error, "the analysis failed; it is given up");
                true
            }
        };
        if let Err(error) = self
            .store
            .release_analysis(claim.game_id, claim.attempts, failed, self.now())
            .await
        {
            warn!(%error, "giving the analysis back failed; its claim will lapse");
        }
    }

    /// Evaluates every position of the claimed game, a job per position, and records the
    /// result with its notice.
    async fn evaluate_claimed(&self, claim: &AnalysisRow) -> Result<(), ServiceError> {
        let state = self.load(claim.game_id).await?;
        let id = state.row.id;
        let mut current = Record::new(state.record.start().clone());
        let mut positions = Vec::with_capacity(state.record.moves().len() + 1);
        let mut renewed = self.now();
        for ply in 0..=state.record.moves().len() {
            // A long game keeps its claim: renewed once a third of the lease has gone.
            if self.now() - renewed >= ANALYSIS_LEASE / 3 {
                renewed = self.now();
                if !self
                    .store
                    .renew_analysis(id, claim.attempts, renewed)
                    .await?
                {
                    warn!(
                        game = id,
                        "the analysis's claim had lapsed: another process has it"
                    );
                    return Ok(());
                }
            }
            if let Some(played) = ply.checked_sub(1).map(|i| &state.record.moves()[i]) {
                current
                    .play(&played.text)
                    .map_err(|e| internal(&format!("game #{id} ply {ply}: {e}")))?;
            }
            let prefix = current.clone();
            positions.push(
                self.heavy(move || evaluate_position(&prefix, seed_of(ply)))
                    .await?,
            );
        }
        let evaluations = Evaluations {
            nodes: ANALYSIS_NODES,
            positions,
        };
        let result = serde_json::to_string(&evaluations).map_err(|e| internal(&e))?;
        let now = self.now();
        let notice = NewNotice {
            platform: &state.row.platform,
            kind: "analysed",
            game_id: Some(id),
            challenge_id: None,
            ply: Some(state.row.ply),
            left: None,
            now,
        };
        if self
            .store
            .finish_analysis(id, claim.attempts, &result, now, &notice)
            .await?
        {
            info!(game = id, plies = state.row.ply, "game analysed");
            self.wake_timers();
        } else {
            warn!(
                game = id,
                "the analysis's claim had lapsed: another process has it"
            );
        }
        Ok(())
    }

    /// The notice of a finished analysis, built from the game and the analysis as stored.
    pub(super) async fn analysed_notice(
        &self,
        row: &NoticeRow,
    ) -> Result<Option<super::Notice>, ServiceError> {
        let Some(id) = row.game_id else {
            return Ok(None);
        };
        let state = self.load(id).await?;
        let Some(analysis) = self.store.analysis(id).await? else {
            return Ok(None);
        };
        if analysis.state != "done" {
            return Ok(None);
        }
        Ok(Some(super::Notice::Analysed {
            place: place_of(&state.row),
            analysed: Box::new(analysed(state, &analysis)?),
        }))
    }
}

/// A done analysis of a game as its report.
fn analysed(state: GameState, row: &AnalysisRow) -> Result<Analysed, ServiceError> {
    let report = report(&state.record, row)?;
    Ok(Analysed { state, report })
}

/// The report of a done analysis of `record`.
fn report(record: &Record, row: &AnalysisRow) -> Result<Report, ServiceError> {
    let text = row
        .result
        .as_deref()
        .ok_or_else(|| internal(&format!("analysis of game #{} has no result", row.game_id)))?;
    let evaluations: Evaluations = serde_json::from_str(text)
        .map_err(|e| internal(&format!("analysis of game #{}: {e}", row.game_id)))?;
    Report::new(record, &evaluations)
        .map_err(|e| internal(&format!("analysis of game #{}: {e}", row.game_id)))
}

/// The graph's dot for a judgement.
fn dot(judgement: Judgement) -> Dot {
    match judgement {
        Judgement::Inaccuracy => Dot::Inaccuracy,
        Judgement::Mistake => Dot::Mistake,
        Judgement::Blunder => Dot::Blunder,
    }
}

/// This process's worker of the analysis queue: one analysis at a time, each as soon as the
/// previous is done, woken when a game ends or an analysis is asked for here, and every
/// [`ANALYST_TICK`] besides.
#[derive(Debug)]
pub struct Analyst {
    service: Service,
    wake: watch::Receiver<u64>,
    every: Duration,
}

impl Analyst {
    /// Works through the queue until `shutdown` turns true (or its sender goes). An
    /// analysis cut short by the stop goes back to the queue at once, for the next start or
    /// another process.
    pub async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        let service = self.service;
        let mut interval = tokio::time::interval(self.every);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = interval.tick() => {}
                Ok(()) = self.wake.changed() => {}
                () = stopped(&mut shutdown) => return,
            }
            self.wake.borrow_and_update();
            loop {
                let claim = match service.store.claim_analysis(service.now()).await {
                    Ok(Some(claim)) => claim,
                    Ok(None) => break,
                    Err(error) => {
                        warn!(%error, "reading the analysis queue failed");
                        break;
                    }
                };
                tokio::select! {
                    () = service.run_analysis(&claim) => {}
                    () = stopped(&mut shutdown) => {
                        let back = service
                            .store
                            .release_analysis(claim.game_id, claim.attempts, false, service.now())
                            .await;
                        if let Err(error) = back {
                            warn!(game = claim.game_id, %error, "the analysis waits for its claim to lapse");
                        }
                        return;
                    }
                }
            }
        }
    }
}

/// Waits until `shutdown` turns true or its sender goes.
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    while !*shutdown.borrow_and_update() {
        if shutdown.changed().await.is_err() {
            return;
        }
    }
}
