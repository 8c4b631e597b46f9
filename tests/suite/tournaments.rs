//! Tournaments through the service on each backend: a start and a round happen once however
//! many processes run the clocks, a restart in the middle of a round loses nothing, the
//! standings picture decodes, joins racing for the last places never pass the maximum,
//! withdrawals annul or forfeit as FIDE's rules say, a room's move takes its tournaments and
//! a tournament's thread means it. (The conversations are in the transcripts.)

use pigeon::rules::Variant;
use pigeon::service::{
    DAY, Format, ManualClock, Notice, Place, Service, ServiceError, StartTime, TournamentError,
    TournamentRequest, User,
};

use crate::common::backends;
use crate::transcripts::{START, open};

fn user(name: &str) -> User {
    User::new("console", name, name)
}

fn request(format: Format, start: StartTime) -> TournamentRequest {
    TournamentRequest {
        name: String::from("Cup"),
        variant: Variant::Chak,
        format,
        rounds: Some(2),
        days: Some(3),
        rated: Some(false),
        start,
        max_players: None,
        round_days: (format == Format::Swiss).then_some(5),
    }
}

/// The tournament notices among the pending ones, as (kind, round) words.
fn tournament_notices(pending: &[pigeon::service::Pending]) -> Vec<String> {
    pending
        .iter()
        .filter_map(|p| match &p.notice {
            Notice::TournamentRound { pairings, .. } => {
                Some(format!("round {}", pairings.first().map_or(0, |r| r.round)))
            }
            Notice::TournamentStandings { .. } => Some(String::from("standings")),
            Notice::TournamentOver { .. } => Some(String::from("over")),
            Notice::TournamentPostponed { .. } => Some(String::from("postponed")),
            _ => None,
        })
        .collect()
}

/// The tournament notices of two processes' clock runs, reported delivered (as a bot does),
/// so none is claimed again once its lease lapses.
async fn delivered(
    service: &Service,
    a: Result<Vec<pigeon::service::Pending>, ServiceError>,
    b: Result<Vec<pigeon::service::Pending>, ServiceError>,
) -> Vec<String> {
    let (a, b) = (a.expect("ticks"), b.expect("ticks"));
    for pending in a.iter().chain(&b) {
        service.delivered(pending.id).await;
    }
    let mut notices = tournament_notices(&a);
    notices.extend(tournament_notices(&b));
    notices
}

backends! {
    #[tokio::test]
    async fn two_processes_start_and_pair_a_swiss_once_across_a_restart(db: TestDb) {
        let clock = ManualClock::new(START);
        let place = Place::new("console", "general");
        let first = open(&db, &clock).await;
        let second = open(&db, &clock).await;
        // Seven days per move, so that the round's five-day deadline comes first.
        let swiss = TournamentRequest {
            days: Some(7),
            ..request(Format::Swiss, StartTime::In(DAY))
        };
        let info = first
            .create_tournament(&place, &user("alice"), true, &swiss)
            .await
            .expect("created");
        for name in ["alice", "bob", "carol", "dave"] {
            first
                .join_tournament(&place, &user(name), Some(info.id))
                .await
                .expect("joined");
        }
        clock.advance(DAY);
        // Both processes run their clocks at the start time: one start, one round.
        let (a, b) = tokio::join!(first.tick(), second.tick());
        let notices = delivered(&first, a, b).await;
        assert_eq!(notices, ["round 1"]);
        let standings = first
            .tournament_standings(&place, Some(info.id))
            .await
            .expect("standings");
        assert_eq!(standings.games_total, 2);
        // A restart in the middle of round 1.
        first.store().close().await;
        second.store().close().await;
        let service = open(&db, &clock).await;
        assert!(tournament_notices(&service.tick().await.expect("ticks")).is_empty());
        // The round deadline passes: its games are adjudicated drawn, round 2 is paired
        // once by both processes.
        clock.advance(5 * DAY);
        let other = open(&db, &clock).await;
        let (a, b) = tokio::join!(service.tick(), other.tick());
        let notices = delivered(&service, a, b).await;
        assert_eq!(notices, ["round 2"]);
        let standings = service
            .tournament_standings(&place, Some(info.id))
            .await
            .expect("standings");
        assert_eq!(standings.games_total, 4);
        assert_eq!(standings.complete_rounds, 1);
        assert!(standings.lines.iter().all(|line| line.points == 5));
        // The standings as a picture: a PNG with a row per player below the title and header.
        let image = service.standings_image(&standings).await.expect("drawn");
        let decoder = png::Decoder::new(std::io::Cursor::new(image.data));
        let mut reader = decoder.read_info().expect("a PNG");
        let (width, height) = (reader.info().width, reader.info().height);
        assert_eq!(image.size, (width, height));
        assert_eq!(height, 32 * (4 + 2));
        let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
        reader.next_frame(&mut pixels).expect("decodes");
        // The title band is Chak's frame colour at its left edge.
        assert_eq!(&pixels[..3], &[0x3b, 0x2a, 0x1e]);
        other.store().close().await;
        service.store().close().await;
    }

    #[tokio::test]
    async fn a_round_robin_creates_every_game_at_once(db: TestDb) {
        let clock = ManualClock::new(START);
        let place = Place::new("console", "general");
        let service = open(&db, &clock).await;
        let info = service
            .create_tournament(
                &place,
                &user("alice"),
                true,
                &request(Format::Double, StartTime::Manual),
            )
            .await
            .expect("created");
        for name in ["alice", "bob", "carol"] {
            service
                .join_tournament(&place, &user(name), None)
                .await
                .expect("joined");
        }
        let started = service
            .start_tournament(&place, &user("alice"), false, Some(info.id))
            .await
            .expect("started by its organiser");
        // Three players, double: six rounds of one game (and a bye) each.
        assert_eq!(started.rounds, 6);
        let again = service
            .start_tournament(&place, &user("alice"), false, Some(info.id))
            .await;
        assert!(again.is_err(), "started twice");
        let standings = service
            .tournament_standings(&place, None)
            .await
            .expect("standings");
        assert_eq!(standings.games_total, 6);
        let notices = tournament_notices(&service.tick().await.expect("ticks"));
        assert_eq!(notices, ["round 1"]);
        service.store().close().await;
    }
}

