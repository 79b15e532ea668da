"""The Discord side shared by every game, by role (docs/TEMPLATE.md "The host, by role"):
lobby, moves, notices, clock, moderation (wired in flow.py over context.HostContext),
one error path (errors.py), the ``game`` argument (arguments.py), delivery, panels,
persistent buttons and Discord's limits."""
