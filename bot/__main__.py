"""``python -m bot`` (``make run``): start the bot with the settings from ``.env``."""

from __future__ import annotations

import logging
import sys

from bot import logsafe
from bot.settings import Settings

NO_TOKEN = """\
No Discord token is configured, so the bot cannot connect.

To get one (about 2 minutes):
  1. Open https://discord.com/developers/applications and press "New Application".
  2. In "Bot", press "Reset Token" and copy the token.
  3. cp .env.example .env   and put it after DISCORD_TOKEN=
  4. make run   — the bot prints an invite link; open it to add the bot to your server.
     (No privileged intents are needed.)

To try the games offline right now, without any token:
  make play
"""


def main() -> int:
    """Run the bot; returns the process exit code (2 when no token is configured)."""
    settings = Settings.from_env()
    logging.basicConfig(level=settings.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # interaction, webhook and bot tokens never reach a log line (bot/logsafe.py)
    logsafe.install(logging.getLogger().handlers, secrets=[settings.token or ""])
    if not settings.token:
        sys.stderr.write(NO_TOKEN)
        return 2
    import aiohttp
    import discord

    from bot.app import GameBot

    bot = GameBot(settings)
    try:
        bot.run(settings.token, log_handler=None)
    except discord.LoginFailure:
        sys.stderr.write("Discord refused the token in DISCORD_TOKEN. Copy it again from the Developer "
                         "Portal (Bot → Reset Token) into .env.\n")
        return 2
    except discord.PrivilegedIntentsRequired:
        sys.stderr.write("Discord refused a privileged intent; this bot needs none. Check bot/app.py.\n")
        return 2
    except (aiohttp.ClientConnectionError, OSError) as exc:
        sys.stderr.write(f"Could not reach Discord ({exc}). Check the network; to play offline use `make play`.\n")
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
