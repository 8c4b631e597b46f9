//! Replies that fit and tell the truth: no reply longer than a platform's message, long
//! lists condensed with the way to see more, and pings that follow the player's settings.

use pigeon::adapters::console;
use pigeon::chat::{self, Incoming, MAX_REPLY, Part};
use pigeon::rules::Variant;
use pigeon::service::{ColorChoice, DAY, ManualClock, Notice, Place, SettingsChange};

use crate::common::backends;
use crate::transcripts::{START, open};

fn said(who: &str, text: &str) -> Incoming {
    console::incoming(&console::Line {
        channel: String::from("general"),
        name: who.to_owned(),
        text: text.to_owned(),
    })
}

backends! {
    #[tokio::test]
    async fn long_lists_are_condensed_or_split_to_fit_a_message(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let here = Place::new("console", "general");
        let (alice, bob) = (console::user("alice"), console::user("bob"));
        service
            .challenge(
                &here,
                &alice,
                Some(&bob),
                Variant::Chesscala,
                None,
                ColorChoice::White,
            )
            .await
            .expect("challenged");
        service.accept(&here, &bob, None).await.expect("accepted");
        // Three turns in, Black has 359 turns (two checks allow any two moves): grouped by
        // square, with how to list one square.
        for (who, turn) in [
            ("alice", "e1>RQB"),
            ("bob", "d8>rnq"),
            ("alice", "Bf4xc7=p a2>PP"),
        ] {
            let replies = chat::handle(&service, &said(who, turn)).await;
            assert!(replies[0].plain().contains("played"), "{turn}: {replies:?}");
        }
        let replies = chat::handle(&service, &said("bob", "moves")).await;
        let text = replies[0].plain();
        assert!(text.contains("359 legal moves"), "{text}");
        assert!(text.contains("too many to list. By square: "), "{text}");
        assert!(text.contains("`moves #1 "), "{text}");
        assert!(
            text.chars().count() <= MAX_REPLY,
            "{}",
            text.chars().count()
        );
        // The busiest square, grouped by the first move of the turn when still too many.
        let square = text
            .split("By square: ")
            .nth(1)
            .and_then(|list| {
                list.split(", ").max_by_key(|group| {
                    group
                        .split(['(', ')'])
                        .nth(1)
                        .and_then(|n| n.parse::<usize>().ok())
                })
            })
            .and_then(|group| group.split(' ').next())
            .expect("a square")
            .to_owned();
        for reply in chat::handle(&service, &said("bob", &format!("moves {square}"))).await {
            let text = reply.plain();
            assert!(text.chars().count() <= MAX_REPLY, "{text}");
            assert!(text.contains(&square), "{text}");
        }
        // Every reply of a long session fits, help included.
        for text in [
            "help",
            "rules chesscala",
            "games",
            "history",
            "export",
            "b1 RBN",
        ] {
            for reply in chat::handle(&service, &said("alice", text)).await {
                let length = reply.plain().chars().count();
                assert!(length <= MAX_REPLY, "{text}: {length}");
            }
        }
    }
}

backends! {
    #[tokio::test]
    async fn pings_off_silences_the_reminders_too(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        crate::service::started_game(&service).await;
        let alice = console::user("alice");
        let off = SettingsChange {
            turn_pings: Some(false),
            ..SettingsChange::default()
        };
        service.settings(&alice, &off).await.expect("saved");
        // Just past the 24-hour reminder, then (23 hours on) the 1-hour one.
        clock.advance(2 * DAY + 60);
        let mut reminders = 0;
        for _ in 0..2 {
            for pending in service.tick().await.expect("the clocks run") {
                if let Notice::Reminder { .. } = pending.notice {
                    reminders += 1;
                    let (_, reply) = chat::notice_reply(&service, &pending.notice).await;
                    assert!(reply.mentions().is_empty(), "{reply:?}");
                    assert!(reply.turn.is_none(), "{reply:?}");
                    assert!(
                        reply
                            .parts
                            .iter()
                            .any(|part| matches!(part, Part::Name(user) if user.name == "alice")),
                        "{reply:?}"
                    );
                }
                service.delivered(pending.id).await;
            }
            clock.advance(23 * 3600);
        }
        assert_eq!(reminders, 2, "the 24-hour and the 1-hour reminder");
    }

    #[tokio::test]
    async fn a_move_is_answered_with_the_board_as_stored_drawn_while_it_was_stored(db: TestDb) {
        let clock = ManualClock::new(START);
        let service = open(&db, &clock).await;
        let here = Place::new("console", "general");
        let (alice, bob) = (console::user("alice"), console::user("bob"));
        service
            .challenge(&here, &alice, Some(&bob), Variant::Chak, None, ColorChoice::White)
            .await
            .expect("challenged");
        service.accept(&here, &bob, None).await.expect("accepted");
        // Pictures follow the viewer's setting: bob sees the board from White's side.
        chat::handle(&service, &said("bob", "settings view white")).await;
        let board = |who: &'static str| {
            let service = service.clone();
            async move {
                let replies = chat::handle(&service, &said(who, "board")).await;
                let picture = replies.into_iter().find_map(|reply| reply.picture);
                picture.expect("the board has a picture").data
            }
        };
        let done = service.play(&here, &alice, None, "e4").await.expect("played");
        let drawn = done.picture.clone().expect("drawn while the move was stored");
        assert_eq!(drawn.data, board("bob").await, "bob's view, the deadline and e4 marked");
        // alice goes on leave while bob thinks: when her turn comes her clock stands still,
        // and the picture drawn while bob's move was stored already says so.
        service
            .start_leave(&here, &alice, 3 * DAY)
            .await
            .expect("on leave");
        let done = service.play(&here, &bob, None, "Vd8").await.expect("played");
        assert_eq!(done.state.row.deadline, None, "her clock stands still");
        let drawn = done.picture.clone().expect("drawn while the move was stored");
        assert_eq!(drawn.data, board("alice").await);
        // Through the chat the reply carries that picture.
        let replies = chat::handle(&service, &said("alice", "Qd3")).await;
        let picture = replies.iter().find_map(|reply| reply.picture.clone());
        assert_eq!(picture.expect("a picture").data, board("bob").await);
    }
}
