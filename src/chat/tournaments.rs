//! `tournament …` (and `tournaments`): the grammar of its subcommands, and the replies and
//! notices about tournaments: pairings, standings (as text and as a picture) and the end.

use super::inert::{cleaned, inert};
use super::{Incoming, Picture, Reply};
use crate::rules::Variant;
use crate::service::clock::{format_utc, parse_span, plural};
use crate::service::tournaments::{points_text, tie_break_text};
use crate::service::{
    Format, RoundGames, Service, ServiceError, Standings, StartTime, TournamentInfo,
    TournamentRequest, TournamentState, Withdrawal,
};

/// What `tournament` asks for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TournamentCommand {
    /// The community's tournaments.
    List,
    Create(Box<TournamentRequest>),
    Join(Option<i64>),
    Leave(Option<i64>),
    Start(Option<i64>),
    Withdraw(Option<i64>),
    Standings(Option<i64>),
    Info(Option<i64>),
    /// Who may create tournaments here, or a change of it (managers only): `true` anyone.
    Creators(Option<bool>),
}

/// Reads a number: `#3` or `3`.
fn number(word: &str) -> Option<i64> {
    word.strip_prefix('#')
        .unwrap_or(word)
        .parse()
        .ok()
        .filter(|n| *n > 0)
}

/// Parses the words after `tournament`.
///
/// # Errors
/// What is wrong, in words for the user.
pub fn parse(args: &[&str]) -> Result<TournamentCommand, String> {
    let Some((first, rest)) = args.split_first() else {
        return Ok(TournamentCommand::List);
    };
    let sub = first.to_ascii_lowercase();
    if sub == "create" || sub == "new" {
        return parse_create(rest).map(|r| TournamentCommand::Create(Box::new(r)));
    }
    if sub == "creators" {
        return match rest.first().map(|w| w.to_ascii_lowercase()).as_deref() {
            None => Ok(TournamentCommand::Creators(None)),
            Some("anyone" | "everyone" | "all") => Ok(TournamentCommand::Creators(Some(true))),
            Some("managers" | "admins") => Ok(TournamentCommand::Creators(Some(false))),
            Some(other) => Err(format!("\"{}\" is not anyone or managers.", inert(other))),
        };
    }
    let id = match rest {
        [] => None,
        [word] => Some(
            number(word)
                .ok_or_else(|| format!("\"{}\" is not a tournament number.", inert(word)))?,
        ),
        _ => return Err(String::from("Name one tournament, by its number.")),
    };
    Ok(match sub.as_str() {
        "list" | "all" => TournamentCommand::List,
        "join" | "enter" => TournamentCommand::Join(id),
        "leave" => TournamentCommand::Leave(id),
        "start" | "begin" => TournamentCommand::Start(id),
        "withdraw" | "quit" => TournamentCommand::Withdraw(id),
        "standings" | "table" | "results" => TournamentCommand::Standings(id),
        "info" | "show" => TournamentCommand::Info(id),
        other => {
            return match number(other) {
                Some(id) if rest.is_empty() => Ok(TournamentCommand::Info(Some(id))),
                _ => Err(format!(
                    "\"{}\" is not create, join, leave, start, withdraw, standings, info, list \
                     or creators.",
                    inert(other)
                )),
            };
        }
    })
}

