//! PLACEHOLDER on the base branch only: the real Chak module is being written on main.
#![allow(clippy::todo, missing_docs)]
use super::{
    BoardView, Color, Coord, MoveError, MoveMarks, Outcome, Position, PositionError, Variant,
};

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Chak;

impl Position for Chak {
    type Move = u32;
    const VARIANT: Variant = Variant::Chak;
    fn start() -> Self {
        todo!()
    }
    fn from_text(_: &str) -> Result<Self, PositionError> {
        todo!()
    }
    fn to_text(&self) -> String {
        todo!()
    }
    fn turn(&self) -> Color {
        todo!()
    }
    fn legal_moves(&self) -> Vec<u32> {
        todo!()
    }
    fn play(&self, _: &u32) -> Self {
        todo!()
    }
    fn in_check(&self) -> bool {
        todo!()
    }
    fn checked_kings(&self) -> Vec<Coord> {
        todo!()
    }
    fn board_view(&self) -> BoardView {
        todo!()
    }
    fn move_marks(&self, _: &u32) -> MoveMarks {
        todo!()
    }
    fn outcome(&self) -> Option<Outcome> {
        todo!()
    }
    fn repetition_key(&self) -> Option<String> {
        todo!()
    }
    fn move_text(&self, _: &u32) -> String {
        todo!()
    }
    fn display_move(&self, _: &u32) -> String {
        todo!()
    }
    fn parse_move(&self, _: &str) -> Result<u32, MoveError> {
        todo!()
    }
}
