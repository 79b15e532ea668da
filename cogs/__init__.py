"""Discord cogs: /game (common) and one slash group per game."""
