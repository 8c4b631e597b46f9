//! How a backend implements [`super::Database`]: one function per trait method, in a
//! submodule per area, named like the method (the [`answered_by`] macro writes the trait's
//! implementation from that list).

/// Implements [`super::Database`] for a backend `$db` whose module has one submodule per area
/// (`upkeep`, `players`, `challenges`, `games`, `options`, `ratings`, `community`, `notices`,
/// `timing`, `correspondence`, `analysis`), each method of [`super::Database`] and
/// [`super::AnalysisDatabase`] answered by the function of the same name
/// there, called with the backend and the method's arguments.
macro_rules! answered_by {
    ($db:ty) => {
        $crate::store::answered::answered_by! {
            $db: Database;
            upkeep::synchronous_settings() -> Result<Vec<String>>;
            upkeep::close();
            upkeep::hold_for_serving() -> Result<()>;
            upkeep::backup(path: &Path) -> Result<()>;
            upkeep::integrity_check() -> Result<String>;
            copying::table_counts() -> Result<Vec<(String, u64)>>;
            copying::tables_in_copy_order() -> Result<Vec<String>>;
            copying::table_rows(table: &str) -> Result<TableRows>;
            copying::load_tables(tables: &[TableRows]) -> Result<()>;

            players::player(
                platform: &str,
                platform_id: &str,
                display_name: &str,
                now: i64,
            ) -> Result<PlayerRow>;
            players::player_by_id(id: i64) -> Result<Option<PlayerRow>>;
            players::player_by_platform_id(platform: &str, platform_id: &str) -> Result<Option<PlayerRow>>;
            players::settings(player_id: i64) -> Result<SettingsRow>;
            players::set_settings(player_id: i64, settings: &SettingsRow) -> Result<()>;
            players::claim_event(platform: &str, event_id: &str, now: i64) -> Result<bool>;
            players::event_claimed(platform: &str, event_id: &str) -> Result<bool>;

            challenges::create_challenge(new: &NewChallenge<'_>) -> Result<ChallengeRow>;
            challenges::challenge(id: i64) -> Result<Option<ChallengeRow>>;
            challenges::open_challenges(
                platform: &str,
                channel: &str,
                player_id: i64,
            ) -> Result<Vec<ChallengeRow>>;
            challenges::close_challenge(id: i64, status: &str) -> Result<bool>;
            challenges::accept_challenge(challenge_id: i64, game: &NewGame<'_>) -> Result<GameRow>;

            games::set_game_channel(game_id: i64, channel: &str, now: i64) -> Result<bool>;
            games::create_game(game: &NewGame<'_>) -> Result<GameRow>;
            games::game(id: i64) -> Result<Option<GameRow>>;
            games::game_by_web_id(web_id: &str) -> Result<Option<GameRow>>;
            games::stored_game(id: i64, now: i64) -> Result<Option<StoredGame>>;
            games::moves(game_id: i64) -> Result<Vec<MoveRow>>;
            games::games_of(player_id: i64, limit: i64) -> Result<Vec<GameRow>>;
            games::active_games_in(platform: &str, channel: &str, player_id: i64) -> Result<Vec<GameRow>>;
            games::games_in_channel(platform: &str, channel: &str, limit: i64) -> Result<Vec<GameRow>>;
            games::append_moves(append: &AppendMoves<'_>) -> Result<()>;
            games::finish_game(
                game_id: i64,
                expected_ply: i64,
                result: Option<&str>,
                reason: &str,
                now: i64,
                notice: Option<&NewNotice<'_>>,
            ) -> Result<()>;
            games::set_draw_offer(
                game_id: i64,
                expected_ply: i64,
                offer: Option<&str>,
                now: i64,
            ) -> Result<()>;
            options::add_note(game_id: i64, player_id: i64, text: &str, now: i64) -> Result<NoteRow>;
            options::notes(game_id: i64, player_id: i64) -> Result<Vec<NoteRow>>;
            options::clear_notes(game_id: i64, player_id: i64) -> Result<u64>;
            options::set_takeback_offer(
                game_id: i64,
                expected_revision: i64,
                offer: Option<&str>,
                now: i64,
            ) -> Result<()>;
            options::take_back(back: &TakeBack<'_>) -> Result<()>;
            options::rated_setups(platform: &str, community: &str) -> Result<bool>;
            options::set_rated_setups(platform: &str, community: &str, on: bool) -> Result<()>;
            correspondence::give_time(
                game_id: i64,
                expected_ply: i64,
                expected_deadline: i64,
                deadline: i64,
                now: i64,
            ) -> Result<()>;
            correspondence::leaves_of(player_id: i64, since: i64) -> Result<Vec<LeaveRow>>;
            correspondence::running_leaves() -> Result<Vec<LeaveRow>>;
            correspondence::start_leave(
                player_id: i64,
                now: i64,
                ends_at: i64,
                notices: &[NewNotice<'_>],
            ) -> Result<LeaveRow>;
            correspondence::freeze_clock(
                game_id: i64,
                expected_ply: i64,
                expected_deadline: i64,
                player_id: i64,
                now: i64,
            ) -> Result<()>;
            correspondence::frozen_clock(game_id: i64) -> Result<Option<i64>>;
            correspondence::end_leave(
                leave_id: i64,
                now: i64,
                notices: &[NewNotice<'_>],
            ) -> Result<Option<LeaveRow>>;
            correspondence::notice_player(notice_id: i64) -> Result<Option<i64>>;
            correspondence::leave_days(platform: &str, community: &str) -> Result<Option<i64>>;
            correspondence::set_leave_days(platform: &str, community: &str, days: i64) -> Result<()>;
            correspondence::reminder_times(player_id: i64) -> Result<Option<String>>;
            correspondence::set_reminder_times(player_id: i64, times: &str) -> Result<()>;
            correspondence::digest(player_id: i64) -> Result<Option<DigestRow>>;
            correspondence::set_digest(player_id: i64, digest: Option<&DigestRow>) -> Result<()>;
            correspondence::digests_due(now: i64, platform: Option<&str>) -> Result<Vec<DigestRow>>;
            correspondence::claim_digest(
                player_id: i64,
                expected_next: i64,
                next: Option<i64>,
                notice: Option<&NewNotice<'_>>,
            ) -> Result<bool>;
            correspondence::next_digest(platform: &str, after: i64) -> Result<Option<i64>>;
            correspondence::conditionals(game_id: i64) -> Result<Vec<ConditionalRow>>;
            correspondence::add_conditional(
                game_id: i64,
                player_id: i64,
                expected_ply: i64,
                moves: &str,
                now: i64,
            ) -> Result<()>;
            correspondence::replace_conditionals(
                game_id: i64,
                player_id: i64,
                expected: Option<&[i64]>,
                lines: &[(i64, String)],
                now: i64,
            ) -> Result<()>;
            correspondence::conditional_games_due() -> Result<Vec<i64>>;
            games::games_due(until: i64, platform: Option<&str>) -> Result<Vec<GameRow>>;
            games::active_bot_games(platform: Option<&str>) -> Result<Vec<GameRow>>;

            ratings::unrated_games() -> Result<Vec<i64>>;
            ratings::rate_game(game_id: i64, now: i64, update: RatingFn) -> Result<bool>;
            ratings::leaderboard(community: &str, game_key: &str, limit: i64) -> Result<Vec<RatingRow>>;
            ratings::ratings_of(player_id: i64, community: &str) -> Result<Vec<RatingRow>>;
            ratings::game_rating_changes(game_id: i64) -> Result<Vec<(i64, f64, f64)>>;
            ratings::rating_history(
                player_id: i64,
                community: &str,
                game_key: &str,
                limit: i64,
            ) -> Result<Vec<RatingChangeRow>>;
            ratings::results_of(player_id: i64, community: &str) -> Result<Vec<ResultsRow>>;

            community::threads_on(platform: &str, community: &str) -> Result<bool>;
            community::set_threads(platform: &str, community: &str, on: bool) -> Result<()>;
            community::move_community(
                platform: &str,
                from: &str,
                to: &str,
                now: i64,
            ) -> Result<Vec<i64>>;
            community::caps(platform: &str, community: &str) -> Result<CapsRow>;
            community::set_caps(platform: &str, community: &str, caps: &CapsRow) -> Result<()>;
            community::counts(player_id: i64, now: i64) -> Result<Counts>;
            community::open_challenges_between(
                challenger: i64,
                challenged: i64,
                game_key: &str,
                now: i64,
            ) -> Result<Vec<i64>>;
            community::players_in(platform: &str, community: &str) -> Result<Vec<PlayerRow>>;

            notices::claim_reminder(notice: &NewNotice<'_>, kind: &str) -> Result<bool>;
            notices::expire_challenges(now: i64, platform: Option<&str>) -> Result<Vec<ChallengeRow>>;
            notices::claim_notices(platform: Option<&str>, now: i64) -> Result<Vec<NoticeRow>>;
            notices::notice_delivered(id: i64, now: i64) -> Result<()>;
            notices::notice_failed(id: i64, now: i64, give_up: bool) -> Result<bool>;
            notices::mark_attention(game_id: i64, reason: &str) -> Result<()>;
            notices::games_needing_attention() -> Result<Vec<(i64, String)>>;
            notices::prune_events(before: i64) -> Result<u64>;

            timing::take_lease(name: &str, holder: &str, now: i64, until: i64) -> Result<bool>;
            timing::release_lease(name: &str, holder: &str) -> Result<()>;
            timing::first_start(platform: &str, account: &str, at: i64) -> Result<i64>;
            timing::resume_clocks(platform: &str, now: i64) -> Result<Resumed>;
            timing::heartbeat(platform: &str, now: i64) -> Result<()>;
            timing::next_due(platform: &str, after: i64, reminders: (i64, i64)) -> Result<Option<i64>>;
        }
        $crate::store::answered::answered_by! {
            $db: AnalysisDatabase;
            analysis::analysis(game_id: i64) -> Result<Option<AnalysisRow>>;
            analysis::request_analysis(game_id: i64, now: i64) -> Result<AnalysisRow>;
            analysis::claim_analysis(now: i64) -> Result<Option<AnalysisRow>>;
            analysis::finish_analysis(
                game_id: i64,
                attempt: i64,
                result: &str,
                now: i64,
                notice: &NewNotice<'_>,
            ) -> Result<bool>;
            analysis::renew_analysis(game_id: i64, attempt: i64, now: i64) -> Result<bool>;
            analysis::release_analysis(
                game_id: i64,
                attempt: i64,
                failed: bool,
                now: i64,
            ) -> Result<()>;
        }
    };
    ($db:ty: $trait:ident; $($module:ident::$name:ident($($arg:ident: $type:ty),* $(,)?) $(-> $result:ty)?;)*) => {
        const _: () = {
            // The types of both traits' methods: each impl uses some of them.
            #[allow(unused_imports)]
            use std::path::Path;

            #[allow(unused_imports)]
            use $crate::store::{
                AnalysisRow, AppendMoves, CapsRow, ChallengeRow, ConditionalRow, Counts, DigestRow, GameRow,
                LeaveRow, MoveRow, NewChallenge, NewGame, NewNotice, NoteRow, NoticeRow, PlayerRow,
                RatingChangeRow, RatingFn, RatingRow, ResultsRow, Resumed, SettingsRow, StoreError,
                StoredGame, TakeBack,
            };
            #[allow(unused_imports)]
            use $crate::store::copy::TableRows;

            type Result<T> = std::result::Result<T, StoreError>;

            #[async_trait::async_trait]
            impl $crate::store::$trait for $db {
                $(
                    async fn $name(&self, $($arg: $type),*) $(-> $result)? {
                        $module::$name(self, $($arg),*).await
                    }
                )*
            }
        };
    };
}

pub(super) use answered_by;
