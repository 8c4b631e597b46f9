//! Abuse and failure: numbers stay in their community, chatter leaves no trace, caps hold,
//! one broken game never stops the clocks, notices are sent until a bot reports them
//! delivered, and notices know their community.

use pigeon::adapters::console;
use pigeon::chat::{self, Incoming};
use pigeon::rules::Variant;
use pigeon::service::{
    ColorChoice, DAY, HOUR, ManualClock, NOTICE_LEASE, Notice, Place, RateLimit, Service,
    ServiceError, Terms, User,
};

use crate::common::{TestDb, backends};
use crate::transcripts::{START, open};

fn discord(channel: &str, guild: &str) -> Place {
    Place::new("discord", channel).in_community(guild)
}

fn member(id: &str) -> User {
    User::new("discord", id, id)
}

fn said(place: &Place, who: &User, text: &str, addressed: bool) -> Incoming {
    Incoming {
        place: place.clone(),
        user: who.clone(),
        text: text.to_owned(),
        event_id: None,
        addressed,
        mentions: Vec::new(),
        manager: false,
        means: chat::Means::TYPED,
    }
}

backends! {
    #[tokio::test]
    async fn challenges_and_games_stay_in_their_community(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let (alice, bob, mallory) = (member("alice"), member("bob"), member("mallory"));
        let home = discord("chess", "guild-a");
        let lobby = discord("lobby", "guild-a");
        let elsewhere = discord("general", "guild-b");
        let dm = discord("dm-bob", "dm-bob");
        let open_to_all = service
            .challenge(&home, &alice, None, Variant::Chak, None, ColorChoice::White)
            .await
            .expect("challenged");
        let named = service
            .challenge(
                &home,
                &alice,
                Some(&bob),
                Variant::Chad,
                None,
                ColorChoice::White,
            )
            .await
            .expect("challenged");
        // From another server or a direct message, the numbers do not exist: for accepting,
        // declining and cancelling alike, and for the people they name too.
        for (place, who) in [(&elsewhere, &mallory), (&dm, &bob), (&elsewhere, &bob)] {
            for id in [open_to_all.id, named.id] {
                let accepted = service.accept(place, who, Some(id)).await;
                assert!(
                    matches!(accepted, Err(ServiceError::NoSuchChallenge(n)) if n == id),
                    "{accepted:?}"
                );
                let declined = service.decline(place, who, Some(id)).await;
                assert!(
                    matches!(declined, Err(ServiceError::NoSuchChallenge(n)) if n == id),
                    "{declined:?}"
                );
            }
        }
        let cancelled = service.cancel(&elsewhere, &alice, Some(named.id)).await;
        assert!(matches!(cancelled, Err(ServiceError::NoSuchChallenge(_))));
        // The answer is word for word the answer for a number nobody used.
        let unused = service.accept(&elsewhere, &mallory, Some(999)).await;
        let used = service.accept(&elsewhere, &mallory, Some(named.id)).await;
        assert_eq!(
            unused.expect_err("refused").to_string().replace("999", "N"),
            used.expect_err("refused")
                .to_string()
                .replace(&named.id.to_string(), "N")
        );
        // In the same server, another channel is fine: the game is played where it was asked.
        let game = service
            .accept(&lobby, &bob, Some(named.id))
            .await
            .expect("accepted in the same server");
        assert_eq!(game.row.channel, "chess");
        let id = game.row.id;
        // A stranger elsewhere finds no game #id, for every command and for completion.
        for command in [
            "board",
            "resign",
            "rematch",
            "gif",
            "export",
            "info",
            "history",
            "moves",
            "abort",
            "draw",
            "move #ID Rg9-h9",
        ] {
            let text = if command.contains("#ID") {
                command.replace("#ID", &format!("#{id}"))
            } else {
                format!("{command} #{id}")
            };
            let replies = chat::handle(&service, &said(&elsewhere, &mallory, &text, true)).await;
            assert_eq!(
                replies[0].plain(),
                format!("There is no game #{id}. `games` lists yours."),
                "{text}"
            );
        }
        let no_game = |result: Result<(), ServiceError>| {
            assert!(
                matches!(result, Err(ServiceError::NoSuchGame(n)) if n == id),
                "{result:?}"
            );
        };
        no_game(
            chat::move_choices(&service, &elsewhere, &mallory, Some(id), "", 25)
                .await
                .map(|_| ()),
        );
        // Its own players are told where it is played, from anywhere on the platform.
        let from_dm = service.game_for(&dm, &bob, Some(id)).await;
        assert!(
            matches!(from_dm, Err(ServiceError::ElsewhereGame { id: n, .. }) if n == id),
            "{from_dm:?}"
        );
        // Nothing changed in the game.
        assert_eq!(service.load(id).await.expect("loads").row.ply, 0);
    }
}

