"""Pure rules engines for every game, behind one protocol (see ``engines.base``).

Only the standard library may be imported here: engines know nothing of Discord,
SQLite or Pillow (design §2).
"""
