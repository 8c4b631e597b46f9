//! Tournaments through the service on each backend: a start and a round happen once however
//! many processes run the clocks, a restart in the middle of a round loses nothing, and the
//! standings picture decodes. (The conversations are in the transcripts.)

use pigeon::rules::Variant;
use pigeon::service::{
    DAY, Format, ManualClock, Notice, Place, StartTime, TournamentRequest, User,
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
        round_days: Some(5),
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

backends! {
    #[tokio::test]
    async fn two_processes_start_and_pair_a_swiss_once_across_a_restart(db: TestDb) {
        let clock = ManualClock::new(START);
        let place = Place::new("console", "general");
        let first = open(&db, &clock).await;
        let second = open(&db, &clock).await;
        let info = first
            .create_tournament(&place, &user("alice"), true, &request(Format::Swiss, StartTime::In(DAY)))
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
        let mut notices = tournament_notices(&a.expect("ticks"));
        notices.extend(tournament_notices(&b.expect("ticks")));
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
        let mut notices = tournament_notices(&a.expect("ticks"));
        notices.extend(tournament_notices(&b.expect("ticks")));
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