backends! {
    #[tokio::test]
    async fn chatter_is_never_answered_counted_or_stored(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock)
            .await
            .with_rate_limit(RateLimit::CHAT);
        let here = Place::new("console", "general");
        let (alice, bob) = (console::user("alice"), console::user("bob"));
        service
            .challenge(
                &here,
                &alice,
                Some(&bob),
                Variant::Chak,
                None,
                ColorChoice::White,
            )
            .await
            .expect("challenged");
        let game = service.accept(&here, &bob, None).await.expect("accepted");
        service
            .play(&here, &alice, None, "e3e4")
            .await
            .expect("alice moves first");
        // Lots of short chatter on bob's turn, from players and from strangers: no answer at all,
        // and none of it counts against anyone's rate limit.
        for round in 0..15 {
            for (who, text) in [
                (&alice, "hello pigeon"),
                (&bob, "ok"),
                (&bob, "gg"),
                (&alice, "e4"),
                (&bob, "resign"),
                (&bob, "lol 3"),
            ] {
                let mut line = said(&here, who, text, false);
                line.event_id = Some(format!("chatter-{round}-{}-{text}", who.id));
                let replies = chat::handle(&service, &line).await;
                assert!(replies.is_empty(), "{}: {text} -> {replies:?}", who.id);
            }
        }
        // A stranger's chatter leaves no player behind.
        let stranger = console::user("zed");
        assert!(
            chat::handle(&service, &said(&here, &stranger, "e3e4", false))
                .await
                .is_empty()
        );
        assert!(
            service
                .store()
                .player_by_platform_id("console", "zed")
                .await
                .expect("reads")
                .is_none()
        );
        // bob's real move, with a remark after it, is played: the chatter cost him nothing.
        let replies = chat::handle(&service, &said(&here, &bob, "e7e6 your move!", false)).await;
        assert!(replies[0].plain().contains("bob played e6"), "{replies:?}");
        let replies = chat::handle(&service, &said(&here, &alice, "Vd2 😀", false)).await;
        assert!(
            replies[0].plain().contains("alice played Vd2"),
            "{replies:?}"
        );
        assert_eq!(service.load(game.row.id).await.expect("loads").row.ply, 3);
        // Chatter about a finished game is not answered either.
        service
            .resign(&here, &bob, Some(game.row.id))
            .await
            .expect("resigned");
        for text in ["gg", "wp", "e4"] {
            assert!(
                chat::handle(&service, &said(&here, &alice, text, false))
                    .await
                    .is_empty()
            );
        }
    }
}

backends! {
    #[tokio::test]
    async fn processed_events_are_forgotten_after_a_week(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let first = || service.first_delivery("console", "e-1");
        assert!(first().await.expect("claims"));
        assert!(!first().await.expect("claims"), "a duplicate");
        clock.advance(6 * DAY);
        service.tick().await.expect("the clocks run");
        assert!(!first().await.expect("claims"), "still remembered");
        clock.advance(2 * DAY);
        service.tick().await.expect("the clocks run");
        assert!(first().await.expect("claims"), "forgotten after a week");
    }
}

backends! {
    #[tokio::test]
    async fn caps_refuse_with_the_cap_and_how_to_free_it(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let here = Place::new("console", "general");
        let alice = console::user("alice");
        // Ten open challenges, then the eleventh is refused.
        for n in 0..10 {
            let opponent = console::user(&format!("friend{n}"));
            service
                .challenge(
                    &here,
                    &alice,
                    Some(&opponent),
                    Variant::Chak,
                    None,
                    ColorChoice::Random,
                )
                .await
                .expect("within the cap");
        }
        let refused = service
            .challenge(
                &here,
                &alice,
                None,
                Variant::Chak,
                None,
                ColorChoice::Random,
            )
            .await
            .expect_err("over the cap");
        let text = refused.to_string();
        assert!(text.contains("10 open challenges"), "{text}");
        assert!(text.contains("`cancel` one"), "{text}");
        assert!(text.contains("`limits`"), "{text}");
        // One challenge per opponent and game: the second points at the first.
        let bob = console::user("friend0");
        let repeat = service
            .challenge(
                &here,
                &alice,
                Some(&bob),
                Variant::Chak,
                None,
                ColorChoice::Random,
            )
            .await
            .expect_err("a repeat");
        assert!(
            matches!(repeat, ServiceError::AlreadyChallenged { id: 1, .. }),
            "{repeat:?}"
        );
        // A manager raises the cap; someone else may only look.
        let mut ask = said(&here, &console::user("carol"), "limits challenges 12", true);
        let replies = chat::handle(&service, &ask).await;
        assert!(
            replies[0].plain().contains("Only the community's managers"),
            "{replies:?}"
        );
        ask.manager = true;
        let replies = chat::handle(&service, &ask).await;
        assert!(
            replies[0]
                .plain()
                .contains("open challenges per player is now 12"),
            "{replies:?}"
        );
        service
            .challenge(
                &here,
                &alice,
                None,
                Variant::Chad,
                None,
                ColorChoice::Random,
            )
            .await
            .expect("under the new cap");
        // Another community keeps the default.
        let den = Place::new("console", "den");
        let text = chat::handle(&service, &said(&den, &alice, "limits", true)).await[0].plain();
        assert!(
            text.contains("open challenges per player: 10 (the default)"),
            "{text}"
        );
        // Games against the bot: five at once.
        let bot = console::bot();
        let mut terms = Terms::new(Variant::Shakti);
        terms.color = ColorChoice::White;
        for _ in 0..5 {
            service
                .challenge_with(&den, &console::user("dora"), Some(&bot), &terms)
                .await
                .expect("within the cap");
        }
        let refused = service
            .challenge_with(&den, &console::user("dora"), Some(&bot), &terms)
            .await
            .expect_err("over the cap");
        assert!(
            refused.to_string().contains("5 games against me"),
            "{refused}"
        );
    }
}