/// `create "Name" [game] [roundrobin|double|swiss N rounds] [N days] [rated|casual] [max N]
/// [start in 2d | start 2026-01-10 18:00] [round N days]`.
fn parse_create(args: &[&str]) -> Result<TournamentRequest, String> {
    let quoted = args.first().is_some_and(|w| w.starts_with('"'));
    let (name, rest) = if quoted {
        let text = args.join(" ");
        let inner = &text[1..];
        let end = inner
            .find('"')
            .ok_or_else(|| String::from("The name needs its closing quote."))?;
        let after = inner[end + 1..].split_whitespace().count();
        (cleaned(inner[..end].trim()), &args[args.len() - after..])
    } else {
        match args.split_first() {
            Some((name, rest)) => (cleaned(name), rest),
            None => return Err(String::from("Give the tournament a name.")),
        }
    };
    let mut request = TournamentRequest {
        name,
        variant: Variant::Chak,
        format: Format::RoundRobin,
        rounds: None,
        days: None,
        rated: None,
        start: StartTime::Manual,
        max_players: None,
        round_days: None,
    };
    let words: Vec<String> = rest.iter().map(|w| w.to_ascii_lowercase()).collect();
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    let days_unit = |w: &str| matches!(w, "days" | "day" | "d");
    let mut i = 0;
    while i < words.len() {
        let w = word(i);
        let next = word(i + 1);
        i += 1;
        if let Some(variant) = Variant::from_name(w) {
            request.variant = variant;
            continue;
        }
        match w {
            "roundrobin" | "rr" | "round-robin" | "allplayall" => {
                request.format = Format::RoundRobin;
            }
            "round" if next == "robin" => {
                request.format = Format::RoundRobin;
                i += 1;
            }
            "double" | "doubleroundrobin" | "drr" => {
                request.format = Format::Double;
                if next == "round" && word(i + 1) == "robin" {
                    i += 2;
                } else if next == "roundrobin" {
                    i += 1;
                }
            }
            "swiss" => {
                request.format = Format::Swiss;
                if let Some(n) = number(next) {
                    request.rounds = Some(n);
                    i += 1;
                    if matches!(word(i), "rounds" | "round") {
                        i += 1;
                    }
                }
            }
            "rated" => request.rated = Some(true),
            "casual" | "unrated" => request.rated = Some(false),
            "max" | "maximum" | "players" => {
                request.max_players =
                    Some(number(next).ok_or("Give the most players, like `max 8`.")?);
                i += 1;
                if word(i) == "players" {
                    i += 1;
                }
            }
            "round" | "deadline" => {
                let days = number(next).ok_or("Give a round's days, like `round 10 days`.")?;
                request.round_days = Some(days);
                i += 1;
                if days_unit(word(i)) {
                    i += 1;
                }
            }
            "start" | "starts" => {
                let (start, used) = parse_start(&words[i..])?;
                request.start = start;
                i += used;
            }
            _ => match (number(w), next) {
                (Some(n), unit) if days_unit(unit) => {
                    request.days = Some(n);
                    i += 1;
                }
                (Some(n), "rounds" | "round") => {
                    request.rounds = Some(n);
                    i += 1;
                }
                (Some(n), "players") => {
                    request.max_players = Some(n);
                    i += 1;
                }
                _ => match w.strip_suffix('d').and_then(number) {
                    Some(n) => request.days = Some(n),
                    None => return Err(format!("I don't understand \"{}\" here.", inert(w))),
                },
            },
        }
    }
    Ok(request)
}

/// The words after `start`: `in 2d 12h`, `2026-01-10 18:00` (UTC), `2026-01-10` (00:00
/// UTC) or `manual`; with how many words they took.
fn parse_start(words: &[String]) -> Result<(StartTime, usize), String> {
    let problem = || {
        String::from(
            "Write the start as `start in 2d` (or `2d 12h`), or `start 2026-01-10 18:00` (UTC).",
        )
    };
    match words.first().map(String::as_str) {
        Some("manual" | "manually") => Ok((StartTime::Manual, 1)),
        Some("in") => {
            let used = words[1..]
                .iter()
                .take_while(|w| parse_span(w).is_some())
                .count();
            let span = parse_span(&words[1..=used].join(" ")).ok_or_else(problem)?;
            Ok((StartTime::In(span), used + 1))
        }
        Some(date) => {
            let time = words.get(1).filter(|w| w.contains(':'));
            let text = format!("{date}T{}", time.map_or("00:00", String::as_str));
            let at = text
                .parse::<jiff::civil::DateTime>()
                .ok()
                .and_then(|dt| dt.to_zoned_datetime(jiff::tz::TimeZone::UTC).ok())
                .ok_or_else(problem)?;
            Ok((
                StartTime::At(at.timestamp().as_second()),
                1 + usize::from(time.is_some()),
            ))
        }
        None => Err(problem()),
    }
}