/// Creates a round robin (casual, started by hand) in `place` organised by the first of
/// `players`, and has them all join it.
async fn round_robin_with(service: &Service, place: &Place, players: &[User]) -> i64 {
    tournament_with(service, place, Format::RoundRobin, players).await
}

/// Creates a casual tournament of `format`, started by hand, in `place`, organised by the
/// first of `players`, and has them all join it.
async fn tournament_with(
    service: &Service,
    place: &Place,
    format: Format,
    players: &[User],
) -> i64 {
    let info = service
        .create_tournament(
            place,
            &players[0],
            true,
            &request(format, StartTime::Manual),
        )
        .await
        .expect("created");
    for player in players {
        service
            .join_tournament(place, player, Some(info.id))
            .await
            .expect("joined");
    }
    info.id
}

/// Ends `game` by `loser`'s resignation.
async fn resign(service: &Service, place: &Place, loser: &User, game: i64) {
    service
        .resign(place, loser, Some(game))
        .await
        .unwrap_or_else(|e| panic!("{} resigns #{game}: {e}", loser.name));
}

backends! {
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn joins_racing_for_the_last_places_let_exactly_the_maximum_in(db: TestDb) {
        let clock = ManualClock::new(START);
        let place = Place::new("console", "general");
        let service = open(&db, &clock).await;
        let mut terms = request(Format::Swiss, StartTime::Manual);
        terms.max_players = Some(4);
        let info = service
            .create_tournament(&place, &user("alice"), true, &terms)
            .await
            .expect("created");
        // Everyone known first, so that the joins race only for the places.
        let names: Vec<String> = (0..16).map(|n| format!("player{n}")).collect();
        for name in &names {
            service.player(&user(name)).await.expect("a player");
        }
        let mut joins = tokio::task::JoinSet::new();
        let id = info.id;
        for name in names {
            let (service, place) = (service.clone(), place.clone());
            joins.spawn(async move { service.join_tournament(&place, &user(&name), Some(id)).await });
        }
        let (mut joined, mut full) = (0, 0);
        while let Some(done) = joins.join_next().await {
            match done.expect("no panic") {
                Ok(_) => joined += 1,
                Err(ServiceError::Tournament(TournamentError::Full { id, max })) => {
                    assert_eq!((id, max), (info.id, 4));
                    full += 1;
                }
                Err(other) => panic!("a join got {other:?}"),
            }
        }
        assert_eq!((joined, full), (4, 12));
        let info = service.tournament(&place, Some(info.id)).await.expect("info");
        assert_eq!(info.players.len(), 4);
        let refused = service
            .join_tournament(&place, &user("late"), Some(info.id))
            .await
            .expect_err("full");
        assert_eq!(
            refused.to_string(),
            format!("Tournament #{} is full (4 players).", info.id)
        );
        service.store().close().await;
    }

    #[tokio::test]
    async fn withdrawals_from_a_round_robin_annul_before_half_and_forfeit_after(db: TestDb) {
        let clock = ManualClock::new(START);
        let place = Place::new("console", "general");
        let service = open(&db, &clock).await;
        let [alice, bob, carol, dave, eve] =
            ["alice", "bob", "carol", "dave", "eve"].map(user);
        let players = [alice.clone(), bob.clone(), carol.clone(), dave.clone(), eve.clone()];
        let id = round_robin_with(&service, &place, &players).await;
        service
            .start_tournament(&place, &alice, false, Some(id))
            .await
            .expect("started");
        // Berger for five, seeds by joining: #1 bob-eve, #2 carol-dave, #3 eve-carol,
        // #4 alice-bob, #5 carol-alice, #6 dave-eve, #7 alice-dave, #8 bob-carol,
        // #9 dave-bob, #10 eve-alice (colours as drawn).
        resign(&service, &place, &dave, 2).await;
        resign(&service, &place, &eve, 3).await;
        // dave: one game of four played, fewer than half: everything of his annulled.
        let gone = service
            .withdraw_from_tournament(&place, &dave, None)
            .await
            .expect("withdrawn");
        assert!(gone.annulled);
        assert_eq!(gone.ended, [6, 7, 9]);
        for game in [6, 7, 9] {
            let state = service.load(game).await.expect("loads");
            assert_eq!(state.row.status, "finished");
            assert_eq!(state.row.result, None, "#{game} has no result");
            assert_eq!(state.row.end_reason.as_deref(), Some("annulled"));
        }
        // carol: two of four played (her win over dave counts as played): half, so her
        // results stand and her games left are forfeited.
        let gone = service
            .withdraw_from_tournament(&place, &carol, None)
            .await
            .expect("withdrawn");
        assert!(!gone.annulled);
        assert_eq!(gone.ended, [5, 8]);
        for game in [5, 8] {
            let state = service.load(game).await.expect("loads");
            let carol_white = state.white.display_name == "carol";
            let expected = if carol_white { "0-1" } else { "1-0" };
            assert_eq!(state.row.result.as_deref(), Some(expected), "#{game}");
            assert_eq!(state.row.end_reason.as_deref(), Some("forfeit"));
            assert!(!state.row.rated);
        }
        let again = service.withdraw_from_tournament(&place, &dave, Some(id)).await;
        assert!(matches!(
            again,
            Err(ServiceError::Tournament(TournamentError::Withdrawn(_)))
        ));
        let standings = service
            .tournament_standings(&place, Some(id))
            .await
            .expect("standings");
        let line = |name: &str| {
            standings
                .lines
                .iter()
                .find(|line| line.name == name)
                .unwrap_or_else(|| panic!("{name} in the standings"))
                .clone()
        };
        // carol's win over dave is gone; her win over eve and her two forfeits stay.
        let carol_line = line("carol");
        assert_eq!((carol_line.points, carol_line.games), (10, 3));
        assert!(carol_line.withdrawn && !carol_line.annulled);
        assert_eq!(carol_line.withdrawal_note(), " (withdrawn: games left forfeited)");
        let dave_line = line("dave");
        assert_eq!((dave_line.points, dave_line.games), (0, 0));
        assert!(dave_line.withdrawn && dave_line.annulled);
        assert_eq!(dave_line.withdrawal_note(), " (withdrawn: results annulled)");
        assert_eq!(standings.lines.last().map(|l| l.name.as_str()), Some("dave"));
        // eve: her loss to carol stands, her game against dave is gone.
        assert_eq!((line("eve").points, line("eve").games), (0, 1));
        assert_eq!((line("alice").points, line("bob").points), (10, 10));
        assert_eq!(standings.games_finished, 7);
        let info = service.tournament(&place, Some(id)).await.expect("info");
        let annulled: Vec<&str> = info
            .players
            .iter()
            .filter(|e| e.annulled)
            .map(|e| e.user.name.as_str())
            .collect();
        assert_eq!(annulled, ["dave"]);
        // The picture draws the annulled line too.
        let image = service.standings_image(&standings).await.expect("drawn");
        assert!(image.data.starts_with(b"\x89PNG"));
        service.store().close().await;
    }

    #[tokio::test]
    async fn a_swiss_withdrawal_forfeits_and_never_annuls(db: TestDb) {
        let clock = ManualClock::new(START);
        let place = Place::new("console", "general");
        let service = open(&db, &clock).await;
        let four = ["alice", "bob", "carol", "dave"].map(user);
        let id = tournament_with(&service, &place, Format::Swiss, &four).await;
        service
            .start_tournament(&place, &user("alice"), false, Some(id))
            .await
            .expect("started");
        // Nothing played at all, and still no annulment in a Swiss: the game is forfeited.
        let gone = service
            .withdraw_from_tournament(&place, &user("dave"), None)
            .await
            .expect("withdrawn");
        assert!(!gone.annulled);
        assert_eq!(gone.ended.len(), 1);
        let state = service.load(gone.ended[0]).await.expect("loads");
        assert_eq!(state.row.end_reason.as_deref(), Some("forfeit"));
        assert!(state.row.result.is_some());
        let standings = service
            .tournament_standings(&place, Some(id))
            .await
            .expect("standings");
        assert!(standings.lines.iter().all(|line| !line.annulled));
        service.store().close().await;
    }

    #[tokio::test]
    async fn a_start_made_for_other_players_than_there_are_is_refused(db: TestDb) {
        // A join (or a leave) lands between the start reading the players and recording the
        // start: the store refuses the start made for the old list, and a start seeds again.
        let clock = ManualClock::new(START);
        let place = Place::new("console", "general");
        let service = open(&db, &clock).await;
        let four = ["alice", "bob", "carol", "dave"].map(user);
        let id = tournament_with(&service, &place, Format::RoundRobin, &four).await;
        let info = service.tournament(&place, Some(id)).await.expect("reads");
        let stale: Vec<(i64, i64, i64)> = info.players[..3]
            .iter()
            .zip(0..)
            .map(|(entrant, seed)| (entrant.player_id, seed, 1500))
            .collect();
        let start = pigeon::store::StartRecord {
            seeds: &stale,
            top_seed_white: true,
            rounds: 3,
            standings_next: None,
        };
        let round = pigeon::store::NewRound {
            tournament_id: info.id,
            expected_round: 0,
            round: 3,
            games: Vec::new(),
            byes: Vec::new(),
            round_deadline: None,
            start: Some(start),
            now: START,
        };
        assert!(!service.store().record_round(&round).await.expect("answers"));
        let info = service.tournament(&place, Some(id)).await.expect("reads");
        assert_eq!(info.state, pigeon::service::TournamentState::Open, "nothing recorded");
        // The start as players do it seeds all four.
        let started = service
            .start_tournament(&place, &user("alice"), false, Some(id))
            .await
            .expect("started");
        assert_eq!(started.players.iter().filter(|e| e.seed.is_some()).count(), 4);
        service.store().close().await;
    }

    #[tokio::test]
    async fn the_clocks_end_the_games_a_withdrawal_left_running(db: TestDb) {
        // A withdrawal stored, its games not yet ended: the process stopped in between, or
        // the round was paired while the withdrawal was being recorded.
        let clock = ManualClock::new(START);
        let place = Place::new("console", "general");
        let service = open(&db, &clock).await;
        let four = ["alice", "bob", "carol", "dave"].map(user);
        let id = tournament_with(&service, &place, Format::Swiss, &four).await;
        let info = service
            .start_tournament(&place, &user("alice"), false, Some(id))
            .await
            .expect("started");
        let dave = info
            .players
            .iter()
            .find(|entrant| entrant.user.name == "dave")
            .expect("dave plays")
            .player_id;
        assert!(
            service
                .store()
                .withdraw(info.id, dave, 1, false, START)
                .await
                .expect("stored")
        );
        let games = service.store().tournament_games(info.id).await.expect("games");
        let theirs = games
            .iter()
            .find(|game| game.white_id == dave || game.black_id == dave)
            .expect("dave has a game");
        assert_eq!(theirs.status, "active");
        clock.advance(60);
        service.tick().await.expect("ticks");
        let state = service.load(theirs.id).await.expect("loads");
        assert_eq!(state.row.end_reason.as_deref(), Some("forfeit"));
        let won = if theirs.white_id == dave { "0-1" } else { "1-0" };
        assert_eq!(state.row.result.as_deref(), Some(won));
        // The other game of the round goes on.
        let other = games.iter().find(|game| game.id != theirs.id).expect("two games");
        let state = service.load(other.id).await.expect("loads");
        assert_eq!(state.row.status, "active");
        service.store().close().await;
    }

    #[tokio::test]
    async fn a_moved_room_takes_its_tournaments_and_a_thread_means_its_tournament(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let room = Place::stored("matrix", "!old:example.org", None);
        let thread = Place::stored("matrix", "!old:example.org/$root", Some("!old:example.org"));
        let [alice, bob, carol] = ["@alice:example.org", "@bob:example.org", "@carol:example.org"]
            .map(|id| User::new("matrix", id, &id[1..id.find(':').unwrap_or(1)]));
        let first = round_robin_with(&service, &room, &[alice.clone(), bob.clone(), carol.clone()]).await;
        let second = round_robin_with(&service, &room, &[alice.clone(), bob.clone()]).await;
        service
            .set_tournament_thread(first, &thread)
            .await
            .expect("threaded");
        // In the room two tournaments could be meant; in the first's thread, only it.
        let which = service.tournament(&room, None).await;
        assert!(
            matches!(which, Err(ServiceError::Tournament(TournamentError::WhichTournament { .. }))),
            "{which:?}"
        );
        let here = service.tournament(&thread, None).await.expect("the thread's");
        assert_eq!(here.id, first);
        assert_eq!(here.place.channel, thread.channel);
        let started = service
            .start_tournament(&thread, &alice, false, None)
            .await
            .expect("started from its thread");
        assert_eq!(started.id, first);
        let games = service
            .tournament_standings(&thread, None)
            .await
            .expect("standings from the thread")
            .games_total;
        assert_eq!(games, 3);
        // The room is upgraded: its tournaments go with it, their news to the new room.
        let moved = service
            .move_community("matrix", "!old:example.org", "!new:example.org")
            .await
            .expect("moved");
        assert_eq!(moved, [1, 2, 3]);
        let new_room = Place::stored("matrix", "!new:example.org", None);
        let listed: Vec<i64> = service
            .tournaments(&new_room)
            .await
            .expect("listed")
            .iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(listed, [second, first]);
        assert!(service.tournaments(&room).await.expect("listed").is_empty());
        let info = service.tournament(&new_room, Some(first)).await.expect("found there");
        assert_eq!(info.place.channel, "!new:example.org");
        let standings = service
            .tournament_standings(&new_room, None)
            .await
            .expect("the running one");
        assert_eq!(standings.tournament.id, first);
        service.store().close().await;
    }
}