/// A rated Chak game between `white` and `black` in `place`, started at the clock's time.
async fn game_in(service: &Service, place: &Place, white: &User, black: &User) -> i64 {
    service
        .challenge(
            place,
            white,
            Some(black),
            Variant::Chak,
            Some(1),
            ColorChoice::White,
        )
        .await
        .expect("challenged");
    service
        .accept(place, black, None)
        .await
        .expect("accepted")
        .row
        .id
}

backends! {
    #[tokio::test]
    async fn one_broken_game_never_stops_the_clocks(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let here = Place::new("console", "general");
        let users: Vec<User> = ["a", "b", "c", "d", "e", "f"].map(console::user).to_vec();
        let first = game_in(&service, &here, &users[0], &users[1]).await;
        let broken = game_in(&service, &here, &users[2], &users[3]).await;
        let last = game_in(&service, &here, &users[4], &users[5]).await;
        break_game(&db, broken).await;
        clock.advance(DAY + HOUR);
        let notices = service
            .tick()
            .await
            .expect("the clocks run despite the broken game");
        let ended: Vec<i64> = notices
            .iter()
            .filter_map(|pending| match &pending.notice {
                Notice::Timeout { game, .. } => Some(game.row.id),
                _ => None,
            })
            .collect();
        assert_eq!(ended, [first, last]);
        let marked = service
            .store()
            .games_needing_attention()
            .await
            .expect("reads");
        assert_eq!(marked.len(), 1);
        assert_eq!(marked[0].0, broken);
        // Later ticks skip it and go on working.
        for pending in &notices {
            service.delivered(pending.id).await;
        }
        clock.advance(HOUR);
        assert!(service.tick().await.expect("the clocks run").is_empty());
    }
}

backends! {
    #[tokio::test]
    async fn a_notice_is_sent_until_it_is_reported_delivered(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let here = discord("chess", "guild-a");
        let id = game_in(&service, &here, &member("alice"), &member("bob")).await;
        clock.advance(DAY - HOUR / 2);
        let first = service
            .tick_platform("discord")
            .await
            .expect("the clocks run");
        assert_eq!(first.len(), 1);
        let Notice::Reminder { place, game, .. } = &first[0].notice else {
            panic!("a reminder: {first:?}");
        };
        assert_eq!(game.row.id, id);
        // A notice knows the community of its game, like any reply.
        assert_eq!(place, &here);
        // Not reported yet: not handed out again while the claim lasts...
        assert!(
            service
                .tick_platform("discord")
                .await
                .expect("runs")
                .is_empty()
        );
        // ...the platform refused it: it comes again at the next tick.
        service.not_delivered(first[0].id).await;
        let again = service.tick_platform("discord").await.expect("runs");
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].id, first[0].id);
        // A bot that stopped without reporting: it comes again once the claim lapsed.
        clock.advance(NOTICE_LEASE + 1);
        let after_restart = open(&db, &clock).await;
        let lapsed = after_restart.tick_platform("discord").await.expect("runs");
        assert_eq!(lapsed.len(), 1);
        assert_eq!(lapsed[0].id, first[0].id);
        after_restart.delivered(lapsed[0].id).await;
        clock.advance(NOTICE_LEASE + 1);
        assert!(
            after_restart
                .tick_platform("discord")
                .await
                .expect("runs")
                .is_empty()
        );
        // The timeout too: recorded with the end of the game, told until delivered.
        clock.advance(HOUR);
        let timeout = after_restart.tick_platform("discord").await.expect("runs");
        assert!(
            matches!(&timeout[..], [pending] if matches!(pending.notice, Notice::Timeout { .. })),
            "{timeout:?}"
        );
        let reopened = open(&db, &clock).await;
        clock.advance(NOTICE_LEASE + 1);
        let told = reopened.tick_platform("discord").await.expect("runs");
        assert_eq!(told.len(), 1, "the timeout is told after a restart");
        assert_eq!(told[0].id, timeout[0].id);
    }
}

/// Breaks a stored game behind the store's back, as a faulty disk or a bad edit would: its
/// cached position no longer matches its moves.
async fn break_game(db: &TestDb, id: i64) {
    db.tamper(
        "UPDATE games SET position = 'not a position' WHERE id = $1",
        id,
    )
    .await;
}
