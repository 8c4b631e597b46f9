//! Matrix text both ways: replies as plain and HTML bodies with pills, and messages read
//! as command text.

use matrix_sdk::ruma::{OwnedUserId, UserId};

use super::send::where_is;
use crate::chat::{Part, Reply};
use crate::markup::escape_html;

/// A reply as Matrix text: the plain body, the HTML body with a pill per mention and
/// `<code>` for the bot's own backticks (command examples), and the users it mentions (for
/// `m.mentions`).
#[must_use]
pub fn render(reply: &Reply) -> (String, String, Vec<OwnedUserId>) {
    let (mut body, mut html, mut mentioned) = (String::new(), String::new(), Vec::new());
    let mut in_code = false;
    for part in &reply.parts {
        match part {
            Part::Text(text) => {
                body.push_str(text);
                for (i, piece) in text.split('`').enumerate() {
                    if i > 0 {
                        html.push_str(if in_code { "</code>" } else { "<code>" });
                        in_code = !in_code;
                    }
                    html.push_str(&escape_html(piece));
                }
            }
            Part::Mention(user) => {
                body.push_str(&user.name);
                match UserId::parse(&user.id) {
                    Ok(id) => {
                        html.push_str(&format!(
                            "<a href=\"https://matrix.to/#/{}\">{}</a>",
                            escape_html(id.as_str()),
                            escape_html(&user.name)
                        ));
                        if !mentioned.contains(&id) {
                            mentioned.push(id);
                        }
                    }
                    Err(_) => html.push_str(&escape_html(&user.name)),
                }
            }
            Part::Name(user) => {
                body.push_str(&user.name);
                html.push_str(&escape_html(&user.name));
            }
            Part::Channel(channel) => {
                // A thread's channel (`!room:server/$root`) links to its root message.
                let name = match where_is(channel) {
                    Some((_, Some(_))) => "the game's thread",
                    _ => channel.as_str(),
                };
                body.push_str(name);
                html.push_str(&format!(
                    "<a href=\"https://matrix.to/#/{}\">{}</a>",
                    escape_html(channel),
                    escape_html(name)
                ));
            }
        }
    }
    if in_code {
        html.push_str("</code>");
    }
    (body, html.replace('\n', "<br>"), mentioned)
}

/// A message's HTML body as command text: a pill becomes the `@user:server` it links to,
/// a reply's quote (`<mx-reply>`) is dropped, other tags are dropped and entities decoded.
#[must_use]
pub fn html_to_text(html: &str) -> String {
    let mut html = html;
    if let Some(start) = html.find("<mx-reply>")
        && let Some(end) = html[start..].find("</mx-reply>")
    {
        let rest = &html[start + end + "</mx-reply>".len()..];
        html = rest;
    }
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('>') else {
            rest = &rest[open..];
            break;
        };
        let tag = &rest[open + 1..open + close];
        rest = &rest[open + close + 1..];
        let name = tag
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if name == "a"
            && let Some(id) = pill_target(tag)
        {
            // The link text is the display name; the command text wants the id.
            let end = rest.find("</a>").unwrap_or(rest.len());
            out.push_str(&id);
            rest = rest.get(end + "</a>".len()..).unwrap_or("");
        } else if matches!(name.as_str(), "br" | "br/" | "p" | "/p" | "div" | "/div") {
            out.push('\n');
        }
    }
    out.push_str(rest);
    decode_entities(&out)
}

/// The user a link points to when it is a pill (`https://matrix.to/#/@user:server`).
fn pill_target(tag: &str) -> Option<String> {
    let start = tag.find("href=")? + "href=".len();
    let quoted = &tag[start..];
    let quote = quoted.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let link = &quoted[1..];
    let link = &link[..link.find(quote)?];
    let target = link.strip_prefix("https://matrix.to/#/")?;
    let target = target.split(['?', '/']).next()?;
    let target = target
        .replace("%40", "@")
        .replace("%3A", ":")
        .replace("%3a", ":");
    UserId::parse(&target).ok().map(|id| id.to_string())
}

fn decode_entities(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
}

/// A message read for the bot.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Read {
    /// The text without the prefix or the leading mention of the bot.
    pub text: String,
    /// Whether it was addressed to the bot.
    pub addressed: bool,
    /// Whether a leading mention of the bot addressed it.
    pub by_mention: bool,
    /// The `@user:server` words of the text, in order.
    pub mentions: Vec<OwnedUserId>,
}

/// Reads a message's command text: the prefix (any case) or a leading `@bot:server` addresses
/// the bot, and so does any message in a direct chat (`direct`).
#[must_use]
pub fn read_message(text: &str, prefix: &str, own: &UserId, direct: bool) -> Read {
    let trimmed = text.trim();
    let mut addressed = direct;
    let mut by_mention = false;
    let mut rest = trimmed;
    if let Some(after) = strip_word(trimmed, prefix) {
        addressed = true;
        rest = after;
    } else if let Some(first) = trimmed.split_whitespace().next()
        && word_user(first).as_deref() == Some(own)
    {
        addressed = true;
        by_mention = true;
        rest = trimmed[first.len()..].trim_start_matches([':', ',']);
    }
    let rest = rest.trim();
    let mut mentions: Vec<OwnedUserId> = Vec::new();
    for id in rest.split_whitespace().filter_map(word_user) {
        if !mentions.contains(&id) {
            mentions.push(id);
        }
    }
    Read {
        text: rest.to_owned(),
        addressed,
        by_mention,
        mentions,
    }
}

