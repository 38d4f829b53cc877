"""Pure game logic: dice and notation, rulebooks, games. Imports nothing beyond numpy."""
