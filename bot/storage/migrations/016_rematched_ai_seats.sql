-- AI seats (a synthetic user id below 0) that a rematch seated as people, without a level:
-- nobody played them and their games waited for the move timer. In the lobbies and running
-- games they play again, at the level a rematch gives an AI whose level is not known
-- (bot/service.py DEFAULT_AI_LEVEL). And the ratings stored under such ids (the first AI of
-- every game shared one row): an AI seat is not rated.
UPDATE seats SET ai_level = 'normal'
 WHERE user_id < 0 AND ai_level IS NULL
   AND game IN (SELECT id FROM games WHERE status IN ('lobby', 'active'));
DELETE FROM ratings WHERE user_id < 0;