/// In the console on a driven clock: a start time that comes with two players posts a notice
/// and waits; a third joins afterwards and the organiser starts it by hand.
#[test]
fn a_tournament_short_of_players_at_its_start_waits_then_joins_and_a_manual_start_work() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let db = dir.path().join("console.db");
    let out = crate::deadlines::console(
        &db,
        &["--now", "2026-12-01T10:00:00Z"],
        "alice: tournament create Cup chak roundrobin start in 1d\n\
         alice: tournament join\n\
         bob: tournament join\n\
         wait 2d\n\
         carol: tournament join\n\
         alice: tournament start\n\
         wait 1h\n",
    );
    let at = |needle: &str| {
        out.find(needle)
            .unwrap_or_else(|| panic!("{needle:?} missing from:\n{out}"))
    };
    let created = at("It starts at 2026-12-02 10:00 UTC if at least 3 have joined");
    let postponed = at("could not start at its start time: it has 2 players");
    let waited = at("It is now 2026-12-03 10:00 UTC.");
    let joined = at("3 players: alice, bob, carol.");
    let started = at("has started with 3 players");
    let paired = at("Round 1:");
    assert!(
        created < postponed && postponed < waited && waited < joined,
        "{out}"
    );
    assert!(joined < started && started < paired, "{out}");
    // The notice is given once, and says what to do.
    assert_eq!(
        out.matches("could not start at its start time").count(),
        1,
        "{out}"
    );
    assert!(out.contains("tournament start 1"), "{out}");
}
