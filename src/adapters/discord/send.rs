//! Replies turned into Discord messages: markdown escaping, mentions, pictures, buttons,
//! and the refusals for missing permissions.

use serenity::all::{
    ButtonStyle, ChannelId, CreateActionRow, CreateAllowedMentions, CreateAttachment, CreateButton,
    CreateInteractionResponseFollowup, CreateMessage, EditInteractionResponse, Http, Message,
    UserId,
};
use tracing::warn;

use super::commands::short;
use super::{PLATFORM, redacted};
use crate::chat::{Part, Reply, Style};
use crate::service::User;

/// Discord's longest message.
pub(super) const MAX_CONTENT: usize = 2000;

/// A reply, ready for Discord.
#[derive(Debug)]
pub(super) struct Outgoing {
    pub(super) content: String,
    pub(super) pings: Vec<UserId>,
    pub(super) picture: Option<CreateAttachment>,
    pub(super) buttons: Vec<CreateActionRow>,
    pub(super) private: bool,
}

/// Turns a reply into Discord's terms: text and names escaped for markdown (only the
/// command examples between backticks stay code), mentions as `<@id>` pinging exactly those
/// users, the picture as an attachment, actions as buttons.
pub(super) fn outgoing(reply: &Reply) -> Outgoing {
    let mut content = String::new();
    let mut pings = Vec::new();
    for part in &reply.parts {
        match part {
            Part::Text(text) => content.push_str(&markdown_escaped(text, true)),
            Part::Mention(user) => match discord_id(user) {
                Some(id) => {
                    content.push_str(&format!("<@{id}>"));
                    pings.push(id);
                }
                None => content.push_str(&markdown_escaped(&user.name, false)),
            },
            Part::Name(user) => content.push_str(&markdown_escaped(&user.name, false)),
            Part::Channel(channel) if channel.parse::<u64>().is_ok() => {
                content.push_str(&format!("<#{channel}>"));
            }
            Part::Channel(channel) => content.push_str(&markdown_escaped(channel, false)),
        }
    }
    Outgoing {
        content: fit(content),
        pings,
        picture: reply
            .picture
            .as_ref()
            .map(|picture| CreateAttachment::bytes(picture.data.clone(), picture.name.clone())),
        buttons: buttons(reply),
        private: reply.private,
    }
}