/// Runs a `tournament` command.
///
/// # Errors
/// The service's refusal.
pub(super) async fn execute(
    service: &Service,
    incoming: &Incoming,
    command: TournamentCommand,
) -> Result<Vec<Reply>, ServiceError> {
    let (place, user) = (&incoming.place, &incoming.user);
    let manager = incoming.manager;
    let reply = match command {
        TournamentCommand::List => Reply::private(list_text(&service.tournaments(place).await?)),
        TournamentCommand::Create(request) => {
            let info = service
                .create_tournament(place, user, manager, &request)
                .await?;
            let mut reply = Reply::text(created_text(&info));
            reply.tournament = Some(info.id);
            reply
        }
        TournamentCommand::Join(id) => {
            let info = service.join_tournament(place, user, id).await?;
            Reply::text(format!(
                "{} joined tournament {info}. {}",
                user.name,
                players_text(&info)
            ))
        }
        TournamentCommand::Leave(id) => {
            let info = service.leave_tournament(place, user, id).await?;
            Reply::text(format!(
                "{} left tournament {info}. {}",
                user.name,
                players_text(&info)
            ))
        }
        TournamentCommand::Start(id) => {
            let info = service.start_tournament(place, user, manager, id).await?;
            Reply::text(
                format!(
                    "Tournament {info} has started with {} players{}. The pairings follow{}.",
                    info.players.len(),
                    match info.format {
                        Format::Swiss => format!(", round 1 of {}", info.rounds),
                        Format::RoundRobin | Format::Double => format!(
                            ": every game of its {} rounds starts now, each with its own clock",
                            info.rounds
                        ),
                    },
                    if info.place.channel == place.channel {
                        String::new()
                    } else {
                        String::from(" in its thread")
                    },
                ) + page_line(&info).as_str(),
            )
        }
        TournamentCommand::Withdraw(id) => {
            let done = service.withdraw_from_tournament(place, user, id).await?;
            Reply::text(withdrawn_text(&done))
        }
        TournamentCommand::Standings(id) => {
            let standings = service.tournament_standings(place, id).await?;
            standings_reply(service, &standings, &standings_title(&standings)).await
        }
        TournamentCommand::Info(id) => {
            let info = service.tournament(place, id).await?;
            Reply::private(info_text(&info))
        }
        TournamentCommand::Creators(change) => {
            let anyone = match change {
                Some(_) if !manager => return Err(ServiceError::NotAManager),
                Some(anyone) => {
                    service.set_anyone_creates(place, anyone).await?;
                    anyone
                }
                None => service.anyone_creates(place).await?,
            };
            Reply::private(if anyone {
                "Anyone here can create tournaments (`tournament creators managers` to change it)."
            } else {
                "Only this community's managers can create tournaments here (`tournament \
                 creators anyone` to change it)."
            })
        }
    };
    Ok(vec![reply])
}

/// The terms a tournament's name (`#1 "Cup" (Chak, Swiss)`) does not already give.
fn terms_text(info: &TournamentInfo) -> String {
    let mut text = match info.format {
        Format::Swiss => format!("{}, ", plural(info.rounds, "round")),
        Format::RoundRobin | Format::Double => String::new(),
    };
    text.push_str(&format!(
        "{} per move, {}",
        plural(info.days_per_move, "day"),
        if info.rated { "rated" } else { "casual" }
    ));
    if let Some(max) = info.max_players {
        text.push_str(&format!(", at most {max} players"));
    }
    if let Some(days) = info.round_days {
        text.push_str(&format!(", {} per round", plural(days, "day")));
    }
    text
}

fn created_text(info: &TournamentInfo) -> String {
    let start = match info.starts_at {
        Some(at) => format!(
            "It starts at {} if at least 3 have joined; {} can also start it earlier with \
             `tournament start {}`.",
            format_utc(at),
            info.organiser,
            info.id
        ),
        None => format!(
            "{} starts it with `tournament start {}` once at least 3 have joined.",
            info.organiser, info.id
        ),
    };
    format!(
        "Tournament {info} is open: {}. Join with `tournament join {}`. {start}{}",
        terms_text(info),
        info.id,
        page_line(info)
    )
}

/// A line linking to the tournament's page, when the pages are served.
pub(super) fn page_line(info: &TournamentInfo) -> String {
    info.page
        .as_ref()
        .map(|page| format!("\nThe tournament's page: {page}"))
        .unwrap_or_default()
}

fn players_text(info: &TournamentInfo) -> String {
    let names: Vec<&str> = info.players.iter().map(|e| e.user.name.as_str()).collect();
    match names.len() {
        0 => String::from("Nobody has joined yet."),
        n => format!("{}: {}.", plural(n, "player"), names.join(", ")),
    }
}

fn withdrawn_text(done: &Withdrawal) -> String {
    let games: Vec<String> = done.ended.iter().map(|id| format!("#{id}")).collect();
    let one = games.len() == 1;
    let what = match (done.annulled, games.is_empty()) {
        (true, true) => String::from(
            "They had played fewer than half of their games, so all their results are \
             annulled: their games count for no one.",
        ),
        (true, false) => format!(
            "They had played fewer than half of their games, so all their results are \
             annulled: their games count for no one, and {} {} without a result.",
            games.join(", "),
            if one { "ends" } else { "end" }
        ),
        (false, true) => String::from("No game of theirs was still going."),
        (false, false) => format!(
            "Their unfinished {} {} {} forfeited: their opponents win.",
            if one { "game" } else { "games" },
            games.join(", "),
            if one { "is" } else { "are" }
        ),
    };
    format!(
        "{} withdrew from tournament {}. {what}",
        done.player, done.tournament
    )
}