/// `text` after a leading `word` (any case) that stands alone (followed by a space, `:` or the end).
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    if word.is_empty() {
        return None;
    }
    let head = text.get(..word.len())?;
    if !head.eq_ignore_ascii_case(word) {
        return None;
    }
    let rest = &text[word.len()..];
    match rest.chars().next() {
        None => Some(rest),
        Some(c) if c.is_whitespace() || c == ':' || c == ',' => {
            Some(rest.trim_start_matches([':', ',']))
        }
        Some(_) => None,
    }
}

/// The user a word such as `@bob:example.org,` names.
fn word_user(word: &str) -> Option<OwnedUserId> {
    let word = word.trim_end_matches([',', '.', '!', '?', ':', ';', ')']);
    if !word.starts_with('@') {
        return None;
    }
    UserId::parse(word).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::matrix::PLATFORM;
    use crate::service::User;

    fn own() -> OwnedUserId {
        UserId::parse("@pigeon:example.org").expect("valid")
    }

    #[test]
    fn the_prefix_or_a_leading_mention_addresses_the_bot() {
        let read = read_message(
            "!Pigeon challenge @bob:example.org chak",
            "!pigeon",
            &own(),
            false,
        );
        assert!(read.addressed && !read.by_mention);
        assert_eq!(read.text, "challenge @bob:example.org chak");
        assert_eq!(
            read.mentions,
            [UserId::parse("@bob:example.org").expect("valid")]
        );

        let read = read_message("@pigeon:example.org: help", "!pigeon", &own(), false);
        assert!(read.addressed && read.by_mention);
        assert_eq!(read.text, "help");
        assert!(read.mentions.is_empty());

        let read = read_message("e4", "!pigeon", &own(), false);
        assert!(!read.addressed);
        assert_eq!(read.text, "e4");
        assert!(read_message("e4", "!pigeon", &own(), true).addressed);

        let read = read_message("!pigeonry is fun", "!pigeon", &own(), false);
        assert!(!read.addressed, "a longer word is no prefix");
        let read = read_message(
            "!pigeon challenge @pigeon:example.org",
            "!pigeon",
            &own(),
            false,
        );
        assert_eq!(read.mentions, [own()], "the bot challenged");
    }

    #[test]
    fn pills_become_ids_and_quotes_go() {
        let html = "<mx-reply><blockquote>old &amp; stale</blockquote></mx-reply>\
                    <a href=\"https://matrix.to/#/@pigeon:example.org\">Pigeon</a>: challenge \
                    <a href='https://matrix.to/#/%40bob%3Aexample.org'>Bob Smith</a> chak &lt;3";
        assert_eq!(
            html_to_text(html),
            "@pigeon:example.org: challenge @bob:example.org chak <3"
        );
        assert_eq!(html_to_text("<b>e4</b>"), "e4");
        assert_eq!(
            html_to_text("<a href=\"https://example.org\">site</a>"),
            "site"
        );
    }

    #[test]
    fn replies_have_pills_and_mentions() {
        let bob = User::new(PLATFORM, "@bob:example.org", "Bob <3");
        let reply = Reply::text("Your move, ")
            .mention(bob.clone())
            .and(" & good luck")
            .name(User::new(PLATFORM, "@carol:example.org", "carol"), false);
        let (body, html, mentioned) = render(&reply);
        assert_eq!(body, "Your move, Bob <3 & good luckcarol");
        assert_eq!(
            html,
            "Your move, <a href=\"https://matrix.to/#/@bob:example.org\">Bob &lt;3</a> \
             &amp; good luckcarol"
        );
        assert_eq!(
            mentioned,
            [UserId::parse("@bob:example.org").expect("valid")]
        );
    }

    #[test]
    fn command_examples_are_code_and_threads_are_links() {
        let reply = Reply::text("Type `accept` or `decline <x>`; the game is in ")
            .channel("!room:example.org/$root1");
        let (body, html, _) = render(&reply);
        assert_eq!(
            body,
            "Type `accept` or `decline <x>`; the game is in the game's thread"
        );
        assert_eq!(
            html,
            "Type <code>accept</code> or <code>decline &lt;x&gt;</code>; the game is in \
             <a href=\"https://matrix.to/#/!room:example.org/$root1\">the game&#39;s thread</a>"
        );
        let (_, open, _) = render(&Reply::text("an unpaired ` tick"));
        assert_eq!(open, "an unpaired <code> tick</code>");
    }
}