/// `text` with every character that Discord's markdown reads as formatting (bold, italics,
/// strikethrough, spoilers, code), as a masked link (`[label](url)`), as a mention or channel
/// link (`<@id>`, `<#id>`, `@everyone`), or at the start of a line as a heading, list or quote
/// escaped with a backslash, so it shows as written. With `code`, a pair of backticks around
/// a command example (the bot's own, see [`Part::Text`]) is kept as code; else every
/// backtick is escaped too.
///
/// serenity's own helpers leave masked links and channel links alone (`push_safe`) or need
/// its cache (`content_safe`), hence this.
pub(super) fn markdown_escaped(text: &str, code: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut line_start = true;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '`'
            && code
            && let Some(end) = rest[1..].find('`')
        {
            let span = &rest[..end + 2];
            out.push_str(span);
            rest = &rest[span.len()..];
            line_start = false;
            continue;
        }
        let always = matches!(
            c,
            '\\' | '*' | '_' | '~' | '|' | '`' | '[' | ']' | '<' | '@'
        );
        if always || (line_start && matches!(c, '#' | '>' | '-')) {
            out.push('\\');
        }
        out.push(c);
        line_start = c == '\n' || (line_start && (c == ' ' || c == '\t'));
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Content cut to Discord's longest message.
pub(super) fn fit(content: String) -> String {
    if content.chars().count() > MAX_CONTENT {
        short(&content, MAX_CONTENT - 1) + "…"
    } else {
        content
    }
}

pub(super) fn discord_id(user: &User) -> Option<UserId> {
    if user.platform != PLATFORM {
        return None;
    }
    user.id
        .parse::<u64>()
        .ok()
        .filter(|n| *n != 0)
        .map(UserId::new)
}

pub(super) fn buttons(reply: &Reply) -> Vec<CreateActionRow> {
    let buttons: Vec<CreateButton> = reply
        .actions
        .iter()
        .filter(|action| action.command.len() <= 100)
        .map(|action| {
            CreateButton::new(action.command.clone())
                .label(action.label.clone())
                .style(match action.style {
                    Style::Primary => ButtonStyle::Primary,
                    Style::Secondary => ButtonStyle::Secondary,
                    Style::Danger => ButtonStyle::Danger,
                })
        })
        .collect();
    buttons
        .chunks(5)
        .take(5)
        .map(|row| CreateActionRow::Buttons(row.to_vec()))
        .collect()
}

pub(super) fn allowed(pings: &[UserId]) -> CreateAllowedMentions {
    CreateAllowedMentions::new().users(pings.iter().copied())
}

/// Fills one of serenity's message builders (they share their setters, not a trait).
macro_rules! filled {
    ($builder:expr, $out:expr, $attach:ident) => {{
        let out: Outgoing = $out;
        let builder = $builder
            .content(out.content)
            .allowed_mentions(allowed(&out.pings))
            .components(out.buttons);
        match out.picture {
            Some(picture) => builder.$attach(picture),
            None => builder,
        }
    }};
}

pub(super) fn message_of(out: Outgoing) -> CreateMessage {
    filled!(CreateMessage::new(), out, add_file)
}

pub(super) fn edit_of(out: Outgoing) -> EditInteractionResponse {
    filled!(EditInteractionResponse::new(), out, new_attachment)
}

pub(super) fn followup_of(out: Outgoing) -> CreateInteractionResponseFollowup {
    let private = out.private;
    filled!(
        CreateInteractionResponseFollowup::new().ephemeral(private),
        out,
        add_file
    )
}

/// The Discord error code of a failed request.
pub(super) fn error_code(error: &serenity::Error) -> Option<isize> {
    match error {
        serenity::Error::Http(serenity::http::HttpError::UnsuccessfulRequest(response)) => {
            Some(response.error.code)
        }
        _ => None,
    }
}

/// What to tell people when Discord refused something in `channel` (such as "this channel")
/// for lack of a permission, naming it.
pub(super) fn permission_problem(
    error: &serenity::Error,
    permission: &str,
    doing: &str,
    channel: &str,
) -> Option<String> {
    match error_code(error)? {
        50013 => Some(format!(
            "I couldn't {doing}: I need the **{permission}** permission in {channel}. Ask a \
             server admin to grant it."
        )),
        50001 => Some(format!(
            "I couldn't {doing}: I can't see {channel}. Ask a server admin to give me \
             **View Channel** and **{permission}** there."
        )),
        _ => None,
    }
}

/// A short public note of the adapter's own (a missing permission, in bold): its markdown is
/// meant, so it is not escaped.
pub(super) fn notice(text: String) -> Outgoing {
    Outgoing {
        content: fit(text),
        pings: Vec::new(),
        picture: None,
        buttons: Vec::new(),
        private: false,
    }
}

/// Sends a message to a channel. When Discord refuses the picture for lack of Attach Files,
/// the text goes without it and says so. A refusal is logged, naming the permission missing.
pub(super) async fn send(
    http: &Http,
    channel: ChannelId,
    out: Outgoing,
) -> serenity::Result<Message> {
    let without_picture = out.picture.is_some().then(|| Outgoing {
        content: out.content.clone()
            + "\n(I need the **Attach Files** permission here to show the board.)",
        pings: out.pings.clone(),
        picture: None,
        buttons: out.buttons.clone(),
        private: out.private,
    });
    let sent = match (
        channel.send_message(http, message_of(out)).await,
        without_picture,
    ) {
        (Err(error), Some(text)) if error_code(&error) == Some(50013) => {
            channel.send_message(http, message_of(text)).await
        }
        (sent, _) => sent,
    };
    if let Err(error) = &sent {
        match permission_problem(error, "Send Messages", "write", "this channel") {
            Some(problem) => warn!(%channel, problem, "Discord refused a message"),
            None => warn!(%channel, error = %redacted(&error), "sending a message failed"),
        }
    }
    sent
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_ping_only_the_named_users() {
        let reply = Reply::text("Your move, ")
            .mention(User::new(PLATFORM, "42", "alice"))
            .and(" and ")
            .name(User::new(PLATFORM, "43", "bob"), false);
        let out = outgoing(&reply);
        assert_eq!(out.content, "Your move, <@42> and bob");
        assert_eq!(out.pings, [UserId::new(42)]);
    }

    #[test]
    fn user_text_is_escaped_and_command_examples_stay_code() {
        let hostile = User::new(PLATFORM, "43", "[free](https://evil.example) **x**");
        let reply = Reply::text("Challenge #1: ")
            .name(hostile, false)
            .and(" says \"<#1> @everyone ~~a~~ ||b|| _c_\". Reply `draw #2 accept` or `help`.")
            .and("\n# big\n> quote\n  - list, 3-2 > 1 # not a heading");
        let out = outgoing(&reply);
        assert_eq!(
            out.content,
            "Challenge #1: \\[free\\](https://evil.example) \\*\\*x\\*\\* says \"\\<#1> \\@everyone \
             \\~\\~a\\~\\~ \\|\\|b\\|\\| \\_c\\_\". Reply `draw #2 accept` or `help`.\n\\# big\n\\> quote\n  \
             \\- list, 3-2 > 1 # not a heading"
        );
        assert!(out.pings.is_empty());
        assert_eq!(markdown_escaped("a `b` c", false), "a \\`b\\` c");
        assert_eq!(markdown_escaped("lone ` tick", true), "lone \\` tick");
        assert_eq!(markdown_escaped("back\\slash", true), "back\\\\slash");
    }
}