fn state_text(info: &TournamentInfo) -> String {
    match info.state {
        TournamentState::Open => match info.starts_at {
            Some(at) => format!("open for joining, starts {}", format_utc(at)),
            None => String::from("open for joining"),
        },
        TournamentState::Running => match info.format {
            Format::Swiss => format!("round {} of {}", info.current_round, info.rounds),
            Format::RoundRobin | Format::Double => String::from("being played"),
        },
        TournamentState::Finished => String::from("over"),
        TournamentState::Cancelled => String::from("cancelled"),
    }
}

fn list_text(infos: &[TournamentInfo]) -> String {
    if infos.is_empty() {
        return String::from(
            "There are no tournaments here yet. Create one with `tournament create \"Autumn \
             Chak\" chak roundrobin 3 days`.",
        );
    }
    let mut text = String::from("Tournaments here:");
    for info in infos {
        text.push_str(&format!(
            "\n{info}: {}, {}, {}",
            state_text(info),
            plural(info.players.len(), "player"),
            if info.rated { "rated" } else { "casual" }
        ));
    }
    text
}

fn info_text(info: &TournamentInfo) -> String {
    let mut text = format!(
        "Tournament {info}: {}; {}. Organiser: {}.",
        terms_text(info),
        state_text(info),
        info.organiser
    );
    if let Some(deadline) = info.round_deadline {
        text.push_str(&format!(" This round ends by {}.", format_utc(deadline)));
    }
    if info.players.is_empty() {
        text.push_str(" Nobody has joined yet.");
    } else {
        text.push_str(" Players:");
        for entrant in &info.players {
            text.push_str(&format!("\n{}", entrant.user.name));
            if let Some(seed) = entrant.seed {
                text.push_str(&format!(" (seed {seed})"));
            }
            if entrant.annulled {
                text.push_str(" (withdrawn: results annulled)");
            } else if entrant.withdrawn.is_some() {
                text.push_str(" (withdrawn)");
            }
        }
    }
    text.push_str(&page_line(info));
    text
}

fn standings_title(standings: &Standings) -> String {
    let info = &standings.tournament;
    let progress = match info.format {
        Format::Swiss => format!(
            "after round {} of {}",
            standings.complete_rounds, info.rounds
        ),
        Format::RoundRobin | Format::Double => format!(
            "with {} of {} games finished",
            standings.games_finished, standings.games_total
        ),
    };
    format!("Standings of tournament {info} {progress}:")
}

/// The standings as text lines: rank, name, points, games and tie-breaks.
#[must_use]
pub fn standings_text(standings: &Standings) -> String {
    let names = standings.tie_breaks.names();
    let mut text = String::new();
    for line in &standings.lines {
        let tie_breaks: Vec<String> = names
            .iter()
            .zip(&line.tie_breaks)
            .map(|(name, &value)| format!("{name} {}", tie_break_text(value)))
            .collect();
        let rank = if line.annulled {
            String::from("-")
        } else {
            format!("{}.", line.rank)
        };
        text.push_str(&format!(
            "\n{rank} {}{}: {} pts, {}, {}",
            line.name,
            line.withdrawal_note(),
            points_text(line.points),
            plural(line.games, "game"),
            tie_breaks.join(", ")
        ));
    }
    text
}

async fn standings_picture(service: &Service, standings: &Standings) -> Option<Picture> {
    let image = match service.standings_image(standings).await {
        Ok(image) => image,
        Err(error) => {
            tracing::warn!(
                tournament = standings.tournament.id,
                %error,
                "the standings picture could not be drawn"
            );
            return None;
        }
    };
    Some(Picture {
        name: format!(
            "tournament-{}-standings-{}.png",
            standings.tournament.id, standings.games_finished
        ),
        data: image.data,
        mime: image.mime,
        size: image.size,
    })
}

/// The standings under `title`, as text with the table as a picture.
pub(super) async fn standings_reply(
    service: &Service,
    standings: &Standings,
    title: &str,
) -> Reply {
    Reply::text(format!(
        "{title}{}{}",
        standings_text(standings),
        page_line(&standings.tournament)
    ))
    .with_picture(standings_picture(service, standings).await)
}

