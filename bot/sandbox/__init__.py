"""The offline Discord and the local playground.

- :mod:`bot.sandbox.fakecord` -- :class:`~bot.sandbox.fakecord.FakeDiscord`, a fake Discord (REST API and
  gateway websocket on 127.0.0.1) that runs the real, unmodified discord.py bot end to end and enforces
  Discord's limits (see ``docs/DISCORD.md``), so a violation fails a test instead of passing silently.
- :mod:`bot.sandbox.play` -- the terminal playground behind ``make play``: the real bot against the fake,
  driven by typed commands as one of several fake members.
"""
