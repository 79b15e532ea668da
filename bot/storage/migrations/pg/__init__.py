"""PostgreSQL versions of the migrations whose SQL differs (``NNN_*.sql`` replaces the
numbered file of the same number; the others are translated: bot/storage/backend.py)."""
