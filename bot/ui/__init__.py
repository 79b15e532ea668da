"""The Discord side shared by every game: limits, delivery, persistent buttons, panels, flows."""