/// A round's pairings (every round of a round robin), the players mentioned.
pub(super) fn round_reply(info: &TournamentInfo, pairings: &[RoundGames]) -> Reply {
    let lead = match info.format {
        Format::Swiss => format!(
            "Tournament {info}, round {} of {} is paired ({} per move):",
            pairings.first().map_or(info.current_round, |r| r.round),
            info.rounds,
            plural(info.days_per_move, "day")
        ),
        Format::RoundRobin | Format::Double => format!(
            "Tournament {info} has started: every game starts now, each with its own clock \
             ({} per move).",
            plural(info.days_per_move, "day")
        ),
    };
    let mut reply = Reply::text(lead);
    for round in pairings {
        if info.format != Format::Swiss {
            reply = reply.and(format!("\nRound {}:", round.round));
        }
        for game in &round.games {
            reply = reply
                .and(format!("\n#{} ", game.game))
                .mention(game.white.clone())
                .and(" (White) vs ")
                .mention(game.black.clone());
        }
        if let Some(bye) = &round.bye {
            reply = reply.and("\nBye (a point, no game): ").mention(bye.clone());
        }
    }
    reply.and(if info.format == Format::Swiss {
        "\nThe next round is paired when every game of this one has ended."
    } else {
        "\nPlay each game with its number, like `move #12 e4`."
    })
}

/// The end of a tournament: the winner(s) and the final standings.
pub(super) async fn over_reply(service: &Service, standings: &Standings) -> Reply {
    let winners: Vec<&str> = standings
        .lines
        .iter()
        .filter(|line| line.rank == 1 && !line.annulled)
        .map(|line| line.name.as_str())
        .collect();
    let points = standings.lines.first().map_or(0, |line| line.points);
    let lead = match winners.as_slice() {
        [] => format!("Tournament {} is over.", standings.tournament),
        [winner] => format!(
            "Tournament {} is over. The winner is {winner} with {} points! Final standings:",
            standings.tournament,
            points_text(points)
        ),
        several => format!(
            "Tournament {} is over. {} share first place with {} points! Final standings:",
            standings.tournament,
            several.join(" and "),
            points_text(points)
        ),
    };
    standings_reply(service, standings, &lead).await
}

/// A start time that came with too few players.
pub(super) fn postponed_reply(info: &TournamentInfo) -> Reply {
    Reply::text(format!(
        "Tournament {info} could not start at its start time: it has {} and needs \
         at least 3. {} can start it with `tournament start {}` once enough have joined.",
        plural(info.players.len(), "player"),
        info.organiser,
        info.id
    ))
}

/// The title of daily standings.
pub(super) fn daily_title(standings: &Standings) -> String {
    standings_title(standings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_reads_name_game_format_and_options() {
        let words = [
            "\"Autumn", "Chak\"", "chak", "swiss", "5", "rounds", "3", "days", "casual", "max",
            "8", "start", "in", "2d", "round", "10", "days",
        ];
        let TournamentCommand::Create(request) =
            parse(&["create"].iter().chain(&words).copied().collect::<Vec<_>>()).expect("parses")
        else {
            panic!("not a create");
        };
        assert_eq!(request.name, "Autumn Chak");
        assert_eq!(request.variant, Variant::Chak);
        assert_eq!(request.format, Format::Swiss);
        assert_eq!(request.rounds, Some(5));
        assert_eq!(request.days, Some(3));
        assert_eq!(request.rated, Some(false));
        assert_eq!(request.max_players, Some(8));
        assert_eq!(request.start, StartTime::In(2 * 86_400));
        assert_eq!(request.round_days, Some(10));
    }

    #[test]
    fn subcommands_take_a_number() {
        assert_eq!(parse(&[]), Ok(TournamentCommand::List));
        assert_eq!(parse(&["join", "#2"]), Ok(TournamentCommand::Join(Some(2))));
        assert_eq!(
            parse(&["standings"]),
            Ok(TournamentCommand::Standings(None))
        );
        assert_eq!(parse(&["3"]), Ok(TournamentCommand::Info(Some(3))));
        assert!(parse(&["dance"]).is_err());
        let Ok(TournamentCommand::Create(request)) = parse(&[
            "create",
            "Cup",
            "shakti",
            "double",
            "round",
            "robin",
            "start",
            "2026-01-10",
            "18:00",
        ]) else {
            panic!("a create");
        };
        assert_eq!(request.format, Format::Double);
        assert_eq!(request.start, StartTime::At(1_768_068_000));
    }
}
