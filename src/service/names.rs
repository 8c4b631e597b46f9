//! Names typed without `@` (`challenge uma`, `stats tom`): the player they mean among those
//! known in the community, and the closest texts to a typo for "did you mean".

use super::{Place, Service, ServiceError, User};

/// The options closest to `typed` (ignoring case), best first, at most `limit`: those within
/// a third of their length in edits (at least one, at most three), or that start with it.
#[must_use]
pub fn closest<'a>(
    typed: &str,
    options: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Vec<&'a str> {
    let typed = typed.to_lowercase();
    let allowed = (typed.chars().count() / 3).clamp(1, 3);
    let mut near: Vec<(usize, &str)> = options
        .into_iter()
        .filter_map(|option| {
            let lower = option.to_lowercase();
            let edits = strsim::damerau_levenshtein(&typed, &lower);
            let prefix = typed.chars().count() >= 2 && lower.starts_with(&typed);
            (edits <= allowed || prefix).then_some((if prefix { 0 } else { edits }, option))
        })
        .collect();
    near.sort_by_key(|&(edits, option)| (edits, option.len(), option));
    near.dedup_by_key(|(_, option)| option.to_lowercase());
    near.into_iter()
        .take(limit)
        .map(|(_, option)| option)
        .collect()
}

impl Service {
    /// The player `name` (without `@`, any case) means in `place`'s community: the one player
    /// known there by that display name (or platform id).
    ///
    /// # Errors
    /// [`ServiceError::NoSuchPlayer`] with the closest names when nobody there has it,
    /// [`ServiceError::SeveralPlayers`] when more than one has, or `Internal`.
    pub async fn find_player(&self, place: &Place, name: &str) -> Result<User, ServiceError> {
        let name = name.trim_start_matches('@');
        if let Some(bot) = self.bot(&place.platform)
            && (bot.name.eq_ignore_ascii_case(name) || bot.id.eq_ignore_ascii_case(name))
        {
            return Ok(bot);
        }
        let players = self
            .store
            .players_in(&place.platform, &place.community)
            .await?;
        let named: Vec<_> = players
            .iter()
            .filter(|p| {
                p.display_name.eq_ignore_ascii_case(name)
                    || p.platform_id.eq_ignore_ascii_case(name)
            })
            .collect();
        match named.as_slice() {
            [one] => Ok(User::new(
                &one.platform,
                &one.platform_id,
                &one.display_name,
            )),
            [] => {
                let names = players.iter().map(|p| p.display_name.as_str());
                let candidates = closest(name, names, 5)
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                Err(ServiceError::NoSuchPlayer {
                    name: name.to_owned(),
                    candidates,
                })
            }
            many => Err(ServiceError::SeveralPlayers {
                name: name.to_owned(),
                count: many.len(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn closest_options_forgive_small_typos() {
        let commands = [
            "challenge",
            "accept",
            "decline",
            "cancel",
            "resign",
            "rematch",
            "moves",
        ];
        assert_eq!(closest("chalenge", commands, 3), ["challenge"]);
        assert_eq!(closest("resing", commands, 3), ["resign"]);
        assert_eq!(closest("acept", commands, 3), ["accept"]);
        assert_eq!(closest("rem", commands, 3), ["rematch"]);
        assert!(closest("frobnicate", commands, 3).is_empty());
        assert_eq!(closest("Uma", ["uma", "Uma", "umar"], 5), ["Uma", "umar"]);
    }
}
